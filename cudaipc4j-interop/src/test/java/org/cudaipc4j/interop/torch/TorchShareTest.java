package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.interop.TorchHandle;
import org.junit.jupiter.api.Test;

/** The eight fields of {@code _share_cuda_()} and the tensor's metadata, checked as torch would send them. */
class TorchShareTest {
    private static final TorchHandle E = TorchHandle.parse(ByteBuffer.allocate(30).order(ByteOrder.LITTLE_ENDIAN)
            .put((byte) 2).put((byte) 'e').putInt(459).putInt(0).putLong(2 << 20).putLong(1).putInt(45).array());

    private static void refused(String expected, Runnable make) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::run);
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }

    @Test
    void whatTorchWouldNeverSendIsRefused() {
        String f = "/torch_459_1_0";
        TensorLayout t = TensorLayout.contiguous(DType.FLOAT32, 16);
        new TorchShare(0, E, 64, 0, f, 0, new byte[64], true, t);
        refused("ends beyond the 2097152 bytes its 1 chunks map",
                () -> new TorchShare(0, E, 64, (2 << 20) - 32, f, 0, null, false, null));
        refused("needs its reference-counter file", () -> new TorchShare(0, E, 64, 0, null, 0, null, false, null));
        refused("outside 0..9999", () -> new TorchShare(0, E, 64, 0, f, 10000, null, false, null));
        refused("not a torch reference-counter name", () -> new TorchShare(0, E, 64, 0, "x", 0, null, false, null));
        refused("event handle must be 64 bytes", () -> new TorchShare(0, E, 64, 0, f, 0, new byte[8], true, null));
        refused("event sync required but no event", () -> new TorchShare(0, E, 64, 0, f, 0, null, true, null));
        refused("reaches 256 bytes, beyond its storage of 64", () -> new TorchShare(0, E, 64, 0, f, 0, null, false,
                TensorLayout.contiguous(DType.FLOAT32, 64)));
        refused("an empty storage (no handle) has no reference counter",
                () -> new TorchShare(0, null, 0, 0, f, 0, null, false, null));
        TorchShare empty = new TorchShare(0, null, 0, 0, null, -1, null, false,
                TensorLayout.contiguous(DType.FLOAT32, 0, 5));
        assertTrue(empty.isEmpty());
        refused("an empty storage has no key", () -> TorchStorageKey.of(empty));
    }

    @Test
    void anEStorageKeyCarriesTheProducersStartTime() throws Exception {
        int pid = (int) ProcessHandle.current().pid(); // a live producer: this JVM
        TorchHandle mine = TorchHandle.parse(ByteBuffer.allocate(30).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) 2).put((byte) 'e').putInt(pid).putInt(0).putLong(2L << 20).putLong(1).putInt(3).array());
        TorchShare s = new TorchShare(0, mine, 64, 128, "/torch_" + pid + "_1_0", 3, null, false, null);
        TorchStorageKey k = TorchStorageKey.of(s);
        assertEquals(mine.mappingKey(), k.mapping());
        // field 22 of /proc/self/stat, read here by a split of the line after the command name
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
        long started = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]);
        assertTrue(started > 0, "this process's start time: " + started);
        assertEquals(started, k.producerStart());
        assertEquals(128, k.offset());
        assertEquals(-1, TorchStorageKey.processStartTime(Integer.MAX_VALUE), "no such process");
    }

    @Test
    void theStartTimeIsField22AfterTheCommandNameWhateverTheNameHolds() throws Exception {
        String fields = " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654321 20 21 22\n";
        for (String name : List.of("java", "a b) (c", "))", "x y z")) {
            byte[] line = ("42 (" + name + ")" + fields).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(987654321L, TorchStorageKey.startTime(line), name);
        }
        assertEquals(-1, TorchStorageKey.startTime("42 (short) S 1 2".getBytes()), "too few fields");
        assertEquals(-1, TorchStorageKey.startTime("no parenthesis".getBytes()));
        assertEquals(-1, TorchStorageKey.startTime("42 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 9x 20"
                .getBytes()), "not a number");
        // The same field as a split of the whole line after the name reads, for this process.
        String self = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
        long bySplit = Long.parseLong(self.substring(self.lastIndexOf(')') + 2).split(" ")[19]);
        assertEquals(bySplit, TorchStorageKey.processStartTime(ProcessHandle.current().pid()));
    }
}
