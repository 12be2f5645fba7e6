/**
 * What the tool's applications share (see {@link org.cudaipc4j.tool}): the sample, the benchmarks and the command
 * line end, fail and print the same way. Not a library: the libraries below it know nothing of exit codes.
 */
module org.cudaipc4j.tool {
    requires org.cudaipc4j.base; // Setting: the settings it reads
    requires org.cudaipc4j.coord;

    exports org.cudaipc4j.tool;
}
