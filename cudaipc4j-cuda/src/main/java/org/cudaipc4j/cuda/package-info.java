/**
 * Typed CUDA resources owned by a {@link org.cudaipc4j.cuda.Context} (memory, streams, events, modules, kernels,
 * pinned and registered host memory) on a {@link org.cudaipc4j.cuda.Device}, the driver's errors (each a
 * {@link org.cudaipc4j.cuda.CudaDriverException}, the library's one root), and
 * {@link org.cudaipc4j.cuda.ForeignResource}, by which resources of other packages are owned the same way.
 * Uses only {@code java.base}, this module's {@code driver} package (the raw binding) and the libraries' base
 * ({@code org.cudaipc4j.base}: libc, closing, layout arithmetic); never the sharing package built on it
 * ({@code org.cudaipc4j.cuda.ipc}).
 */
package org.cudaipc4j.cuda;
