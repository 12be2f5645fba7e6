package org.cudaipc4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The NCCL bench's ranks without NCCL ({@link FakeBenchRank}): rank 0's figures kept, a failed rank reported. */
class NcclBenchRunTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Test
    void theFiguresAreRankZerosEachPrintedAsItComes() {
        List<NcclBenchRun.Figure> figures = NcclBenchRun.ranks(2, 2, FakeBenchRank.class.getName(), List.of(), out);
        assertEquals(List.of(new NcclBenchRun.Figure("java", "rank 0", "allreduce", 2, 4096, 1.5, 2.0, 3.0,
                List.of(1.5))), figures);
        assertEquals(List.of("NCCL allreduce, 2 ranks, 4 KiB: 1.5 us, 2.000 GB/s (bus 3.000)"),
                bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void aFailedRankFailsTheRunNamingIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> NcclBenchRun.ranks(2, 2, FakeBenchRank.class.getName(), List.of("fail:1:3"), out));
        assertEquals("NCCL bench rank 1 of 2 failed (exit code 3)", e.getMessage());
    }
}
