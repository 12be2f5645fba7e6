package org.cudaipc4j.launch;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.cudaipc4j.coord.Durations;
import org.cudaipc4j.coord.Liveness;

/**
 * What {@link Rendezvous#join} needs: this rank, the group's size, rank 0's address, the shared secret, this
 * rank's NCCL version, rank 0's payload and the timings. Made by {@link #builder}.
 *
 * @param rank this rank, {@code 0 <= rank < size}
 * @param size the number of ranks
 * @param address where rank 0 listens (rank 0 binds it; a port of 0 binds any free port, see {@code onBound})
 * @param secret the shared secret; never sent, only proved (HMAC-SHA256); may be empty on a trusted host
 * @param ncclVersion this rank's NCCL version as {@code ncclGetVersion} reports it (22809 for 2.28.9)
 * @param payload rank 0 only: the bytes handed to every rank (NCCL's unique id), at most 4096; called once, after
 *     all ranks arrived
 * @param joinTimeout the longest wait for all ranks to arrive
 * @param handshakeTimeout rank 0 only: the longest a connection may take to prove itself before it is dropped
 * @param heartbeatInterval how often each rank sends a heartbeat and checks the others' silence
 * @param silenceLimit how long a rank may stay silent before it counts as hung; more than the interval
 * @param onBound rank 0 only: called with the address it bound, before it waits for the others
 */
public record RendezvousOptions(int rank, int size, InetSocketAddress address, byte[] secret, int ncclVersion,
        Supplier<byte[]> payload, Duration joinTimeout, Duration handshakeTimeout, Duration heartbeatInterval,
        Duration silenceLimit, Consumer<InetSocketAddress> onBound) {

    /** The join timeout unless set: 60 s. */
    public static final Duration DEFAULT_JOIN_TIMEOUT = Duration.ofSeconds(60);
    /** The handshake timeout unless set: 10 s. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    /** The heartbeat interval unless set: 250 ms, or half the silence limit when that is shorter. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMillis(250);
    /** The silence limit unless set here or by {@code CUDAIPC4J_HEARTBEAT_TIMEOUT}: {@link Liveness}'s, 3 s. */
    public static final Duration DEFAULT_SILENCE_LIMIT = Liveness.DEFAULT_SILENCE_LIMIT;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming the first value that is wrong
     */
    public RendezvousOptions {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(joinTimeout, "joinTimeout");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(silenceLimit, "silenceLimit");
        Objects.requireNonNull(onBound, "onBound");
        secret = Objects.requireNonNull(secret, "secret").clone();
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1: " + size);
        }
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " is out of range for " + size + " ranks");
        }
        if (rank == 0 && payload == null) {
            throw new IllegalArgumentException("rank 0 needs the payload to hand out");
        }
        positive("joinTimeout", joinTimeout);
        positive("handshakeTimeout", handshakeTimeout);
        positive("heartbeatInterval", heartbeatInterval);
        positive("silenceLimit", silenceLimit);
        if (silenceLimit.compareTo(heartbeatInterval) <= 0) {
            throw new IllegalArgumentException("silence limit " + Durations.millisOrSeconds(silenceLimit)
                    + " must be longer than the heartbeat interval " + Durations.millisOrSeconds(heartbeatInterval));
        }
    }

    /** {@return the secret (a copy)} */
    @Override
    public byte[] secret() {
        return secret.clone();
    }

    private static void positive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }

    /**
     * A builder for rank {@code rank} of {@code size}, meeting at {@code address}.
     *
     * @param rank this rank
     * @param size the number of ranks
     * @param address where rank 0 listens
     * @return a builder with the defaults: no secret, NCCL version 0, no payload, the default timings
     */
    public static Builder builder(int rank, int size, InetSocketAddress address) {
        return new Builder(rank, size, address);
    }

    /**
     * A builder for this process as its launcher started it: its rank and size, the rendezvous address and the
     * shared secret from {@code launch}.
     *
     * @param launch the launcher's environment ({@link LaunchEnvironment#fromSystem()})
     * @return a builder as {@link #builder(int, int, InetSocketAddress)} gives, with the secret set
     * @throws LaunchEnvironmentException when the environment gives no rendezvous address (one line naming the
     *     variable to set)
     */
    public static Builder builder(LaunchEnvironment launch) {
        HostPort at = launch.requireRendezvous();
        return new Builder(launch.rank(), launch.size(), InetSocketAddress.createUnresolved(at.host(), at.port()))
                .secret(launch.requireSecret());
    }

    /**
     * The silence limit that {@code value}, the text of {@code CUDAIPC4J_HEARTBEAT_TIMEOUT}, sets.
     *
     * @param value seconds, such as {@code 3} or {@code 1.5}; null or blank for the default
     * @return the limit
     * @throws IllegalArgumentException one line naming the variable and the bad value
     */
    public static Duration silenceLimitFrom(String value) {
        return Liveness.silenceLimitFrom(value);
    }

    /** Collects the options; {@link #build} checks them. */
    public static final class Builder {
        private final int rank;
        private final int size;
        private final InetSocketAddress address;
        private byte[] secret = new byte[0];
        private int ncclVersion;
        private Supplier<byte[]> payload;
        private Duration joinTimeout = DEFAULT_JOIN_TIMEOUT;
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private Duration heartbeatInterval;
        private Duration silenceLimit;
        private Consumer<InetSocketAddress> onBound = a -> { };

        private Builder(int rank, int size, InetSocketAddress address) {
            this.rank = rank;
            this.size = size;
            this.address = address;
        }

        /**
         * Sets the shared secret.
         *
         * @param secret the bytes every rank was given
         * @return this builder
         */
        public Builder secret(byte[] secret) {
            this.secret = secret.clone();
            return this;
        }

        /**
         * Sets this rank's NCCL version.
         *
         * @param version as {@code ncclGetVersion} reports it (22809 for 2.28.9)
         * @return this builder
         */
        public Builder ncclVersion(int version) {
            this.ncclVersion = version;
            return this;
        }

        /**
         * Sets rank 0's payload, made once all ranks arrived.
         *
         * @param payload supplies the bytes (at most 4096)
         * @return this builder
         */
        public Builder payload(Supplier<byte[]> payload) {
            this.payload = payload;
            return this;
        }

        /**
         * Sets the longest wait for all ranks.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder joinTimeout(Duration timeout) {
            this.joinTimeout = timeout;
            return this;
        }

        /**
         * Sets how long rank 0 gives a new connection to prove itself.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = timeout;
            return this;
        }

        /**
         * Sets the heartbeat interval.
         *
         * @param interval positive, shorter than the silence limit
         * @return this builder
         */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = interval;
            return this;
        }

        /**
         * Sets the silence limit, instead of {@code CUDAIPC4J_HEARTBEAT_TIMEOUT} or the default.
         *
         * @param limit longer than the heartbeat interval
         * @return this builder
         */
        public Builder silenceLimit(Duration limit) {
            this.silenceLimit = limit;
            return this;
        }

        /**
         * Sets what rank 0 calls once it is bound (useful with port 0).
         *
         * @param onBound receives the bound address
         * @return this builder
         */
        public Builder onBound(Consumer<InetSocketAddress> onBound) {
            this.onBound = Objects.requireNonNull(onBound, "onBound");
            return this;
        }

        /**
         * The options.
         *
         * @return the checked options
         * @throws IllegalArgumentException naming the first wrong value, including a bad
         *     {@code CUDAIPC4J_HEARTBEAT_TIMEOUT}
         */
        public RendezvousOptions build() {
            Duration limit = silenceLimit != null ? silenceLimit : Liveness.silenceLimit();
            Duration interval = heartbeatInterval != null ? heartbeatInterval
                    : min(DEFAULT_HEARTBEAT_INTERVAL, limit.dividedBy(2));
            return new RendezvousOptions(rank, size, address, secret, ncclVersion, payload, joinTimeout,
                    handshakeTimeout, interval, limit, onBound);
        }

        private static Duration min(Duration a, Duration b) {
            return a.compareTo(b) <= 0 ? a : b;
        }
    }
}
