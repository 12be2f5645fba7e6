/**
 * NCCL communicators on device memory: the library, its version, {@link org.cudaipc4j.nccl.Communicator} and its
 * collectives, errors with the call and NCCL's own message (each an {@link org.cudaipc4j.nccl.NcclException}, the
 * library's one root).
 * Uses {@code org.cudaipc4j.cuda}, the libraries' base ({@code org.cudaipc4j.base}: its idle strategy), the
 * coordination library's {@link org.cudaipc4j.coord.Durations} (how a limit is worded), this module's
 * {@code binding} package, and the rendezvous of {@code org.cudaipc4j.launch}, through which
 * {@link org.cudaipc4j.nccl.NcclRank} joins.
 */
package org.cudaipc4j.nccl;
