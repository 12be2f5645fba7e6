/**
 * The coordination library's own internals, not exported: the removals run when the JVM shuts down
 * ({@link org.cudaipc4j.coord.internal.ShutdownRemovals}). Uses only {@code java.base}.
 */
package org.cudaipc4j.coord.internal;
