package org.cudaipc4j.launch;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cudaipc4j.base.Setting;

/**
 * The settings this module reads (see {@link Setting}): every environment variable {@link LaunchEnvironment} reads
 * (see {@code docs/multinode.md}, "Launchers"), as text that it checks itself. The rendezvous's silence limit is
 * every group's, {@link org.cudaipc4j.coord.Liveness}.
 */
final class LaunchSettings {
    private LaunchSettings() {}

    /** This rank's number, from 0 (our own variable: selects {@link Launcher#EXPLICIT}). */
    static final Setting<String> CUDAIPC4J_RANK = launcher("CUDAIPC4J_RANK",
            "Our own launch: this rank's number, from 0");
    /** The number of ranks (our own). */
    static final Setting<String> CUDAIPC4J_WORLD_SIZE = launcher("CUDAIPC4J_WORLD_SIZE",
            "Our own launch: the number of ranks, from 1");
    /** This rank's number on its host (our own; default: the rank). */
    static final Setting<String> CUDAIPC4J_LOCAL_RANK = launcher("CUDAIPC4J_LOCAL_RANK",
            "Our own launch: this rank's number on its host; default: the rank");
    /** The rendezvous address, {@code host:port} or {@code [v6]:port}: under every launcher, when set. */
    static final Setting<String> CUDAIPC4J_RENDEZVOUS = launcher("CUDAIPC4J_RENDEZVOUS",
            "Where rank 0's rendezvous listens (host:port, [v6]:port), under every launcher");
    /** The rendezvous's shared secret (its UTF-8 bytes), under every launcher, when set and not empty. */
    static final Setting<String> CUDAIPC4J_RENDEZVOUS_SECRET = launcher("CUDAIPC4J_RENDEZVOUS_SECRET",
            "The rendezvous's shared secret (its UTF-8 bytes); else one derived from the job's identity");

    /** torchrun: the rank. */
    static final Setting<String> RANK = launcher("RANK", "torchrun: the rank");
    /** torchrun: the number of ranks. */
    static final Setting<String> WORLD_SIZE = launcher("WORLD_SIZE", "torchrun: the number of ranks");
    /** torchrun: the rank on its host. */
    static final Setting<String> LOCAL_RANK = launcher("LOCAL_RANK", "torchrun: the rank on its host");
    /** torchrun: the host of torch's store, which also hosts the rendezvous. */
    static final Setting<String> MASTER_ADDR = launcher("MASTER_ADDR",
            "torchrun: the host of torch's store, which also hosts the rendezvous");
    /** torchrun: the port of torch's store; the rendezvous listens on the next one. */
    static final Setting<String> MASTER_PORT = launcher("MASTER_PORT",
            "torchrun: the port of torch's store; the rendezvous listens on the next one");
    /** torchrun: the run's id, part of the derived secret when set. */
    static final Setting<String> TORCHELASTIC_RUN_ID = launcher("TORCHELASTIC_RUN_ID",
            "torchrun: the run's id, part of the derived secret when set");

    /** Open MPI: the rank. */
    static final Setting<String> OMPI_COMM_WORLD_RANK = launcher("OMPI_COMM_WORLD_RANK", "Open MPI: the rank");
    /** Open MPI: the number of ranks. */
    static final Setting<String> OMPI_COMM_WORLD_SIZE = launcher("OMPI_COMM_WORLD_SIZE",
            "Open MPI: the number of ranks");
    /** Open MPI: the rank on its host. */
    static final Setting<String> OMPI_COMM_WORLD_LOCAL_RANK = launcher("OMPI_COMM_WORLD_LOCAL_RANK",
            "Open MPI: the rank on its host");
    /** Open MPI: the number of ranks on this host. */
    static final Setting<String> OMPI_COMM_WORLD_LOCAL_SIZE = launcher("OMPI_COMM_WORLD_LOCAL_SIZE",
            "Open MPI: the number of ranks on this host");
    /** Open MPI (PMIx): the job's namespace, its identity. */
    static final Setting<String> PMIX_NAMESPACE = launcher("PMIX_NAMESPACE",
            "Open MPI (PMIx): the job's namespace, its identity");
    /** Open MPI: the job's id, its identity where {@code PMIX_NAMESPACE} is not set. */
    static final Setting<String> OMPI_MCA_ESS_BASE_JOBID = launcher("OMPI_MCA_ess_base_jobid",
            "Open MPI: the job's id, its identity where PMIX_NAMESPACE is not set");

    /** Slurm: the rank. */
    static final Setting<String> SLURM_PROCID = launcher("SLURM_PROCID", "Slurm: the rank");
    /** Slurm: the number of ranks. */
    static final Setting<String> SLURM_NTASKS = launcher("SLURM_NTASKS", "Slurm: the number of ranks");
    /** Slurm: the rank on its host. */
    static final Setting<String> SLURM_LOCALID = launcher("SLURM_LOCALID", "Slurm: the rank on its host");
    /** Slurm: the job's id. */
    static final Setting<String> SLURM_JOB_ID = launcher("SLURM_JOB_ID", "Slurm: the job's id");
    /** Slurm: the step's id within the job. */
    static final Setting<String> SLURM_STEP_ID = launcher("SLURM_STEP_ID",
            "Slurm: the step's id within the job");
    /** Slurm: the step's hosts, compressed ({@code node[01-04,07]}). */
    static final Setting<String> SLURM_STEP_NODELIST = launcher("SLURM_STEP_NODELIST",
            "Slurm: the step's hosts, compressed (node[01-04,07])");
    /** Slurm: the job's hosts, compressed, used where the step's are not set. */
    static final Setting<String> SLURM_JOB_NODELIST = launcher("SLURM_JOB_NODELIST",
            "Slurm: the job's hosts, compressed, used where the step's are not set");

    /** Every variable {@link LaunchEnvironment} reads, in the order above. */
    static final List<Setting<String>> LAUNCHER_VARIABLES = List.of(CUDAIPC4J_RANK, CUDAIPC4J_WORLD_SIZE,
            CUDAIPC4J_LOCAL_RANK, CUDAIPC4J_RENDEZVOUS, CUDAIPC4J_RENDEZVOUS_SECRET, RANK, WORLD_SIZE, LOCAL_RANK,
            MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE,
            OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE, PMIX_NAMESPACE, OMPI_MCA_ESS_BASE_JOBID,
            SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_JOB_ID, SLURM_STEP_ID, SLURM_STEP_NODELIST,
            SLURM_JOB_NODELIST);

    private static Setting<String> launcher(String name, String description) {
        return Setting.variable(name, null, description);
    }

    /**
     * The variables of {@link #LAUNCHER_VARIABLES} that are set in this process's environment, by name. Each is
     * read by its own name, so that nothing else of the environment is copied.
     *
     * @return a new map of the set variables
     */
    static Map<String, String> fromSystem() {
        Map<String, String> env = new LinkedHashMap<>();
        for (Setting<String> variable : LAUNCHER_VARIABLES) {
            if (variable.isSet()) {
                env.put(variable.name(), variable.text());
            }
        }
        return env;
    }
}
