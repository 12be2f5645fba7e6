package org.cudaipc4j.simpleipc;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What a simpleIPC child is told on its command line: {@code id segment bytes rounds backend simDevices timeoutMillis
 * corrupt kernel verify socket sync [phaseLog]} ({@code socket} is {@code -} when no file descriptors travel, as
 * with {@code --ipc legacy}; {@code sync} is {@code counters} or {@code events}).
 */
record ChildSettings(int id, String segment, long bytes, int rounds, String backend, int simulatedDevices,
        Duration timeout, int corrupt, String kernel, boolean verifyOnDevice, Path socket,
        boolean counters, Path phaseFile) {
    static final String USAGE = "usage: SimpleIpcChild id segment bytes rounds backend simDevices timeoutMillis"
            + " corrupt kernel verify socket sync [phaseLog]";

    /** @throws IllegalArgumentException when an argument is missing or malformed */
    static ChildSettings parse(String[] args) {
        if (args.length < 12) {
            throw new IllegalArgumentException(USAGE);
        }
        return new ChildSettings(Integer.parseInt(args[0]), args[1], Long.parseLong(args[2]),
                Integer.parseInt(args[3]), args[4], Integer.parseInt(args[5]),
                Duration.ofMillis(Long.parseLong(args[6])), Integer.parseInt(args[7]), args[8],
                args[9].equals("device"), args[10].equals("-") ? null : Path.of(args[10]),
                args[11].equals("counters"), args.length > 12 ? Path.of(args[12]) : null);
    }
}
