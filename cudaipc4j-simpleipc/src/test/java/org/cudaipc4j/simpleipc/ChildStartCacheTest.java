package org.cudaipc4j.simpleipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The children's AOT cache: recorded by child 0 of a first run that passes, then used by every child. */
class ChildStartCacheTest {
    @Test
    void aPassingRunRecordsItAndLaterRunsUseIt(@TempDir Path tmp) throws Exception {
        Path jar = Files.writeString(tmp.resolve("cudaipc4j.jar"), "a jar");
        Path dir = tmp.resolve("cache");
        ChildStartCache first = ChildStartCache.of(jar, dir, "cuda", List.of("-XX:+UseSerialGC"));
        assertTrue(first.recording());
        String output = first.jvmOptions(0).getFirst();
        assertTrue(output.startsWith("-XX:AOTCacheOutput=" + dir), output);
        assertEquals(List.of(), first.jvmOptions(1), "only child 0 records");
        assertTrue(first.jvmOptions(0).stream().noneMatch(o -> o.startsWith("-D")), first.jvmOptions(0).toString());
        assertTrue(first.quietExit(0), "the recording child's settings silence the JVM's lines at exit");
        assertFalse(first.quietExit(1));
        // What the JVM of child 0 writes at its exit:
        Files.writeString(Path.of(output.substring(output.indexOf('=') + 1)), "cache");
        first.finish(true);
        List<Path> files = list(dir);
        assertEquals(1, files.size(), files.toString());
        assertTrue(files.getFirst().getFileName().toString().matches("children-.*\\.aot"), files.toString());

        ChildStartCache later = ChildStartCache.of(jar, dir, "cuda", List.of());
        assertFalse(later.recording());
        for (int child : new int[] {0, 5}) {
            assertEquals(List.of("-XX:AOTCache=" + files.getFirst(), "-Xlog:aot=off", "-Xlog:cds=off"),
                    later.jvmOptions(child));
        }
        assertFalse(later.quietExit(0), "a child that uses the cache writes none");
        later.finish(true);
        assertEquals(files, list(dir), "using a cache changes nothing");
        assertTrue(ChildStartCache.of(jar, dir, "host", List.of()).recording(), "another backend, another cache");
    }

    /** A parent ended by a signal never finishes its recording: the next run that records removes what it left. */
    @Test
    void recordingsOfEndedParentsAreRemovedByTheNextRecordingRun(@TempDir Path tmp) throws Exception {
        Path jar = Files.writeString(tmp.resolve("cudaipc4j.jar"), "a jar");
        Path dir = Files.createDirectories(tmp.resolve("cache"));
        long ended = (1L << 22) + 1; // above the kernel's largest pid: no process
        long live = ProcessHandle.current().pid();
        Path endedRecording = Files.writeString(dir.resolve("children-1a2b-3c.aot." + ended + ".recording"), "x");
        Path endedConfig = Files.writeString(dir.resolve("children-1a2b-3c.aot." + ended + ".recording.config"), "x");
        Path liveRecording = Files.writeString(dir.resolve("children-1a2b-3c.aot." + live + ".recording"), "x");
        Path other = Files.writeString(dir.resolve("notes.txt"), "x");
        ChildStartCache run = ChildStartCache.of(jar, dir, "cuda", List.of());
        assertTrue(run.recording());
        assertFalse(Files.exists(endedRecording) || Files.exists(endedConfig), "an ended parent's recording");
        assertTrue(Files.exists(liveRecording) && Files.exists(other), "a live parent's recording, another file");
    }

    @Test
    void aFailedRunLeavesNoRecording(@TempDir Path tmp) throws Exception {
        Path jar = Files.writeString(tmp.resolve("cudaipc4j.jar"), "a jar");
        Path dir = tmp.resolve("cache");
        ChildStartCache run = ChildStartCache.of(jar, dir, "cuda", List.of());
        String output = run.jvmOptions(0).getFirst();
        Files.writeString(Path.of(output.substring(output.indexOf('=') + 1)), "half a cache");
        run.finish(false);
        assertEquals(List.of(), list(dir));
    }

    @Test
    void nothingWhenTheParentHasACacheOrRunsFromClassFolders(@TempDir Path tmp) throws Exception {
        Path jar = Files.writeString(tmp.resolve("cudaipc4j.jar"), "a jar");
        assertNull(ChildStartCache.of(jar, tmp, "cuda", List.of("-XX:AOTCache=/x.aot")));
        assertNull(ChildStartCache.of(jar, tmp, "cuda", List.of("-XX:AOTCacheOutput=/x.aot")));
        assertNull(ChildStartCache.of(Files.createDirectories(tmp.resolve("classes")), tmp, "cuda", List.of()));
        assertNull(ChildStartCache.of(jar, Files.writeString(tmp.resolve("a file"), ""), "cuda", List.of()),
                "an unusable cache folder: no cache");
    }

    @Test
    void onlyTheNewestCachesStay(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("cache"));
        for (int i = 0; i < 6; i++) {
            Path old = Files.writeString(dir.resolve("children-old" + i + ".aot"), "old");
            Files.setLastModifiedTime(old, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        Path jar = Files.writeString(tmp.resolve("cudaipc4j.jar"), "a jar");
        ChildStartCache run = ChildStartCache.of(jar, dir, "cuda", List.of());
        String output = run.jvmOptions(0).getFirst();
        Files.writeString(Path.of(output.substring(output.indexOf('=') + 1)), "cache");
        run.finish(true);
        List<String> left = list(dir).stream().map(p -> p.getFileName().toString()).toList();
        assertEquals(4, left.size(), left.toString());
        assertTrue(left.containsAll(List.of("children-old5.aot", "children-old4.aot", "children-old3.aot")), left.toString());
    }

    private static List<Path> list(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
