package org.cudaipc4j.coord;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.cudaipc4j.coord.TestSupport.assertNoSegmentsOfThisJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The control block's bytes, pinned: every offset and size of its header and slots, the fingerprints of its layouts,
 * and where a block writes each word, read back from the raw segment. Other builds, and other languages, read
 * these bytes; a change to the layout shows here.
 */
class ControlBlockFormatTest {
    private static final long SELF = ProcessHandle.current().pid();

    @AfterEach
    void nothingLeft() {
        assertNoSegmentsOfThisJvm();
    }

    private static long header(String field) {
        return ControlBlock.HEADER.byteOffset(groupElement(field));
    }

    private static long slotHeader(String field) {
        return ControlBlock.SLOT_HEADER.byteOffset(groupElement(field));
    }

    @Test
    void headerFieldsKeepTheirOffsets() {
        assertEquals(896, ControlBlock.HEADER.byteSize());
        assertEquals(8, ControlBlock.HEADER.byteAlignment());
        assertEquals(0, header("magic"));
        assertEquals(8, header("version"));
        assertEquals(12, header("processCount"));
        assertEquals(16, header("totalSize"));
        assertEquals(24, header("creatorPid"));
        assertEquals(32, header("runToken"));
        assertEquals(40, header("createdMillis"));
        assertEquals(48, header("assignment"));
        assertEquals(52, header("slotDataSize"));
        assertEquals(56, header("slotFormat"));
        assertEquals(64, header("parentHeartbeat"));
        assertEquals(128, header("barrierCount"));
        assertEquals(256, header("barrierSense"));
        assertEquals(384, header("barrierSleepers"));
        assertEquals(512, header("ready"));
        assertEquals(640, header("abortWord"));
        assertEquals(644, header("abortReasonReady"));
        assertEquals(648, header("abortReasonLength"));
        assertEquals(652, header("abortReason"));
        assertEquals(120, ControlBlock.HEADER.select(groupElement("abortReason")).byteSize());
    }

    @Test
    void slotHeaderFieldsKeepTheirOffsets() {
        assertEquals(128, ControlBlock.SLOT_HEADER.byteSize());
        assertEquals(8, ControlBlock.SLOT_HEADER.byteAlignment());
        assertEquals(0, slotHeader("pid"));
        assertEquals(8, slotHeader("status"));
        assertEquals(16, slotHeader("heartbeat"));
    }

    @Test
    void constantsAndFingerprintsAreFixed() {
        assertEquals(0x4243_4A34_4350_4943L, ControlBlock.MAGIC);
        assertEquals(4, ControlBlock.LAYOUT_VERSION);
        assertEquals(128, ControlBlock.LINE);
        assertEquals(4096, ControlBlock.PAGE);
        assertEquals(1024, ControlBlock.MAX_PROCESSES);
        assertEquals(120, ControlBlock.MAX_REASON_BYTES);
        assertEquals(-1, ControlBlock.PARENT);
        // Names, kinds, sizes, alignments and order of every field, in one number each.
        assertEquals(0xcac4bf4a144acddeL, LayoutFingerprint.of(ControlBlock.HEADER), "header");
        assertEquals(0x778be471cc63c4ddL, LayoutFingerprint.of(ControlBlock.SLOT_HEADER), "slot header");
        assertEquals(0x8af7923f7d2e0163L, LayoutFingerprint.of(ControlBlock.NO_SLOT_DATA), "no slot data");
        assertEquals(0xe4f5ca0012742d58L, LayoutFingerprint.of(TestSupport.SLOT), "the tests' slot data");
    }

    @Test
    void aBlockWritesEachWordWhereTheLayoutSays() {
        try (ControlBlock block = ControlBlock.create(3, TestSupport.SLOT);
             SharedSegment raw = SharedSegment.open(block.name())) {
            MemorySegment m = raw.memory();
            assertEquals(4096, m.byteSize());
            assertEquals(ControlBlock.MAGIC, m.get(ValueLayout.JAVA_LONG, 0), "magic \"CIPC4JCB\" at 0");
            assertEquals("CIPC4JCB", new String(m.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE),
                    StandardCharsets.US_ASCII));
            assertEquals(4, m.get(ValueLayout.JAVA_INT, 8), "version at 8");
            assertEquals(3, m.get(ValueLayout.JAVA_INT, 12), "process count at 12");
            assertEquals(4096, m.get(ValueLayout.JAVA_LONG, 16), "total size at 16");
            assertEquals(SELF, m.get(ValueLayout.JAVA_LONG, 24), "creator pid at 24");
            assertEquals(block.runToken(), m.get(ValueLayout.JAVA_LONG, 32), "run token at 32");
            long created = m.get(ValueLayout.JAVA_LONG, 40);
            assertTrue(Math.abs(System.currentTimeMillis() - created) < 60_000, "creation millis at 40");
            assertEquals(0, m.get(ValueLayout.JAVA_INT, 48), "assignment at 48");
            assertEquals(72, m.get(ValueLayout.JAVA_INT, 52), "slot data size at 52");
            assertEquals(LayoutFingerprint.of(TestSupport.SLOT), m.get(ValueLayout.JAVA_LONG, 56), "slot format at 56");
            assertEquals(0, m.get(ValueLayout.JAVA_LONG, 64), "no parent heartbeat at 64 before the parent has one");
            block.parentHeartbeat();
            assertTrue(Math.abs(System.currentTimeMillis() - m.get(ValueLayout.JAVA_LONG, 64)) < 60_000,
                    "parent heartbeat millis at 64");

            // Slots: 896 + 256 * process; pid, status, heartbeat, then the data on the next line.
            assertEquals(896 + 256 + 128, block.slotData(1).address() - block.segment().memory().address());
            block.setPid(2, 4242);
            block.setStatus(2, ProcessStatus.RUNNING);
            block.heartbeat(2);
            TestSupport.setRound(block, 2, 77);
            assertEquals(4242, m.get(ValueLayout.JAVA_LONG, 896 + 512));
            assertEquals(ProcessStatus.RUNNING.code(), m.get(ValueLayout.JAVA_INT, 896 + 512 + 8));
            assertEquals(block.lastHeartbeatMillis(2), m.get(ValueLayout.JAVA_LONG, 896 + 512 + 16));
            assertEquals(77, m.get(ValueLayout.JAVA_LONG, 896 + 512 + 128));

            block.publishAssignment();
            assertEquals(1, m.get(ValueLayout.JAVA_INT, 48), "assigned");
            block.publishReady();
            assertEquals(1, m.get(ValueLayout.JAVA_LONG, 512), "ready at 512");

            block.abort(1, "why");
            assertEquals(3, m.get(ValueLayout.JAVA_INT, 640), "abort word: process + 2");
            assertEquals(1, m.get(ValueLayout.JAVA_INT, 644), "reason published");
            assertEquals(3, m.get(ValueLayout.JAVA_INT, 648), "reason length");
            assertEquals("why", new String(m.asSlice(652, 3).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
        }
    }

    @Test
    void dismissAndAParentsAbortAreWrittenAsCodes() {
        try (ControlBlock block = ControlBlock.create(1, ControlBlock.NO_SLOT_DATA);
             SharedSegment raw = SharedSegment.open(block.name())) {
            MemorySegment m = raw.memory();
            assertEquals(0, m.get(ValueLayout.JAVA_INT, 52), "no slot data");
            assertEquals(LayoutFingerprint.of(ControlBlock.NO_SLOT_DATA), m.get(ValueLayout.JAVA_LONG, 56));
            block.dismiss();
            assertEquals(2, m.get(ValueLayout.JAVA_INT, 48), "dismissed");
            block.abort(ControlBlock.PARENT, "");
            assertEquals(1, m.get(ValueLayout.JAVA_INT, 640), "the parent's abort");
            assertEquals(0, m.get(ValueLayout.JAVA_INT, 648));
        }
    }
}
