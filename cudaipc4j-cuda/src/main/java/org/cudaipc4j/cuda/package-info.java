/**
 * Typed CUDA resources owned by a {@link org.cudaipc4j.cuda.Context} (memory, streams, events, modules, kernels) on
 * a {@link org.cudaipc4j.cuda.Device}, and the ways of sharing device memory and events with other processes.
 * Uses only {@code java.base}, this module's {@code driver} package (the raw binding) and the libraries' base
 * ({@code org.cudaipc4j.base}: libc, closing, layout arithmetic).
 */
package org.cudaipc4j.cuda;
