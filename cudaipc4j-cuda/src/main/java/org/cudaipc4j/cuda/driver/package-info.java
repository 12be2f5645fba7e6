/**
 * The raw binding of the CUDA driver library (not exported): each driver function declared once, called with its
 * result checked or returned, the structs those calls take, the library's loading and background linking.
 * Uses only {@code java.base} and the libraries' base ({@code org.cudaipc4j.base}: the handle a missing function
 * gets).
 *
 * <p>{@link org.cudaipc4j.cuda.driver.CuDriver} declares every function by its {@code cuda.h} name and signature
 * (checked against {@code cuda.h}); {@link org.cudaipc4j.cuda.driver.CuFunction} calls through a declaration;
 * {@link org.cudaipc4j.cuda.driver.CuSymbols} holds the structs; {@link org.cudaipc4j.cuda.driver.CudaLibrary} loads
 * the library and {@link org.cudaipc4j.cuda.driver.Prelink} links in the background.
 *
 * <p>It knows no type of the typed layer above it: that layer installs the public exceptions for a missing library
 * or function and for a failed call through {@link org.cudaipc4j.cuda.driver.CudaLibrary#reportFailuresWith}.
 */
package org.cudaipc4j.cuda.driver;
