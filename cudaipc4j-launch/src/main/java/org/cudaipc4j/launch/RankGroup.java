package org.cudaipc4j.launch;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The ranks after a {@link Rendezvous#join}: the payload rank 0 handed out, and a watch over the others that
 * stays on until {@link #close}. Every rank holds one TCP connection to rank 0 (a star). Heartbeats flow both
 * ways; rank 0 watches every rank, the others watch rank 0, and rank 0 relays each fault it sees to all the
 * others, so every rank learns of any rank's death or silence within the silence limit and about one heartbeat
 * interval.
 *
 * <p>The group owns its sockets and threads: a reader per connection, a ticker that sends heartbeats and checks
 * silences, and a thread that calls the fault listeners. {@link #close} says goodbye (not a fault for the others),
 * ends them all and returns once they are gone.
 */
public final class RankGroup implements AutoCloseable {
    // What every rank does is in GroupWatch; what rank 0 does in HostSide, what the other ranks do in MemberSide.
    private final GroupWatch group;

    private RankGroup(GroupWatch group) {
        this.group = group;
    }

    /** {@return this rank} */
    public int rank() {
        return group.rank;
    }

    /** {@return the number of ranks} */
    public int size() {
        return group.size;
    }

    /**
     * What rank 0 handed out (NCCL's unique id).
     *
     * @return a copy of the payload
     */
    public byte[] payload() {
        return group.payload.clone();
    }

    /**
     * Rank 0's address as {@code host:port}, with the port it bound.
     *
     * @return the address, for messages
     */
    public String address() {
        return group.where;
    }

    /**
     * The first fault this rank learned of, if any.
     *
     * @return the fault, or empty while all ranks are well
     */
    public Optional<Fault> fault() {
        return Optional.ofNullable(group.fault());
    }

    /**
     * Calls {@code listener} once, on a thread the group owns, with the first fault this rank learns of; at once
     * when there already is one. A listener added after {@link #close} is never called. A listener may call
     * {@link #close}.
     *
     * @param listener receives the fault
     */
    public void onFault(Consumer<Fault> listener) {
        group.onFault(listener);
    }

    /**
     * Waits until every rank reached its barrier of the same number (the ranks' n-th calls meet).
     *
     * @param timeout the longest wait
     * @throws RendezvousException when the time is up (naming who did not arrive) or a fault occurs (carrying
     *     it); a group that has a fault fails every barrier at once
     * @throws InterruptedException when interrupted while waiting
     * @throws IllegalStateException after {@link #close}
     */
    public void barrier(Duration timeout) throws InterruptedException {
        group.barrier(timeout);
    }

    /**
     * Says goodbye and ends the group: no thread and no socket of it is left when this returns. Rank 0 first
     * waits, at most the silence limit, for the other ranks' goodbyes, so that ranks finishing together do not
     * take its leaving for a death. Idempotent.
     */
    @Override
    public void close() {
        group.close();
    }

    /** For tests: stop sending heartbeats, as a stopped process would. */
    void pauseHeartbeats() {
        group.pauseHeartbeats();
    }

    /** For tests: end without a goodbye, as a killed process would. */
    void abandon() {
        group.shutDown();
    }

    @Override
    public String toString() {
        return "RankGroup[rank " + group.rank + " of " + group.size + " at " + group.where + "]";
    }

    /** Joins the group as rank 0 or as another rank; on failure nothing of the group is left. */
    static RankGroup join(RendezvousOptions options) throws InterruptedException {
        GroupWatch g = options.rank() == 0 ? new HostSide(options) : new MemberSide(options);
        boolean ok = false;
        try {
            g.join();
            ok = true;
            return new RankGroup(g);
        } finally {
            if (!ok) {
                g.shutDown();
            }
        }
    }
}
