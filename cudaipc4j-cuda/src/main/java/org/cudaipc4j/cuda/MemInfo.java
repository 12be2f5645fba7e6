package org.cudaipc4j.cuda;

/** Free and total memory of a context's device, in bytes ({@code cuMemGetInfo}). */
public record MemInfo(long free, long total) {}
