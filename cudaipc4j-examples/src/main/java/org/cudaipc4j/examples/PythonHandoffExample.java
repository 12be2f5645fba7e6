package org.cudaipc4j.examples;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.PinnedArena;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.IpcMemHandle;

/**
 * A JVM hands a GPU buffer to a Python process: it fills the buffer, exports its 64-byte IPC handle and starts
 * {@code python3 read_buffer.py}, which opens the handle with CuPy, reads the bytes as a PyTorch tensor without a
 * copy, and adds 1 to every byte; the JVM then checks the new bytes. The handle is the same 64 bytes that
 * {@code cudaIpcGetMemHandle} gives, so any CUDA runtime client can open it.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp ... org.cudaipc4j.examples.PythonHandoffExample [BYTES]}
 * with {@code python3} and CuPy (PyTorch optional) on the path.
 */
public final class PythonHandoffExample {
    static final byte VALUE = 7;

    private PythonHandoffExample() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args.length > 0 ? Long.parseLong(args[0]) : 64L << 20));
    }

    static int run(long bytes) throws IOException, InterruptedException {
        Cuda.init();
        Path script = PythonScripts.extract("read_buffer.py");
        try (Context ctx = Context.retainPrimary(Device.get(0))) {
            DeviceBuffer buffer = DeviceBuffer.allocate(ctx, bytes);
            buffer.memset(VALUE);
            Process python = new ProcessBuilder("python3", script.toString(), IpcMemHandle.export(buffer).hex(),
                    Long.toString(bytes), Integer.toString(VALUE)).inheritIO().start();
            if (!python.waitFor(120, TimeUnit.SECONDS)) {
                python.destroyForcibly();
                System.out.println("java: python3 did not finish within 120 s");
                return 1;
            }
            if (python.exitValue() != 0) {
                System.out.println("java: python3 failed (exit code " + python.exitValue() + ")");
                return 1;
            }
            Stream stream = Stream.create(ctx, true);
            try (PinnedArena pinned = PinnedArena.open(ctx)) {
                MemorySegment host = pinned.allocate(bytes);
                buffer.copyToAsync(0, host, stream);
                stream.synchronize();
                for (long i = 0; i < bytes; i++) {
                    if (host.get(ValueLayout.JAVA_BYTE, i) != VALUE + 1) {
                        System.out.println("java: byte " + i + " is " + host.get(ValueLayout.JAVA_BYTE, i));
                        return 1;
                    }
                }
            }
            System.out.println("java: Python's " + bytes + " bytes arrived");
            return 0;
        } finally {
            Files.deleteIfExists(script);
        }
    }
}
