package org.cudaipc4j.coord;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The child's end of the pipe its starter writes records down ({@link Supervisor#startWithInput}): its standard
 * input, which no other process can read, unlike its command line and environment ({@code /proc/<pid>/cmdline},
 * {@code environ}). Frames ({@link RecordCodec}) are read on a daemon thread, one for each {@link #next} call, so a
 * wait for one also watches the starter: it ends when the pipe closes (the starter closed it or exited), when the
 * starter is {@linkplain ParentWatch#gone gone}, or at a deadline, each with one line, never hanging on a dead
 * starter. Nothing is read ahead: a thread blocked in {@code read(2)} holds the JVM's exit for 300 ms (HotSpot waits
 * for threads in native code), so once the last frame asked for is in, the reader waits in Java, not in the kernel.
 */
public final class StarterInput {
    /** How often a wait looks at the starter. */
    private static final Duration LOOK = Duration.ofMillis(100);

    private final long starter;
    /**
     * Frames in arrival order, then one {@link RuntimeException} saying why no more come. A LinkedTransferQueue: the
     * JDK's own thread pools use one, so it comes from the start-up cache, where a LinkedBlockingQueue would be read
     * and linked by every child first thing.
     */
    private final BlockingQueue<Object> frames = new LinkedTransferQueue<>();
    private volatile RuntimeException ended;
    /** One permit for each frame {@link #next} asks for; the reader reads only what is asked. */
    private final Semaphore wanted = new Semaphore(0);

    private StarterInput(InputStream in, long starter) {
        this.starter = starter;
        Thread.ofPlatform().daemon().name("cudaipc4j-starter-input").start(new Reader(in));
    }

    /** {@return this process's standard input, from its parent} */
    public static StarterInput standardInput() {
        return new StarterInput(new FileInputStream(FileDescriptor.in), ParentWatch.starter());
    }

    /**
     * {@return the frames of {@code in}, written by {@code starter}}
     *
     * @param in where the frames arrive
     * @param starter the pid of the process that writes them
     */
    public static StarterInput of(InputStream in, long starter) {
        return new StarterInput(in, starter);
    }

    /** {@return the pid of the process that writes the frames, as this process learnt it: see {@link ParentWatch#gone}} */
    public long starter() {
        return starter;
    }

    /**
     * The reader thread's task. A class, not a lambda: a child starts this first thing, and its first lambda would
     * cost it milliseconds of linking on the way to its first step (the children run code the start-up cache's
     * training run, a parent, never ran).
     */
    private final class Reader implements Runnable {
        private final InputStream in;

        Reader(InputStream in) {
            this.in = in;
        }

        @Override
        public void run() {
            readAll(in);
        }
    }

    private void readAll(InputStream in) {
        try (in) {
            while (awaitWanted()) {
                byte[] frame = RecordCodec.readFrame(in);
                if (frame == null) {
                    // No pid named: one gone before this process looked at it is not known.
                    frames.add(new CoordinationException("the parent closed its pipe"));
                    return;
                }
                frames.add(frame);
            }
        } catch (IllegalArgumentException e) {
            frames.add(e);
        } catch (IOException e) {
            frames.add(new CoordinationException("cannot read the parent's pipe: " + e.getMessage(), e));
        }
    }

    /** {@return true once a frame is asked for; false when the reader is interrupted} */
    private boolean awaitWanted() {
        try {
            wanted.acquire();
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /**
     * Waits for the next frame and decodes it.
     *
     * @param codec the record the next frame must hold
     * @param what what is waited for, for messages, e.g. "the control block's name"
     * @param deadline when to stop waiting, or null to wait while the starter lives
     * @param <R> the record type
     * @return the record
     * @throws CoordinationException when the pipe closed, the starter is gone or the deadline passed first
     * @throws IllegalArgumentException when the frame is not one of {@code codec}'s (see {@link RecordCodec#decode})
     */
    public <R extends Record> R next(RecordCodec<R> codec, String what, Deadline deadline) {
        Object next;
        try {
            next = take(what, deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinationException("interrupted waiting for " + what, e);
        }
        if (next instanceof byte[] frame) {
            return codec.decode(frame);
        }
        ended = (RuntimeException) next;
        if (ended instanceof CoordinationException) {
            throw new CoordinationException(ended.getMessage() + " before sending " + what, ended);
        }
        throw ended;
    }

    private Object take(String what, Deadline deadline) throws InterruptedException {
        if (ended != null) {
            return ended;
        }
        wanted.release();
        while (true) {
            Object next = frames.poll(LOOK.toNanos(), TimeUnit.NANOSECONDS);
            if (next != null) {
                return next;
            }
            if (ParentWatch.gone(starter)) {
                // The pipe's end comes with the exit, unless another process holds the pipe too.
                Object last = frames.poll(LOOK.toNanos(), TimeUnit.NANOSECONDS);
                return last != null ? last
                        : new CoordinationException("the parent (pid " + starter + ") is gone");
            }
            if (deadline != null && deadline.hasPassed()) {
                throw new CoordinationException(deadline.timedOut(what));
            }
        }
    }
}
