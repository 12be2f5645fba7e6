package org.cudaipc4j.simpleipc.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * This JVM exports a buffer and an event; a second JVM ({@link HostChild}) opens them, fills the buffer and
 * records the event while its stream is held back by a gate event this JVM controls; this JVM waits on the
 * event and reads the bytes back.
 */
class HostTwoProcessTest {
    private static final byte VALUE = 0x5A;

    private final List<Process> children = new ArrayList<>();
    private final List<Long> pids = new ArrayList<>(List.of(ProcessHandle.current().pid()));

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        ShmFiles.assertNoneLeft(pids.stream().mapToLong(Long::longValue).toArray());
    }

    /** A running child JVM with its stdout as a queue of lines and its stderr in a file. */
    private record Child(Process process, LinkedBlockingQueue<String> lines, Path stderrFile) {
        void expect(String line) throws Exception {
            String got = lines.poll(60, TimeUnit.SECONDS);
            assertEquals(line, got, () -> "child said " + got + "; stderr:\n" + stderr());
        }

        String stderr() {
            try {
                return Files.readString(stderrFile);
            } catch (IOException e) {
                return e.toString();
            }
        }
    }

    private Child start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        String shmDir = System.getProperty("cudaipc4j.shm.dir");
        if (shmDir != null) {
            command.add("-Dcudaipc4j.shm.dir=" + shmDir);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), HostChild.class.getName()));
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("host-child", ".err");
        stderr.toFile().deleteOnExit();
        Process p = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        children.add(p);
        pids.add(p.pid());
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the child is gone
            }
        });
        return new Child(p, lines, stderr);
    }

    private Child startFiller(HostExport data, HostExport gate, long size) throws IOException {
        HexFormat hex = HexFormat.of();
        return start("1", hex.formatHex(data.memoryHandle()), hex.formatHex(data.eventHandle()),
                hex.formatHex(gate.eventHandle()), Long.toString(size), Byte.toString(VALUE));
    }

    private static void assertAll(MemorySegment host, byte value) {
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(-1, host.mismatch(arena.allocate(host.byteSize()).fill(value)), "every byte should be " + value);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 4099, 64L << 20})
    void aSecondProcessFillsAndRecordsAndThisOneWaitsAndReads(long size) throws Exception {
        try (HostBackend backend = new HostBackend(2)) {
            HostExport data = (HostExport) backend.export(0, size);
            HostExport gate = (HostExport) backend.export(1, 1);
            long gateTicket = gate.event().takeTicket(); // the child's stream waits behind this record
            Child child = startFiller(data, gate, size);
            child.expect("RECORDED");
            assertEquals(1, data.event().lastTicket());
            assertEquals(child.process().pid(), data.event().lastRecorderPid());

            Backend.Attachment a = backend.attach(0);
            Backend.PeerEvent event = a.openEvent(data.eventHandle());
            a.streamWait(event); // covers the child's record, still in flight
            assertTrue(Waits.until(10_000, () -> HostThreads.waitsForAnEvent(HostThreads.streamOf(0))),
                    "this process's stream never waited for the child's record");
            assertEquals(0, data.event().completed(), "the child's record completed before its gate opened");
            assertAll(backend.attach(1).copyToHost(data.buffer()), (byte) 0);

            gate.event().complete(gateTicket);
            assertAll(a.copyToHost(data.buffer()), VALUE);
            assertEquals(1, data.event().completed());
            child.expect("DONE");
            assertTrue(child.process().waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.process().exitValue(), child::stderr);
        }
    }

    @Test
    void aWaitOnARecordWhoseProcessDiedEndsPromptly() throws Exception {
        try (HostBackend backend = new HostBackend(2)) { // wait timeout: the default 60 s
            HostExport data = (HostExport) backend.export(0, 4096);
            HostExport gate = (HostExport) backend.export(1, 1);
            long gateTicket = gate.event().takeTicket();
            Child child = startFiller(data, gate, 4096);
            child.expect("RECORDED");
            child.process().destroyForcibly();
            assertTrue(child.process().waitFor(10, TimeUnit.SECONDS));

            Backend.Attachment a = backend.attach(0);
            a.streamWait(a.openEvent(data.eventHandle()));
            BackendException e = assertTimeoutPreemptively(Duration.ofSeconds(15),
                    () -> assertThrows(BackendException.class, () -> a.copyToHost(data.buffer())));
            String cause = e.getCause().getMessage();
            assertTrue(cause.endsWith("record #1 will never complete: the process that recorded it (pid "
                    + child.process().pid() + ") has exited"), cause);
            gate.event().complete(gateTicket);
            assertTimeoutPreemptively(Duration.ofSeconds(15), data::close); // frees without waiting 60 s
        }
    }
}
