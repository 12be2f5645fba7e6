package org.cudaipc4j.simpleipc.host;

import java.util.Arrays;

/**
 * Handshakes with the host backend's threads: whether a thread is inside a wait for an event's record shows that a
 * call blocked where it must, with no guess of how long it takes to get there.
 */
final class HostThreads {
    private HostThreads() {}

    /** The name of the stream thread of this process's attachment to simulated device {@code device}. */
    static String streamOf(int device) {
        return "cudaipc4j-host-stream-d" + device;
    }

    /** Whether the thread named {@code threadName} is inside {@code EventSegment.await}. */
    static boolean waitsForAnEvent(String threadName) {
        return Thread.getAllStackTraces().entrySet().stream().filter(e -> e.getKey().getName().equals(threadName))
                .anyMatch(e -> Arrays.stream(e.getValue()).anyMatch(f -> f.getMethodName().equals("await")
                        && f.getClassName().equals(EventSegment.class.getName())));
    }
}
