package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Timestamps of the phases of one process (epoch microseconds, in the order they were marked). A child writes its
 * log as {@code name=micros} lines to a file the parent reads back for {@code --json} and {@code bench}; plain text
 * keeps the child's start-up free of a JSON library. Thread-safe: start-up work on helper threads marks here too.
 * A traced log also prints each phase on standard error as it is reached ({@code cudaipc4j.tracePhases}).
 */
final class PhaseLog {
    /** Prefix of entries that hold a duration in microseconds rather than a timestamp. */
    static final String TOTAL = "total.";
    private final Map<String, Long> marks = new LinkedHashMap<>();
    private final boolean traced;

    PhaseLog() {
        this(false);
    }

    PhaseLog(boolean traced) {
        this.traced = traced;
    }

    synchronized void mark(String phase) {
        marks.put(phase, Clock.micros());
        note(phase);
    }

    /** Prints {@code phase} when traced, without marking it: a step within a phase. */
    void note(String phase) {
        if (traced) {
            System.err.println("cudaipc4j: phase " + phase);
            System.err.flush();
        }
    }

    synchronized void mark(String phase, long micros) {
        marks.put(phase, micros);
    }

    /** A copy, in marking order. */
    synchronized Map<String, Long> marks() {
        return new LinkedHashMap<>(marks);
    }

    void writeTo(Path file) {
        StringBuilder sb = new StringBuilder();
        marks().forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        try {
            Files.writeString(file, sb, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write phase log " + file, e);
        }
    }

    static PhaseLog readFrom(Path file) throws IOException {
        PhaseLog log = new PhaseLog();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (String line : lines) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                log.marks.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
            }
        }
        return log;
    }
}
