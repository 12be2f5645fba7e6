package org.cudaipc4j.launch;

import java.util.ArrayList;
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

    /** The declarations below in their order: each adds itself ({@link #variable}). */
    private static final List<Setting<String>> DECLARED = new ArrayList<>();

    // Our own launch (CUDAIPC4J_RANK set selects Launcher#EXPLICIT); the rendezvous's address and secret count under
    // every launcher when set (the secret when not empty), else it listens beside the launcher's store or first host.
    static final Setting<String> CUDAIPC4J_RANK = ours("CUDAIPC4J_RANK", "this rank's number, from 0");
    static final Setting<String> CUDAIPC4J_WORLD_SIZE = ours("CUDAIPC4J_WORLD_SIZE", "the number of ranks, from 1");
    static final Setting<String> CUDAIPC4J_LOCAL_RANK = ours("CUDAIPC4J_LOCAL_RANK",
            "this rank's number on its host; default: the rank");
    static final Setting<String> CUDAIPC4J_RENDEZVOUS = variable("CUDAIPC4J_RENDEZVOUS", "",
            "Where rank 0's rendezvous listens (host:port, [v6]:port), under every launcher");
    static final Setting<String> CUDAIPC4J_RENDEZVOUS_SECRET = variable("CUDAIPC4J_RENDEZVOUS_SECRET", "",
            "The rendezvous's shared secret (its UTF-8 bytes); else one derived from the job's identity");

    static final Setting<String> RANK = torchrun("RANK", "the rank");
    static final Setting<String> WORLD_SIZE = torchrun("WORLD_SIZE", "the number of ranks");
    static final Setting<String> LOCAL_RANK = torchrun("LOCAL_RANK", "the rank on its host");
    static final Setting<String> MASTER_ADDR = torchrun("MASTER_ADDR",
            "the host of torch's store, which also hosts the rendezvous");
    static final Setting<String> MASTER_PORT = torchrun("MASTER_PORT",
            "the port of torch's store; the rendezvous listens on the next one");
    static final Setting<String> TORCHELASTIC_RUN_ID = torchrun("TORCHELASTIC_RUN_ID",
            "the run's id, part of the derived secret when set");

    static final Setting<String> OMPI_COMM_WORLD_RANK = openMpi("OMPI_COMM_WORLD_RANK", "the rank");
    static final Setting<String> OMPI_COMM_WORLD_SIZE = openMpi("OMPI_COMM_WORLD_SIZE", "the number of ranks");
    static final Setting<String> OMPI_COMM_WORLD_LOCAL_RANK = openMpi("OMPI_COMM_WORLD_LOCAL_RANK",
            "the rank on its host");
    static final Setting<String> OMPI_COMM_WORLD_LOCAL_SIZE = openMpi("OMPI_COMM_WORLD_LOCAL_SIZE",
            "the number of ranks on this host");
    static final Setting<String> PMIX_NAMESPACE = variable("PMIX_NAMESPACE", "Open MPI (PMIx): ",
            "the job's namespace, its identity");
    static final Setting<String> OMPI_MCA_ESS_BASE_JOBID = openMpi("OMPI_MCA_ess_base_jobid",
            "the job's id, its identity where PMIX_NAMESPACE is not set");

    static final Setting<String> SLURM_PROCID = slurm("SLURM_PROCID", "the rank");
    static final Setting<String> SLURM_NTASKS = slurm("SLURM_NTASKS", "the number of ranks");
    static final Setting<String> SLURM_LOCALID = slurm("SLURM_LOCALID", "the rank on its host");
    static final Setting<String> SLURM_JOB_ID = slurm("SLURM_JOB_ID", "the job's id");
    static final Setting<String> SLURM_STEP_ID = slurm("SLURM_STEP_ID", "the step's id within the job");
    static final Setting<String> SLURM_STEP_NODELIST = slurm("SLURM_STEP_NODELIST",
            "the step's hosts, compressed (node[01-04,07])");
    static final Setting<String> SLURM_JOB_NODELIST = slurm("SLURM_JOB_NODELIST",
            "the job's hosts, compressed, used where the step's are not set");

    /** Every variable {@link LaunchEnvironment} reads, in the order above. */
    static final List<Setting<String>> LAUNCHER_VARIABLES = List.copyOf(DECLARED);

    private static Setting<String> ours(String name, String what) {
        return variable(name, "Our own launch: ", what);
    }

    private static Setting<String> torchrun(String name, String what) {
        return variable(name, "torchrun: ", what);
    }

    private static Setting<String> openMpi(String name, String what) {
        return variable(name, "Open MPI: ", what);
    }

    private static Setting<String> slurm(String name, String what) {
        return variable(name, "Slurm: ", what);
    }

    /** A launcher variable, read as text without a default, described as {@code launcher + what}; recorded in order. */
    private static Setting<String> variable(String name, String launcher, String what) {
        Setting<String> s = Setting.variable(name, null, launcher + what);
        DECLARED.add(s);
        return s;
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
