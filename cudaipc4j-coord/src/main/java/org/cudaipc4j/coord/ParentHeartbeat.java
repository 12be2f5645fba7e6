package org.cudaipc4j.coord;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The parent's heartbeat in its group's block, kept by a daemon thread every {@value ChildRuntime#HEARTBEAT_MILLIS}
 * ms while a {@link Supervisor} watches the group: the children's waits judge it as the supervisor judges theirs
 * ({@link HeartbeatWatch}), so a stopped parent is noticed too. Its presence also tells the children that the parent
 * judges them, so that they leave a silent sibling to it.
 */
final class ParentHeartbeat implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stopping;

    private ParentHeartbeat(ControlBlock block) {
        block.parentHeartbeat(); // before the first wait of a child can look
        this.thread = Thread.ofPlatform().daemon().name("cudaipc4j-parent-heartbeat").priority(Thread.MAX_PRIORITY)
                .unstarted(() -> beat(block));
    }

    /** {@return the heartbeat of {@code block}, started} */
    static ParentHeartbeat start(ControlBlock block) {
        ParentHeartbeat heartbeat = new ParentHeartbeat(block);
        heartbeat.thread.start();
        return heartbeat;
    }

    private void beat(ControlBlock block) {
        IdleStrategy idle = IdleStrategy.periodic(Duration.ofMillis(ChildRuntime.HEARTBEAT_MILLIS));
        while (!stopping) {
            try {
                block.parentHeartbeat();
            } catch (IllegalStateException unmapped) {
                return; // the block's owner closed it
            }
            idle.idle();
        }
    }

    /** Stops the heartbeat (the children then judge their siblings themselves). Idempotent. */
    @Override
    public void close() {
        stopping = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
