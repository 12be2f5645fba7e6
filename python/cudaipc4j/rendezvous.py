"""The rendezvous that hands rank 0's payload (NCCL's unique id) to every rank, then keeps the ranks watching each
other: the Python side of ``org.cudaipc4j.launch``, speaking the same protocol (docs/multinode.md, "Rendezvous
protocol"), so that either side can be rank 0. Standard library only; threads for the heartbeats.

``join(rank, size, (host, port), secret=..., nccl_version=..., payload=...)`` returns a :class:`RankGroup` once all
ranks arrived: its ``payload``, ``fault()``, ``on_fault(listener)``, ``barrier(timeout)`` and ``close()``.
Every rank holds one TCP connection to rank 0. Rank 0 watches every rank, the others watch rank 0, and rank 0
relays each fault it sees, so every rank learns of a rank's death or silence within the silence limit and about
one heartbeat interval.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import selectors
import socket
import struct
import sys
import threading
import time
from decimal import Decimal, InvalidOperation
from typing import Callable, NamedTuple

from . import launch, settings
from .errors import Error

__all__ = ["ClosedError", "Fault", "RankGroup", "RendezvousError", "join", "join_launched", "nccl_version_text",
           "silence_limit_from", "SILENCE_LIMIT_VARIABLE"]

MAGIC = b"C4J-RDZV"
MAJOR = 1
MINOR = 0
MAX_FRAME = 65536
MAX_PAYLOAD = 4096
MAX_TEXT = 1024
NONCE_BYTES = 32
MAC_BYTES = 32

CHALLENGE, JOIN, WELCOME, START, REFUSE, HEARTBEAT, FAULT, GOODBYE, BARRIER = range(1, 10)

# The fixed formats of docs/multinode.md ("Bytes on the wire"), by the names of Java's Wire, whose MemoryLayouts have
# the same fields; interop-golden/launch/frames.json pins both sides (its table and each frame's bytes).
_PREAMBLE = struct.Struct(f">{len(MAGIC)}sHH")  # magic, major, minor
_FRAME_LENGTH = struct.Struct(">I")  # FRAME_HEAD's first field, read and checked before the rest
_FRAME_HEAD = struct.Struct(">IB")  # length (type and body), type
_CHALLENGE = struct.Struct(f">{NONCE_BYTES}s")  # nonce
_JOIN = struct.Struct(f">iii{NONCE_BYTES}s{MAC_BYTES}s")  # rank, size, nccl, nonce, proof
_WELCOME = struct.Struct(f">{MAC_BYTES}s")  # proof
_FAULT_HEAD = struct.Struct(">iB")  # rank, kind; the text follows
_BARRIER = struct.Struct(">i")  # generation
# "join", server nonce, rank, size, nccl, client nonce
_JOIN_PROOF = struct.Struct(f">4s{NONCE_BYTES}siii{NONCE_BYTES}s")
_WELCOME_PROOF = struct.Struct(f">7s{NONCE_BYTES}s{NONCE_BYTES}s")  # "welcome", client nonce, server nonce
#: Each format by its name in the golden file.
_LAYOUTS = {"PREAMBLE": _PREAMBLE, "FRAME_HEAD": _FRAME_HEAD, "CHALLENGE": _CHALLENGE, "JOIN": _JOIN,
           "WELCOME": _WELCOME, "FAULT": _FAULT_HEAD, "BARRIER": _BARRIER, "JOIN_PROOF": _JOIN_PROOF,
           "WELCOME_PROOF": _WELCOME_PROOF}
_KINDS = {1: "DIED", 2: "HUNG", 3: "LEFT"}
_CODES = {v: k for k, v in _KINDS.items()}

#: The variable that sets the silence limit in seconds ("3", "1.5") when the call does not.
SILENCE_LIMIT_VARIABLE = settings.HEARTBEAT_TIMEOUT.name
DEFAULT_JOIN_TIMEOUT = 60.0
DEFAULT_HANDSHAKE_TIMEOUT = 10.0
DEFAULT_HEARTBEAT_INTERVAL = 0.25
DEFAULT_SILENCE_LIMIT = 3.0
#: How long rank 0 may take to answer a JOIN with its proof: it sends it as soon as it read the JOIN.
PROOF_WAIT = 1.0


class Fault(NamedTuple):
    """What went wrong with one rank: ``kind`` is ``DIED``, ``HUNG`` or ``LEFT`` (rank 0 closed first)."""
    rank: int
    kind: str
    message: str


class RendezvousError(Error):
    """A rendezvous or barrier that did not complete; the message is one line. ``fault`` is set when a rank failed."""

    def __init__(self, message: str, fault: Fault | None = None):
        super().__init__(message)
        self.fault = fault


class ClosedError(RendezvousError, RuntimeError):
    """A barrier of a group that was closed."""


class _ProtocolError(Error, OSError):
    """A peer broke the protocol; the message is the line to tell it."""


def nccl_version_text(code: int) -> str:
    """An NCCL version as NCCL writes it: 22809 is 2.28.9 (X*10000+Y*100+Z); below 10000 (before 2.9) X*1000+Y*100+Z."""
    if code < 0:
        return f"unknown ({code})"
    if code < 10000:
        return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"
    return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"


def silence_limit_from(value: str | None) -> float:
    """The silence limit in seconds that ``value`` (the text of CUDAIPC4J_HEARTBEAT_TIMEOUT) sets."""
    if value is None or not value.strip():
        return DEFAULT_SILENCE_LIMIT
    try:
        seconds = Decimal(value.strip())
        if seconds.is_finite() and seconds >= Decimal("0.001"):
            return float(seconds)
    except InvalidOperation:
        pass
    raise ValueError(f"{SILENCE_LIMIT_VARIABLE}={value} is not a number of seconds of at least 0.001")


def _seconds(s: float) -> str:
    """Durations as the messages print them: 60 s, 1.5 s, 200 ms (as the Java side)."""
    millis = int(round(s * 1000))
    if millis < 1000:
        return f"{millis} ms"
    if millis % 1000 == 0:
        return f"{millis // 1000} s"
    return f"{s:.1f} s"


def _where(host: str, port: int) -> str:
    """host:port, an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _ranks(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(str(r) for r in ranks)


# --------------------------------------------------------------------------------------------------------- wire

def _preamble() -> bytes:
    return _PREAMBLE.pack(MAGIC, MAJOR, MINOR)


def _frame(kind: int, body: bytes = b"") -> bytes:
    return _FRAME_HEAD.pack(1 + len(body), kind) + body


def _text(kind: int, text: str) -> bytes:
    return _frame(kind, text.encode("utf-8")[:MAX_TEXT])


def _fault_frame(f: Fault) -> bytes:
    return _frame(FAULT, _FAULT_HEAD.pack(f.rank, _CODES[f.kind]) + f.message.encode("utf-8")[:MAX_TEXT])


def _parse_fault(body: bytes) -> Fault:
    if len(body) < _FAULT_HEAD.size:
        raise _ProtocolError(f"FAULT frame of {len(body)} bytes is too short")
    rank, code = _FAULT_HEAD.unpack_from(body)
    return Fault(rank, _KINDS.get(code, "DIED"), body[_FAULT_HEAD.size:].decode("utf-8", "replace"))


def _join(rank: int, size: int, nccl: int, nonce: bytes, proof: bytes) -> bytes:
    return _frame(JOIN, _JOIN.pack(rank, size, nccl, nonce, proof))


def _barrier(gen: int) -> bytes:
    return _frame(BARRIER, _BARRIER.pack(gen))


def _parse_barrier(body: bytes) -> int:
    if len(body) != _BARRIER.size:
        raise _ProtocolError(f"BARRIER frame of {len(body)} bytes")
    (gen,) = _BARRIER.unpack(body)
    return gen


def _recv_exact(sock: socket.socket, n: int, at_start: bool = False) -> bytes | None:
    """``n`` bytes; None when the stream ends cleanly before the first one and ``at_start``; else EOFError."""
    chunks = []
    got = 0
    while got < n:
        b = sock.recv(n - got)
        if not b:
            if at_start and got == 0:
                return None
            raise EOFError("its connection closed in the middle of a frame")
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def _read_preamble(sock: socket.socket) -> tuple[int, int]:
    magic, major, minor = _PREAMBLE.unpack(_recv_exact(sock, _PREAMBLE.size))
    if magic != MAGIC:
        raise _ProtocolError(f"not the cudaipc4j rendezvous protocol (first bytes {magic.hex()})")
    return major, minor


def _read_frame(sock: socket.socket, allow_end: bool = False) -> tuple[int, bytes] | None:
    head = _recv_exact(sock, _FRAME_LENGTH.size, at_start=allow_end)
    if head is None:
        return None
    length = _frame_length(head)
    body = _recv_exact(sock, length)
    return body[0], body[1:]


def _frame_length(head: bytes) -> int:
    """A frame head's length field; 0 or over MAX_FRAME is a _ProtocolError."""
    (length,) = _FRAME_LENGTH.unpack_from(head)
    if length < 1 or length > MAX_FRAME:
        raise _ProtocolError(f"frame of {length} bytes refused: the limit is {MAX_FRAME}")
    return length


def _join_mac(secret: bytes, server_nonce: bytes, rank: int, size: int, nccl: int, client_nonce: bytes) -> bytes:
    msg = _JOIN_PROOF.pack(b"join", server_nonce, rank, size, nccl, client_nonce)
    return hmac.new(secret, msg, hashlib.sha256).digest()


def _welcome_mac(secret: bytes, client_nonce: bytes, server_nonce: bytes) -> bytes:
    return hmac.new(secret, _WELCOME_PROOF.pack(b"welcome", client_nonce, server_nonce), hashlib.sha256).digest()


class _Connection:
    """One TCP connection between rank 0 and another rank; writes never interleave."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._lock = threading.Lock()
        self._output_shut = False
        self.rank = -1
        self.said_goodbye = False
        self.faulted = False
        self.ended = False

    def send(self, data: bytes) -> bool:
        with self._lock:
            if self._output_shut:
                return False
            try:
                self.sock.sendall(data)
                return True
            except OSError:
                return False  # the reader sees the broken connection and reports it

    def finish(self, data: bytes | None) -> None:
        """Sends ``data`` as the last frame, then half-closes: the other end reads the end of the stream."""
        with self._lock:
            if self._output_shut:
                return
            if data is not None:
                try:
                    self.sock.sendall(data)
                except OSError:
                    pass
            self._output_shut = True
            try:
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        with self._lock:
            self._output_shut = True
        _close(self.sock)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked reading it
    except OSError:
        pass
    sock.close()


class _Pending:
    """A connection in its handshake: what it sent so far, and what it still owes."""

    def __init__(self, sock: socket.socket, now: float, deadline: float):
        self.sock = sock
        self.accepted = now
        self.since = now
        self.deadline = deadline
        self.stage = _Handshakes.PREAMBLE
        self.need = _PREAMBLE.size
        self.got = b""
        self.server_nonce = b""
        self.drained = 0
        self.gone = False


class _Handshakes:
    """Rank 0's connections that have not proven the secret yet, served without blocking by the thread that accepts
    them (as Java's Handshakes): until it proves itself each costs a descriptor and a few bytes, and nothing of it is
    left once dropped. A connection must send its preamble within PREAMBLE_WAIT and its JOIN within the handshake
    timeout; when all MAX places are taken, a connection that arrives takes the place of the one that has shown the
    least: a refused one still being drained, then the oldest without its preamble, then the oldest that owes its JOIN. A
    real rank sends its preamble as it connects and its JOIN one round trip after the CHALLENGE, so it keeps its place
    while strangers that stay silent or trickle bytes hold the others."""
    MAX = 64
    PREAMBLE_WAIT = 1.0
    # the kernel's queue of connections not yet accepted: long, so that a flood does not fill it and make the kernel
    # drop a real rank's SYN (retried only a second later); Linux caps it at net.core.somaxconn
    BACKLOG = 4096
    DRAIN = 0.5  # how long a refused peer may still send, so that closing does not reset it and lose the line
    DRAINING, PREAMBLE, JOIN = range(3)  # in the order in which they give way

    def __init__(self, server: socket.socket, handshake_timeout: float, where: str, judge, hand_over):
        self._server = server
        self._timeout = handshake_timeout
        self._where = where
        self._judge = judge
        self._hand_over = hand_over
        self._pending: dict[socket.socket, _Pending] = {}
        self._sel = selectors.DefaultSelector()
        server.setblocking(False)
        self._sel.register(server, selectors.EVENT_READ)

    def round(self, until: float) -> None:
        """Waits until something arrives or a deadline, at most until ``until``, and serves what arrived."""
        now = time.monotonic()
        wake = until
        for p in list(self._pending.values()):
            if now >= p.deadline:
                self._drop(p)  # silent or slow past its deadline
            else:
                wake = min(wake, p.deadline)
        joined: list[_Connection] = []
        for key, _ in self._sel.select(max(0.0, wake - now)):
            if key.fileobj is self._server:
                self._accept_some(joined)
            elif not key.data.gone:
                self._step(key.data, joined)
        for c in joined:
            try:
                c.sock.setblocking(True)
            except OSError:
                c.close()  # gone already: its reader sees that and frees its place
            self._hand_over(c)

    def _accept_some(self, joined: list) -> None:
        """Accepts what waits, a quarter of the places at a time: a connection accepted now is read in this round or
        the next, before newer ones can have taken the places of all older than it, so a real rank whose preamble came
        a moment after its connection still keeps its place."""
        for _ in range(self.MAX // 4):
            try:
                s, _ = self._server.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return  # out of descriptors, or the like: the next round tries again
            if len(self._pending) >= self.MAX:
                self._drop(min(self._pending.values(), key=lambda p: (p.stage, p.since)))
            try:
                s.setblocking(False)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                now = time.monotonic()
                p = _Pending(s, now, now + min(self.PREAMBLE_WAIT, self._timeout))
                self._sel.register(s, selectors.EVENT_READ, p)
            except OSError:
                s.close()
                continue
            self._pending[s] = p
            self._step(p, joined)  # a real rank's preamble is often here already: it sent it as it connected

    def _step(self, p: _Pending, joined: list) -> None:
        """Reads what ``p`` sent, as far as its stage needs, and moves it on."""
        try:
            while not p.gone:
                if p.stage == self.DRAINING:
                    self._drain(p)
                    return
                b = p.sock.recv(p.need - len(p.got))
                if not b:
                    self._drop(p)  # gone before it proved anything
                    return
                p.got += b
                if len(p.got) == p.need:
                    self._advance(p, joined)
        except (BlockingIOError, InterruptedError):
            return  # more to come
        except _ProtocolError as e:
            self._refuse(p, f"rendezvous on {self._where}: {e}")
        except OSError:
            self._drop(p)

    def _advance(self, p: _Pending, joined: list) -> None:
        """``p`` sent all its stage needed."""
        if p.stage == self.PREAMBLE:
            self._preamble(p)
        elif p.need == _PREAMBLE.size + _FRAME_HEAD.size:
            length = _frame_length(p.got[_PREAMBLE.size:])
            kind = p.got[-1]
            if kind != JOIN or length - 1 != _JOIN.size:
                self._refuse(p, f"rendezvous on {self._where}: expected a JOIN frame of {_JOIN.size} bytes, got type"
                                f" {kind} of {length - 1}")
                return
            p.need += _JOIN.size
        else:
            refusal, c, welcome = self._judge(p.got[-_JOIN.size:], p.server_nonce, p.sock)
            if refusal is not None:
                self._refuse(p, refusal)
                return
            self._forget(p)
            if not self._write(p, welcome):
                c.close()  # its reader sees the end and frees its place
            joined.append(c)

    def _preamble(self, p: _Pending) -> None:
        magic, major, minor = _PREAMBLE.unpack(p.got)
        if magic != MAGIC:
            self._drop(p)  # another protocol: nothing it could read
            return
        if major != MAJOR:
            self._write(p, _preamble())
            self._refuse(p, f"rendezvous protocol {major}.{minor} refused: rank 0 at {self._where} speaks"
                            f" {MAJOR}.{MINOR}")
            return
        p.server_nonce = secrets.token_bytes(NONCE_BYTES)
        if not self._write(p, _preamble() + _frame(CHALLENGE, p.server_nonce)):
            self._drop(p)
            return
        p.stage = self.JOIN
        p.since = time.monotonic()
        p.deadline = p.accepted + self._timeout
        p.need += _FRAME_HEAD.size

    def _refuse(self, p: _Pending, line: str) -> None:
        """Tells ``p`` why in one line, half-closes, and drains what it still sends for a while."""
        if not self._write(p, _text(REFUSE, line)):
            self._drop(p)
            return
        try:
            p.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._drop(p)
            return
        p.stage = self.DRAINING
        p.since = time.monotonic()
        p.deadline = p.since + self.DRAIN

    def _drain(self, p: _Pending) -> None:
        while True:
            b = p.sock.recv(8192)
            p.drained += len(b)
            if not b or p.drained >= MAX_FRAME:
                self._drop(p)
                return

    @staticmethod
    def _write(p: _Pending, data: bytes) -> bool:
        """Writes ``data`` at once (a handshake's frames fit the empty send buffer); False when it did not."""
        try:
            return p.sock.send(data) == len(data)
        except OSError:
            return False

    def _forget(self, p: _Pending) -> None:
        p.gone = True
        self._pending.pop(p.sock, None)
        try:
            self._sel.unregister(p.sock)
        except (KeyError, ValueError):
            pass

    def _drop(self, p: _Pending) -> None:
        self._forget(p)
        _close(p.sock)  # its end of the stream first: what it sent unread would otherwise reset the connection

    def close(self) -> None:
        """Drops every connection still in its handshake; the server socket is its owner's to close."""
        for p in list(self._pending.values()):
            self._drop(p)
        self._sel.close()


class _Watch:
    """Which watched ranks have been silent for longer than the limit (times from the caller's clock)."""

    def __init__(self, limit: float):
        self.limit = limit
        self.last: dict[int, float] = {}
        self.checked: float | None = None

    def watch(self, rank: int, now: float) -> None:
        """Starts watching ``rank``, counting its silence from ``now``; the watcher's checks count from then too."""
        self.last[rank] = now
        if self.checked is None:
            self.checked = now

    def heard(self, rank: int, now: float) -> None:
        if rank in self.last and now > self.last[rank]:
            self.last[rank] = now

    def forget(self, rank: int) -> None:
        self.last.pop(rank, None)

    def check(self, now: float) -> list[tuple[int, float]]:
        """The watcher's periodic check: :meth:`overdue`, unless it comes more than half the limit after the last one.
        Then the watcher itself was stopped or starved meanwhile, and what the others sent then waits unread (a goodbye
        among it, perhaps): it finds none, and every silence counts from ``now`` again, so that it is read first."""
        stalled = self.checked is not None and now - self.checked > self.limit / 2
        self.checked = now
        if stalled:
            self.last = dict.fromkeys(self.last, now)
            return []
        return self.overdue(now)

    def overdue(self, now: float) -> list[tuple[int, float]]:
        found = [(r, now - t) for r, t in self.last.items() if now - t > self.limit]
        for r, _ in found:
            del self.last[r]
        return found


# -------------------------------------------------------------------------------------------------------- group

class RankGroup:
    """The ranks after :func:`join`: the payload and a watch over the others until :meth:`close`."""

    def __init__(self, rank: int, size: int, address: tuple[str, int], secret: bytes, nccl_version: int,
                 payload, join_timeout: float, handshake_timeout: float, heartbeat_interval: float,
                 silence_limit: float, on_bound):
        self.rank = rank
        self.size = size
        self._address = address
        self._secret = bytes(secret)
        self._nccl = nccl_version
        self._payload_source = payload
        self._join_timeout = join_timeout
        self._handshake_timeout = handshake_timeout
        self._interval = heartbeat_interval
        self._limit = silence_limit
        self._on_bound = on_bound
        self.address = _where(address[0], address[1])
        self.payload = b""
        self._lock = threading.Condition()
        self._close_lock = threading.Lock()
        self._peers: dict[int, _Connection] = {}
        self._watch = _Watch(silence_limit)
        self._threads: list[threading.Thread] = []
        self._listeners: list[Callable[[Fault], None]] = []
        self._notices: list = []
        self._notices_cv = threading.Condition()
        self._started = False
        self._closing = False
        self._closed = False
        self._ticker_stop = False
        self._silent = False
        self._fault: Fault | None = None
        self._server: socket.socket | None = None
        self._join_failure: str | None = None
        self._all_arrived = False
        self._generation = 0
        self._released = 0
        self._host_entered = 0
        self._arrivals: dict[int, set[int]] = {}

    # ------------------------------------------------------------------------------------------------ public

    def fault(self) -> Fault | None:
        """The first fault this rank learned of, or None while all ranks are well."""
        with self._lock:
            return self._fault

    def on_fault(self, listener: Callable[[Fault], None]) -> None:
        """Calls ``listener`` once, on a thread the group owns, with the first fault (at once if there is one)."""
        with self._lock:
            if self._closed:
                return
            self._listeners.append(listener)
            if self._fault is not None:
                self._notify(listener, self._fault)

    def barrier(self, timeout: float) -> None:
        """Waits until every rank reached its barrier of the same number; RendezvousError on timeout or fault."""
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._closing:
                raise ClosedError(f"rank group of rank {self.rank} is closed")
            self._generation += 1
            gen = self._generation
            if self.rank == 0:
                self._host_entered = gen
                self._maybe_release(gen)
            elif self._fault is None:
                self._peers[0].send(_barrier(gen))
            while self._released < gen:
                if self._fault is not None:
                    raise RendezvousError(f"barrier {gen}: {self._fault.message}", self._fault)
                if self._closing:
                    raise RendezvousError(f"barrier {gen}: the group was closed")
                left = deadline - time.monotonic()
                if left <= 0:
                    if self.rank == 0:
                        missing = self._missing(self._arrivals.get(gen, set()))
                        raise RendezvousError(f"barrier {gen}: {_ranks(missing)} of {self.size} did not arrive"
                                              f" within {_seconds(timeout)}")
                    raise RendezvousError(f"barrier {gen}: rank 0 at {self.address} did not release it within"
                                          f" {_seconds(timeout)}")
                self._lock.wait(left)

    def close(self) -> None:
        """Says goodbye and ends the group; no thread or socket of it is left. Rank 0 first waits, at most the
        silence limit, for the others' goodbyes. Idempotent."""
        with self._close_lock:
            with self._lock:
                if self._closing:
                    return
                self._closing = True
                self._lock.notify_all()
            deadline = time.monotonic() + self._limit
            peers = list(self._peers.values())
            if self.rank == 0:
                with self._lock:
                    while any(not (c.said_goodbye or c.faulted or c.ended) for c in peers):
                        left = deadline - time.monotonic()
                        if left <= 0:
                            break
                        self._lock.wait(left)
                for c in peers:
                    c.finish(_frame(GOODBYE))
                deadline = time.monotonic() + self._interval
            else:
                for c in peers:
                    c.finish(_frame(GOODBYE))
            with self._lock:  # each end half-closes after a goodbye: the streams end cleanly, no reset
                while any(not c.ended for c in peers):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._lock.wait(left)
            self._shut_down()

    def __enter__(self) -> "RankGroup":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RankGroup(rank {self.rank} of {self.size} at {self.address})"

    # for tests: stop sending heartbeats, as a stopped process would
    def _pause_heartbeats(self) -> None:
        self._silent = True

    # for tests: end without a goodbye, as a killed process would
    def _abandon(self) -> None:
        self._shut_down()

    # -------------------------------------------------------------------------------------------- shutting down

    def _shut_down(self) -> None:
        with self._lock:
            self._closing = True
            self._closed = True
            self._ticker_stop = True
            self._lock.notify_all()
            if self._server is not None:
                self._server.close()  # the connections still in their handshake went with the loop that served them
            for c in self._peers.values():
                c.close()
            threads = list(self._threads)
        with self._notices_cv:
            self._notices.append(None)
            self._notices_cv.notify_all()
        for t in threads:
            if t is not threading.current_thread():
                t.join()

    # ------------------------------------------------------------------------------------------------- joining

    def _host(self) -> None:
        deadline = time.monotonic() + self._join_timeout
        if self.size > 1:
            self._listen()
            self._accept_all(deadline)
        payload = self._payload_source() if callable(self._payload_source) else self._payload_source
        with self._lock:
            if payload is None or len(payload) > MAX_PAYLOAD:
                line = (f"rendezvous on {self.address}: rank 0's payload of "
                        f"{'None' if payload is None else f'{len(payload)} bytes'} is over the limit of "
                        f"{MAX_PAYLOAD} bytes")
                for c in self._peers.values():
                    c.finish(_text(REFUSE, line))
                raise RendezvousError(line)
            self.payload = bytes(payload)
            self._started = True
            if self._server is not None:
                self._server.close()
                self._server = None
            now = time.monotonic()
            for c in self._peers.values():
                c.send(_frame(START, self.payload))
                self._watch.watch(c.rank, now)
        self._start_threads()

    def _listen(self) -> None:
        """Binds the group's address; a port another process holds is one line naming the variable that moves it."""
        host, port = self._address
        server = None
        try:
            info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
            server = socket.socket(info[0], socket.SOCK_STREAM)
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(info[4])
            server.listen(_Handshakes.BACKLOG)
        except OSError as e:
            if server is not None:
                server.close()
            raise RendezvousError(f"rendezvous on {self.address}: cannot listen on port {port} ({e.strerror or e}):"
                                  f" set {launch.CUDAIPC4J_RENDEZVOUS}=host:port to an address of this host with a"
                                  f" free port") from None
        self._server = server
        bound = server.getsockname()
        self.address = _where(host, bound[1])
        if self._on_bound is not None:
            self._on_bound((bound[0], bound[1]))

    def _accept_all(self, deadline: float) -> None:
        """Serves the handshakes until every rank joined, the join timeout passed or a rank ended the rendezvous."""
        door = _Handshakes(self._server, self._handshake_timeout, self.address, self._judge,
                           lambda c: self._start_thread("reader", self._read, c))
        try:
            while True:
                with self._lock:
                    if self._join_failure is not None:
                        line = self._join_failure
                        for c in self._peers.values():
                            c.finish(_text(REFUSE, line))
                        raise RendezvousError(line)
                    if self._all_arrived:
                        return
                    if time.monotonic() >= deadline:
                        line = (f"rendezvous on {self.address}: {_ranks(self._missing(set(self._peers)))} of"
                                f" {self.size} did not arrive within {_seconds(self._join_timeout)}")
                        for c in self._peers.values():
                            c.finish(_text(REFUSE, line))
                        raise RendezvousError(line)
                door.round(deadline)
        finally:
            door.close()

    def _judge(self, body: bytes, server_nonce: bytes, s: socket.socket):
        """Rank 0's checks of a whole JOIN, in the documented order: (refusal line, None, None), or (None, the
        connection of the rank that joined, its WELCOME)."""
        r, n, nccl, client_nonce, mac = _JOIN.unpack(body)
        if not hmac.compare_digest(mac, _join_mac(self._secret, server_nonce, r, n, nccl, client_nonce)):
            return f"rendezvous on {self.address}: wrong secret", None, None
        if n != self.size:
            return f"rendezvous on {self.address}: rank {r} was started for {n} ranks, rank 0 for {self.size}", None, None
        if r < 1 or r >= self.size:
            return (f"rendezvous on {self.address}: rank {r} is out of range: ranks 1 to {self.size - 1} join rank 0",
                    None, None)
        with self._lock:
            if self._started or self._join_failure is not None or self._closing:
                return f"rendezvous on {self.address} is over", None, None
            if r in self._peers:
                return f"rendezvous on {self.address}: rank {r} has already joined", None, None
            if nccl != self._nccl:
                self._join_failure = (f"rendezvous on {self.address}: rank {r} has NCCL {nccl_version_text(nccl)},"
                                      f" rank 0 has NCCL {nccl_version_text(self._nccl)}: all ranks must load the"
                                      f" same NCCL")
                return self._join_failure, None, None
            c = _Connection(s)
            c.rank = r
            self._peers[r] = c
            self._all_arrived = len(self._peers) == self.size - 1
            return None, c, _frame(WELCOME, _welcome_mac(self._secret, client_nonce, server_nonce))

    def _member(self) -> None:
        deadline = time.monotonic() + self._join_timeout
        timeout = _seconds(self._join_timeout)
        backoff = 0.02
        last: str | None = None
        host, port = self._address
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RendezvousError(f"rank 0 at {self.address} did not answer within {timeout}"
                                      + (f" ({last})" if last else ""))
            s = None
            reached = [False]
            try:
                s = socket.create_connection((host, port), timeout=left)
                if self._attempt(s, deadline, timeout, reached):
                    self._start_threads()
                    return
            except socket.timeout:
                raise RendezvousError(f"rank 0 at {self.address} did not answer within {timeout}") from None
            except RendezvousError:
                raise
            except EOFError:
                last = "it closed the connection"
            except OSError as e:
                last = e.strerror or str(e)
            finally:
                if s is not None and 0 not in self._peers:
                    s.close()
            if reached[0] or last == "it closed the connection":
                # someone took the connection and dropped it before the proof: rank 0 giving its place to another
                # (a flood of strangers), which the next try at once may win
                backoff = 0.02
            # rank 0 may start later than this rank: try again, a little later each time
            time.sleep(min(backoff, max(0.001, deadline - time.monotonic())))
            backoff = min(0.5, backoff * 2)

    def _attempt(self, s: socket.socket, deadline: float, timeout: str, reached: list) -> bool:
        """One try on a connected socket: the handshake, then the wait for START. True once joined; an end of the
        stream or an error before rank 0 proved the secret is for the caller to retry (``reached`` says whether rank 0
        answered at all); anything after that is final."""
        s.settimeout(max(0.001, deadline - time.monotonic()))
        c = _Connection(s)
        c.send(_preamble())
        try:
            major, minor = _read_preamble(s)
        except _ProtocolError as e:
            raise RendezvousError(f"rank 0 at {self.address}: {e}") from None
        reached[0] = True
        if major != MAJOR:
            raise RendezvousError(f"rank 0 at {self.address} speaks rendezvous protocol {major}.{minor},"
                                  f" rank {self.rank} speaks {MAJOR}.{MINOR}")
        (server_nonce,) = _CHALLENGE.unpack(self._expect(s, CHALLENGE, _CHALLENGE.size))
        client_nonce = secrets.token_bytes(NONCE_BYTES)
        mac = _join_mac(self._secret, server_nonce, self.rank, self.size, self._nccl, client_nonce)
        c.send(_join(self.rank, self.size, self._nccl, client_nonce, mac))
        self._await_welcome(s, deadline, _welcome_mac(self._secret, client_nonce, server_nonce))
        payload = self._await_start(s, timeout)
        if len(payload) > MAX_PAYLOAD:
            raise RendezvousError(f"rank 0 at {self.address} sent a payload of {len(payload)} bytes, over"
                                  f" the limit of {MAX_PAYLOAD}")
        s.settimeout(None)
        with self._lock:
            self.payload = payload
            self._started = True
            c.rank = 0
            self._peers[0] = c
            self._watch.watch(0, time.monotonic())
        return True

    def _await_welcome(self, s: socket.socket, deadline: float, proof: bytes) -> None:
        """Reads the WELCOME, which rank 0 sends as soon as it read the JOIN: one silent for longer than PROOF_WAIT
        cannot prove the secret (another program holds the port) and is not waited for."""
        s.settimeout(max(0.001, min(PROOF_WAIT, deadline - time.monotonic())))
        try:
            (got,) = _WELCOME.unpack(self._expect(s, WELCOME, _WELCOME.size))
        except socket.timeout:
            raise RendezvousError(f"rank 0 at {self.address} did not prove it knows the secret within"
                                  f" {_seconds(PROOF_WAIT)} of rank {self.rank}'s JOIN: is another program listening"
                                  f" there?") from None
        if not hmac.compare_digest(got, proof):
            raise RendezvousError(f"rank 0 at {self.address} does not know the secret")
        s.settimeout(max(0.001, deadline - time.monotonic()))

    def _expect(self, s: socket.socket, kind: int, length: int) -> bytes:
        try:
            got, body = _read_frame(s)
        except _ProtocolError as e:
            raise RendezvousError(f"rank 0 at {self.address}: {e}") from None
        if got == REFUSE:
            raise RendezvousError(body.decode("utf-8", "replace"))
        if got != kind or len(body) != length:
            raise RendezvousError(f"rank 0 at {self.address} sent frame type {got} of {len(body)} bytes where type"
                                  f" {kind} belongs")
        return body

    def _await_start(self, s: socket.socket, timeout: str) -> bytes:
        """Waits for START; a REFUSE or a FAULT (a rank died meanwhile) ends the join with its line."""
        while True:
            try:
                kind, body = _read_frame(s)
            except socket.timeout:
                raise RendezvousError(f"rank 0 at {self.address} did not start the group of {self.size} ranks"
                                      f" within {timeout}") from None
            except _ProtocolError as e:
                raise RendezvousError(f"rank 0 at {self.address}: {e}") from None
            except EOFError:  # rank 0 welcomed this rank: its end is final, not a reason to try again
                raise RendezvousError(f"rank 0 at {self.address} closed the connection before it started the group"
                                      f" of {self.size} ranks") from None
            except OSError as e:
                raise RendezvousError(f"rank 0 at {self.address} broke the connection before it started the group"
                                      f" of {self.size} ranks ({e.strerror or e})") from None
            if kind == START:
                return body
            if kind == REFUSE:
                raise RendezvousError(body.decode("utf-8", "replace"))
            if kind == FAULT:
                f = _parse_fault(body)
                raise RendezvousError(f"rendezvous on {self.address}: {f.message}", f)

    # ------------------------------------------------------------------------------------------------- running

    def _start_threads(self) -> None:
        with self._lock:
            self._start_thread("faults", self._notify_listeners)
            self._start_thread("heartbeat", self._tick)
            if self.rank != 0:
                self._start_thread("reader", self._read, self._peers[0])

    def _start_thread(self, role: str, target, *args) -> None:
        t = threading.Thread(target=target, args=args, name=f"cudaipc4j-rendezvous-{self.rank}-{role}", daemon=True)
        with self._lock:
            self._threads.append(t)
        t.start()

    def _read(self, c: _Connection) -> None:
        error: BaseException | None = None
        try:
            while True:
                frame = _read_frame(c.sock, allow_end=True)
                if frame is None:
                    break
                self._on_frame(c, *frame)
        except (OSError, EOFError) as e:
            error = e
        self._ended(c, error)

    def _on_frame(self, c: _Connection, kind: int, body: bytes) -> None:
        with self._lock:
            self._watch.heard(c.rank, time.monotonic())
        if kind == GOODBYE:
            c.said_goodbye = True
            c.finish(None)
            left = None
            with self._lock:
                self._watch.forget(c.rank)
                if self.rank != 0 and not self._closing:
                    left = Fault(0, "LEFT", f"rank 0 left the group before rank {self.rank} closed")
                self._lock.notify_all()
            if left is not None:
                self._raise(left)
        elif kind == FAULT:
            if self.rank != 0:
                self._raise(_parse_fault(body))
        elif kind == BARRIER:
            gen = _parse_barrier(body)
            with self._lock:
                if self.rank == 0:
                    self._arrivals.setdefault(gen, set()).add(c.rank)
                    self._maybe_release(gen)
                else:
                    self._released = max(self._released, gen)
                    self._lock.notify_all()
        # HEARTBEAT, and frame types of later minor versions: only proof of life

    def _maybe_release(self, gen: int) -> None:
        """Rank 0, under the lock: releases barrier ``gen`` once rank 0 and every other rank reached it."""
        if self._host_entered >= gen and len(self._arrivals.get(gen, ())) == self.size - 1:
            self._arrivals.pop(gen, None)
            self._released = max(self._released, gen)
            frame = _barrier(gen)
            for c in self._peers.values():
                c.send(frame)
            self._lock.notify_all()

    def _ended(self, c: _Connection, error: BaseException | None) -> None:
        with self._lock:
            c.ended = True
            self._lock.notify_all()
            if self.rank == 0 and not self._all_arrived:
                if self._peers.get(c.rank) is c:  # joined, then left before all arrived: its place is free again
                    del self._peers[c.rank]
                c.close()
                return
            if c.said_goodbye or self._closing:
                return
            if error is None:
                why = "its connection closed without a goodbye"
            elif isinstance(error, _ProtocolError):
                why = f"it broke the protocol: {error}"
            elif isinstance(error, EOFError):
                why = "its connection closed in the middle of a frame"
            else:
                why = f"its connection broke ({error.strerror or error})"
            died = Fault(c.rank, "DIED", f"rank {c.rank} died: {why}")
        self._raise(died)

    def _raise(self, f: Fault) -> None:
        """Records a fault; rank 0 relays it to every other rank. Each rank's fault counts once."""
        relay: list[_Connection] = []
        with self._lock:
            about = self._peers.get(f.rank)
            if about is not None and about.rank == f.rank:
                if about.faulted and self.rank == 0:
                    return
                about.faulted = True
            self._watch.forget(f.rank)
            if self._fault is None:
                self._fault = f
                for listener in self._listeners:
                    self._notify(listener, f)
            self._lock.notify_all()
            if self.rank == 0:
                relay = [c for c in self._peers.values() if not c.faulted and not c.said_goodbye]
        frame = _fault_frame(f)
        for c in relay:
            c.send(frame)

    def _tick(self) -> None:
        """Sends heartbeats and checks silences every interval until the group closes."""
        nxt = time.monotonic()
        while True:
            with self._lock:
                # after a stop, one tick now rather than every tick missed at once
                nxt = max(nxt, time.monotonic() - self._interval) + self._interval
                while not self._ticker_stop and nxt - time.monotonic() > 0:
                    self._lock.wait(nxt - time.monotonic())
                if self._ticker_stop:
                    return
                to = [c for c in self._peers.values() if not c.faulted]
            if not self._silent:
                beat = _frame(HEARTBEAT)
                for c in to:
                    c.send(beat)
            with self._lock:
                over = [] if self._closing else self._watch.check(time.monotonic())
            for rank, silent in over:
                self._raise(Fault(rank, "HUNG", f"rank {rank} hung: silent for {silent:.1f} s"))

    def _notify(self, listener, f: Fault) -> None:
        with self._notices_cv:
            self._notices.append((listener, f))
            self._notices_cv.notify_all()

    def _notify_listeners(self) -> None:
        while True:
            with self._notices_cv:
                while not self._notices:
                    self._notices_cv.wait()
                item = self._notices.pop(0)
            if item is None:
                return
            listener, f = item
            try:
                listener(f)
            except Exception as e:  # noqa: BLE001 - a listener's failure must not end the watch
                print(f"cudaipc4j: a fault listener of rank {self.rank} failed: {e!r}", file=sys.stderr)

    def _missing(self, present) -> list[int]:
        return [r for r in range(1, self.size) if r not in present]


def join(rank: int, size: int, address: tuple[str, int], *, secret: bytes = b"", nccl_version: int = 0,
         payload: bytes | Callable[[], bytes] | None = None, join_timeout: float = DEFAULT_JOIN_TIMEOUT,
         handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT, heartbeat_interval: float | None = None,
         silence_limit: float | None = None,
         on_bound: Callable[[tuple[str, int]], None] | None = None) -> RankGroup:
    """Joins the group: rank 0 binds ``address`` and waits for the others, who connect and wait for its payload.

    ``secret`` is proved, never sent (HMAC-SHA256). ``nccl_version`` as ``ncclGetVersion`` reports it; a rank whose
    version differs from rank 0's ends the whole rendezvous. ``payload`` (rank 0: bytes, or a callable called once
    all ranks arrived) is at most 4096 bytes. ``silence_limit`` defaults to CUDAIPC4J_HEARTBEAT_TIMEOUT, else 3 s;
    ``heartbeat_interval`` to 0.25 s or half the limit when that is shorter. ``on_bound`` (rank 0) receives the
    bound address, useful with port 0. Raises :class:`RendezvousError` with one line naming what went wrong.
    """
    if size < 1:
        raise ValueError(f"size must be at least 1: {size}")
    if not 0 <= rank < size:
        raise ValueError(f"rank {rank} is out of range for {size} ranks")
    if rank == 0 and payload is None:
        raise ValueError("rank 0 needs the payload to hand out")
    limit = silence_limit if silence_limit is not None else silence_limit_from(settings.HEARTBEAT_TIMEOUT.text())
    interval = heartbeat_interval if heartbeat_interval is not None else min(DEFAULT_HEARTBEAT_INTERVAL, limit / 2)
    for name, value in (("join_timeout", join_timeout), ("handshake_timeout", handshake_timeout),
                        ("heartbeat_interval", interval), ("silence_limit", limit)):
        if not value > 0:
            raise ValueError(f"{name} must be positive: {value}")
    if limit <= interval:
        raise ValueError(f"silence limit {_seconds(limit)} must be longer than the heartbeat interval"
                         f" {_seconds(interval)}")
    g = RankGroup(rank, size, (address[0], int(address[1])), secret, nccl_version, payload, join_timeout,
                  handshake_timeout, interval, limit, on_bound)
    ok = False
    try:
        if rank == 0:
            g._host()
        else:
            g._member()
        ok = True
        return g
    finally:
        if not ok:
            g._shut_down()


def join_launched(launch, **options) -> RankGroup:
    """:func:`join` as this process's launcher started it: rank, size, address and secret from ``launch`` (a
    :class:`cudaipc4j.launch.LaunchEnvironment`, e.g. ``from_environ()``); its errors when it gives no address."""
    at = launch.require_rendezvous()
    return join(launch.rank, launch.size, (at.host, at.port), secret=launch.require_secret(), **options)
