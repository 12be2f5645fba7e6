package org.cudaipc4j.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CallScratchTest {
    @Test
    void oneAlignedBufferPerThreadThatHoldsTwoHandlesAndAPointer() throws InterruptedException {
        MemorySegment mine = CallScratch.get();
        assertEquals(mine.address(), CallScratch.get().address(), "a thread gets the same buffer on every call");
        assertEquals(CallScratch.ARGUMENT_BYTES, mine.byteSize());
        assertEquals(0, mine.address() % 16, "16-byte aligned");
        assertTrue(CallScratch.ARGUMENT_BYTES >= 2 * 64 + 8, "two IPC handles and a pointer");
        MemorySegment libc = CallScratch.libc();
        MemorySegment errno = CallScratch.errno();
        assertEquals(mine.address() + CallScratch.ARGUMENT_BYTES, libc.address(), "libc's bytes after the caller's");
        assertEquals(libc.address() + libc.byteSize(), errno.address(), "errno's bytes after libc's");
        assertEquals(CallScratch.BYTES, errno.address() + errno.byteSize() - mine.address(), "all within the buffer");
        assertTrue(errno.byteSize() >= Linker.Option.captureStateLayout().byteSize(), "room for the errno state");
        AtomicReference<MemorySegment> other = new AtomicReference<>();
        Thread t = new Thread(() -> other.set(CallScratch.get()));
        t.start();
        t.join();
        assertNotEquals(mine.address(), other.get().address(), "another thread has a buffer of its own");
    }

    @Test
    void aLibcCallLeavesTheCallersArgumentsAsTheyWere() {
        MemorySegment mine = CallScratch.get();
        mine.fill((byte) 0x5a);
        Libc.Result r = Libc.poll(-1, Libc.POLLIN, 0); // a negative fd is ignored by poll: 0, nothing ready
        assertEquals(0, r.value());
        Libc.Result bad = Libc.close(-1);
        assertEquals(Libc.EBADF, bad.errno(), "errno captured in the scratch");
        for (long i = 0; i < mine.byteSize(); i++) {
            assertEquals((byte) 0x5a, mine.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
    }
}
