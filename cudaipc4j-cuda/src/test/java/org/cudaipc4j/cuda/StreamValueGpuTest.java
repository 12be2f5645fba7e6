package org.cudaipc4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.Test;

/**
 * Stream memory operations on a shared-memory mapping registered for the device: a stream that waits on a word is
 * released by a plain store from this process's CPU or from another process, and a stream's write reaches the
 * host.
 */
@GpuTest
class StreamValueGpuTest {
    private static final long PAGE = 4096;

    private static boolean completesWithin(Event event, long millis) {
        return Waits.until(millis, event::query);
    }

    @Test
    void aWaitOnASharedWordIsReleasedByAStoreFromAnyProcess() throws Exception {
        Path file = Files.createTempFile(Path.of("/dev/shm"), "cudaipc4j-test-word", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena arena = Arena.ofShared();
             Context ctx = Context.retainPrimary(Device.get(0))) {
            ch.write(java.nio.ByteBuffer.allocate((int) PAGE));
            MemorySegment shared = ch.map(FileChannel.MapMode.READ_WRITE, 0, PAGE, arena);
            HostRegistration words = HostRegistration.register(ctx, shared);
            Stream stream = Stream.create(ctx, true);
            Event passed = Event.create(ctx, EventFlag.DISABLE_TIMING);

            // Released by this process's CPU.
            stream.waitValue32(words.devicePointer(0), 1, false);
            stream.writeValue32(words.devicePointer(8), 77);
            passed.record(stream);
            assertFalse(completesWithin(passed, 200), "the stream did not wait");
            assertEquals(0, shared.get(ValueLayout.JAVA_INT, 8), "the write queued after the wait ran early");
            shared.set(ValueLayout.JAVA_INT, 0, 1);
            assertTrue(completesWithin(passed, 5000), "a store did not release the wait");
            assertEquals(77, shared.get(ValueLayout.JAVA_INT, 8), "the stream's write reached the host");

            // Released by another process that maps the same file; a counter compared as at least. The word is
            // first set below the target, which must not release the wait.
            shared.set(ValueLayout.JAVA_INT, 4, 4);
            stream.waitValue32(words.devicePointer(4), 5, false);
            stream.writeValue32(words.devicePointer(12), 88);
            passed.record(stream);
            assertFalse(completesWithin(passed, 200), "the stream did not wait for the word to reach 5");
            assertEquals(0, shared.get(ValueLayout.JAVA_INT, 12), "work queued after the wait ran before the release");
            JavaProcess.Result poke = JavaProcess.run(Duration.ofSeconds(60), WordPoke.class, List.of(),
                    file.toString(), "4", "9");
            assertEquals(0, poke.exitCode(), poke.describe());
            assertTrue(completesWithin(passed, 5000), "another process's store did not release the wait");
            assertEquals(88, shared.get(ValueLayout.JAVA_INT, 12), "the work after the wait ran once released");
            words.close();
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
