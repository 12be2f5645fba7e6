/**
 * NVIDIA's simpleIPC sample on the libraries (see {@link org.cudaipc4j.simpleipc}): the parent and its children, the
 * sample's slot in the control block, its CUDA and host backends, its kernels and its rotation over NCCL. An
 * application: the command line and the benchmarks use it.
 */
module org.cudaipc4j.simpleipc {
    requires org.cudaipc4j.base; // Setting: the settings it reads
    requires transitive org.cudaipc4j.tool;
    requires transitive org.cudaipc4j.cuda;
    requires transitive org.cudaipc4j.coord;
    requires org.cudaipc4j.launch;
    requires org.cudaipc4j.nccl;
    requires com.google.gson;

    exports org.cudaipc4j.simpleipc;
    exports org.cudaipc4j.simpleipc.backend;
    exports org.cudaipc4j.simpleipc.host;
    exports org.cudaipc4j.simpleipc.cuda;
    exports org.cudaipc4j.simpleipc.kernels;
    exports org.cudaipc4j.simpleipc.nccl;
    exports org.cudaipc4j.simpleipc.settings to org.cudaipc4j.bench, org.cudaipc4j.cli; // Setting is internal too

    opens org.cudaipc4j.simpleipc to com.google.gson;
}
