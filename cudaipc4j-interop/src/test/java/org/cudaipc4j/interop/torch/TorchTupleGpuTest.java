package org.cudaipc4j.interop.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.interop.DType;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TensorLayout;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ProjectRoot;
import org.cudaipc4j.testing.Waits;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Java exports a {@link DeviceBuffer} of known bytes as torch's own tuples ({@link TorchTupleExport}); a plain torch
 * process ({@code src/test/python/torch_tuple_consumer.py}) rebuilds each with torch's {@code rebuild_cuda_tensor}
 * alone and prints the sha256 of the tensor's bytes, which must equal Java's. Two storages of the buffer share one
 * mapping; a second tuple of an open storage is given back at once (torch's cache hit). The consumer drops its
 * tensors and calls nothing special: every slot reads 0, the counter file's process count is back at 1, and Java
 * frees the buffer. A consumer killed while it holds a tensor leaves its slot at 1 (torch's reader never gives it
 * back); named at mint, its exit counts as the release, and Java frees.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class TorchTupleGpuTest {
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final long MIB = 1 << 20;

    /** The buffer's bytes: a counter pattern that differs at every 4-byte word. */
    private static byte[] contents(int bytes) {
        ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < bytes / 4; i++) {
            b.putInt(i * 4, i * 0x9E3779B1);
        }
        return b.array();
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "package"})
    void aPlainTorchConsumerRebuildsJavasTuplesAndJavaFreesAfterItsRelease(String mode) throws Exception {
        List<String> consumerCommand = consumer(mode);
        byte[] bytes = contents((int) (4 * MIB));
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            DeviceBuffer buffer = DeviceBuffer.allocate(ctx, bytes.length);
            buffer.copyFrom(0, bytes, 0, bytes.length);
            TorchTupleExport export = TorchTupleExport.of(buffer);
            TensorLayout whole = TensorLayout.of(DType.FLOAT32, new long[] {512, 256}, new long[] {256, 1}, 4);
            TensorLayout strided = TensorLayout.of(DType.INT32, new long[] {64, 32}, new long[] {64, 2}, 5);
            List<Descriptor> tuples = List.of(
                    export.mint(whole, 0, MIB),
                    export.mint(strided, 2 * MIB, MIB),
                    export.mint(whole, 0, MIB)); // the first storage again: torch's cache hit
            try (JavaProcess.Interactive consumer = JavaProcess.start(consumerCommand)) {
                DriverFileLeaks.removeWhenEnded(consumer.pid()); // whatever torch leaves, at any exit
                for (Descriptor d : tuples) {
                    consumer.writeLine(DescriptorJson.toJson(d));
                }
                consumer.writeLine("rebuilt");
                List<JsonObject> seen = new ArrayList<>();
                for (int i = 0; i < tuples.size(); i++) {
                    seen.add(JsonParser.parseString(consumer.readLine(WAIT)).getAsJsonObject());
                }
                assertEquals("ready", consumer.readLine(WAIT));
                for (int i = 0; i < tuples.size(); i++) {
                    Descriptor d = tuples.get(i);
                    assertEquals(sha256(bytes, d), seen.get(i).get("sha256").getAsString(), "tuple " + i);
                }
                assertEquals(2 * MIB, seen.get(1).get("storage_ptr").getAsLong()
                        - seen.get(0).get("storage_ptr").getAsLong(), "one mapping: storages at their offsets");
                assertEquals(1, slot(tuples.get(0)), "held while the tensor lives");
                assertEquals(1, slot(tuples.get(1)));
                assertEquals(0, slot(tuples.get(2)), "a second tuple of an open storage is given back at once");
                assertEquals(2, export.held());
                consumer.writeLine("drop");
                assertEquals("dropped", consumer.readLine(WAIT));
                for (Descriptor d : tuples) {
                    assertEquals(0, slot(d), "given back once by torch's deleter");
                }
                Path file = export.counterFiles().getFirst();
                assertEquals(1, CounterFiles.processCount(file.getParent(), "/" + file.getFileName()),
                        "the process count is back at the exporter's 1");
                assertTrue(Files.exists(file), "the consumer did not unlink the exporter's file");
                export.close();
                assertTrue(buffer.isClosed(), "freed once every slot read 0");
                assertFalse(Files.exists(file), "the counter file is removed");
                consumer.writeLine("exit");
                assertEquals(0, consumer.finish(WAIT).exitCode());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain"})
    void aKilledConsumersSlotStaysOneAndItsExitCountsAsTheRelease(String mode) throws Exception {
        List<String> consumerCommand = consumer(mode);
        byte[] bytes = contents((int) (2 * MIB));
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            DeviceBuffer buffer = DeviceBuffer.allocate(ctx, bytes.length);
            buffer.copyFrom(0, bytes, 0, bytes.length);
            TorchTupleExport export = TorchTupleExport.of(buffer);
            try (JavaProcess.Interactive consumer = JavaProcess.start(consumerCommand)) {
                DriverFileLeaks.removeWhenEnded(consumer.pid()); // whatever torch leaves, at any exit
                ProcessHandle handle = ProcessHandle.of(consumer.pid()).orElseThrow();
                Descriptor d = export.mint(TensorLayout.contiguous(DType.FLOAT32, MIB / 4), 0, MIB, handle);
                consumer.writeLine(DescriptorJson.toJson(d));
                consumer.writeLine("rebuilt");
                JsonObject seen = JsonParser.parseString(consumer.readLine(WAIT)).getAsJsonObject();
                assertEquals(sha256(bytes, d), seen.get("sha256").getAsString());
                assertEquals("ready", consumer.readLine(WAIT));
                assertEquals(1, export.held());
                assertTrue(handle.destroyForcibly(), "SIGKILL sent");
                assertTrue(Waits.until(5_000, () -> !handle.isAlive()), "the consumer died");
                assertEquals(1, slot(d), "torch's killed reader never gives its slot back");
                assertEquals(0, export.held(), "its exit counts as the release");
                export.close();
                assertTrue(buffer.isClosed(), "freed after the consumer's death");
            }
            try (DeviceBuffer other = DeviceBuffer.allocate(ctx, MIB)) {
                other.memset((byte) 1); // the context is healthy after the free
            }
        }
    }

    private static long slot(Descriptor d) {
        try (TorchCounterFile f = TorchCounterFile.open(TorchCounterFile.DEFAULT_DIRECTORY,
                d.torch().refCounterFile())) {
            return f.slot(d.torch().refCounterOffset());
        }
    }

    /** sha256 of the tuple's tensor in row-major order, from the buffer's host copy. */
    private static String sha256(byte[] buffer, Descriptor d) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        TensorLayout l = d.tensor();
        int es = l.dtype().elementSize();
        long base = d.torch().storageOffsetBytes();
        long[] shape = l.shape();
        long[] strides = l.strides();
        long[] index = new long[shape.length];
        for (long n = 0; n < l.elementCount(); n++) {
            long at = l.offset();
            for (int k = 0; k < shape.length; k++) {
                at += index[k] * strides[k];
            }
            md.update(buffer, (int) (base + at * es), es);
            for (int k = shape.length - 1; k >= 0; k--) {
                if (++index[k] < shape[k]) {
                    break;
                }
                index[k] = 0;
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /**
     * The consumer's command. On the GPU machine python3 with torch on CUDA is required: its absence fails the test
     * (this class runs only where a GPU is), never skips it.
     */
    private static List<String> consumer(String mode) {
        Path root = ProjectRoot.find().orElseThrow(() -> new AssertionError("not inside the checkout"));
        JavaProcess.Result probe = JavaProcess.runCommand(WAIT, List.of("python3", "-c", "import torch;"
                + " assert torch.cuda.is_available()"));
        assertEquals(0, probe.exitCode(), () -> "python3 cannot use torch on CUDA: " + probe.stderr().strip());
        String script = root.resolve("cudaipc4j-interop/src/test/python/torch_tuple_consumer.py").toString();
        return List.of("env", "PYTHONPATH=" + root.resolve("python"), "python3", script, mode);
    }
}
