/**
 * NCCL communicators on device memory: the library, its version, {@link org.cudaipc4j.nccl.Communicator} and its
 * collectives, errors with the call and NCCL's own message.
 * Uses {@code org.cudaipc4j.cuda} and this module's {@code binding} and {@code launch} packages.
 */
package org.cudaipc4j.nccl;
