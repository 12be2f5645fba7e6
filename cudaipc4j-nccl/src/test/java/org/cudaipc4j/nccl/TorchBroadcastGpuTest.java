package org.cudaipc4j.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cudaipc4j.testing.DriverFileLeaks;
import org.cudaipc4j.testing.GpuTest;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.Ports;
import org.cudaipc4j.testing.ProjectRoot;
import org.cudaipc4j.testing.PythonModules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A torch process is rank 0 and broadcasts 1 GiB to two Java ranks: one rendezvous (the Python package's, hosted by
 * the torch rank), one communicator, the NCCL torch brings loaded by every rank: the weight-update group of RL
 * trainers.
 */
@GpuTest
@ExtendWith(DriverFileLeaks.class)
class TorchBroadcastGpuTest {
    @TempDir
    Path logs;

    /** cudaipc4j's own launcher variables for rank {@code rank}. */
    private static Map<String, String> launched(int rank, int size, String rendezvous, String secret) {
        return Map.of("CUDAIPC4J_RANK", "" + rank, "CUDAIPC4J_WORLD_SIZE", "" + size, "CUDAIPC4J_LOCAL_RANK", "0",
                "CUDAIPC4J_RENDEZVOUS", rendezvous, "CUDAIPC4J_RENDEZVOUS_SECRET", secret);
    }

    @Test
    void aTorchRankBroadcastsOneGibToTwoJavaRanksBytesExact() throws Exception {
        PythonModules.assumeImportable("torch");
        Path root = ProjectRoot.find().orElseThrow();
        int size = 3;
        long ints = 1L << 28; // 1 GiB of int32
        String rendezvous = "127.0.0.1:" + Ports.freeLoopbackPort();
        String secret = java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16));
        ProcessBuilder pb = new ProcessBuilder("python3", root.resolve("python/tests/nccl_torch_rank.py").toString(),
                "" + ints).redirectError(logs.resolve("torch.err").toFile());
        pb.environment().putAll(Ranks.separateHost(0));
        pb.environment().putAll(launched(0, size, rendezvous, secret));
        pb.environment().put("PYTHONPATH", root.resolve("python").toString());
        Process torch = pb.start();
        DriverFileLeaks.removeWhenEnded(torch.pid()); // whatever torch leaves, at any exit
        try (BufferedReader out = new BufferedReader(new InputStreamReader(torch.getInputStream(),
                StandardCharsets.UTF_8))) {
            Map<String, String> said = new HashMap<>();
            while (!said.containsKey("version")) {
                String line = out.readLine();
                if (line == null) {
                    torch.waitFor(30, TimeUnit.SECONDS);
                    throw new AssertionError("the torch rank ended before it joined: "
                            + Files.readString(logs.resolve("torch.err")));
                }
                String[] f = line.split(" ", 2);
                said.put(f[0], f[1]);
            }
            String library = said.get("library");
            System.out.println("torch rank: NCCL " + new NcclVersion(Integer.parseInt(said.get("version")))
                    + " from " + library);
            List<Ranks.Outcome> javaRanks = Ranks.runWith(size - 1, Duration.ofSeconds(240), RankProgram.class,
                    r -> List.of("receive-launched", "" + ints), logs, r -> {
                        Map<String, String> env = new HashMap<>(launched(r + 1, size, rendezvous, secret));
                        env.put(NcclSettings.LIBRARY.name(), library);
                        return env;
                    }, 1);
            String rest = out.lines().collect(java.util.stream.Collectors.joining("\n"));
            assertTrue(torch.waitFor(60, TimeUnit.SECONDS), "the torch rank did not end");
            assertEquals(0, torch.exitValue(), rest + Files.readString(logs.resolve("torch.err")));
            assertTrue(rest.contains("ok broadcast " + 4 * ints), rest);
            for (Ranks.Outcome o : javaRanks) {
                assertEquals(0, o.exit(), o.describe());
                assertTrue(o.stdout().contains("ok received " + 4 * ints), o.describe());
                assertTrue(o.stdout().contains("on NCCL " + new NcclVersion(Integer.parseInt(said.get("version")))),
                        "the Java rank loaded another NCCL: " + o.describe());
            }
        } finally {
            torch.destroyForcibly();
        }
    }
}
