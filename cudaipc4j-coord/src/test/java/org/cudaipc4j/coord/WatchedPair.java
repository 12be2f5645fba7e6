package org.cudaipc4j.coord;

import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.util.List;

/**
 * Test child pair for {@link ParentWatch}: "starter" starts a "watcher" JVM with its own standard output and error,
 * prints {@code WATCHER <pid>}, and exits 0 once its standard input ends. The watcher watches its parent
 * ({@link ParentWatch#whenGone(long, ParentWatch.End)}), prints {@code WATCHING <starter pid>}, and when the watch
 * ends it prints {@code ENDS <starter pid> <why>} and halts with 3.
 */
public final class WatchedPair {
    static final int WATCHER_ENDED = 3;

    private WatchedPair() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("starter")) {
            Process watcher = new ProcessBuilder(JvmCommand.of(WatchedPair.class.getName(), List.of("watcher")))
                    .redirectOutput(Redirect.INHERIT).redirectError(Redirect.INHERIT).start();
            System.out.println("WATCHER " + watcher.pid());
            System.out.flush();
            System.in.transferTo(OutputStream.nullOutputStream());
            System.exit(0);
        }
        long starter = ProcessHandle.current().parent().orElseThrow().pid();
        ParentWatch.whenGone(starter, (pid, why) -> {
            System.out.println("ENDS " + pid + " " + why);
            System.out.flush();
            Runtime.getRuntime().halt(WATCHER_ENDED);
        });
        System.out.println("WATCHING " + starter);
        System.out.flush();
        Thread.currentThread().join();
    }
}
