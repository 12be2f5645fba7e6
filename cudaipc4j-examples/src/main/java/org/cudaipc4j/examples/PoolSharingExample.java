package org.cudaipc4j.examples;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.coord.fd.FdChannel;
import org.cudaipc4j.coord.fd.FdMessage;
import org.cudaipc4j.coord.fd.FdServer;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.PoolBuffer;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.Stream;

/**
 * Shares a memory-pool allocation (the kind {@code cudaMallocAsync}, RMM and {@code cuda.core} make) with a Python
 * process that uses NVIDIA's {@code cuda.core}: the JVM creates an exportable pool, allocates and fills a buffer,
 * and sends the buffer's descriptor with the pool's file descriptor over a private Unix socket ({@link FdServer},
 * SCM_RIGHTS); {@code interop.py import-pool} imports the pool and the buffer with {@code cuda.core}, checks the
 * bytes, writes new ones and answers; the JVM checks those, then frees.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp ... org.cudaipc4j.examples.PoolSharingExample [BYTES]}
 * with {@code python3}, {@code cuda.core} and {@code cuda.bindings} on the path.
 */
public final class PoolSharingExample {
    static final byte JVM_VALUE = 0x21;
    static final byte PYTHON_VALUE = 0x42;

    private PoolSharingExample() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args.length > 0 ? Long.parseLong(args[0]) : 64L << 20));
    }

    static int run(long bytes) throws Exception {
        Cuda.init();
        Path script = PythonScripts.extract("interop.py");
        try (Context ctx = Context.retainPrimary(Device.get(0)); FdServer server = FdServer.open()) {
            Stream stream = Stream.create(ctx, true);
            // The context owns the pool, and the pool its buffers: closing the context frees them all.
            MemoryPool pool = MemoryPool.create(ctx, Set.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR), 0);
            PoolBuffer buffer = pool.allocate(bytes, stream);
            buffer.memset(JVM_VALUE);
            Process python = new ProcessBuilder("python3", script.toString(), "import-pool",
                    server.socket().toString(), Integer.toString(JVM_VALUE), Integer.toString(PYTHON_VALUE))
                    .inheritIO().start();
            try (FdChannel channel = server.accept(Duration.ofSeconds(60));
                 SharedMemoryExport export = buffer.export()) {
                channel.send(export.descriptor().toBytes(), Arrays.stream(export.fileDescriptors()).boxed().toList());
                try (FdMessage reply = channel.receive(Duration.ofSeconds(120))) {
                    if (!"done".equals(new String(reply.payload(), StandardCharsets.UTF_8))) {
                        System.out.println("java: unexpected answer from Python");
                        return 1;
                    }
                }
            } finally {
                if (!python.waitFor(60, TimeUnit.SECONDS)) {
                    python.destroyForcibly();
                }
            }
            if (python.exitValue() != 0) {
                System.out.println("java: python3 failed (exit code " + python.exitValue() + ")");
                return 1;
            }
            byte[] head = buffer.read(0, 1);
            byte[] tail = buffer.read(bytes - 1, 1);
            if (head[0] != PYTHON_VALUE || tail[0] != PYTHON_VALUE) {
                System.out.println("java: Python's bytes did not arrive");
                return 1;
            }
            System.out.println("java: cuda.core wrote into the JVM's " + bytes + "-byte pool buffer");
            return 0;
        } finally {
            java.nio.file.Files.deleteIfExists(script);
        }
    }
}
