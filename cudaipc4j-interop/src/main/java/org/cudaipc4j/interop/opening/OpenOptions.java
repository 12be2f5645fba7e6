package org.cudaipc4j.interop.opening;

import org.cudaipc4j.interop.OpenPhases;
import org.cudaipc4j.interop.torch.TorchReader;

/**
 * How {@link Descriptors#open} opens a descriptor, beyond the descriptor itself: the file descriptors that came with
 * it, the torch reader that opens torch shares, and where the open's phases are timed. Immutable; each
 * {@code with...} gives a new value. {@link #defaults()} takes the file descriptors of a {@code posix_fd} export from
 * the exporter by its {@code fd_numbers}, opens a torch share through a reader of its own and times nothing.
 */
public final class OpenOptions {
    private static final OpenOptions DEFAULTS = new OpenOptions(null, null, null);

    private final int[] fds;
    private final TorchReader torchReader;
    private final OpenPhases phases;

    private OpenOptions(int[] fds, TorchReader torchReader, OpenPhases phases) {
        this.fds = fds;
        this.torchReader = torchReader;
        this.phases = phases;
    }

    /** {@return no file descriptors, no reader, no timing} */
    public static OpenOptions defaults() {
        return DEFAULTS;
    }

    /**
     * {@return these options with the descriptor's file descriptors, as received beside it (over the exporter's
     * descriptor socket, {@code FdChannel} of {@code cudaipc4j-coord}): they stay the caller's, to close once the
     * open returns (the driver holds its own reference to what it imported)}
     *
     * @param fds as many as the descriptor's {@code fds}, in its order; for a torch share of an expandable segment,
     *            one per chunk of its handle, in the handle's order, as its producer sent them
     * @throws IllegalArgumentException for a negative descriptor number
     */
    public OpenOptions withFds(int... fds) {
        for (int fd : fds) {
            if (fd < 0) {
                throw new IllegalArgumentException("a file descriptor is 0 or more, got " + fd);
            }
        }
        return new OpenOptions(fds.clone(), torchReader, phases);
    }

    /**
     * {@return these options with a reader of the caller's for torch shares} Its mappings are shared among the opens
     * that use it (a storage shared twice maps once), and its leases were started early, beside the driver, as
     * {@code TorchLeases} asks. Without one, each open of a torch share starts leases and a reader of its own,
     * closed with the opened tensor.
     *
     * @param reader a reader of the context the opens map into
     */
    public OpenOptions withTorchReader(TorchReader reader) {
        return new OpenOptions(fds, java.util.Objects.requireNonNull(reader, "reader"), phases);
    }

    /**
     * {@return these options with the open's phases added to {@code phases}}
     *
     * @param phases the record, or null to time nothing
     */
    public OpenOptions withPhases(OpenPhases phases) {
        return new OpenOptions(fds, torchReader, phases);
    }

    /** {@return a copy of the file descriptors given, or null when none were (they are taken by number then)} */
    public int[] fds() {
        return fds == null ? null : fds.clone();
    }

    /** {@return the caller's torch reader, or null} */
    public TorchReader torchReader() {
        return torchReader;
    }

    /** {@return the record the phases are added to, or null} */
    public OpenPhases phases() {
        return phases;
    }
}
