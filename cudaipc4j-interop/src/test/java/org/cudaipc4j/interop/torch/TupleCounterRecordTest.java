package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.cudaipc4j.coord.SharedSegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The counter files of a JVM that died while it exported torch tuples are removed by the next export's reaper, and
 * nothing else is: not a live JVM's, not torch's own, not a name of another process.
 */
class TupleCounterRecordTest {
    @TempDir
    Path dir;

    /**
     * A pid no process has: above the largest the kernel hands out (2^22). The pid of a process that has ended
     * could be given to a new process before the reaper looks.
     */
    private static long endedPid() {
        long pid = (1L << 22) + 1;
        assertFalse(ProcessHandle.of(pid).isPresent(), "pid " + pid + " is alive");
        return pid;
    }

    private Path counter(long pid, String random) throws IOException {
        return Files.writeString(dir.resolve("torch_" + pid + "_" + random + "_0"), "x");
    }

    @Test
    void anEndedExportersCounterFilesAndRecordAreRemoved() throws Exception {
        long dead = endedPid();
        Path mine1 = counter(dead, "11");
        Path mine2 = counter(dead, "12");
        Path torchs = counter(dead, "13"); // a file of that pid the record does not name: torch's, say
        Path other = counter(dead + 1, "14");
        Path record = Files.writeString(dir.resolve(TupleCounterRecord.PREFIX + dead + "-77"),
                "/torch_" + dead + "_11_0\n/torch_" + dead + "_12_0\n/torch_" + (dead + 1) + "_14_0\n../escape\n");
        assertEquals(2, TupleCounterRecord.reapStale(dir));
        assertFalse(Files.exists(mine1));
        assertFalse(Files.exists(mine2));
        assertFalse(Files.exists(record));
        assertTrue(Files.exists(torchs), "a counter file the record does not name stays");
        assertTrue(Files.exists(other), "a name of another process stays");
    }

    @Test
    void aLiveExportersFilesStay() throws Exception {
        long self = ProcessHandle.current().pid();
        Path mine = counter(self, "21");
        Path record = Files.writeString(dir.resolve(TupleCounterRecord.PREFIX + self + "-1"), "/torch_" + self
                + "_21_0\n");
        assertEquals(0, TupleCounterRecord.reapStale(dir));
        assertTrue(Files.exists(mine));
        assertTrue(Files.exists(record));
    }

    @Test
    void aRecordOlderThanTheProcessThatNowHasItsPidIsAnEndedOnes() throws Exception {
        long self = ProcessHandle.current().pid();
        Instant started = ProcessHandle.current().info().startInstant().orElseThrow();
        assertTrue(SharedSegment.writerAlive(self, FileTime.from(Instant.EPOCH)), "this process is never reaped");
        Process child = new ProcessBuilder("sleep", "30").start();
        try {
            assertTrue(SharedSegment.writerAlive(child.pid(), FileTime.from(Instant.now())));
            assertFalse(SharedSegment.writerAlive(child.pid(), FileTime.from(started.minusSeconds(3600))),
                    "a process started an hour after the record was written did not write it");
        } finally {
            child.destroyForcibly().waitFor();
        }
        assertFalse(SharedSegment.writerAlive(endedPid(), FileTime.from(Instant.now())));
    }

    @Test
    void onlyTorchNamesOfTheRecordsProcessCount() {
        assertTrue(TupleCounterRecord.ownName("/torch_42_123_0", 42));
        assertFalse(TupleCounterRecord.ownName("/torch_421_123_0", 42));
        assertFalse(TupleCounterRecord.ownName("/torch_42_123_0/../x", 42));
        assertFalse(TupleCounterRecord.ownName("torch_42_123_0", 42));
    }

    @Test
    void anExportWritesItsCounterFilesDownAndRemovesTheRecordWhenClosed() throws Exception {
        TupleCounterRecord r = TupleCounterRecord.create(dir);
        assertTrue(r.path().getFileName().toString().startsWith(TupleCounterRecord.PREFIX
                + ProcessHandle.current().pid() + "-"));
        r.add("/torch_1_2_3");
        r.add("/torch_1_2_4");
        assertEquals(java.util.List.of("/torch_1_2_3", "/torch_1_2_4"), Files.readAllLines(r.path()));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(r.path())));
        Files.setLastModifiedTime(r.path(), FileTime.from(Instant.now()));
        r.delete();
        assertFalse(Files.exists(r.path()));
    }
}
