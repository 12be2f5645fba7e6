/**
 * File descriptors between processes: {@link org.cudaipc4j.coord.fd.OwnedFd} owns one,
 * {@link org.cudaipc4j.coord.fd.FdServer} and {@link org.cudaipc4j.coord.fd.FdChannel} pass them over a Unix socket
 * ({@code SCM_RIGHTS}) with the sender's credentials, {@link org.cudaipc4j.coord.fd.PidFd} names a process.
 * Uses {@code org.cudaipc4j.coord}, this module's {@code internal} package and the libraries' base
 * ({@code org.cudaipc4j.base}: libc); {@code org.cudaipc4j.coord} does not use this one.
 *
 * <p>From {@link org.cudaipc4j.coord}: its failures are {@link org.cudaipc4j.coord.CoordinationException}s, its
 * waits take a {@link org.cudaipc4j.coord.Deadline}, its sockets live beside the shared segments and are reaped with
 * them.
 */
package org.cudaipc4j.coord.fd;
