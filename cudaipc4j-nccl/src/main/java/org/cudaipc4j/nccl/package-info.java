/**
 * NCCL communicators on device memory: the library, its version, {@link org.cudaipc4j.nccl.Communicator} and its
 * collectives, errors with the call and NCCL's own message.
 * Uses {@code org.cudaipc4j.cuda}, the libraries' base ({@code org.cudaipc4j.base}: its idle strategy) and this
 * module's {@code binding} and {@code launch} packages.
 */
package org.cudaipc4j.nccl;
