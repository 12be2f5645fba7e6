/**
 * The raw NCCL binding (not exported): each function of {@code nccl.h} declared once and called through a constant
 * handle, the library loaded by name or path and bound once per process, {@code ncclConfig_t} and
 * {@code ncclUniqueId} as memory layouts. Uses only {@code java.base} and the libraries' base
 * ({@code org.cudaipc4j.base}: the handle a missing function gets).
 *
 * <p>The binding style, the one for every C library of the project (libc, in {@code org.cudaipc4j.base}'s
 * {@code LibcFunction} and {@code LibcCalls}, is bound the same way, and so is the CUDA driver, in
 * {@code org.cudaipc4j.cuda.driver}'s {@code CudaFunction} and its calls by area):
 * <ul>
 * <li>A declaration per C function: its exported name and its result and parameters as an FFM descriptor, from the
 *     header that declares it ({@link org.cudaipc4j.nccl.binding.NcclFunction}). A test checks every declaration
 *     against the header where one is installed.</li>
 * <li>A call per declaration: a static method named as the C function, of the descriptor's Java types
 *     ({@link org.cudaipc4j.nccl.binding.NcclCalls}), that invokes with {@code invokeExact} the {@code static final}
 *     handle of a holder class of its own, as jextract writes it. The holder is initialised by the first call, so
 *     nothing links at class load and a process links only what it calls; the JIT treats the handle as a constant,
 *     and no argument is boxed. A test checks each call's type against its declaration.</li>
 * <li>A function the loaded library lacks gets a handle that throws at each call, naming it
 *     ({@code org.cudaipc4j.base.Downcalls}): an older release fails at the call that needs more, never while a
 *     class loads.</li>
 * <li>Calls return what C returns. One checked layer above the binding ({@code org.cudaipc4j.nccl.Nccl}) turns a
 *     result into the library's exception, with the function, the result's name and the library's own message;
 *     the result codes live in one table ({@code org.cudaipc4j.nccl.NcclResult}).</li>
 * </ul>
 */
package org.cudaipc4j.nccl.binding;
