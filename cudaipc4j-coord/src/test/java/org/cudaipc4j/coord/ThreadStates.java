package org.cudaipc4j.coord;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * Handshakes with a thread that must block: whether it is asleep in the kernel ({@code /proc/self/task/<tid>/stat}
 * state {@code S}) inside a given method, found by its name (Linux names a JVM thread's kernel task after it, up to
 * 15 characters).
 */
final class ThreadStates {
    private ThreadStates() {}

    /**
     * Whether {@code thread} is asleep in the kernel with {@code className.method} on its Java stack. Sampled at
     * two moments that are not quite the same, which only matters for a thread that is about to wake.
     */
    static boolean asleepIn(Thread thread, String className, String method) {
        boolean inMethod = Arrays.stream(thread.getStackTrace())
                .anyMatch(f -> f.getClassName().equals(className) && f.getMethodName().equals(method));
        return inMethod && "S".equals(kernelState(thread.getName()));
    }

    /** The kernel's state letter of this process's task named {@code name} (unique in the process), or null. */
    static String kernelState(String name) {
        String comm = name.length() > 15 ? name.substring(0, 15) : name;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(comm)) {
                        String stat = Files.readString(task.resolve("stat"));
                        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
                    }
                } catch (IOException e) {
                    // the task ended meanwhile
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
