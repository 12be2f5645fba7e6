/**
 * Whole programs on the libraries alone (see {@link org.cudaipc4j.examples}), each run as a test on a GPU machine.
 */
module org.cudaipc4j.examples {
    requires org.cudaipc4j.base; // Setting: the settings it reads
    requires org.cudaipc4j.cuda;
    requires org.cudaipc4j.coord;
    requires org.cudaipc4j.interop;

    exports org.cudaipc4j.examples;
}
