package org.cudaipc4j.cli.interop;

import java.util.List;
import java.util.UUID;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.opening.Descriptors;
import org.cudaipc4j.interop.opening.OpenOptions;
import org.cudaipc4j.interop.opening.OpenRefusedException;
import org.cudaipc4j.interop.opening.Openable;
import org.cudaipc4j.interop.opening.OpenedTensor;

/**
 * How {@code interop open} maps one input: through the library's one open ({@link Descriptors}), checked before the
 * driver is touched ({@link Descriptors#openable}), then opened on the input's device and hashed. A descriptor's
 * {@code posix_fd} file descriptors are taken from the exporter by its {@code fd_numbers} ({@code pidfd_getfd}), the
 * only way a descriptor given on a command line brings them; a torch descriptor's slot is given back when done.
 * What the library refuses (a bare expandable-segment handle, a {@code posix_fd} descriptor without
 * {@code fd_numbers}, an exporter in another PID namespace) is said before anything is opened.
 */
final class Opening {
    private final InteropInput input;
    /** The input checked by the library; null when it refused it. */
    private final Openable openable;
    /** Why the library refuses the input, or null. */
    private final String refusal;

    private Opening(InteropInput input, Openable openable, String refusal) {
        this.input = input;
        this.openable = openable;
        this.refusal = refusal;
    }

    /**
     * The opening of {@code input}, checked by the library without the driver.
     *
     * @throws BadInputException when torch's fields do not make a share torch would send
     */
    static Opening of(InteropInput input) {
        try {
            Openable o = switch (input) {
                case InteropInput.Handle h -> Descriptors.openable(h.handle());
                case InteropInput.Json j -> Descriptors.openable(j.descriptor(), OpenOptions.defaults());
            };
            return new Opening(input, o, null);
        } catch (OpenRefusedException e) {
            return new Opening(input, null, e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** Why the command line cannot open this input (one phrase), or null when it can try. */
    String whyNot() {
        return refusal;
    }

    /**
     * Maps the input on its device (a descriptor's UUID, else {@code ordinal}) and gives one line per tensor.
     *
     * @throws BadInputException when {@code ordinal} names no device
     */
    List<String> open(int ordinal) {
        UUID uuid = input instanceof InteropInput.Json j ? j.descriptor().deviceUuid() : null;
        Device device;
        if (uuid != null) {
            device = Device.byUuid(uuid);
        } else {
            int count = Device.count();
            if (ordinal >= count) {
                throw new BadInputException("--device " + ordinal + ": no such device (" + count + " visible)");
            }
            device = Device.get(ordinal);
        }
        try (Context context = Context.retainPrimary(device)) {
            Stream stream = Stream.create(context, false);
            try (OpenedTensor t = openable.open(context, stream)) {
                stream.synchronize(); // its wait on the producer's event is over before the hash reads
                return List.of(line(t.layout(), t.bytes(), t::copyTo));
            } finally {
                stream.close();
            }
        }
    }

    /** {@code 0 dtype shape sha256}; without a layout the memory's bytes are one uint8 tensor. */
    static String line(TensorLayout layout, long bytes, TensorDigest.Source source) {
        TensorLayout l = layout != null ? layout : TensorLayout.contiguous(DType.UINT8, bytes);
        return "0 " + l.dtype().stableName() + " " + Description.shape(l.shape()) + " "
                + TensorDigest.sha256(l, source);
    }
}
