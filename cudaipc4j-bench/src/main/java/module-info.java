/**
 * The benchmarks (see {@link org.cudaipc4j.bench}): runs of the tool end to end, a step's latency, the barrier, fill
 * bandwidth, NCCL's send/recv and all-reduce, and the interop readers against torch's; their JSON results and
 * charts. An application: the command line's {@code bench} runs it.
 */
module org.cudaipc4j.bench {
    requires org.cudaipc4j.base; // Setting: the settings it reads
    requires transitive org.cudaipc4j.simpleipc;
    requires org.cudaipc4j.interop;
    requires org.cudaipc4j.launch;
    requires org.cudaipc4j.nccl;
    requires com.google.gson;
    requires me.tongfei.progressbar;
    requires org.jfree.jfreechart;
    requires java.desktop;
    requires java.management;

    exports org.cudaipc4j.bench;

    opens org.cudaipc4j.bench to com.google.gson;
}
