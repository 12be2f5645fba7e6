package org.cudaipc4j.cuda;

/**
 * Free and total memory of a context's device, in bytes ({@code cuMemGetInfo}).
 *
 * @param free free bytes
 * @param total total bytes
 */
public record MemInfo(long free, long total) {}
