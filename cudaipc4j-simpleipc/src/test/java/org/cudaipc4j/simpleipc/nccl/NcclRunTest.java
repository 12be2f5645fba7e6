package org.cudaipc4j.simpleipc.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.coord.MemberCommand;
import org.junit.jupiter.api.Test;

/**
 * The ranks the tool starts itself, without NCCL: {@link FakeRank}s under the supervisor that {@code --transport
 * nccl} uses, each told its rank and the tool's pid, a failed rank ending the others with the tool's lines.
 */
class NcclRunTest {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private NcclRun.Result run(int size, String mode, Duration timeout) {
        LocalRanks local = new LocalRanks(size, size);
        List<MemberCommand> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            ranks.add(local.rank(r, FakeRank.class.getName(), List.of(mode)));
        }
        return NcclRun.superviseRanks(ranks, timeout, Duration.ofMillis(200), out, err);
    }

    private List<String> errLines() {
        return errBytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void eachRankIsToldItsRankTheSizeAndTheToolsPid() {
        assertEquals(NcclRun.Result.PASSED, run(3, "pass", Duration.ofSeconds(60)), errBytes.toString());
        String printed = outBytes.toString(StandardCharsets.UTF_8);
        long pid = ProcessHandle.current().pid();
        for (int r = 0; r < 3; r++) {
            assertTrue(printed.matches("(?s).*rank " + r + " of 3, parent " + pid + ", rendezvous 127\\.0\\.0\\.1:\\d+"
                    + "\n.*"), printed);
        }
        assertEquals(List.of(), errLines());
    }

    @Test
    void aFailedRankEndsTheGroupWithItsLineFirst() {
        assertEquals(NcclRun.Result.FAILED, run(2, "fail:1:3", Duration.ofSeconds(60)));
        assertEquals(List.of("cudaipc4j: Process 1 failed (exit code 3)",
                "cudaipc4j: Process 0 failed (terminated after process 1 failed (killed by signal 15 (SIGTERM)))"),
                errLines());
    }

    @Test
    void ranksStillRunningAtTheTimeoutAreKilledNamingIt() {
        assertEquals(NcclRun.Result.FAILED, run(2, "wait", Duration.ofSeconds(1)));
        assertEquals(List.of("cudaipc4j: Process 0 failed (timed out after 1 s (--timeout) waiting for it to finish)",
                "cudaipc4j: Process 1 failed (timed out after 1 s (--timeout) waiting for it to finish)"), errLines());
    }
}
