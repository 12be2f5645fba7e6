package org.cudaipc4j.launch;

import static org.cudaipc4j.launch.LaunchSettings.CUDAIPC4J_LOCAL_RANK;
import static org.cudaipc4j.launch.LaunchSettings.CUDAIPC4J_RANK;
import static org.cudaipc4j.launch.LaunchSettings.CUDAIPC4J_RENDEZVOUS;
import static org.cudaipc4j.launch.LaunchSettings.CUDAIPC4J_RENDEZVOUS_SECRET;
import static org.cudaipc4j.launch.LaunchSettings.CUDAIPC4J_WORLD_SIZE;
import static org.cudaipc4j.launch.LaunchSettings.LOCAL_RANK;
import static org.cudaipc4j.launch.LaunchSettings.MASTER_ADDR;
import static org.cudaipc4j.launch.LaunchSettings.MASTER_PORT;
import static org.cudaipc4j.launch.LaunchSettings.OMPI_COMM_WORLD_LOCAL_RANK;
import static org.cudaipc4j.launch.LaunchSettings.OMPI_COMM_WORLD_LOCAL_SIZE;
import static org.cudaipc4j.launch.LaunchSettings.OMPI_COMM_WORLD_RANK;
import static org.cudaipc4j.launch.LaunchSettings.OMPI_COMM_WORLD_SIZE;
import static org.cudaipc4j.launch.LaunchSettings.OMPI_MCA_ESS_BASE_JOBID;
import static org.cudaipc4j.launch.LaunchSettings.PMIX_NAMESPACE;
import static org.cudaipc4j.launch.LaunchSettings.RANK;
import static org.cudaipc4j.launch.LaunchSettings.SLURM_JOB_ID;
import static org.cudaipc4j.launch.LaunchSettings.SLURM_JOB_NODELIST;
import static org.cudaipc4j.launch.LaunchSettings.SLURM_LOCALID;
import static org.cudaipc4j.launch.LaunchSettings.SLURM_NTASKS;
import static org.cudaipc4j.launch.LaunchSettings.SLURM_PROCID;
import static org.cudaipc4j.launch.LaunchSettings.SLURM_STEP_ID;
import static org.cudaipc4j.launch.LaunchSettings.SLURM_STEP_NODELIST;
import static org.cudaipc4j.launch.LaunchSettings.TORCHELASTIC_RUN_ID;
import static org.cudaipc4j.launch.LaunchSettings.WORLD_SIZE;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.cudaipc4j.base.Setting;

/**
 * Who this process is in its group of ranks, as the launcher that started it says: the launcher, the rank, the
 * number of ranks, the rank on its host, the rendezvous address (where rank 0 listens) and the rendezvous's shared
 * secret. Immutable.
 *
 * <p>Read by {@link #detect(Map)} from the first of these sources whose variables are set (the full rules, with
 * the derived ports and secrets, are in {@code docs/multinode.md}, "Launchers"):
 * <ol>
 *   <li>our own: {@code CUDAIPC4J_RANK}, {@code CUDAIPC4J_WORLD_SIZE}, {@code CUDAIPC4J_LOCAL_RANK} (default: the
 *       rank); the address is {@code CUDAIPC4J_RENDEZVOUS};</li>
 *   <li>torchrun: {@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK}; the address is {@code MASTER_ADDR} with
 *       port {@code MASTER_PORT + 1} (torch's own store holds {@code MASTER_PORT});</li>
 *   <li>Open MPI: {@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE}; with
 *       every rank on one host the address is 127.0.0.1 with a port derived from the job's identity
 *       ({@link JobIdentity}); across hosts there is none unless {@code CUDAIPC4J_RENDEZVOUS} is set;</li>
 *   <li>Slurm: {@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID}; the address is the first host of
 *       {@code SLURM_STEP_NODELIST} (else {@code SLURM_JOB_NODELIST}) with a port derived from the job and step;</li>
 *   <li>none of them: {@link Launcher#NONE}, rank 0 of 1.</li>
 * </ol>
 * {@code CUDAIPC4J_RENDEZVOUS}, when set, is the address under every launcher. The secret is
 * {@code CUDAIPC4J_RENDEZVOUS_SECRET}'s UTF-8 bytes when it is set, else derived from the job's identity. A
 * variable set to the empty string counts as not set.
 */
public final class LaunchEnvironment {
    private final Launcher launcher;
    private final int rank;
    private final int size;
    private final int localRank;
    private final HostPort rendezvous;
    private final String rendezvousProblem;
    private final JobIdentity identity;
    private final byte[] secret;

    private LaunchEnvironment(Launcher launcher, int rank, int size, int localRank, HostPort rendezvous,
                              String rendezvousProblem, JobIdentity identity, byte[] secret) {
        this.launcher = launcher;
        this.rank = rank;
        this.size = size;
        this.localRank = localRank;
        this.rendezvous = rendezvous;
        this.rendezvousProblem = rendezvousProblem;
        this.identity = identity;
        this.secret = secret;
    }

    /**
     * This process's launch, from its environment.
     *
     * @return what the environment says
     * @throws LaunchEnvironmentException as {@link #detect(Map)}
     */
    public static LaunchEnvironment fromSystem() {
        return detect(LaunchSettings.fromSystem());
    }

    /**
     * The launch that {@code env} describes (the variables of its launchers; others are ignored).
     *
     * @param env environment variables by name
     * @return what they say
     * @throws LaunchEnvironmentException in one line naming the variable, its value and what was expected, when a
     *     value is malformed or out of range, or when a launcher's variables are set only in part
     */
    public static LaunchEnvironment detect(Map<String, String> env) {
        Env e = new Env(Objects.requireNonNull(env, "env"));
        HostPort override = e.has(CUDAIPC4J_RENDEZVOUS) ? e.address(CUDAIPC4J_RENDEZVOUS) : null;
        Found f;
        if (e.hasAny(CUDAIPC4J_RANK, CUDAIPC4J_WORLD_SIZE, CUDAIPC4J_LOCAL_RANK)) {
            f = explicit(e, override);
        } else if (e.hasAny(RANK, WORLD_SIZE)) {
            f = torchrun(e, override);
        } else if (e.hasAny(OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE)) {
            f = openMpi(e, override);
        } else if (e.has(SLURM_PROCID)) {
            f = slurm(e, override);
        } else {
            f = new Found(Launcher.NONE, 0, 1, 0);
            f.address = override;
            f.problem = "no launcher's variables are set (" + CUDAIPC4J_RANK + ", " + RANK + ", "
                    + OMPI_COMM_WORLD_RANK + ", " + SLURM_PROCID + "), so this process is rank 0 of 1 with no"
                    + " rendezvous: set " + CUDAIPC4J_RENDEZVOUS + "=host:port for one";
        }
        if (f.identity == null && f.address != null) {
            f.identity = new JobIdentity("address\n" + f.address);
        }
        byte[] secret = e.has(CUDAIPC4J_RENDEZVOUS_SECRET)
                ? e.get(CUDAIPC4J_RENDEZVOUS_SECRET).getBytes(StandardCharsets.UTF_8)
                : f.identity != null ? f.identity.secret() : null;
        return new LaunchEnvironment(f.launcher, f.rank, f.size, f.localRank, f.address,
                f.address == null ? f.problem : null, f.identity, secret);
    }

    /** What one launcher's variables gave. */
    private static final class Found {
        final Launcher launcher;
        final int rank;
        final int size;
        final int localRank;
        HostPort address;
        String problem;
        JobIdentity identity;

        Found(Launcher launcher, int rank, int size, int localRank) {
            this.launcher = launcher;
            this.rank = rank;
            this.size = size;
            this.localRank = localRank;
        }
    }

    private static Found explicit(Env e, HostPort override) {
        String why = "our own launch sets " + CUDAIPC4J_RANK + " and " + CUDAIPC4J_WORLD_SIZE;
        int rank = e.number(e.require(CUDAIPC4J_RANK, why), 0);
        int size = e.number(e.require(CUDAIPC4J_WORLD_SIZE, why), 1);
        int local = e.has(CUDAIPC4J_LOCAL_RANK) ? e.number(CUDAIPC4J_LOCAL_RANK, 0) : rank;
        e.below(CUDAIPC4J_RANK, rank, CUDAIPC4J_WORLD_SIZE, size);
        e.below(CUDAIPC4J_LOCAL_RANK, local, CUDAIPC4J_WORLD_SIZE, size);
        Found f = new Found(Launcher.EXPLICIT, rank, size, local);
        f.address = override;
        f.problem = CUDAIPC4J_RENDEZVOUS + " is not set: set it to host:port (a port on rank 0's host)";
        return f;
    }

    private static Found torchrun(Env e, HostPort override) {
        String why = "a torchrun-style launch sets " + RANK + ", " + WORLD_SIZE + ", " + LOCAL_RANK + ", "
                + MASTER_ADDR + " and " + MASTER_PORT;
        int rank = e.number(e.require(RANK, why), 0);
        int size = e.number(e.require(WORLD_SIZE, why), 1);
        int local = e.number(e.require(LOCAL_RANK, why), 0);
        e.below(RANK, rank, WORLD_SIZE, size);
        e.below(LOCAL_RANK, local, WORLD_SIZE, size);
        Found f = new Found(Launcher.TORCHRUN, rank, size, local);
        if (!e.has(MASTER_ADDR) && !e.has(MASTER_PORT)) {
            if (override == null) {
                throw new LaunchEnvironmentException(MASTER_ADDR.name(), MASTER_ADDR + " and " + MASTER_PORT
                        + " are not set, but " + RANK + " and " + WORLD_SIZE + " are (torchrun): set them, or "
                        + CUDAIPC4J_RENDEZVOUS + "=host:port");
            }
            f.address = override;
            return f;
        }
        String host = e.host(e.require(MASTER_ADDR, why));
        int port = e.port(e.require(MASTER_PORT, why));
        StringBuilder id = new StringBuilder("torchrun\n").append(e.get(MASTER_ADDR)).append('\n').append(port);
        if (e.has(TORCHELASTIC_RUN_ID)) {
            id.append('\n').append(e.get(TORCHELASTIC_RUN_ID));
        }
        f.identity = new JobIdentity(id.toString());
        if (override != null) {
            f.address = override;
        } else if (port == 65535) {
            throw new LaunchEnvironmentException(MASTER_PORT.name(), MASTER_PORT + "=65535: the rendezvous listens on "
                    + MASTER_PORT + "+1, past the last port: use a lower " + MASTER_PORT + " or set "
                    + CUDAIPC4J_RENDEZVOUS + "=host:port");
        } else {
            f.address = new HostPort(host, port + 1);
        }
        return f;
    }

    private static Found openMpi(Env e, HostPort override) {
        String why = "mpirun sets " + OMPI_COMM_WORLD_RANK + ", " + OMPI_COMM_WORLD_SIZE + ", "
                + OMPI_COMM_WORLD_LOCAL_RANK + " and " + OMPI_COMM_WORLD_LOCAL_SIZE;
        int rank = e.number(e.require(OMPI_COMM_WORLD_RANK, why), 0);
        int size = e.number(e.require(OMPI_COMM_WORLD_SIZE, why), 1);
        int local = e.number(e.require(OMPI_COMM_WORLD_LOCAL_RANK, why), 0);
        int localSize = e.number(e.require(OMPI_COMM_WORLD_LOCAL_SIZE, why), 1);
        e.below(OMPI_COMM_WORLD_RANK, rank, OMPI_COMM_WORLD_SIZE, size);
        if (localSize > size) {
            throw e.fail(OMPI_COMM_WORLD_LOCAL_SIZE, "is more than " + OMPI_COMM_WORLD_SIZE + "=" + size);
        }
        e.below(OMPI_COMM_WORLD_LOCAL_RANK, local, OMPI_COMM_WORLD_LOCAL_SIZE, localSize);
        Found f = new Found(Launcher.OPEN_MPI, rank, size, local);
        String job = e.has(PMIX_NAMESPACE) ? e.get(PMIX_NAMESPACE) : e.get(OMPI_MCA_ESS_BASE_JOBID);
        if (job != null) {
            f.identity = new JobIdentity("openmpi\n" + job);
        }
        if (override != null) {
            f.address = override;
        } else if (localSize < size) {
            f.problem = "ranks of this mpirun job are on several hosts: set " + CUDAIPC4J_RENDEZVOUS
                    + "=host:port (a port on rank 0's host)";
        } else if (f.identity == null) {
            f.problem = "neither " + PMIX_NAMESPACE + " nor " + OMPI_MCA_ESS_BASE_JOBID + " is set, so no port can"
                    + " be derived for this mpirun job: set " + CUDAIPC4J_RENDEZVOUS + "=host:port";
        } else {
            f.address = new HostPort("127.0.0.1", f.identity.port());
        }
        return f;
    }

    private static Found slurm(Env e, HostPort override) {
        String why = "srun sets " + SLURM_PROCID + ", " + SLURM_NTASKS + " and " + SLURM_LOCALID;
        int rank = e.number(SLURM_PROCID, 0);
        int size = e.number(e.require(SLURM_NTASKS, why), 1);
        int local = e.number(e.require(SLURM_LOCALID, why), 0);
        e.below(SLURM_PROCID, rank, SLURM_NTASKS, size);
        e.below(SLURM_LOCALID, local, SLURM_NTASKS, size);
        Found f = new Found(Launcher.SLURM, rank, size, local);
        if (e.has(SLURM_JOB_ID)) {
            String step = e.has(SLURM_STEP_ID) ? e.get(SLURM_STEP_ID) : "";
            f.identity = new JobIdentity("slurm\n" + e.get(SLURM_JOB_ID) + "\n" + step);
        }
        if (override != null) {
            f.address = override;
            return f;
        }
        Setting<String> list = e.has(SLURM_STEP_NODELIST) ? SLURM_STEP_NODELIST
                : e.has(SLURM_JOB_NODELIST) ? SLURM_JOB_NODELIST : null;
        if (list == null) {
            f.problem = "neither " + SLURM_STEP_NODELIST + " nor " + SLURM_JOB_NODELIST + " is set, so rank 0's"
                    + " host is not known: set " + CUDAIPC4J_RENDEZVOUS + "=host:port";
            return f;
        }
        String first;
        try {
            first = SlurmNodeList.first(e.get(list));
        } catch (IllegalArgumentException x) {
            throw e.fail(list, SlurmNodeList.problem(e.get(list)));
        }
        String hostProblem = HostPort.hostProblem(first);
        if (hostProblem != null) {
            throw e.fail(list, "its first host " + Show.value(first) + ": " + hostProblem);
        }
        if (f.identity == null) {
            f.problem = SLURM_JOB_ID + " is not set, so no port can be derived for this job: set "
                    + CUDAIPC4J_RENDEZVOUS + "=host:port";
        } else {
            f.address = new HostPort(first, f.identity.port());
        }
        return f;
    }

    /** The environment, where a variable set to the empty string counts as not set; and its checks. */
    private record Env(Map<String, String> env) {
        String get(Setting<?> name) {
            String v = env.get(name.name());
            return v == null || v.isEmpty() ? null : v;
        }

        boolean has(Setting<?> name) {
            return get(name) != null;
        }

        boolean hasAny(Setting<?>... names) {
            for (Setting<?> n : names) {
                if (has(n)) {
                    return true;
                }
            }
            return false;
        }

        /** {@code name}, which must be set since another variable of its launcher is. */
        Setting<?> require(Setting<?> name, String why) {
            if (!has(name)) {
                throw new LaunchEnvironmentException(name.name(), name + " is not set: " + why);
            }
            return name;
        }

        LaunchEnvironmentException fail(Setting<?> name, String problem) {
            return new LaunchEnvironmentException(name.name(), name + "=" + Show.value(get(name)) + ": " + problem);
        }

        /** A whole number from {@code min} that fits an {@code int}. */
        int number(Setting<?> name, int min) {
            String v = get(name);
            String expected = "expected a whole number from " + min + " to " + Integer.MAX_VALUE;
            if (v == null || !v.matches("-?[0-9]{1,12}")) {
                throw fail(name, (v != null && v.matches("-?[0-9]+") ? "" : "not a number; ") + expected);
            }
            long n = Long.parseLong(v);
            if (n < min || n > Integer.MAX_VALUE) {
                throw fail(name, (n < 0 ? "negative; " : "") + expected);
            }
            return (int) n;
        }

        void below(Setting<?> name, int value, Setting<?> limitName, int limit) {
            if (value >= limit) {
                throw fail(name, "not below " + limitName + "=" + limit + " (ranks count from 0)");
            }
        }

        HostPort address(Setting<?> name) {
            String problem = HostPort.problem(get(name));
            if (problem != null) {
                throw fail(name, problem);
            }
            return HostPort.parse(get(name));
        }

        /** A host, an IPv6 address with or without brackets. */
        String host(Setting<?> name) {
            String v = get(name);
            String host = v.length() > 2 && v.startsWith("[") && v.endsWith("]") ? v.substring(1, v.length() - 1) : v;
            String problem = HostPort.hostProblem(host);
            if (problem != null) {
                throw fail(name, problem);
            }
            return host;
        }

        int port(Setting<?> name) {
            String problem = HostPort.portProblem(get(name));
            if (problem != null) {
                throw fail(name, "expected a port from 1 to 65535");
            }
            return Integer.parseInt(get(name));
        }
    }

    /** {@return the launcher that started this process} */
    public Launcher launcher() {
        return launcher;
    }

    /** {@return this process's rank, from 0 to {@link #size()} - 1} */
    public int rank() {
        return rank;
    }

    /** {@return the number of ranks, at least 1} */
    public int size() {
        return size;
    }

    /** {@return this process's rank among the ranks on its host (which GPU to take)} */
    public int localRank() {
        return localRank;
    }

    /** {@return where rank 0's rendezvous listens, or empty when the environment does not say} */
    public Optional<HostPort> rendezvous() {
        return Optional.ofNullable(rendezvous);
    }

    /**
     * Where rank 0's rendezvous listens.
     *
     * @return the address
     * @throws LaunchEnvironmentException naming {@code CUDAIPC4J_RENDEZVOUS}, in one line saying why the address is
     *     not known, when it is not
     */
    public HostPort requireRendezvous() {
        if (rendezvous == null) {
            throw new LaunchEnvironmentException(CUDAIPC4J_RENDEZVOUS.name(), rendezvousProblem);
        }
        return rendezvous;
    }

    /** {@return the job's identity, from which the port (where derived) and the secret (unless given) come} */
    public Optional<JobIdentity> jobIdentity() {
        return Optional.ofNullable(identity);
    }

    /** {@return whether a secret is known: given, or derived from the job's identity} */
    public boolean hasSecret() {
        return secret != null;
    }

    /**
     * The rendezvous's shared secret: {@code CUDAIPC4J_RENDEZVOUS_SECRET}'s UTF-8 bytes when it is set, else
     * {@link JobIdentity#secret()}. A derived secret only keeps out the ranks of other jobs, not an attacker.
     *
     * @return a new copy of the secret
     * @throws LaunchEnvironmentException as {@link #requireRendezvous()}, when no secret is known (then no address
     *     is known either)
     */
    public byte[] requireSecret() {
        if (secret == null) {
            throw new LaunchEnvironmentException(CUDAIPC4J_RENDEZVOUS.name(), rendezvousProblem);
        }
        return secret.clone();
    }

    /** Equal when every part, the secret included, is. */
    @Override
    public boolean equals(Object o) {
        return o instanceof LaunchEnvironment l && launcher == l.launcher && rank == l.rank && size == l.size
                && localRank == l.localRank && Objects.equals(rendezvous, l.rendezvous)
                && Objects.equals(rendezvousProblem, l.rendezvousProblem) && Objects.equals(identity, l.identity)
                && Arrays.equals(secret, l.secret);
    }

    /** A hash of every part. */
    @Override
    public int hashCode() {
        return Objects.hash(launcher, rank, size, localRank, rendezvous, identity) * 31 + Arrays.hashCode(secret);
    }

    /** The launcher, ranks and address; the secret only by its length. */
    @Override
    public String toString() {
        return "LaunchEnvironment[" + launcher + " rank " + rank + " of " + size + ", local rank " + localRank
                + ", rendezvous " + (rendezvous == null ? "unknown" : rendezvous.toString())
                + ", secret " + (secret == null ? "unknown" : secret.length + " bytes") + "]";
    }
}
