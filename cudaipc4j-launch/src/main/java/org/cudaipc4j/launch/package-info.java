/**
 * How ranks find each other without NCCL: the launchers' environments (torchrun, Open MPI, Slurm), the rendezvous
 * that hands NCCL's unique id from rank 0 to the others, and the heartbeat that tells every rank when one died or hung.
 * What it throws is a {@link org.cudaipc4j.launch.LaunchException}, unchecked: a launcher's variable that cannot be
 * used, a rendezvous or a barrier that did not complete.
 * Uses only {@code java.base}, the libraries' base ({@code org.cudaipc4j.base}: closing) and the coordination
 * library's {@link org.cudaipc4j.coord.Durations} (how its lines word a limit): it knows nothing of CUDA or NCCL (the
 * unique id and the version are plain values).
 */
package org.cudaipc4j.launch;
