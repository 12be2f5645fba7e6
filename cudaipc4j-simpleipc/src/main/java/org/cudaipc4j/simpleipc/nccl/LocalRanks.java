package org.cudaipc4j.simpleipc.nccl;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.coord.MemberCommand;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

/**
 * The ranks of one job that the tool starts on this machine itself (no launcher): one JVM per rank, each told its
 * rank, the job's size, and where rank 0's rendezvous listens on loopback with the job's secret, through
 * cudaipc4j's own launcher variables. Ranks beyond the devices become hosts of their own to NCCL
 * ({@link SimpleIpcSettings#NCCL_SEPARATE_HOSTS}).
 */
public final class LocalRanks {
    private final int size;
    private final boolean separateHosts;
    private final int port;
    private final String secret;
    private final List<String> base = JvmCommand.base();

    /** {@code size} ranks on {@code devices} devices, with a fresh port and secret. */
    public LocalRanks(int size, int devices) {
        this.size = size;
        this.separateHosts = size > devices;
        this.port = freeLoopbackPort();
        this.secret = HexFormat.of().formatHex(new SecureRandom().generateSeed(32));
    }

    /** Rank {@code rank}'s command, running {@code mainClass} with {@code args}, for a supervisor to start. */
    public MemberCommand rank(int rank, String mainClass, List<String> args) {
        Map<String, String> env = new HashMap<>();
        env.put("CUDAIPC4J_RANK", Integer.toString(rank));
        env.put("CUDAIPC4J_WORLD_SIZE", Integer.toString(size));
        env.put("CUDAIPC4J_LOCAL_RANK", Integer.toString(rank));
        env.put("CUDAIPC4J_RENDEZVOUS", "127.0.0.1:" + port);
        env.put("CUDAIPC4J_RENDEZVOUS_SECRET", secret);
        if (separateHosts) {
            env.put(SimpleIpcSettings.NCCL_SEPARATE_HOSTS.name(), "1");
        }
        return MemberCommand.of(JvmCommand.from(base, List.of(), mainClass, args)).withEnvironment(env);
    }

    /** A port on 127.0.0.1 that was free a moment ago, for rank 0 to bind. */
    private static int freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port on 127.0.0.1: " + e.getMessage(), e);
        }
    }
}
