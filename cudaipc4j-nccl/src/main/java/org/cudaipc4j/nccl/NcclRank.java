package org.cudaipc4j.nccl;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.cudaipc4j.base.Closing;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.launch.Fault;
import org.cudaipc4j.launch.RankGroup;
import org.cudaipc4j.launch.Rendezvous;
import org.cudaipc4j.launch.RendezvousException;
import org.cudaipc4j.launch.RendezvousOptions;

/**
 * One rank of a job, joined: the rendezvous's {@link RankGroup} (rank 0 made NCCL's unique id and handed it out;
 * every rank's NCCL version was checked against rank 0's), the {@link Communicator} made from it, and the
 * {@link Watchdog} that aborts the communicator and acts once a peer dies, stops or hangs, or NCCL reports an error.
 * {@link #close()} stops the watchdog, then closes the communicator, then says goodbye to the group.
 */
public final class NcclRank implements AutoCloseable {
    private final RankGroup group;
    private final Communicator communicator;
    private final Watchdog watchdog;

    private NcclRank(RankGroup group, Communicator communicator, Watchdog watchdog) {
        this.group = group;
        this.communicator = communicator;
        this.watchdog = watchdog;
    }

    /**
     * Joins: meets the other ranks through the rendezvous {@code rendezvous} describes (its NCCL version set from
     * {@code nccl}, and rank 0's payload a new unique id), makes the communicator in {@code context}, and starts the
     * watchdog with {@code onFault}.
     *
     * @param rendezvous this rank, the group, the address, the secret and the timings
     * @param onFault what to do with the watchdog's one line, after the abort (see
     *     {@link Watchdog#exitProcess(java.io.PrintStream, Duration)})
     * @param context the context whose device the communicator runs on
     * @param nccl the loaded NCCL
     * @param options the communicator's options
     * @param watchdogPeriod how often the watchdog polls
     * @return the rank, owned by the caller
     * @throws RendezvousException one line naming who did not arrive, or why this rank was refused
     * @throws CommunicatorAbortedException when the communicator did not form in time, or a peer failed meanwhile
     * @throws InterruptedException when interrupted while meeting the others
     */
    public static NcclRank join(Context context, Nccl nccl, RendezvousOptions.Builder rendezvous,
                                CommunicatorOptions options, Duration watchdogPeriod, Consumer<String> onFault)
            throws InterruptedException {
        Objects.requireNonNull(onFault, "onFault");
        RankGroup group = Rendezvous.join(rendezvous.ncclVersion(nccl.version().code())
                .payload(() -> nccl.newUniqueId().bytes()).build());
        Communicator communicator = null;
        try {
            UniqueId id = UniqueId.of(group.payload());
            communicator = Communicator.create(context, nccl, id, group.rank(), group.size(), options,
                    () -> group.fault().map(Fault::message));
            Watchdog watchdog = Watchdog.start(communicator, () -> group.fault().map(Fault::message), watchdogPeriod,
                    onFault);
            return new NcclRank(group, communicator, watchdog);
        } catch (RuntimeException e) {
            if (communicator != null) {
                Communicator c = communicator;
                Closing.closeAfter(() -> c.abort("rank " + group.rank() + " could not start its watchdog"), e);
                Closing.closeAfter(c, e);
            }
            Closing.closeAfter(group, e);
            throw e;
        }
    }

    /** {@return the communicator} */
    public Communicator communicator() {
        return communicator;
    }

    /** {@return the group of the rendezvous, which watches the other ranks} */
    public RankGroup group() {
        return group;
    }

    /** {@return the line the watchdog acted on, or empty while it has not fired} */
    public Optional<String> fault() {
        return watchdog.fired();
    }

    /** Stops the watchdog, closes the communicator (finalised, or already aborted), then leaves the group. */
    @Override
    public void close() {
        try {
            watchdog.close();
        } finally {
            try {
                communicator.close();
            } finally {
                group.close();
            }
        }
    }
}
