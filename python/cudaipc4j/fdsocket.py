"""cudaipc4j's descriptor socket (org.cudaipc4j.coord.fd.FdChannel and FdServer; docs/interop-format.md, "The
descriptor socket"): a Unix stream socket whose messages are a 12-byte little-endian header ``{magic "CIFD", payload
length, fd count}`` sent with the fds attached (SCM_RIGHTS), then the payload. The client (:func:`connect`), and a
server (:class:`Server`) for a Python producer, such as a torch producer handing its shares' fds to a reader that may
not ptrace it (:func:`cudaipc4j.sharing.send_share`)."""
from __future__ import annotations

import array
import os
import secrets
import socket
import struct
import time
from typing import TYPE_CHECKING

from .errors import Error

if TYPE_CHECKING:
    from .descriptor import Descriptor

MAGIC = 0x44464943  # "CIFD" read as a little-endian int
HEADER = struct.Struct("<Iii")
MAX_PAYLOAD = 16 << 20
MAX_FDS = 253


class ProtocolError(Error, ConnectionError):
    """The peer broke the protocol or went away; any fds that arrived were closed."""


def connect(path: str, timeout: float = 10.0) -> socket.socket:
    """Connects to the server at ``path``, waiting up to ``timeout`` s for it to appear; refuses one of another user."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # close-on-exec by Python's default
        try:
            sock.connect(path)
            check_peer(sock, f"the descriptor server at {path}")
            return sock
        except (FileNotFoundError, ConnectionRefusedError) as e:
            sock.close()
            if time.monotonic() >= deadline:
                raise ProtocolError(f"no descriptor server at {path} within {timeout:g} s ({e.strerror})") from None
            time.sleep(pause)  # the exporter may still be starting; nothing to wait on but the path
            pause = min(pause * 2, 0.02)
        except BaseException:
            sock.close()
            raise


class Server:
    """Listens at ``<directory>/cudaipc4j-<pid>-<16 hex>.fds/s``, in a folder of mode 0700 as the Java server's
    (``/dev/shm`` by default); :meth:`accept` takes a client of this user only. :meth:`close` removes both."""

    def __init__(self, directory: str = "/dev/shm") -> None:
        self.folder = os.path.join(directory, f"cudaipc4j-{os.getpid()}-{secrets.token_hex(8)}.fds")
        os.mkdir(self.folder, 0o700)
        os.chmod(self.folder, 0o700)  # mkdir applied the umask
        self.path = os.path.join(self.folder, "s")
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.bind(self.path)
            self._sock.listen()
        except BaseException:
            self.close()
            raise

    def accept(self, timeout: float | None = 60.0) -> socket.socket:
        """The next client, refused (closed, ProtocolError) unless it runs as this user."""
        self._sock.settimeout(timeout)
        try:
            sock, _ = self._sock.accept()
        except TimeoutError:
            raise ProtocolError(f"no client at {self.path} within {timeout:g} s") from None
        try:
            sock.settimeout(None)
            check_peer(sock, "a client of the descriptor server")
            return sock
        except BaseException:
            sock.close()
            raise

    def close(self) -> None:
        self._sock.close()
        for remove in (lambda: os.unlink(self.path), lambda: os.rmdir(self.folder)):
            try:
                remove()
            except FileNotFoundError:
                pass


def check_peer(sock: socket.socket, what: str) -> tuple[int, int, int]:
    """(pid, uid, gid) of the peer, refused unless it runs as this user."""
    pid, uid, gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    if uid != os.getuid():
        raise ProtocolError(f"refused {what}: it runs as uid {uid} (pid {pid}), not as this user (uid {os.getuid()})")
    return pid, uid, gid


def send(sock: socket.socket, payload: bytes, fds: list[int] | tuple[int, ...] = ()) -> None:
    """Sends one message with copies of ``fds`` attached (the caller keeps and closes its own)."""
    if len(payload) > MAX_PAYLOAD or len(fds) > MAX_FDS:
        raise ValueError(f"a message carries at most {MAX_PAYLOAD} bytes and {MAX_FDS} fds, got {len(payload)} and"
                         f" {len(fds)}")
    data = HEADER.pack(MAGIC, len(payload), len(fds)) + bytes(payload)
    sent = socket.send_fds(sock, [data], list(fds)) if fds else sock.send(data)
    if sent < len(data):
        sock.sendall(data[sent:])


def receive(sock: socket.socket, timeout: float | None = 60.0) -> tuple[bytes, list[int]]:
    """Receives one message: its payload and the fds that came with it, now owned by the caller. ``timeout``
    applies to this call only: the socket's own timeout is back afterwards."""
    previous = sock.gettimeout()
    sock.settimeout(timeout)
    fds: list[int] = []
    try:
        try:
            header, fds, flags = _recv_with_fds(sock)
        except TimeoutError:
            raise ProtocolError(f"no message from the peer within {timeout:g} s") from None
        if flags & socket.MSG_CTRUNC:
            raise ProtocolError(f"a message carried more than {MAX_FDS} fds: refused")
        if not header:
            raise ProtocolError("the peer closed the connection")
        while len(header) < HEADER.size:
            more = _recv(sock, HEADER.size - len(header), timeout)
            if not more:
                raise ProtocolError("the peer closed the connection in the middle of a message")
            header += more
        magic, length, count = HEADER.unpack(header)
        if magic != MAGIC:
            raise ProtocolError(f"a message from the peer is not a descriptor message (magic 0x{magic:x})")
        if not 0 <= length <= MAX_PAYLOAD or not 0 <= count <= MAX_FDS:
            raise ProtocolError(f"a message from the peer announces {length} bytes and {count} fds: refused")
        if count != len(fds):
            raise ProtocolError(f"a message from the peer announced {count} fds but {len(fds)} arrived")
        payload = b""
        while len(payload) < length:
            chunk = _recv(sock, length - len(payload), timeout)
            if not chunk:
                raise ProtocolError(f"the peer closed the connection after {len(payload)} of {length} bytes")
            payload += chunk
        return payload, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    finally:
        sock.settimeout(previous)


def _recv_with_fds(sock: socket.socket) -> tuple[bytes, list[int], int]:
    # socket.recv_fds drops its flags argument (CPython 3.11/3.12), so the fds would not be close-on-exec
    data, ancillary, flags, _ = sock.recvmsg(HEADER.size, socket.CMSG_SPACE(MAX_FDS * 4), socket.MSG_CMSG_CLOEXEC)
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    return data, list(fds), flags


def _recv(sock: socket.socket, n: int, timeout: float | None) -> bytes:
    try:
        return sock.recv(n)
    except TimeoutError:
        raise ProtocolError(f"the rest of a message did not come within {timeout:g} s") from None


def receive_descriptor(sock: socket.socket, timeout: float | None = 60.0) -> tuple[Descriptor, list[int]]:
    """The next message as a descriptor (its JSON payload) and its fds, checked to be as many as it says."""
    from .descriptor import from_json
    payload, fds = receive(sock, timeout)
    try:
        d = from_json(payload)
        expected = d.fds or 0
        if len(fds) != expected:
            raise ProtocolError(f"a descriptor of {expected} fd(s) came with {len(fds)}")
        return d, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def send_descriptor(sock: socket.socket, d: Descriptor, fds: list[int] | tuple[int, ...] = ()) -> None:
    """Sends a descriptor with its fds (as many as its ``fds`` field says)."""
    from .descriptor import to_json
    if len(fds) != (d.fds or 0):
        raise ValueError(f"the descriptor says {d.fds or 0} fd(s), {len(fds)} given")
    send(sock, to_json(d).encode("ascii"), fds)
