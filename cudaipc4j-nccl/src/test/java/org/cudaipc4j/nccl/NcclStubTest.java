package org.cudaipc4j.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.StubLibraries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding's every call without a GPU: a child JVM ({@link NcclStubProgram}) drives communicators through real
 * downcalls into a stub NCCL ({@value #SOURCE}) on the stub CUDA driver, both built here with {@code cc}. The stub
 * logs each call with its arguments, so each line checks that the Java call reached the C function with what the
 * caller gave, in order, and that the checked layer turns results into the exceptions and messages it promises.
 */
class NcclStubTest {
    static final String SOURCE = "cudaipc4j-nccl/src/test/c/libnccl-stub.c";
    private static final String CONFIG = "{size=80 magic=cafebeef version=22800 blocking=%d splitShare=0"
            + " commName=%s netName=NULL}";

    @TempDir
    Path dir;

    private List<String> run(String scenario) {
        JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(120),
                JavaProcess.command(NcclStubProgram.class, List.of(), scenario, dir.toString()),
                Map.of("LD_LIBRARY_PATH", dir.toString()));
        assertEquals(0, r.exitCode(), r.describe());
        return r.stdout().lines().toList();
    }

    private void buildCudaDriver() throws IOException, InterruptedException {
        StubLibraries.build(StubLibraries.CUDA_DRIVER, dir.resolve("libcuda.so.1"));
    }

    @Test
    void everyCallReachesNcclWithItsArgumentsAndEveryFailureIsTheCheckedLayers() throws Exception {
        buildCudaDriver();
        Path stub = StubLibraries.build(SOURCE, dir.resolve("libnccl-stub.so"));
        Files.copy(stub, dir.resolve("libnccl-other.so")); // another file: loaded apart from the first
        Files.createSymbolicLink(dir.resolve("libnccl-link.so"), stub);
        String allReduce = "ncclAllReduce(a, a, 64, 7, 0, comm1, stream)";
        String failed = "ncclSend failed: ncclRemoteError: remote process exited or there was a network error"
                + " (stub: peer gone)";
        assertEquals(List.of(
                "loaded NCCL 2.28.9",
                "newUniqueId 01020304..7d7e7f80 | ncclGetUniqueId(out)",
                "create: rank 1 of 2 | ncclCommInitRankConfig(out, 2, id 0102..7f80, 1, "
                        + CONFIG.formatted(0, "stub") + "); ncclCommUserRank(comm1, out); ncclCommCount(comm1, out)",
                "allReduce | " + allReduce,
                "broadcast | ncclBroadcast(a, b+256, 64, 2, 1, comm1, stream)",
                "allGather | ncclAllGather(a, b, 64, 7, comm1, stream)",
                "reduceScatter | ncclReduceScatter(b, a, 32, 8, 2, comm1, stream)",
                "group | ncclGroupStart(); ncclSend(a, 256, 1, 0, comm1, stream);"
                        + " ncclRecv(b+256, 128, 6, 0, comm1, stream); ncclGroupEnd()",
                "register | ncclCommRegister(comm1, a, 256, out)",
                "deregister | ncclCommDeregister(comm1, registration1)",
                "asyncError 0 | ",
                "await | ",
                "split: rank 0 of 1 | ncclCommSplit(comm1, 0, 5, out, " + CONFIG.formatted(1, "half")
                        + "); ncclCommUserRank(comm2, out); ncclCommCount(comm2, out)",
                "split closed | ncclCommFinalize(comm2); ncclCommDestroy(comm2)",
                "no color: false | ncclCommSplit(comm1, -1, 0, out, " + CONFIG.formatted(0, "NULL") + ")",
                "refused: ncclAllReduce failed: ncclInvalidArgument: invalid argument (run with NCCL_DEBUG=WARN for"
                        + " details) (stub: count refused), aborted false | " + allReduce
                        + "; ncclGetErrorString(4); ncclGetLastError(comm1)",
                "failed: " + failed + ", aborted: rank 1: " + failed + " | ncclSend(a, 256, 1, 0, comm1, stream);"
                        + " ncclGetErrorString(6); ncclGetLastError(comm1); ncclCommAbort(comm1)",
                "after the abort: rank 1: " + failed + " | ",
                "closed | ",
                "other file: cannot load NCCL from DIR/libnccl-other.so: this process already calls NCCL from"
                        + " DIR/libnccl-stub.so (one NCCL library per process)",
                "same file: NCCL 2.28.9"), run("calls"));
    }

    @Test
    void anOlderReleaseIsRefusedAndAMissingFunctionFailsOnlyAtItsCalls() throws Exception {
        buildCudaDriver();
        StubLibraries.build(SOURCE, dir.resolve("libnccl-2.18.so"), "-DSTUB_VERSION=21803");
        StubLibraries.build(SOURCE, dir.resolve("libnccl-noregister.so"), "-DSTUB_VERSION=21900",
                "-DSTUB_WITHOUT_REGISTER");
        String missing = "register: DIR/libnccl-noregister.so (NCCL 2.19.0) has no ncclCommRegister | ";
        assertEquals(List.of(
                "too old: DIR/libnccl-2.18.so is NCCL 2.18.3; cudaipc4j needs NCCL 2.19.0 or later",
                "loaded NCCL 2.19.0",
                "create: rank 0 of 1 | ncclGetUniqueId(out); ncclCommInitRankConfig(out, 1, id 0102..7f80, 0, "
                        + CONFIG.formatted(1, "NULL") + "); ncclCommUserRank(comm1, out); ncclCommCount(comm1, out)",
                missing,
                missing,
                "allReduce | ncclAllReduce(a, a, 32, 4, 3, comm1, stream)",
                "closed | ncclCommFinalize(comm1); ncclCommDestroy(comm1)"), run("versions"));
    }
}
