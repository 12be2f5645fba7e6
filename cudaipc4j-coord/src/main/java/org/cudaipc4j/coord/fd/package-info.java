/**
 * File descriptors between processes: {@link org.cudaipc4j.coord.fd.OwnedFd} owns one,
 * {@link org.cudaipc4j.coord.fd.FdServer} and {@link org.cudaipc4j.coord.fd.FdChannel} pass them over a Unix socket
 * ({@code SCM_RIGHTS}) with the sender's credentials, {@link org.cudaipc4j.coord.fd.PidFd} names a process.
 *
 * <p>Built on {@link org.cudaipc4j.coord}: its failures are {@link org.cudaipc4j.coord.CoordinationException}s, its
 * waits take a {@link org.cudaipc4j.coord.Deadline}, its sockets live beside the shared segments and are reaped with
 * them. The group's control block and supervision do not use this package, so the dependency points one way.
 */
package org.cudaipc4j.coord.fd;
