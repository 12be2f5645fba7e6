package org.cudaipc4j.cli.processor;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Asks {@link QuickOptionsProcessor} for the annotated command's option table: a class {@code <Command>QuickOptions}
 * beside it that names, converts and sets each {@code @Option} field without reflection.
 */
@Retention(RetentionPolicy.SOURCE)
@Target(ElementType.TYPE)
public @interface QuickOptions {}
