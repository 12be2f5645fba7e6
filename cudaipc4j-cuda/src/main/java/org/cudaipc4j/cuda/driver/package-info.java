/**
 * The raw binding of the CUDA driver library (not exported): one method per driver function returning its
 * {@code CUresult} ({@link org.cudaipc4j.cuda.driver.CuDriver}), the descriptors checked against {@code cuda.h}
 * ({@link org.cudaipc4j.cuda.driver.CuSymbols}), the library's loading ({@link org.cudaipc4j.cuda.driver.CudaLibrary})
 * and background linking ({@link org.cudaipc4j.cuda.driver.Prelink}).
 *
 * <p>It knows no type of the typed layer above it: that layer installs the public exceptions for a missing library
 * or function through {@link org.cudaipc4j.cuda.driver.CudaLibrary#reportFailuresWith}.
 */
package org.cudaipc4j.cuda.driver;
