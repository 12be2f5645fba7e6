package org.cudaipc4j.interop.opening;

import java.util.Objects;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.TorchHandle;

/**
 * Opens what another process shared, whatever the descriptor's kind: the one call, as Python's
 * {@code cudaipc4j.open(descriptor, fds=..., stream=...)}.
 * <ul>
 *   <li>{@code legacy}: {@code cuIpcOpenMemHandle}; {@code vmm} and {@code pool}: the export's file descriptors
 *       (given in {@link OpenOptions#withFds}, as received over the exporter's descriptor socket, or else taken from
 *       the exporter with {@code pidfd_getfd} by its {@code fd_numbers}) or fabric handle, imported and mapped; all
 *       three through the library's importer ({@code MemoryImporter}), signed into the exporter's holder table
 *       ({@code ExportHolders}) while mapped when the descriptor names one;</li>
 *   <li>{@code torch}: torch's share opened by a torch reader ({@code TorchReader}, the caller's or one of the
 *       open's own), its reference-counter slot held as a lease until the tensor closes.</li>
 * </ul>
 * The stream waits on the descriptor's event when it asks for that; the wait is queued, nothing blocks. The
 * returned {@link OpenedTensor} owns what the open took and gives it all back at its close.
 *
 * <p>Each open of a {@code legacy}, {@code vmm} or {@code pool} descriptor maps it anew (a pool is imported for each
 * of its buffers): keep one opened tensor per export and share it, since the driver opens a legacy handle only once
 * per context at a time. Torch shares are mapped once per block by their reader, which a caller shares among its
 * opens ({@link OpenOptions#withTorchReader}).
 *
 * <p>{@code open} is {@code openable(d, options).open(context, stream)}: call the two halves apart where the checks
 * must come before the driver is touched (a command line that reports a refusal first) or outside a timing
 * ({@code cudaipc4j bench interop} times the open alone).
 */
public final class Descriptors {
    private Descriptors() {}

    /**
     * Opens {@code d} into {@code context}.
     *
     * @param d the descriptor
     * @param context the context to map into (on the descriptor's device, or one with access to it)
     * @param stream the stream that will read the memory: it waits on the descriptor's event
     * @param options file descriptors, torch reader, timing
     * @return the opened tensor, owned by the caller (and by the context, if that closes first)
     * @throws OpenRefusedException when the descriptor cannot be opened as given (see {@link #openable})
     * @throws IllegalArgumentException when torch's fields are not a share torch would send, or the file
     *                                  descriptors given do not match the descriptor's
     * @throws org.cudaipc4j.interop.InteropException when a torch share's counter file or producer refuses it
     * @throws org.cudaipc4j.cuda.CudaException when the driver cannot map it (the message names the call)
     */
    public static OpenedTensor open(Descriptor d, Context context, Stream stream, OpenOptions options) {
        return openable(d, options).open(context, stream);
    }

    /**
     * Checks that {@code d} can be opened with {@code options}, without the driver.
     *
     * @param d the descriptor
     * @param options file descriptors, torch reader, timing
     * @return the descriptor ready to open, its torch share parsed and its binary form made
     * @throws OpenRefusedException for a {@code posix_fd} export whose file descriptors are neither given nor
     *                              named by {@code fd_numbers}, or whose exporter runs in another PID namespace
     *                              (where its {@code fd_numbers} cannot be taken)
     * @throws IllegalArgumentException when torch's fields are not a share torch would send, or the file
     *                                  descriptors given do not match the descriptor's
     */
    public static Openable openable(Descriptor d, OpenOptions options) {
        return Openable.of(Objects.requireNonNull(d, "descriptor"), Objects.requireNonNull(options, "options"));
    }

    /**
     * Checks that a bare torch handle (its bytes alone, without torch's other sharing fields) can be opened: a
     * {@code 'c'} or raw handle opens as the whole block of torch's caching allocator, one uint8 tensor (the handle
     * carries no size, offset or layout).
     *
     * @param handle the handle
     * @return the handle ready to open
     * @throws OpenRefusedException for an expandable segment's ({@code 'e'}) handle, which does not say which bytes
     *                              of its chunks are the storage
     */
    public static Openable openable(TorchHandle handle) {
        return Openable.of(Objects.requireNonNull(handle, "handle"));
    }
}
