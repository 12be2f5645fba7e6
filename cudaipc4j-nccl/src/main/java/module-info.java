/**
 * NCCL ({@code libnccl.so.2}) through the Foreign Function &amp; Memory API: {@link org.cudaipc4j.nccl.Communicator}
 * and its collectives on device memory ({@link org.cudaipc4j.nccl}); the launchers' environments, the rendezvous
 * that hands out NCCL's unique id, and the heartbeat that ends every rank fast when one fails
 * ({@code org.cudaipc4j.nccl.launch}). See {@code docs/multinode.md}.
 *
 * <p>On the module path, run with
 * {@code --enable-native-access=org.cudaipc4j.nccl,org.cudaipc4j.cuda,org.cudaipc4j.base}.
 */
module org.cudaipc4j.nccl {
    requires transitive org.cudaipc4j.cuda;
    requires org.cudaipc4j.base;

    exports org.cudaipc4j.nccl;
    exports org.cudaipc4j.nccl.launch;
}
