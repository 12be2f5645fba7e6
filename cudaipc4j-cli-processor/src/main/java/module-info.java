/**
 * The command line's build-time processor: the root command's option table from its {@code @Option} declarations,
 * and the annotation that asks for it. Used at compile time only, never at run time.
 */
module org.cudaipc4j.cli.processor {
    requires java.compiler;

    exports org.cudaipc4j.cli.processor;

    provides javax.annotation.processing.Processor with org.cudaipc4j.cli.processor.QuickOptionsProcessor;
}
