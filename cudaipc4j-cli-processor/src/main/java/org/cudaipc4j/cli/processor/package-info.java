/**
 * Build-time code generation for {@code cudaipc4j-cli}: {@link org.cudaipc4j.cli.processor.QuickOptionsProcessor}
 * writes a command's option table from its picocli {@code @Option} declarations. Uses the JDK's compiler API only.
 */
package org.cudaipc4j.cli.processor;
