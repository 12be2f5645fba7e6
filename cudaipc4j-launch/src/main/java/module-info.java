/**
 * How the ranks of a job find each other, without CUDA or NCCL: the launchers' environments (torchrun, Open MPI,
 * Slurm), the rendezvous that hands rank 0's payload (NCCL's unique id) to every rank, and the heartbeat that tells
 * every rank when one died or hung. See {@link org.cudaipc4j.launch} and {@code docs/multinode.md}.
 *
 * <p>It makes no native call, so on the module path it needs no {@code --enable-native-access}.
 */
module org.cudaipc4j.launch {
    requires org.cudaipc4j.base;
    requires org.cudaipc4j.coord; // Durations: the wording of its limits

    exports org.cudaipc4j.launch;
}
