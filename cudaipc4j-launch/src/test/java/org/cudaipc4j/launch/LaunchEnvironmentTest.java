package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each launcher, the precedence between them, and the errors; the golden file covers many more cases. */
class LaunchEnvironmentTest {
    private static Map<String, String> torchrun() {
        Map<String, String> env = new HashMap<>();
        env.put("RANK", "3");
        env.put("WORLD_SIZE", "4");
        env.put("LOCAL_RANK", "1");
        env.put("MASTER_ADDR", "trainer-0");
        env.put("MASTER_PORT", "29500");
        return env;
    }

    private static Map<String, String> openMpi(int rank, int size, int localRank, int localSize) {
        Map<String, String> env = new HashMap<>();
        env.put("OMPI_COMM_WORLD_RANK", Integer.toString(rank));
        env.put("OMPI_COMM_WORLD_SIZE", Integer.toString(size));
        env.put("OMPI_COMM_WORLD_LOCAL_RANK", Integer.toString(localRank));
        env.put("OMPI_COMM_WORLD_LOCAL_SIZE", Integer.toString(localSize));
        env.put("PMIX_NAMESPACE", "prterun-gpu1-81234@1");
        return env;
    }

    private static Map<String, String> slurm() {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_PROCID", "5");
        env.put("SLURM_NTASKS", "8");
        env.put("SLURM_LOCALID", "1");
        env.put("SLURM_JOB_ID", "123456");
        env.put("SLURM_STEP_ID", "0");
        env.put("SLURM_JOB_NODELIST", "node[01-04,07]");
        return env;
    }

    private static LaunchEnvironmentException refused(Map<String, String> env) {
        LaunchEnvironmentException e = assertThrows(LaunchEnvironmentException.class,
                () -> LaunchEnvironment.detect(env));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().startsWith(e.variable()), e.getMessage());
        return e;
    }

    @Test
    void torchrunRendezvousIsOnMasterAddrAtTheNextPort() {
        LaunchEnvironment e = LaunchEnvironment.detect(torchrun());
        assertEquals(Launcher.TORCHRUN, e.launcher());
        assertEquals(3, e.rank());
        assertEquals(4, e.size());
        assertEquals(1, e.localRank());
        assertEquals(Optional.of(new HostPort("trainer-0", 29501)), e.rendezvous());
        assertArrayEquals(new JobIdentity("torchrun\ntrainer-0\n29500").secret(), e.requireSecret());
    }

    @Test
    void torchrunRunIdChangesTheSecret() {
        Map<String, String> env = torchrun();
        byte[] without = LaunchEnvironment.detect(env).requireSecret();
        env.put("TORCHELASTIC_RUN_ID", "job-42");
        assertFalse(java.util.Arrays.equals(without, LaunchEnvironment.detect(env).requireSecret()));
    }

    @Test
    void masterPort65535IsRefusedNamingIt() {
        Map<String, String> env = torchrun();
        env.put("MASTER_PORT", "65535");
        LaunchEnvironmentException e = refused(env);
        assertEquals("MASTER_PORT", e.variable());
        assertTrue(e.getMessage().contains("CUDAIPC4J_RENDEZVOUS"), e.getMessage());
        env.put("CUDAIPC4J_RENDEZVOUS", "trainer-0:40000");
        assertEquals(new HostPort("trainer-0", 40000), LaunchEnvironment.detect(env).requireRendezvous());
    }

    @Test
    void halfSetTorchrunVariablesAreRefused() {
        for (String missing : new String[] {"RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"}) {
            Map<String, String> env = torchrun();
            env.remove(missing);
            assertEquals(missing, refused(env).variable());
        }
    }

    @Test
    void openMpiOnOneHostMeetsOnLoopbackAtADerivedPort() {
        LaunchEnvironment e = LaunchEnvironment.detect(openMpi(1, 3, 1, 3));
        assertEquals(Launcher.OPEN_MPI, e.launcher());
        HostPort at = e.requireRendezvous();
        assertEquals("127.0.0.1", at.host());
        assertEquals(new JobIdentity("openmpi\nprterun-gpu1-81234@1").port(), at.port());
        // every rank of the job derives the same
        assertEquals(at, LaunchEnvironment.detect(openMpi(0, 3, 0, 3)).requireRendezvous());
    }

    @Test
    void openMpiFallsBackToTheJobId() {
        Map<String, String> env = openMpi(0, 2, 0, 2);
        env.remove("PMIX_NAMESPACE");
        env.put("OMPI_MCA_ess_base_jobid", "3049390081");
        assertEquals(new JobIdentity("openmpi\n3049390081").port(),
                LaunchEnvironment.detect(env).requireRendezvous().port());
        env.remove("OMPI_MCA_ess_base_jobid");
        LaunchEnvironment none = LaunchEnvironment.detect(env);
        assertEquals(Optional.empty(), none.rendezvous());
        assertEquals("CUDAIPC4J_RENDEZVOUS",
                assertThrows(LaunchEnvironmentException.class, none::requireRendezvous).variable());
        assertFalse(none.hasSecret());
    }

    @Test
    void openMpiAcrossHostsSaysWhichVariableToSet() {
        LaunchEnvironment e = LaunchEnvironment.detect(openMpi(5, 8, 1, 4));
        assertEquals(Optional.empty(), e.rendezvous());
        LaunchEnvironmentException x = assertThrows(LaunchEnvironmentException.class, e::requireRendezvous);
        assertEquals("ranks of this mpirun job are on several hosts: set CUDAIPC4J_RENDEZVOUS=host:port (a port on"
                + " rank 0's host)", x.getMessage());
        Map<String, String> env = openMpi(5, 8, 1, 4);
        env.put("CUDAIPC4J_RENDEZVOUS", "gpu1:29400");
        assertEquals(new HostPort("gpu1", 29400), LaunchEnvironment.detect(env).requireRendezvous());
    }

    @Test
    void slurmMeetsOnTheFirstHostAtAPortOfTheJobAndStep() {
        LaunchEnvironment e = LaunchEnvironment.detect(slurm());
        assertEquals(Launcher.SLURM, e.launcher());
        assertEquals(5, e.rank());
        assertEquals(8, e.size());
        assertEquals(1, e.localRank());
        assertEquals(new HostPort("node01", new JobIdentity("slurm\n123456\n0").port()), e.requireRendezvous());
        Map<String, String> step = slurm();
        step.put("SLURM_STEP_NODELIST", "node[03-04]");
        step.put("SLURM_STEP_ID", "1");
        HostPort other = LaunchEnvironment.detect(step).requireRendezvous();
        assertEquals("node03", other.host());
        assertEquals(new JobIdentity("slurm\n123456\n1").port(), other.port());
    }

    @Test
    void firstMatchWins() {
        Map<String, String> all = new HashMap<>(slurm());
        all.putAll(openMpi(1, 2, 1, 2));
        assertEquals(Launcher.OPEN_MPI, LaunchEnvironment.detect(all).launcher());
        all.putAll(torchrun());
        assertEquals(Launcher.TORCHRUN, LaunchEnvironment.detect(all).launcher());
        all.put("CUDAIPC4J_RANK", "0");
        all.put("CUDAIPC4J_WORLD_SIZE", "1");
        LaunchEnvironment e = LaunchEnvironment.detect(all);
        assertEquals(Launcher.EXPLICIT, e.launcher());
        assertEquals(0, e.localRank());
    }

    @Test
    void noLauncherIsRankZeroOfOne() {
        LaunchEnvironment e = LaunchEnvironment.detect(Map.of("HOME", "/root", "LOCAL_RANK", "2"));
        assertEquals(Launcher.NONE, e.launcher());
        assertEquals(0, e.rank());
        assertEquals(1, e.size());
        assertEquals(0, e.localRank());
        assertEquals(Optional.empty(), e.rendezvous());
        assertThrows(LaunchEnvironmentException.class, e::requireSecret);
    }

    @Test
    void badNumbersNameTheVariableAndValue() {
        Map<String, String> env = torchrun();
        env.put("RANK", "three");
        LaunchEnvironmentException e = refused(env);
        assertEquals("RANK='three': not a number; expected a whole number from 0 to 2147483647", e.getMessage());
        env.put("RANK", "-1");
        assertTrue(refused(env).getMessage().startsWith("RANK='-1': negative"));
        env.put("RANK", "4");
        assertEquals("RANK='4': not below WORLD_SIZE=4 (ranks count from 0)", refused(env).getMessage());
        env.put("RANK", "0");
        env.put("WORLD_SIZE", "0");
        assertEquals("WORLD_SIZE", refused(env).variable());
    }

    @Test
    void aValueOnSeveralLinesIsShownOnOne() {
        Map<String, String> env = new HashMap<>(Map.of("CUDAIPC4J_RANK", "0", "CUDAIPC4J_WORLD_SIZE", "1"));
        env.put("CUDAIPC4J_RENDEZVOUS", "a\nb:1" + "x".repeat(500));
        LaunchEnvironmentException e = refused(env);
        assertTrue(e.getMessage().length() < 300, e.getMessage());
    }

    @Test
    void givenSecretIsItsUtf8Bytes() {
        Map<String, String> env = torchrun();
        env.put("CUDAIPC4J_RENDEZVOUS_SECRET", "s\u00e9cret-4711");
        LaunchEnvironment e = LaunchEnvironment.detect(env);
        assertArrayEquals("s\u00e9cret-4711".getBytes(StandardCharsets.UTF_8), e.requireSecret());
        e.requireSecret()[0] = 0;
        assertEquals('s', e.requireSecret()[0], "the secret is copied out");
        assertFalse(e.toString().contains("4711"), e.toString());
        env.put("CUDAIPC4J_RENDEZVOUS_SECRET", "");
        assertArrayEquals(new JobIdentity("torchrun\ntrainer-0\n29500").secret(),
                LaunchEnvironment.detect(env).requireSecret(), "an empty secret counts as not set");
    }

    @Test
    void equalEnvironmentsAreEqual() {
        assertEquals(LaunchEnvironment.detect(slurm()), LaunchEnvironment.detect(slurm()));
        assertEquals(LaunchEnvironment.detect(slurm()).hashCode(), LaunchEnvironment.detect(slurm()).hashCode());
        assertNotEquals(LaunchEnvironment.detect(slurm()), LaunchEnvironment.detect(torchrun()));
    }

    @Test
    void fromSystemReadsThisProcess() {
        // the test JVM is started by no launcher of ranks, or by one: either way it parses or says why in one line
        try {
            LaunchEnvironment e = LaunchEnvironment.fromSystem();
            assertTrue(e.rank() < e.size());
        } catch (LaunchEnvironmentException e) {
            assertFalse(e.getMessage().contains("\n"));
        }
    }
}
