package org.cudaipc4j.coord.fd;

/**
 * Who is at the other end of a Unix socket, as the kernel vouches ({@code SO_PEERCRED}, taken at connect). The pid is
 * as this process's PID namespace sees it: 0 when the peer is in a namespace this one cannot see into.
 *
 * @param pid the peer's pid, 0 when it is not visible from here
 * @param uid the peer's user id
 * @param gid the peer's group id
 */
public record PeerCredentials(long pid, long uid, long gid) {}
