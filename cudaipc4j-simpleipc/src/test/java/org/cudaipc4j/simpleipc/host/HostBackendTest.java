package org.cudaipc4j.simpleipc.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.simpleipc.backend.Backend;
import org.cudaipc4j.simpleipc.backend.BackendException;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostBackendTest {

    @AfterEach
    void nothingLeft() {
        ShmFiles.assertNoneLeft(ProcessHandle.current().pid());
    }

    /** The same handle as if another process had exported it: lets one process exercise the open path. */
    static byte[] asIfForeign(byte[] handle) {
        HostHandle h = HostHandle.decode(handle);
        long other = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(1L);
        return new HostHandle(h.kind(), h.device(), other, h.size(), h.segmentName()).encode();
    }

    @Test
    void simulatesAsManyDevicesAsAskedWithinItsRange() {
        try (HostBackend b = new HostBackend(2)) {
            assertEquals(2, b.deviceCount());
            assertEquals(List.of(0, 1), b.selectDevices(List.of(), 32, s -> {}));
        }
        try (HostBackend b = new HostBackend(HostBackend.MAX_DEVICES)) {
            assertEquals(HostBackend.MAX_DEVICES, b.selectDevices(List.of(), HostBackend.MAX_DEVICES, s -> {}).size());
        }
        assertThrows(IllegalArgumentException.class, () -> new HostBackend(0));
        assertThrows(IllegalArgumentException.class, () -> new HostBackend(HostBackend.MAX_DEVICES + 1));
    }

    @Test
    void selectsEveryDeviceInOrderUpToTheMaximum() {
        try (HostBackend b = new HostBackend(4)) {
            List<String> log = new ArrayList<>();
            assertEquals(List.of(0, 1, 2, 3), b.selectDevices(List.of(), 32, log::add));
            assertEquals(List.of(0, 1), b.selectDevices(List.of(), 2, log::add));
            assertEquals(List.of(2, 0), b.selectDevices(List.of(2, 0), 32, log::add));
            assertEquals(List.of(3), b.selectDevices(List.of(3, 1), 1, log::add));
            assertEquals(List.of(), log);
            b.prepareDevices(List.of(2, 0));
        }
    }

    @Test
    void rejectsDevicesThatDoNotExist() {
        try (HostBackend b = new HostBackend(4)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> b.selectDevices(List.of(0, 7), 32, s -> {}));
            assertEquals("device 7 does not exist (4 simulated devices)", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> b.selectDevices(List.of(-1), 32, s -> {}));
            assertEquals("device 1 is listed twice", assertThrows(IllegalArgumentException.class,
                    () -> b.selectDevices(List.of(1, 1), 32, s -> {})).getMessage());
            assertThrows(IllegalArgumentException.class, () -> b.selectDevices(List.of(), 0, s -> {}));
            assertThrows(IllegalArgumentException.class, () -> b.prepareDevices(List.of()));
            assertThrows(IllegalArgumentException.class, () -> b.prepareDevices(List.of(4)));
            assertThrows(IllegalArgumentException.class, () -> b.export(4, 1));
            assertThrows(IllegalArgumentException.class, () -> b.export(0, 0));
            assertThrows(IllegalArgumentException.class, () -> b.attach(-1));
        }
    }

    @Test
    void openingAMemoryHandleInTheExportingProcessFailsLikeCuda() {
        try (HostBackend b = new HostBackend(2); Backend.Export ex = b.export(0, 4096);
                Backend.Attachment a = b.attach(1)) {
            BackendException e = assertThrows(BackendException.class, () -> a.openBuffer(ex.memoryHandle(), 4096));
            String m = e.getMessage();
            assertTrue(m.startsWith("cannot open memory handle of cudaipc4j-" + ProcessHandle.current().pid())
                    && m.contains("in the process that exported it") && m.contains("CUDA_ERROR_INVALID_CONTEXT"), m);
            // Events may be opened where they were exported.
            a.openEvent(ex.eventHandle()).close();
        }
    }

    @Test
    void progressMarkersArePassedInOrder() throws Exception {
        try (HostBackend b = new HostBackend(1); Backend.Attachment a = b.attach(0)) {
            assertThrows(IllegalArgumentException.class, () -> a.reached(0));
            long first = a.mark();
            long second = a.mark();
            assertEquals(0, first);
            assertEquals(1, second);
            assertTrue(Waits.until(5000, () -> a.reached(second)), "marker 1 not passed within 5 s");
            assertTrue(a.reached(first));
            assertThrows(IllegalArgumentException.class, () -> a.reached(2));
            assertThrows(IllegalArgumentException.class, () -> a.reached(-1));
        }
    }

    @Test
    void rejectsHandlesThatDoNotFit() {
        try (HostBackend b = new HostBackend(2); Backend.Export ex = b.export(1, 4096);
                Backend.Attachment a = b.attach(0)) {
            byte[] mem = asIfForeign(ex.memoryHandle());
            assertThrows(BackendException.class, () -> a.openBuffer(ex.eventHandle(), 4096));
            assertThrows(BackendException.class, () -> a.openEvent(mem));
            assertEquals("cannot open 4097 bytes of " + HostHandle.decode(mem).segmentName()
                    + ": the exported buffer has 4096 bytes",
                    assertThrows(BackendException.class, () -> a.openBuffer(mem, 4097)).getMessage());
            assertThrows(BackendException.class, () -> a.openBuffer(mem, 0));
            try (HostBackend one = new HostBackend(1); Backend.Attachment a1 = one.attach(0)) {
                // As with CUDA, a handle from a device this process does not see still opens.
                assertEquals(1, a1.openBuffer(mem, 1).bytes());
            }
        }
    }

    private static long mappingsOf(String segment) throws Exception {
        try (var lines = Files.lines(java.nio.file.Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.endsWith("/" + segment)).count();
        }
    }

    @Test
    void openingAHandleTwiceSharesOneMappingUntilTheLastClose() throws Exception {
        try (HostBackend b = new HostBackend(1); Backend.Export ex = b.export(0, 4096);
                Backend.Attachment a = b.attach(0)) {
            byte[] mem = asIfForeign(ex.memoryHandle());
            String name = HostHandle.decode(mem).segmentName();
            long before = mappingsOf(name); // the exporter's own mapping
            Backend.PeerBuffer first = a.openBuffer(mem, 4096);
            Backend.PeerBuffer second = a.openBuffer(mem, 100); // as in CUDA: a reference to the same mapping
            assertEquals(before + 1, mappingsOf(name));
            first.close();
            a.fill(second, (byte) 2);
            assertEquals(2, a.copyToHost(second).get(ValueLayout.JAVA_BYTE, 99));
            assertEquals(before + 1, mappingsOf(name));
            second.close();
            assertEquals(before, mappingsOf(name));
            // A forged handle naming a mapped segment with another size is refused.
            Backend.PeerBuffer third = a.openBuffer(mem, 4096);
            HostHandle h = HostHandle.decode(mem);
            byte[] forged = new HostHandle(h.kind(), h.device(), h.exporterPid(), 8192, h.segmentName()).encode();
            assertEquals("segment " + name + " is 4096 bytes but its handle says 8192",
                    assertThrows(BackendException.class, () -> a.openBuffer(forged, 10)).getMessage());
            third.close();
            assertEquals(before, mappingsOf(name));
        }
    }

    @Test
    void aHandleWhoseSegmentIsGoneFailsClearly() {
        try (HostBackend b = new HostBackend(1); Backend.Attachment a = b.attach(0)) {
            Backend.Export ex = b.export(0, 10);
            byte[] mem = asIfForeign(ex.memoryHandle());
            byte[] evt = ex.eventHandle();
            ex.close();
            String m = assertThrows(BackendException.class, () -> a.openBuffer(mem, 10)).getMessage();
            assertTrue(m.startsWith("cannot open the buffer of simulated device 0 exported by pid "), m);
            assertThrows(BackendException.class, () -> a.openEvent(evt));
        }
    }

    @Test
    void aSegmentThatIsNotAnEventIsRejected() {
        try (HostBackend b = new HostBackend(1); Backend.Export ex = b.export(0, EventSegment.SIZE);
                Backend.Attachment a = b.attach(0)) {
            HostHandle m = HostHandle.decode(ex.memoryHandle());
            byte[] fake = new HostHandle(HostHandle.Kind.EVENT, 0, m.exporterPid(), m.size(), m.segmentName()).encode();
            String msg = assertThrows(BackendException.class, () -> a.openEvent(fake)).getMessage();
            assertTrue(msg.startsWith("segment " + m.segmentName() + " is not a host event"), msg);
        }
    }

    @Test
    void tooLittleSharedMemoryIsAClearError() throws Exception {
        long free = Files.getFileStore(ShmFiles.dir()).getUsableSpace();
        try (HostBackend b = new HostBackend(1)) {
            String m = assertThrows(BackendException.class, () -> b.export(0, free + (1L << 30))).getMessage();
            assertTrue(m.startsWith("cannot export ") && m.contains("on simulated device 0: " + ShmFiles.dir()
                    + " has only "), m);
            assertThrows(BackendException.class, () -> b.export(0, Long.MAX_VALUE));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 4097, 1_000_003})
    void fillsAndCopiesBuffersOfAnySize(long size) {
        try (HostBackend b = new HostBackend(2); Backend.Export ex = b.export(0, size);
                Backend.Attachment a = b.attach(1)) {
            Backend.PeerBuffer buf = a.openBuffer(asIfForeign(ex.memoryHandle()), size);
            assertEquals(size, buf.bytes());
            a.fill(buf, (byte) 0xA7);
            MemorySegment host = a.copyToHost(buf);
            assertEquals(size, host.byteSize());
            assertTrue(host.isReadOnly());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment expected = arena.allocate(size).fill((byte) 0xA7);
                assertEquals(-1, host.mismatch(expected));
            }
            // The exporter's own view sees the same bytes.
            Backend.PeerBuffer own = ((HostExport) ex).buffer();
            assertEquals(size, own.bytes());
            MemorySegment copy = a.copyToHost(own);
            try (Arena arena = Arena.ofConfined()) {
                assertEquals(-1, copy.mismatch(arena.allocate(size).fill((byte) 0xA7)));
            }
        }
    }

    @Test
    void closingTheBackendClosesEverythingAndIsIdempotent() {
        HostBackend b = new HostBackend(2);
        Backend.Export ex = b.export(0, 1 << 20);
        b.export(1, 100);
        Backend.Attachment a = b.attach(1);
        Backend.PeerBuffer buf = a.openBuffer(asIfForeign(ex.memoryHandle()), 1 << 20);
        a.openEvent(ex.eventHandle());
        a.fill(buf, (byte) 1);
        assertEquals(4, ShmFiles.ofThisProcess().size());
        b.close();
        assertEquals(List.of(), ShmFiles.ofThisProcess());
        b.close();
        a.close();
        ex.close();
        assertThrows(BackendException.class, () -> a.fill(buf, (byte) 2));
        assertThrows(BackendException.class, () -> b.attach(0));
        assertThrows(BackendException.class, () -> b.export(0, 1));
    }

    @Test
    void closedBuffersAndEventsCannotBeUsed() {
        try (HostBackend b = new HostBackend(1); Backend.Export ex = b.export(0, 64);
                Backend.Attachment a = b.attach(0)) {
            Backend.PeerBuffer buf = a.openBuffer(asIfForeign(ex.memoryHandle()), 64);
            Backend.PeerEvent evt = a.openEvent(ex.eventHandle());
            a.fill(buf, (byte) 3);
            buf.close(); // waits for the fill, then unmaps
            buf.close();
            evt.close();
            assertTrue(assertThrows(BackendException.class, () -> a.fill(buf, (byte) 1)).getMessage()
                    .endsWith(" is closed"));
            assertThrows(BackendException.class, () -> a.record(evt));
            assertThrows(BackendException.class, () -> a.streamWait(evt));
            MemorySegment host = a.copyToHost(((HostExport) ex).buffer());
            assertEquals(3, host.get(ValueLayout.JAVA_BYTE, 63), "the fill ran before the buffer was closed");
        }
    }
}
