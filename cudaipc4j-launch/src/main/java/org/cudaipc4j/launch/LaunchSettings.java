package org.cudaipc4j.launch;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The names of every environment variable {@link LaunchEnvironment} reads (see {@code docs/multinode.md},
 * "Launchers"), and the one place that reads them from this process's environment.
 */
public final class LaunchVariables {
    private LaunchVariables() {}

    /** This rank's number, from 0 (our own variable: selects {@link Launcher#EXPLICIT}). */
    public static final String CUDAIPC4J_RANK = "CUDAIPC4J_RANK";
    /** The number of ranks (our own). */
    public static final String CUDAIPC4J_WORLD_SIZE = "CUDAIPC4J_WORLD_SIZE";
    /** This rank's number on its host (our own; default: the rank). */
    public static final String CUDAIPC4J_LOCAL_RANK = "CUDAIPC4J_LOCAL_RANK";
    /** The rendezvous address, {@code host:port} or {@code [v6]:port}: under every launcher, when set. */
    public static final String CUDAIPC4J_RENDEZVOUS = "CUDAIPC4J_RENDEZVOUS";
    /** The rendezvous's shared secret (its UTF-8 bytes), under every launcher, when set and not empty. */
    public static final String CUDAIPC4J_RENDEZVOUS_SECRET = "CUDAIPC4J_RENDEZVOUS_SECRET";

    /** torchrun: the rank. */
    public static final String RANK = "RANK";
    /** torchrun: the number of ranks. */
    public static final String WORLD_SIZE = "WORLD_SIZE";
    /** torchrun: the rank on its host. */
    public static final String LOCAL_RANK = "LOCAL_RANK";
    /** torchrun: the host of torch's store, which also hosts the rendezvous. */
    public static final String MASTER_ADDR = "MASTER_ADDR";
    /** torchrun: the port of torch's store; the rendezvous listens on the next one. */
    public static final String MASTER_PORT = "MASTER_PORT";
    /** torchrun: the run's id, part of the derived secret when set. */
    public static final String TORCHELASTIC_RUN_ID = "TORCHELASTIC_RUN_ID";

    /** Open MPI: the rank. */
    public static final String OMPI_COMM_WORLD_RANK = "OMPI_COMM_WORLD_RANK";
    /** Open MPI: the number of ranks. */
    public static final String OMPI_COMM_WORLD_SIZE = "OMPI_COMM_WORLD_SIZE";
    /** Open MPI: the rank on its host. */
    public static final String OMPI_COMM_WORLD_LOCAL_RANK = "OMPI_COMM_WORLD_LOCAL_RANK";
    /** Open MPI: the number of ranks on this host. */
    public static final String OMPI_COMM_WORLD_LOCAL_SIZE = "OMPI_COMM_WORLD_LOCAL_SIZE";
    /** Open MPI (PMIx): the job's namespace, its identity. */
    public static final String PMIX_NAMESPACE = "PMIX_NAMESPACE";
    /** Open MPI: the job's id, its identity where {@code PMIX_NAMESPACE} is not set. */
    public static final String OMPI_MCA_ESS_BASE_JOBID = "OMPI_MCA_ess_base_jobid";

    /** Slurm: the rank. */
    public static final String SLURM_PROCID = "SLURM_PROCID";
    /** Slurm: the number of ranks. */
    public static final String SLURM_NTASKS = "SLURM_NTASKS";
    /** Slurm: the rank on its host. */
    public static final String SLURM_LOCALID = "SLURM_LOCALID";
    /** Slurm: the job's id. */
    public static final String SLURM_JOB_ID = "SLURM_JOB_ID";
    /** Slurm: the step's id within the job. */
    public static final String SLURM_STEP_ID = "SLURM_STEP_ID";
    /** Slurm: the step's hosts, compressed ({@code node[01-04,07]}). */
    public static final String SLURM_STEP_NODELIST = "SLURM_STEP_NODELIST";
    /** Slurm: the job's hosts, compressed, used where the step's are not set. */
    public static final String SLURM_JOB_NODELIST = "SLURM_JOB_NODELIST";

    /**
     * The variables above that are set in this process's environment, by name. Each is read by its own name, so
     * that nothing else of the environment is copied.
     *
     * @return a new map of the set variables
     */
    public static Map<String, String> fromSystem() {
        Map<String, String> env = new LinkedHashMap<>();
        put(env, CUDAIPC4J_RANK, System.getenv(CUDAIPC4J_RANK));
        put(env, CUDAIPC4J_WORLD_SIZE, System.getenv(CUDAIPC4J_WORLD_SIZE));
        put(env, CUDAIPC4J_LOCAL_RANK, System.getenv(CUDAIPC4J_LOCAL_RANK));
        put(env, CUDAIPC4J_RENDEZVOUS, System.getenv(CUDAIPC4J_RENDEZVOUS));
        put(env, CUDAIPC4J_RENDEZVOUS_SECRET, System.getenv(CUDAIPC4J_RENDEZVOUS_SECRET));
        put(env, RANK, System.getenv(RANK));
        put(env, WORLD_SIZE, System.getenv(WORLD_SIZE));
        put(env, LOCAL_RANK, System.getenv(LOCAL_RANK));
        put(env, MASTER_ADDR, System.getenv(MASTER_ADDR));
        put(env, MASTER_PORT, System.getenv(MASTER_PORT));
        put(env, TORCHELASTIC_RUN_ID, System.getenv(TORCHELASTIC_RUN_ID));
        put(env, OMPI_COMM_WORLD_RANK, System.getenv(OMPI_COMM_WORLD_RANK));
        put(env, OMPI_COMM_WORLD_SIZE, System.getenv(OMPI_COMM_WORLD_SIZE));
        put(env, OMPI_COMM_WORLD_LOCAL_RANK, System.getenv(OMPI_COMM_WORLD_LOCAL_RANK));
        put(env, OMPI_COMM_WORLD_LOCAL_SIZE, System.getenv(OMPI_COMM_WORLD_LOCAL_SIZE));
        put(env, PMIX_NAMESPACE, System.getenv(PMIX_NAMESPACE));
        put(env, OMPI_MCA_ESS_BASE_JOBID, System.getenv(OMPI_MCA_ESS_BASE_JOBID));
        put(env, SLURM_PROCID, System.getenv(SLURM_PROCID));
        put(env, SLURM_NTASKS, System.getenv(SLURM_NTASKS));
        put(env, SLURM_LOCALID, System.getenv(SLURM_LOCALID));
        put(env, SLURM_JOB_ID, System.getenv(SLURM_JOB_ID));
        put(env, SLURM_STEP_ID, System.getenv(SLURM_STEP_ID));
        put(env, SLURM_STEP_NODELIST, System.getenv(SLURM_STEP_NODELIST));
        put(env, SLURM_JOB_NODELIST, System.getenv(SLURM_JOB_NODELIST));
        return env;
    }

    private static void put(Map<String, String> env, String name, String value) {
        if (value != null) {
            env.put(name, value);
        }
    }
}
