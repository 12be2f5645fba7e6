/**
 * NCCL ({@code libnccl.so.2}) through the Foreign Function &amp; Memory API: {@link org.cudaipc4j.nccl.Communicator}
 * and its collectives on device memory, and {@link org.cudaipc4j.nccl.NcclRank}, a rank that meets the others
 * through the rendezvous of {@code org.cudaipc4j.launch} (required transitively: its options and its group are part
 * of this API) and whose watchdog ends it fast when a peer fails. See {@code docs/multinode.md}.
 *
 * <p>On the module path, run with
 * {@code --enable-native-access=org.cudaipc4j.nccl,org.cudaipc4j.cuda,org.cudaipc4j.base}.
 */
module org.cudaipc4j.nccl {
    requires transitive org.cudaipc4j.cuda;
    requires transitive org.cudaipc4j.launch; // NcclRank takes RendezvousOptions and gives a RankGroup
    requires org.cudaipc4j.base;
    requires org.cudaipc4j.coord; // Durations: the wording of its limits

    exports org.cudaipc4j.nccl;
}
