package org.cudaipc4j.interop.torch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.base.Libc;
import org.cudaipc4j.base.LibcProcesses;

/**
 * The process that gives a reader's torch slots back when the reader dies (SIGKILL, SIGSEGV, an OOM kill), which
 * torch's own reader never does: its producer then keeps those blocks for good. Started by {@link TorchLeases}
 * with {@code <lease book> <counter directory> <reader pid>}; prints {@code ready} once it knows the reader is its
 * parent (then opens the book and the reader's pidfd), and nothing after.
 *
 * <p>It waits, without polling, on the reader's pidfd becoming readable (the reader exited) and on the end of its
 * stdin (the reader closed it after marking the book closed, or died and the kernel closed it). When the book is
 * closed (the reader gave everything back itself) it just exits; otherwise, once the reader has exited, it gives
 * back every slot still held (each counter file mapped once for all of its slots), removes the book's pages and
 * exits. It never gives a slot back while the reader lives. It maps each counter file only to decrement (never
 * touching the file's process count) and ignores SIGINT, SIGHUP and SIGTERM, which a terminal or a process-group
 * kill sends the reader and it alike: it always ends with its reader.
 */
public final class LeaseWatcher {
    private static final Object DONE = new Object();
    private static boolean finished;

    private LeaseWatcher() {}

    /**
     * Runs the watcher; exits 2 on a wrong command line.
     *
     * @param args the lease book, the counter directory and the reader's pid
     */
    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: LeaseWatcher <lease book> <counter directory> <reader pid>");
            System.exit(2);
        }
        ignore("INT");
        ignore("HUP");
        ignore("TERM");
        long reader = Long.parseLong(args[2]);
        Path counters = Path.of(args[1]);
        // "ready" as soon as the reader is known to be our parent, before the book and the pidfd (the first native
        // call costs a JVM tens of milliseconds, which the reader's first lease would wait for): from here on every
        // way the reader can end is seen below. A pid names our reader only while it is our parent.
        boolean parentIsReader = parentIs(reader);
        if (parentIsReader) {
            System.out.println("ready");
            System.out.flush();
        }
        LeaseBook book = LeaseBook.open(args[0]);
        Libc.Result pidfd = LibcProcesses.pidfdOpen(reader);
        // Still our parent after pidfd_open: the pidfd is the reader's. Otherwise it died (before it could take a
        // slot, if before "ready"), and the pid may be anyone's: what the book holds goes back now.
        if (!parentIsReader || pidfd.value() < 0 || !parentIs(reader)) {
            finish(book, counters);
            return;
        }
        Thread exitWatch = new Thread(() -> {
            awaitExit(pidfd.value(), reader);
            finish(book, counters);
        }, "reader-exit");
        exitWatch.setDaemon(true);
        exitWatch.start();
        try {
            InputStream in = System.in;
            while (in.read() >= 0) {
                // the reader sends nothing; end of input is the signal
            }
        } catch (IOException e) {
            // a broken pipe is an end too
        }
        if (book.closed()) {
            finish(book, counters);
        }
        // Input ended without a close: the reader is dying, or dropped its end. Slots are given back only once it
        // has exited, which the other thread sees.
        try {
            exitWatch.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean parentIs(long reader) {
        return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L) == reader;
    }

    /** Returns once the reader has exited: its pidfd readable, or (should poll fail) the JDK's own exit watch. */
    private static void awaitExit(int pidfd, long reader) {
        Libc.Result r;
        do {
            r = Libc.poll(pidfd, Libc.POLLIN, -1);
        } while (r.value() == 0);
        if (r.value() < 0) {
            System.err.println("cudaipc4j lease watcher: poll on the reader's pidfd failed (" + Libc.strerror(r.errno())
                    + "); watching it through the JDK instead");
            ProcessHandle.of(reader).ifPresent(h -> h.onExit().join());
        }
    }

    /** Once: gives back what the book still holds unless the reader closed it, removes the book, exits. */
    private static void finish(LeaseBook book, Path counters) {
        synchronized (DONE) {
            if (finished) {
                return;
            }
            finished = true;
        }
        int status = 0;
        if (!book.closed()) {
            Map<String, List<LeaseBook.Held>> byFile = new LinkedHashMap<>();
            for (LeaseBook.Held h : book.held()) {
                byFile.computeIfAbsent(h.counterName(), n -> new ArrayList<>()).add(h);
            }
            for (Map.Entry<String, List<LeaseBook.Held>> f : byFile.entrySet()) {
                status |= giveBack(book, counters, f.getKey(), f.getValue());
            }
            for (Path page : book.paths()) {
                try {
                    Files.deleteIfExists(page);
                } catch (IOException e) {
                    System.err.println("cudaipc4j lease watcher: cannot remove " + page + ": " + e.getMessage());
                    status = 1;
                }
            }
        }
        book.close();
        System.exit(status);
    }

    /** Gives back the slots of one counter file, mapped once for all of them; 1 when that failed, else 0. */
    private static int giveBack(LeaseBook book, Path counters, String name, List<LeaseBook.Held> held) {
        TorchCounterFile file;
        try {
            file = TorchCounterFile.open(counters, name);
        } catch (RuntimeException e) {
            if (!Files.exists(counters.resolve(name.substring(1)), LinkOption.NOFOLLOW_LINKS)) {
                return 0; // the producer has exited: nothing waits for these slots
            }
            System.err.println("cudaipc4j lease watcher: cannot give back " + held.size() + " slot(s) of " + name
                    + ": " + e.getMessage());
            return 1;
        }
        try (file) {
            for (LeaseBook.Held h : held) {
                if (book.markReleased(h.index())) {
                    file.giveBack(h.slot());
                }
            }
        }
        return 0;
    }

    @SuppressWarnings("restricted")
    private static void ignore(String signal) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal(signal), sun.misc.SignalHandler.SIG_IGN);
        } catch (IllegalArgumentException e) {
            // a signal this JVM reserves: nothing to do
        }
    }
}
