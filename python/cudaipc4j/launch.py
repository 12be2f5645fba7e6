"""Who this process is in its group of ranks, as the launcher that started it says (torchrun, Open MPI's mpirun,
Slurm's srun, or cudaipc4j's own variables): rank, size, local rank, the rendezvous address and its shared secret.

The same rules as the Java side (``org.cudaipc4j.launch``), byte for byte for the derived ports and secrets;
``interop-golden/launch/cases.json`` holds the cases both sides' tests check. docs/multinode.md ("Launchers")
describes every variable. Only the standard library is used.
"""
from __future__ import annotations

import enum
import hashlib
import itertools
import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

from . import settings
from .errors import Error

__all__ = ["Launcher", "HostPort", "JobIdentity", "LaunchEnvironment", "LaunchEnvironmentError", "detect",
           "from_environ", "expand_slurm_nodelist", "first_slurm_node", "VARIABLES", "MAX_NAMES",
           "MAX_CHARACTERS", "FIRST_PORT", "PORT_COUNT"]

#: Every variable :func:`detect` reads (declared in cudaipc4j.settings), and each by the name of its constant below.
VARIABLES = tuple(setting.name for setting in settings.LAUNCHER_VARIABLES)
(CUDAIPC4J_RANK, CUDAIPC4J_WORLD_SIZE, CUDAIPC4J_LOCAL_RANK, CUDAIPC4J_RENDEZVOUS, CUDAIPC4J_RENDEZVOUS_SECRET,
 RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID,
 OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE, PMIX_NAMESPACE,
 OMPI_MCA_ESS_BASE_JOBID, SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_JOB_ID, SLURM_STEP_ID, SLURM_STEP_NODELIST,
 SLURM_JOB_NODELIST) = VARIABLES

FIRST_PORT = 20000  # derived ports: 20000-32767, below Linux's default ephemeral range (32768-60999)
PORT_COUNT = 12768
MAX_NAMES = 1_000_000
MAX_CHARACTERS = 64 * 1024 * 1024
_MAX_DIGITS = 18
_MAX_HOST = 253
_INT_MAX = 2**31 - 1
_SHOW_MAX = 100


class Launcher(enum.Enum):
    """The program that started this process as one rank of a group (the Java enum's names)."""
    EXPLICIT = "EXPLICIT"
    TORCHRUN = "TORCHRUN"
    OPEN_MPI = "OPEN_MPI"
    SLURM = "SLURM"
    NONE = "NONE"


class LaunchEnvironmentError(Error, ValueError):
    """A launcher's variable with a value that cannot be used, or one needed and missing; one line naming it."""

    def __init__(self, variable: str, message: str):
        super().__init__(message)
        self.variable = variable


def _show(value: Optional[str]) -> str:
    """A value on one line, not too long: as the Java side's ``Show.value``."""
    if value is None:
        return "(not set)"
    shown = "".join(c if 0x20 <= ord(c) < 0x7F else "?" for c in value[:_SHOW_MAX])
    return "'" + shown + ("..." if len(value) > _SHOW_MAX else "") + "'"


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_IPV6 = re.compile(r"[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f.]*(%[A-Za-z0-9._-]+)?")
_PORT = re.compile(r"[0-9]{1,5}")


def _host_problem(host: Optional[str]) -> Optional[str]:
    if not host:
        return "empty; expected a host name or address"
    if len(host) > _MAX_HOST:
        return f"longer than {_MAX_HOST} characters"
    if _NAME.fullmatch(host) or _IPV6.fullmatch(host):
        return None
    return "expected a host name (letters, digits, '.', '-', '_'), an IPv4 or an IPv6 address"


def _port_problem(port: str) -> Optional[str]:
    if not _PORT.fullmatch(port):
        return f"port {_show(port)} is not a number from 1 to 65535"
    p = int(port)
    if p < 1 or p > 65535:
        return f"port {p} is out of range: expected 1 to 65535"
    return None


def _address_problem(text: Optional[str]) -> Optional[str]:
    if not text:
        return "expected host:port, found nothing"
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            return "expected [IPv6]:port, found no ']'"
        if close + 1 >= len(text) or text[close + 1] != ":":
            return "expected ':' and a port after ']'"
        host, port = text[1:close], text[close + 2:]
        if ":" not in host:
            return "brackets are for IPv6 addresses only; expected host:port"
    else:
        colon = text.rfind(":")
        if colon < 0:
            return "expected host:port, found no ':'"
        host, port = text[:colon], text[colon + 1:]
        if ":" in host:
            return "an IPv6 address goes in brackets, as [::1]:port"
    problem = _host_problem(host)
    if problem is not None:
        return f"host {_show(host)}: {problem}"
    return _port_problem(port)


@dataclass(frozen=True)
class HostPort:
    """A TCP address: a host name, IPv4 or IPv6 address (kept without brackets) and a port from 1 to 65535."""
    host: str
    port: int

    def __post_init__(self):
        problem = _host_problem(self.host)
        if problem is not None:
            raise ValueError(f"host {_show(self.host)}: {problem}")
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            raise ValueError(f"port {self.port}: expected 1 to 65535")

    @staticmethod
    def parse(text: str) -> "HostPort":
        """Reads ``host:port`` or ``[IPv6]:port``; a ValueError in one line otherwise."""
        problem = _address_problem(text)
        if problem is not None:
            raise ValueError(f"{_show(text)}: {problem}")
        colon = text.rfind(":")
        host = text[1:text.find("]")] if text.startswith("[") else text[:colon]
        return HostPort(host, int(text[colon + 1:]))

    def __str__(self) -> str:
        return (f"[{self.host}]" if ":" in self.host else self.host) + f":{self.port}"


@dataclass(frozen=True)
class JobIdentity:
    """What tells one launch from another; the derived port and secret come from it (see the Java JobIdentity)."""
    text: str

    def port(self) -> int:
        """SHA-256 of "cudaipc4j rendezvous port\\n" + text: first 8 bytes, big-endian, mod 12768, + 20000."""
        digest = hashlib.sha256(("cudaipc4j rendezvous port\n" + self.text).encode("utf-8")).digest()
        return FIRST_PORT + int.from_bytes(digest[:8], "big") % PORT_COUNT

    def secret(self) -> bytes:
        """SHA-256 of "cudaipc4j rendezvous secret\\n" + text (32 bytes)."""
        return hashlib.sha256(("cudaipc4j rendezvous secret\n" + self.text).encode("utf-8")).digest()


# Slurm's compressed host lists -------------------------------------------------------------------------------------

def _is_number(s: str) -> bool:
    return 0 < len(s) <= _MAX_DIGITS and all("0" <= c <= "9" for c in s)


def _ranges(inside: str, offset: int) -> list:
    if not inside:
        raise ValueError(f"empty brackets at position {offset - 1}")
    ranges = []
    at = offset
    for item in inside.split(","):
        lo, _, hi = item.partition("-")
        if "-" not in item:
            hi = lo
        if not _is_number(lo) or not _is_number(hi):
            raise ValueError(f"range {_show(item)} at position {at}: expected a number or two numbers joined by '-'")
        low, high = int(lo), int(hi)
        if low > high:
            raise ValueError(f"range {_show(item)} at position {at} is reversed")
        ranges.append((low, high, len(lo)))
        at += len(item) + 1
    return ranges


def _parse_nodelist(text: Optional[str]) -> list:
    """Each name as a list of parts (str, or a list of (lo, hi, width)); ValueError with the problem only."""
    if not text:
        raise ValueError("empty; expected host names such as node[01-04,07]")
    names = []
    total_names = total_chars = 0
    i, n = 0, len(text)
    while True:
        start = i
        parts: list = []
        literal: list = []
        count, length = 1, 0
        while i < n and text[i] != ",":
            c = text[i]
            if c == "[":
                close = text.find("]", i + 1)
                nested = text.find("[", i + 1)
                if close < 0 or 0 <= nested < close:
                    raise ValueError(f"'[' at position {i} has no matching ']'")
                if literal:
                    parts.append("".join(literal))
                    length += len(literal)
                    literal = []
                ranges = _ranges(text[i + 1:close], i + 1)
                bracket_count = max_length = 0
                for lo, hi, width in ranges:
                    bracket_count += hi - lo + 1
                    max_length = max(max_length, width, len(str(hi)))
                    if bracket_count > MAX_NAMES:
                        break
                count = MAX_NAMES + 1 if bracket_count > MAX_NAMES or count > MAX_NAMES else count * bracket_count
                length += max_length
                parts.append(ranges)
                i = close + 1
            elif c == "]":
                raise ValueError(f"']' at position {i} has no matching '['")
            elif (c.isascii() and c.isalnum()) or c in "-._":
                literal.append(c)
                i += 1
            else:
                raise ValueError(f"character {_show(c)} at position {i} is not part of a host name")
        if i == start:
            raise ValueError(f"empty name at position {i}")
        if literal:
            parts.append("".join(literal))
            length += len(literal)
        total_names += count
        if total_names > MAX_NAMES:
            raise ValueError(f"expands to more than {MAX_NAMES} names")
        total_chars += count * length
        if total_chars > MAX_CHARACTERS:
            raise ValueError(f"expands to more than {MAX_CHARACTERS} characters")
        names.append(parts)
        if i == n:
            return names
        i += 1
        if i == n:
            raise ValueError(f"empty name at position {i}")


def _parse_nodelist_or_raise(text: Optional[str]) -> list:
    try:
        return _parse_nodelist(text)
    except ValueError as e:
        raise ValueError(f"Slurm node list {_show(text)}: {e}") from None


def _format(value: int, width: int) -> str:
    return str(value).rjust(width, "0")


def _expand_name(parts: list, out: list) -> None:
    """Every combination of the brackets of one name, the first bracket changing slowest (as Slurm's)."""
    choices = [[p] if isinstance(p, str) else [_format(v, width) for lo, hi, width in p for v in range(lo, hi + 1)]
               for p in parts]
    out.extend("".join(combination) for combination in itertools.product(*choices))


def _first(parts: list) -> str:
    return "".join(p if isinstance(p, str) else _format(p[0][0], p[0][2]) for p in parts)


def expand_slurm_nodelist(text: str) -> list[str]:
    """Every host of a Slurm compressed host list (``node[01-04,07]``), in Slurm's order; ValueError in one line
    when malformed or when it would expand to more than MAX_NAMES names or MAX_CHARACTERS characters."""
    hosts: list[str] = []
    for parts in _parse_nodelist_or_raise(text):
        _expand_name(parts, hosts)
    return hosts


def first_slurm_node(text: str) -> str:
    """The first host of a Slurm host list, without expanding the others (the whole list is still checked)."""
    return _first(_parse_nodelist_or_raise(text)[0])


# The environment ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LaunchEnvironment:
    """Who this process is in its group. ``rendezvous`` is None when the environment does not say (``problem``
    then says why, in one line); ``secret`` is None when not known (then neither is the address)."""
    launcher: Launcher
    rank: int
    size: int
    local_rank: int
    rendezvous: Optional[HostPort] = None
    problem: Optional[str] = None
    job_identity: Optional[JobIdentity] = None
    secret: Optional[bytes] = field(default=None, repr=False)

    def require_rendezvous(self) -> HostPort:
        """The address, or LaunchEnvironmentError naming CUDAIPC4J_RENDEZVOUS with why it is not known."""
        if self.rendezvous is None:
            raise LaunchEnvironmentError(CUDAIPC4J_RENDEZVOUS, self.problem)
        return self.rendezvous

    def require_secret(self) -> bytes:
        """The shared secret, or the error of :meth:`require_rendezvous`."""
        if self.secret is None:
            raise LaunchEnvironmentError(CUDAIPC4J_RENDEZVOUS, self.problem)
        return self.secret


class _Env:
    def __init__(self, env: Mapping[str, str]):
        self.env = env

    def get(self, name: str) -> Optional[str]:
        v = self.env.get(name)
        return v if v else None

    def has(self, name: str) -> bool:
        return self.get(name) is not None

    def has_any(self, *names: str) -> bool:
        return any(self.has(n) for n in names)

    def require(self, name: str, why: str) -> str:
        if not self.has(name):
            raise LaunchEnvironmentError(name, f"{name} is not set: {why}")
        return name

    def fail(self, name: str, problem: str) -> LaunchEnvironmentError:
        return LaunchEnvironmentError(name, f"{name}={_show(self.get(name))}: {problem}")

    def number(self, name: str, minimum: int) -> int:
        v = self.get(name)
        expected = f"expected a whole number from {minimum} to {_INT_MAX}"
        if v is None or not re.fullmatch(r"-?[0-9]{1,12}", v):
            numeric = v is not None and re.fullmatch(r"-?[0-9]+", v)
            raise self.fail(name, ("" if numeric else "not a number; ") + expected)
        n = int(v)
        if n < minimum or n > _INT_MAX:
            raise self.fail(name, ("negative; " if n < 0 else "") + expected)
        return n

    def below(self, name: str, value: int, limit_name: str, limit: int) -> None:
        if value >= limit:
            raise self.fail(name, f"not below {limit_name}={limit} (ranks count from 0)")

    def address(self, name: str) -> HostPort:
        problem = _address_problem(self.get(name))
        if problem is not None:
            raise self.fail(name, problem)
        return HostPort.parse(self.get(name))

    def host(self, name: str) -> str:
        v = self.get(name)
        host = v[1:-1] if len(v) > 2 and v.startswith("[") and v.endswith("]") else v
        problem = _host_problem(host)
        if problem is not None:
            raise self.fail(name, problem)
        return host

    def port(self, name: str) -> int:
        if _port_problem(self.get(name)) is not None:
            raise self.fail(name, "expected a port from 1 to 65535")
        return int(self.get(name))


class _Found:
    def __init__(self, launcher: Launcher, rank: int, size: int, local_rank: int):
        self.launcher, self.rank, self.size, self.local_rank = launcher, rank, size, local_rank
        self.address: Optional[HostPort] = None
        self.problem: Optional[str] = None
        self.identity: Optional[JobIdentity] = None


def _explicit(e: _Env, override: Optional[HostPort]) -> _Found:
    why = f"our own launch sets {CUDAIPC4J_RANK} and {CUDAIPC4J_WORLD_SIZE}"
    rank = e.number(e.require(CUDAIPC4J_RANK, why), 0)
    size = e.number(e.require(CUDAIPC4J_WORLD_SIZE, why), 1)
    local = e.number(CUDAIPC4J_LOCAL_RANK, 0) if e.has(CUDAIPC4J_LOCAL_RANK) else rank
    e.below(CUDAIPC4J_RANK, rank, CUDAIPC4J_WORLD_SIZE, size)
    e.below(CUDAIPC4J_LOCAL_RANK, local, CUDAIPC4J_WORLD_SIZE, size)
    f = _Found(Launcher.EXPLICIT, rank, size, local)
    f.address = override
    f.problem = f"{CUDAIPC4J_RENDEZVOUS} is not set: set it to host:port (a port on rank 0's host)"
    return f


def _torchrun(e: _Env, override: Optional[HostPort]) -> _Found:
    why = (f"a torchrun-style launch sets {RANK}, {WORLD_SIZE}, {LOCAL_RANK}, {MASTER_ADDR} and {MASTER_PORT}")
    rank = e.number(e.require(RANK, why), 0)
    size = e.number(e.require(WORLD_SIZE, why), 1)
    local = e.number(e.require(LOCAL_RANK, why), 0)
    e.below(RANK, rank, WORLD_SIZE, size)
    e.below(LOCAL_RANK, local, WORLD_SIZE, size)
    f = _Found(Launcher.TORCHRUN, rank, size, local)
    if not e.has(MASTER_ADDR) and not e.has(MASTER_PORT):
        if override is None:
            raise LaunchEnvironmentError(MASTER_ADDR, f"{MASTER_ADDR} and {MASTER_PORT} are not set, but {RANK} and"
                                                      f" {WORLD_SIZE} are (torchrun): set them, or"
                                                      f" {CUDAIPC4J_RENDEZVOUS}=host:port")
        f.address = override
        return f
    host = e.host(e.require(MASTER_ADDR, why))
    port = e.port(e.require(MASTER_PORT, why))
    text = f"torchrun\n{e.get(MASTER_ADDR)}\n{port}"
    if e.has(TORCHELASTIC_RUN_ID):
        text += "\n" + e.get(TORCHELASTIC_RUN_ID)
    f.identity = JobIdentity(text)
    if override is not None:
        f.address = override
    elif port == 65535:
        raise LaunchEnvironmentError(MASTER_PORT, f"{MASTER_PORT}=65535: the rendezvous listens on {MASTER_PORT}+1,"
                                                  f" past the last port: use a lower {MASTER_PORT} or set"
                                                  f" {CUDAIPC4J_RENDEZVOUS}=host:port")
    else:
        f.address = HostPort(host, port + 1)
    return f


def _open_mpi(e: _Env, override: Optional[HostPort]) -> _Found:
    why = (f"mpirun sets {OMPI_COMM_WORLD_RANK}, {OMPI_COMM_WORLD_SIZE}, {OMPI_COMM_WORLD_LOCAL_RANK} and"
           f" {OMPI_COMM_WORLD_LOCAL_SIZE}")
    rank = e.number(e.require(OMPI_COMM_WORLD_RANK, why), 0)
    size = e.number(e.require(OMPI_COMM_WORLD_SIZE, why), 1)
    local = e.number(e.require(OMPI_COMM_WORLD_LOCAL_RANK, why), 0)
    local_size = e.number(e.require(OMPI_COMM_WORLD_LOCAL_SIZE, why), 1)
    e.below(OMPI_COMM_WORLD_RANK, rank, OMPI_COMM_WORLD_SIZE, size)
    if local_size > size:
        raise e.fail(OMPI_COMM_WORLD_LOCAL_SIZE, f"is more than {OMPI_COMM_WORLD_SIZE}={size}")
    e.below(OMPI_COMM_WORLD_LOCAL_RANK, local, OMPI_COMM_WORLD_LOCAL_SIZE, local_size)
    f = _Found(Launcher.OPEN_MPI, rank, size, local)
    job = e.get(PMIX_NAMESPACE) if e.has(PMIX_NAMESPACE) else e.get(OMPI_MCA_ESS_BASE_JOBID)
    if job is not None:
        f.identity = JobIdentity("openmpi\n" + job)
    if override is not None:
        f.address = override
    elif local_size < size:
        f.problem = (f"ranks of this mpirun job are on several hosts: set {CUDAIPC4J_RENDEZVOUS}=host:port"
                     " (a port on rank 0's host)")
    elif f.identity is None:
        f.problem = (f"neither {PMIX_NAMESPACE} nor {OMPI_MCA_ESS_BASE_JOBID} is set, so no port can be derived"
                     f" for this mpirun job: set {CUDAIPC4J_RENDEZVOUS}=host:port")
    else:
        f.address = HostPort("127.0.0.1", f.identity.port())
    return f


def _slurm(e: _Env, override: Optional[HostPort]) -> _Found:
    why = f"srun sets {SLURM_PROCID}, {SLURM_NTASKS} and {SLURM_LOCALID}"
    rank = e.number(SLURM_PROCID, 0)
    size = e.number(e.require(SLURM_NTASKS, why), 1)
    local = e.number(e.require(SLURM_LOCALID, why), 0)
    e.below(SLURM_PROCID, rank, SLURM_NTASKS, size)
    e.below(SLURM_LOCALID, local, SLURM_NTASKS, size)
    f = _Found(Launcher.SLURM, rank, size, local)
    if e.has(SLURM_JOB_ID):
        step = e.get(SLURM_STEP_ID) if e.has(SLURM_STEP_ID) else ""
        f.identity = JobIdentity(f"slurm\n{e.get(SLURM_JOB_ID)}\n{step}")
    if override is not None:
        f.address = override
        return f
    name = SLURM_STEP_NODELIST if e.has(SLURM_STEP_NODELIST) else \
        SLURM_JOB_NODELIST if e.has(SLURM_JOB_NODELIST) else None
    if name is None:
        f.problem = (f"neither {SLURM_STEP_NODELIST} nor {SLURM_JOB_NODELIST} is set, so rank 0's host is not"
                     f" known: set {CUDAIPC4J_RENDEZVOUS}=host:port")
        return f
    try:
        first = _first(_parse_nodelist(e.get(name))[0])
    except ValueError as problem:
        raise e.fail(name, str(problem)) from None
    problem = _host_problem(first)
    if problem is not None:
        raise e.fail(name, f"its first host {_show(first)}: {problem}")
    if f.identity is None:
        f.problem = (f"{SLURM_JOB_ID} is not set, so no port can be derived for this job: set"
                     f" {CUDAIPC4J_RENDEZVOUS}=host:port")
    else:
        f.address = HostPort(first, f.identity.port())
    return f


def detect(env: Mapping[str, str]) -> LaunchEnvironment:
    """The launch ``env`` describes; LaunchEnvironmentError in one line naming the variable, its value and what
    was expected when a value is malformed or out of range, or a launcher's variables are set only in part.
    A variable set to the empty string counts as not set."""
    e = _Env(env)
    override = e.address(CUDAIPC4J_RENDEZVOUS) if e.has(CUDAIPC4J_RENDEZVOUS) else None
    if e.has_any(CUDAIPC4J_RANK, CUDAIPC4J_WORLD_SIZE, CUDAIPC4J_LOCAL_RANK):
        f = _explicit(e, override)
    elif e.has_any(RANK, WORLD_SIZE):
        f = _torchrun(e, override)
    elif e.has_any(OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE):
        f = _open_mpi(e, override)
    elif e.has(SLURM_PROCID):
        f = _slurm(e, override)
    else:
        f = _Found(Launcher.NONE, 0, 1, 0)
        f.address = override
        f.problem = (f"no launcher's variables are set ({CUDAIPC4J_RANK}, {RANK}, {OMPI_COMM_WORLD_RANK},"
                     f" {SLURM_PROCID}), so this process is rank 0 of 1 with no rendezvous: set"
                     f" {CUDAIPC4J_RENDEZVOUS}=host:port for one")
    if f.identity is None and f.address is not None:
        f.identity = JobIdentity(f"address\n{f.address}")
    if e.has(CUDAIPC4J_RENDEZVOUS_SECRET):
        secret = e.get(CUDAIPC4J_RENDEZVOUS_SECRET).encode("utf-8")
    else:
        secret = f.identity.secret() if f.identity is not None else None
    return LaunchEnvironment(f.launcher, f.rank, f.size, f.local_rank, f.address,
                             f.problem if f.address is None else None, f.identity, secret)


def from_environ() -> LaunchEnvironment:
    """:func:`detect` on this process's environment (only the variables in VARIABLES are read)."""
    return detect({setting.name: value for setting in settings.LAUNCHER_VARIABLES
                   if (value := setting.raw()) is not None})
