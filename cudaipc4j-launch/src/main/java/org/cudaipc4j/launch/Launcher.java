package org.cudaipc4j.launch;

/** The program that started this process as one rank of a group, as told by its environment variables. */
public enum Launcher {
    /** This project's own variables ({@code CUDAIPC4J_RANK}, {@code CUDAIPC4J_WORLD_SIZE}, ...). */
    EXPLICIT,
    /** {@code torchrun} or another launcher that sets {@code RANK}, {@code WORLD_SIZE}, {@code MASTER_ADDR}, ... */
    TORCHRUN,
    /** Open MPI's {@code mpirun} ({@code OMPI_COMM_WORLD_*}). */
    OPEN_MPI,
    /** Slurm's {@code srun} ({@code SLURM_PROCID}, {@code SLURM_NTASKS}, ...). */
    SLURM,
    /** No launcher: the process is rank 0 of 1, and starts its local ranks itself if it wants more. */
    NONE
}
