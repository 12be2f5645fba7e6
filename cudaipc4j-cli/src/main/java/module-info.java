/**
 * The command line (see {@link org.cudaipc4j.cli}): the entry point {@code Main}, the sample's options,
 * {@code devices}, {@code bench} and {@code interop}. Its runnable jar puts everything on the class path; this descriptor states what
 * the commands use.
 */
module org.cudaipc4j.cli {
    requires org.cudaipc4j.base; // Setting: the settings it reads
    requires org.cudaipc4j.bench;
    requires org.cudaipc4j.interop;
    requires org.cudaipc4j.nccl;
    requires static org.cudaipc4j.cli.processor; // @QuickOptions, read at build time only
    requires info.picocli;
    requires com.google.gson;

    exports org.cudaipc4j.cli;

    opens org.cudaipc4j.cli to info.picocli;
    opens org.cudaipc4j.cli.interop to info.picocli;
}
