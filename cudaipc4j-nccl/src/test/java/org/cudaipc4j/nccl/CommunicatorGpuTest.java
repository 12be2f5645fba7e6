package org.cudaipc4j.nccl;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.cuda.DeviceBuffer;
import org.cudaipc4j.cuda.DeviceMemory;
import org.cudaipc4j.cuda.ipc.MemoryPool;
import org.cudaipc4j.cuda.ipc.PoolBuffer;
import org.cudaipc4j.cuda.ipc.ShareableHandleType;
import org.cudaipc4j.cuda.ipc.SharedMemoryExport;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.VmmAllocation;
import org.cudaipc4j.testing.GpuTest;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Ranks in processes of their own, each a separate host to NCCL, on the one GPU. */
@GpuTest
class CommunicatorGpuTest {
    @TempDir
    Path logs;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void everyCollectiveSplitAndRegistrationGiveTheExpectedValues(int size) throws Exception {
        Nccl nccl = Ranks.ncclOrSkip();
        UniqueId id = nccl.newUniqueId();
        List<Ranks.Outcome> outcomes = Ranks.run(size, Duration.ofSeconds(180), RankProgram.class,
                r -> List.of("collectives", "" + r, "" + size, id.hex()), logs);
        for (Ranks.Outcome o : outcomes) {
            assertEquals(0, o.exit(), o.describe());
            for (String check : List.of("ok allReduce", "ok broadcast", "ok allGather", "ok reduceScatter",
                    "ok send/recv registered", "ok split", "ok closed")) {
                assertTrue(o.stdout().contains(check), check + " missing: " + o.describe());
            }
        }
    }

    @Test
    void aBlockingCommunicatorGivesTheSameValues() throws Exception {
        Nccl nccl = Ranks.ncclOrSkip();
        UniqueId id = nccl.newUniqueId();
        List<Ranks.Outcome> outcomes = Ranks.run(2, Duration.ofSeconds(180), RankProgram.class,
                r -> List.of("collectives-blocking", "" + r, "2", id.hex()), logs);
        for (Ranks.Outcome o : outcomes) {
            assertEquals(0, o.exit(), o.describe());
            assertTrue(o.stdout().contains("ok split") && o.stdout().contains("ok closed"), o.describe());
        }
    }

    /** Memory the library shares over each IPC path is NCCL's send and receive memory in other processes. */
    @Test
    void memorySharedOverEveryIpcPathWorksAsNcclBuffers() throws Exception {
        Nccl nccl = Ranks.ncclOrSkip();
        int size = 2;
        int n = 1 << 16;
        long bytes = 4L * n * (size + 1);
        try (Context context = Context.retainPrimary(Device.get(0));
             Stream stream = Stream.create(context, true)) {
            Set<ShareableHandleType> fd = EnumSet.of(ShareableHandleType.POSIX_FILE_DESCRIPTOR);
            long granularity = VmmAllocation.granularity(context.device(), fd);
            DeviceBuffer legacy = DeviceBuffer.allocate(context, bytes);
            VmmAllocation vmm = VmmAllocation.create(context, (bytes + granularity - 1) / granularity * granularity, fd);
            MemoryPool pool = MemoryPool.create(context, fd, 0);
            PoolBuffer pooled = pool.allocate(bytes, stream);
            stream.synchronize();
            List<DeviceMemory> memories = List.of(legacy, vmm, pooled);
            List<String> names = List.of("legacy", "vmm", "pool");
            List<SharedMemoryExport> exports = new ArrayList<>();
            StringBuilder file = new StringBuilder();
            for (int i = 0; i < memories.size(); i++) {
                DeviceMemory m = memories.get(i);
                m.memset((byte) 0);
                RankProgram.fill(m, n, k -> 1f);
                SharedMemoryExport export = SharedMemoryExport.of(m);
                exports.add(export);
                file.append(names.get(i)).append(' ').append(ProcessHandle.current().pid()).append(' ').append(n)
                        .append(' ').append(HexFormat.of().formatHex(export.descriptor().toBytes()));
                for (int f : export.fileDescriptors()) {
                    file.append(' ').append(f);
                }
                file.append('\n');
            }
            Path shared = Files.writeString(logs.resolve("exports.txt"), file);
            UniqueId id = nccl.newUniqueId();
            List<Ranks.Outcome> outcomes = Ranks.run(size, Duration.ofSeconds(180), RankProgram.class,
                    r -> List.of("ipc", "" + r, "" + size, id.hex(), shared.toString()), logs);
            for (Ranks.Outcome o : outcomes) {
                assertEquals(0, o.exit(), o.describe());
                for (String name : names) {
                    assertTrue(o.stdout().contains("ok ipc " + name), name + ": " + o.describe());
                }
            }
            for (int i = 0; i < memories.size(); i++) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment host = arena.allocate(4L * n * (size + 1));
                    memories.get(i).copyTo(0, host);
                    for (int r = 0; r < size; r++) {
                        for (int k = 0; k < n; k++) {
                            assertEquals(size, host.getAtIndex(JAVA_FLOAT, (long) n * (r + 1) + k),
                                    names.get(i) + ": rank " + r + "'s block, element " + k);
                        }
                    }
                }
            }
            exports.forEach(SharedMemoryExport::close);
            pooled.close();
            pool.close();
            vmm.close();
            legacy.close();
        }
    }
}
