/**
 * The coordination library's own base, exported only to {@code org.cudaipc4j.interop}: libc bound once
 * ({@link org.cudaipc4j.coord.internal.Libc}) and the removals run when the JVM shuts down.
 * Uses only {@code java.base}.
 */
package org.cudaipc4j.coord.internal;
