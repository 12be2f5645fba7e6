"""The environment variables the package reads, each declared once: its name, its default (its text when not set, or
None) and one line on what it does. Every read of the package goes through :class:`Setting`; the modules that use a
value parse it (``rendezvous.silence_limit_from``, ``launch.detect``). docs/settings.md lists them beside the Java
side's declarations of the same variables, and tests/test_settings.py checks it against these.
"""
from __future__ import annotations

import os
from typing import Mapping, NamedTuple, Optional

__all__ = ["Setting", "HEARTBEAT_TIMEOUT", "NCCL_LIBRARY", "LAUNCHER_VARIABLES", "ALL"]


class Setting(NamedTuple):
    """One environment variable the package reads."""

    name: str
    default: Optional[str]
    description: str

    def raw(self, environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
        """Its text in ``environ`` (this process's environment unless given), or None when it is not set."""
        return (os.environ if environ is None else environ).get(self.name)

    def text(self, environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
        """Its text in ``environ`` (this process's environment unless given), else its default."""
        value = self.raw(environ)
        return self.default if value is None else value


#: The rendezvous's silence limit in seconds (``rendezvous.silence_limit_from``).
HEARTBEAT_TIMEOUT = Setting("CUDAIPC4J_HEARTBEAT_TIMEOUT", "3",
                            "The rendezvous's silence limit in seconds (at least 0.001): a rank silent for longer"
                            " counts as hung")
#: The NCCL library ``nccl`` loads; when not set (or empty), torch's own where installed, else the default.
NCCL_LIBRARY = Setting("CUDAIPC4J_NCCL_LIBRARY", "libnccl.so.2",
                       "The NCCL library to load: a path (with a /) or a name the dynamic loader searches for")


def _launcher(name: str, description: str) -> Setting:
    return Setting(name, None, description)


#: Every variable ``launch.detect`` reads from the environment, as the Java side's LaunchSettings declares them.
LAUNCHER_VARIABLES = (
    _launcher("CUDAIPC4J_RANK", "Our own launch: this rank's number, from 0"),
    _launcher("CUDAIPC4J_WORLD_SIZE", "Our own launch: the number of ranks, from 1"),
    _launcher("CUDAIPC4J_LOCAL_RANK", "Our own launch: this rank's number on its host; default: the rank"),
    _launcher("CUDAIPC4J_RENDEZVOUS", "Where rank 0's rendezvous listens (host:port, [v6]:port), under every launcher"),
    _launcher("CUDAIPC4J_RENDEZVOUS_SECRET",
              "The rendezvous's shared secret (its UTF-8 bytes); else one derived from the job's identity"),
    _launcher("RANK", "torchrun: the rank"),
    _launcher("WORLD_SIZE", "torchrun: the number of ranks"),
    _launcher("LOCAL_RANK", "torchrun: the rank on its host"),
    _launcher("MASTER_ADDR", "torchrun: the host of torch's store, which also hosts the rendezvous"),
    _launcher("MASTER_PORT", "torchrun: the port of torch's store; the rendezvous listens on the next one"),
    _launcher("TORCHELASTIC_RUN_ID", "torchrun: the run's id, part of the derived secret when set"),
    _launcher("OMPI_COMM_WORLD_RANK", "Open MPI: the rank"),
    _launcher("OMPI_COMM_WORLD_SIZE", "Open MPI: the number of ranks"),
    _launcher("OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI: the rank on its host"),
    _launcher("OMPI_COMM_WORLD_LOCAL_SIZE", "Open MPI: the number of ranks on this host"),
    _launcher("PMIX_NAMESPACE", "Open MPI (PMIx): the job's namespace, its identity"),
    _launcher("OMPI_MCA_ess_base_jobid", "Open MPI: the job's id, its identity where PMIX_NAMESPACE is not set"),
    _launcher("SLURM_PROCID", "Slurm: the rank"),
    _launcher("SLURM_NTASKS", "Slurm: the number of ranks"),
    _launcher("SLURM_LOCALID", "Slurm: the rank on its host"),
    _launcher("SLURM_JOB_ID", "Slurm: the job's id"),
    _launcher("SLURM_STEP_ID", "Slurm: the step's id within the job"),
    _launcher("SLURM_STEP_NODELIST", "Slurm: the step's hosts, compressed (node[01-04,07])"),
    _launcher("SLURM_JOB_NODELIST", "Slurm: the job's hosts, compressed, used where the step's are not set"),
)

#: Every setting above.
ALL = (HEARTBEAT_TIMEOUT, NCCL_LIBRARY) + LAUNCHER_VARIABLES
