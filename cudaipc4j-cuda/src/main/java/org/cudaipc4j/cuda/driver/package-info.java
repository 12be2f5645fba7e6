/**
 * The raw binding of the CUDA driver library (not exported): each driver function declared once, called with its
 * result checked or returned, the structs those calls take, the library's loading and background linking.
 * Uses only {@code java.base} and the libraries' base ({@code org.cudaipc4j.base}: the handle a missing function
 * gets).
 *
 * <p>It follows the project's binding style (described in {@code org.cudaipc4j.nccl.binding}):
 * {@link org.cudaipc4j.cuda.driver.CudaFunction} declares every function by its {@code cuda.h} export and signature
 * (the names checked against {@code cuda.h}); one class per area ({@link org.cudaipc4j.cuda.driver.DeviceCalls},
 * {@link org.cudaipc4j.cuda.driver.MemoryCalls}, {@link org.cudaipc4j.cuda.driver.VmmCalls},
 * {@link org.cudaipc4j.cuda.driver.PoolCalls}, {@link org.cudaipc4j.cuda.driver.StreamCalls},
 * {@link org.cudaipc4j.cuda.driver.IpcCalls}, {@link org.cudaipc4j.cuda.driver.ModuleCalls}) calls each through the
 * {@code static final} handle of a holder class of its own, raw (the {@code CUresult}) or checked (the exception
 * naming the function); {@link org.cudaipc4j.cuda.driver.CuSymbols} holds the structs;
 * {@link org.cudaipc4j.cuda.driver.CudaLibrary} loads the library and {@link org.cudaipc4j.cuda.driver.Prelink}
 * links in the background.
 *
 * <p>It knows no type of the typed layer above it: that layer installs the public exceptions for a missing library
 * or function and for a failed call through {@link org.cudaipc4j.cuda.driver.CudaLibrary#reportFailuresWith}.
 */
package org.cudaipc4j.cuda.driver;
