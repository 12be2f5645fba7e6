/**
 * The raw binding of the CUDA driver library (not exported): every driver function declared once, by its
 * {@code cuda.h} name and signature ({@link org.cudaipc4j.cuda.driver.CuDriver}, checked against {@code cuda.h}),
 * called through its declaration with the result checked or returned ({@link org.cudaipc4j.cuda.driver.CuFunction}),
 * the structs those calls take ({@link org.cudaipc4j.cuda.driver.CuSymbols}), the library's loading
 * ({@link org.cudaipc4j.cuda.driver.CudaLibrary}) and background linking ({@link org.cudaipc4j.cuda.driver.Prelink}).
 *
 * <p>It knows no type of the typed layer above it: that layer installs the public exceptions for a missing library
 * or function and for a failed call through {@link org.cudaipc4j.cuda.driver.CudaLibrary#reportFailuresWith}.
 */
package org.cudaipc4j.cuda.driver;
