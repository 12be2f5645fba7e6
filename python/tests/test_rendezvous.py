"""The rendezvous and the group's watch (cudaipc4j.rendezvous), with ranks on threads over loopback."""
import gc
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import Future
from pathlib import Path
from unittest import mock

from cudaipc4j import rendezvous as rdzv

from . import support

SECRET = b"s3cret"
ID = bytes((i * 7 + 1) % 256 for i in range(128))
NCCL = 22809
WAIT = 20.0
FRAMES = Path(__file__).resolve().parents[2] / "interop-golden" / "launch" / "frames.json"


class Ranks:
    """Ranks on threads; closes every group that joined, all at once, and checks that nothing is left."""

    def __init__(self):
        self.futures: list[Future] = []

    def start(self, rank, size, port, **kw) -> Future:
        options = dict(secret=SECRET, nccl_version=NCCL, payload=ID, join_timeout=WAIT, heartbeat_interval=0.1,
                       silence_limit=1.0)
        options.update(kw)
        f: Future = Future()

        def run():
            try:
                f.set_result(rdzv.join(rank, size, ("127.0.0.1", port), **options))
            except BaseException as e:  # noqa: BLE001 - handed to the test
                f.set_exception(e)

        threading.Thread(target=run, name=f"test-rank-{rank}").start()
        self.futures.append(f)
        return f

    def host(self, size, **kw) -> int:
        bound: Future = Future()
        f = self.start(0, size, 0, on_bound=lambda a: bound.set_result(a[1]), **kw)
        f.add_done_callback(lambda x: x.exception() and not bound.done() and bound.set_exception(x.exception()))
        return bound.result(WAIT)

    def group(self, size) -> list:
        port = self.host(size)
        members = [self.start(r, size, port) for r in range(1, size)]
        return [self.futures[0].result(WAIT)] + [m.result(WAIT) for m in members]

    def close(self):
        closers = []
        for f in self.futures:
            try:
                g = f.result(WAIT)
            except BaseException:  # noqa: BLE001 - failed to join: nothing to close
                continue
            t = threading.Thread(target=g.close)
            t.start()
            closers.append(t)
        for t in closers:
            t.join()


def failure(f: Future) -> BaseException:
    e = f.exception(WAIT)
    assert e is not None, f"expected a failure, got {f.result()}"
    return e


def fault_of(g) -> Future:
    f: Future = Future()
    g.on_fault(lambda x: f.done() or f.set_result(x))
    return f


def raw_join(port, rank, size, nccl=NCCL, secret=SECRET, keep=False):
    """Joins by hand; returns the REFUSE line, or "" (and the open socket when ``keep``) when welcomed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    s.sendall(rdzv._preamble())
    rdzv._read_preamble(s)
    kind, server_nonce = rdzv._read_frame(s)
    assert kind == rdzv.CHALLENGE
    client_nonce = bytes(32)
    mac = rdzv._join_mac(secret, server_nonce, rank, size, nccl, client_nonce)
    s.sendall(rdzv._join(rank, size, nccl, client_nonce, mac))
    kind, body = rdzv._read_frame(s)
    if keep:
        assert kind == rdzv.WELCOME
        return s
    s.close()
    return body.decode() if kind == rdzv.REFUSE else ""


def open_sockets() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:
            pass  # closed while listed
    return count


def _done(value) -> Future:
    f: Future = Future()
    f.set_result(value)
    return f


class RendezvousTest(support.TestCase):
    """Ranks on threads; every group that joined is closed after the test, and no thread of theirs is left."""

    def setUp(self):
        self.ranks = Ranks()
        self.addCleanup(self._all_closed)

    def _all_closed(self):
        self.ranks.close()
        left = [t.name for t in threading.enumerate() if t.name.startswith("cudaipc4j-rendezvous-")]
        assert left == []

    def test_every_rank_gets_the_payload_meets_at_barriers_and_closes_without_faults(self):
        sockets_before = open_sockets()
        groups = self.ranks.group(4)
        assert all(g.payload == ID for g in groups)
        for _ in range(3):
            done = [Future() for _ in groups]

            def meet(g, f):
                g.barrier(WAIT)
                f.set_result(True)

            threads = [threading.Thread(target=meet, args=(g, f)) for g, f in zip(groups, done)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert all(f.done() and f.result() for f in done)
        self.ranks.close()
        assert [g.fault() for g in groups] == [None] * 4
        assert open_sockets() == sockets_before

    def test_ranks_started_before_rank_zero_wait_for_it(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        one = self.ranks.start(1, 2, port)
        self.ranks.start(0, 2, port)
        assert one.result(WAIT).payload == ID

    def test_rank_zero_names_the_ranks_that_did_not_arrive(self):
        port = self.ranks.host(4, join_timeout=0.7)
        one = self.ranks.start(1, 4, port)
        line = f"rendezvous on 127.0.0.1:{port}: ranks 2, 3 of 4 did not arrive within 700 ms"
        assert str(failure(self.ranks.futures[0])) == line
        assert str(failure(one)) == line

    def test_a_rank_without_rank_zero_says_who_did_not_answer(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        e = failure(self.ranks.start(1, 2, port, join_timeout=0.3))
        assert str(e).startswith(f"rank 0 at 127.0.0.1:{port} did not answer within 300 ms")

    def test_a_wrong_secret_is_refused_and_rank_zero_keeps_waiting(self):
        port = self.ranks.host(2)
        assert str(failure(self.ranks.start(1, 2, port, secret=b"guess"))).endswith(": wrong secret")
        assert self.ranks.start(1, 2, port).result(WAIT).payload == ID

    def test_wrong_size_rank_out_of_range_and_duplicates_are_refused_one_by_one(self):
        port = self.ranks.host(3)
        assert str(failure(self.ranks.start(2, 4, port))).endswith("rank 2 was started for 4 ranks, rank 0 for 3")
        assert raw_join(port, 7, 3).endswith("rank 7 is out of range: ranks 1 to 2 join rank 0")
        one = raw_join(port, 1, 3, keep=True)
        try:
            assert raw_join(port, 1, 3).endswith("rank 1 has already joined")
            two = self.ranks.start(2, 3, port)
            kind, body = rdzv._read_frame(one)
            assert (kind, body) == (rdzv.START, ID)
            assert two.result(WAIT).payload == ID
            one.sendall(rdzv._frame(rdzv.GOODBYE))
        finally:
            one.close()

    def test_garbage_is_dropped_without_harm(self):
        port = self.ranks.host(2)
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(1) == b""
        assert self.ranks.start(1, 2, port).result(WAIT).payload == ID

    def test_a_newer_protocol_version_is_refused_in_one_line_naming_both(self):
        port = self.ranks.host(2)
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
            s.sendall(rdzv.MAGIC + struct.pack(">HH", 2, 3))
            assert rdzv._read_preamble(s) == (1, 0)
            kind, body = rdzv._read_frame(s)
            assert kind == rdzv.REFUSE
            assert body.decode() == f"rendezvous protocol 2.3 refused: rank 0 at 127.0.0.1:{port} speaks 1.0"
        assert self.ranks.start(1, 2, port).result(WAIT).payload == ID

    def test_an_oversized_frame_is_refused(self):
        port = self.ranks.host(2)
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
            s.sendall(rdzv._preamble())
            rdzv._read_preamble(s)
            assert rdzv._read_frame(s)[0] == rdzv.CHALLENGE
            s.sendall(struct.pack(">IB", 1 << 30, rdzv.JOIN))
            kind, body = rdzv._read_frame(s)
            assert kind == rdzv.REFUSE
            assert body.decode().endswith("frame of 1073741824 bytes refused: the limit is 65536")
        assert self.ranks.start(1, 2, port).result(WAIT).payload == ID

    def test_a_stranger_who_says_nothing_is_dropped_at_its_deadline(self):
        port = self.ranks.host(2, handshake_timeout=0.3)
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
            assert self.ranks.start(1, 2, port).result(WAIT).payload == ID
            assert s.recv(1) == b""

    def test_an_nccl_version_mismatch_ends_the_rendezvous_with_one_line_naming_both(self):
        port = self.ranks.host(3)
        one = raw_join(port, 1, 3, keep=True)
        try:
            two = self.ranks.start(2, 3, port, nccl_version=22803)
            line = (f"rendezvous on 127.0.0.1:{port}: rank 2 has NCCL 2.28.3, rank 0 has NCCL 2.28.9: all ranks must"
                    f" load the same NCCL")
            assert str(failure(two)) == line
            assert str(failure(self.ranks.futures[0])) == line
            assert rdzv._read_frame(one) == (rdzv.REFUSE, line.encode())
        finally:
            one.close()

    def test_a_dead_rank_is_reported_to_every_rank(self):
        g = self.ranks.group(3)
        at0, at1 = fault_of(g[0]), fault_of(g[1])
        g[2]._abandon()
        f = rdzv.Fault(2, "DIED", "rank 2 died: its connection closed without a goodbye")
        assert at0.result(WAIT) == f
        assert at1.result(WAIT) == f
        with self.assertRaises(rdzv.RendezvousError) as e:
            g[1].barrier(WAIT)
        assert e.exception.fault == f
        assert str(e.exception) == "barrier 1: rank 2 died: its connection closed without a goodbye"

    def test_a_silent_rank_is_reported_hung_to_every_rank(self):
        g = self.ranks.group(3)
        seen = []
        at0, at1 = fault_of(g[0]), fault_of(g[1])
        at1.add_done_callback(lambda _: seen.append(time.monotonic()))
        start = time.monotonic()
        g[2]._pause_heartbeats()
        f = at0.result(WAIT)
        assert (f.rank, f.kind) == (2, "HUNG")
        assert f.message.startswith("rank 2 hung: silent for 1.")
        assert at1.result(WAIT) == f
        # the limit, one heartbeat (the check that finds it comes at most one interval late) and half a second
        assert seen[0] - start < 1.0 + 0.1 + 0.5, f"took {seen[0] - start:.2f} s"

    def test_a_silent_rank_zero_is_reported_hung_by_every_rank(self):
        g = self.ranks.group(3)
        at1, at2 = fault_of(g[1]), fault_of(g[2])
        g[0]._pause_heartbeats()
        for f in (at1.result(WAIT), at2.result(WAIT)):
            assert (f.rank, f.kind) == (0, "HUNG")

    def test_rank_zero_closing_first_waits_for_the_goodbyes_then_leaves(self):
        g = self.ranks.group(2)
        at1 = fault_of(g[1])
        g[0].close()
        assert at1.result(WAIT) == rdzv.Fault(0, "LEFT", "rank 0 left the group before rank 1 closed")
        assert g[0].fault() is None

    def test_a_barrier_times_out_naming_who_did_not_arrive(self):
        g = self.ranks.group(3)
        with self.assertRaisesRegex(rdzv.RendezvousError,
                                    r"^barrier 1: ranks 1, 2 of 3 did not arrive within 200 ms$"):
            g[0].barrier(0.2)

    def test_the_launcher_gives_rank_size_address_and_secret(self):
        from cudaipc4j import launch
        port = self.ranks.host(2)
        env = launch.detect({"CUDAIPC4J_RANK": "1", "CUDAIPC4J_WORLD_SIZE": "2",
                             "CUDAIPC4J_RENDEZVOUS": f"127.0.0.1:{port}",
                             "CUDAIPC4J_RENDEZVOUS_SECRET": SECRET.decode()})
        g = rdzv.join_launched(env, nccl_version=NCCL, heartbeat_interval=0.1, silence_limit=1.0)
        self.ranks.futures.append(_done(g))
        assert (g.rank, g.size, g.payload) == (1, 2, ID)
        assert rdzv._where("fd00::1", 29400) == "[fd00::1]:29400"


class FakeRankZero:
    """Rank 0 played by hand, on a port of its own: up to the rank's JOIN, then what the test does."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]

    def until_the_join(self) -> tuple[socket.socket, bytes, bytes]:
        """Accepts the rank and reads its JOIN; returns the socket, rank 0's nonce and the rank's."""
        s, _ = self.server.accept()
        s.settimeout(WAIT)
        rdzv._read_preamble(s)
        server_nonce = os.urandom(32)
        s.sendall(rdzv._preamble() + rdzv._frame(rdzv.CHALLENGE, server_nonce))
        kind, body = rdzv._read_frame(s)
        assert kind == rdzv.JOIN
        return s, server_nonce, rdzv._JOIN.unpack(body)[3]

    def close(self):
        self.server.close()


class MemberSideTest(support.TestCase):
    """A rank against a rank 0 played by hand: one that cannot prove the secret, or that goes before START."""

    REFUSED_WITHIN = rdzv.PROOF_WAIT + 0.5  # the proof's wait and half a second for a loaded machine

    def setUp(self):
        self.ranks = Ranks()
        self.fake = FakeRankZero()
        self.addCleanup(self.fake.close)
        self.addCleanup(self.ranks.close)

    def test_a_rank_zero_with_a_wrong_proof_is_refused_at_once(self):
        one = self.ranks.start(1, 2, self.fake.port)
        s, _, _ = self.fake.until_the_join()
        with s:
            s.sendall(rdzv._frame(rdzv.WELCOME, bytes(32)))
            sent = time.monotonic()
            assert str(failure(one)) == f"rank 0 at 127.0.0.1:{self.fake.port} does not know the secret"
            assert time.monotonic() - sent < self.REFUSED_WITHIN, "refused only after the proof's wait"

    def test_a_rank_zero_silent_after_the_join_cannot_prove_the_secret_and_is_not_waited_for(self):
        one = self.ranks.start(1, 2, self.fake.port)
        s, _, _ = self.fake.until_the_join()
        with s:
            joined = time.monotonic()
            assert str(failure(one)) == (f"rank 0 at 127.0.0.1:{self.fake.port} did not prove it knows the secret"
                                         f" within 1 s of rank 1's JOIN: is another program listening there?")
            assert time.monotonic() - joined < self.REFUSED_WITHIN, "took longer than the proof's wait"

    def test_a_rank_that_loses_rank_zero_after_its_welcome_fails_at_once_naming_the_close(self):
        one = self.ranks.start(1, 3, self.fake.port)
        s, server_nonce, client_nonce = self.fake.until_the_join()
        with s:
            s.sendall(rdzv._frame(rdzv.WELCOME, rdzv._welcome_mac(SECRET, client_nonce, server_nonce)))
        closed = time.monotonic()
        self.fake.close()  # rank 0 is gone: trying again would find nobody until the join timeout
        assert str(failure(one)) == (f"rank 0 at 127.0.0.1:{self.fake.port} closed the connection before it started"
                                     f" the group of 3 ranks")
        assert time.monotonic() - closed < 1.0, "not at once"


class StoppedRankZeroTest(support.TestCase):
    """Rank 0 in a process of its own (rendezvous_peer.py), stopped while the other ranks close: resumed, it reads their
    goodbyes, which waited in its sockets, before it blames anyone for their silence."""

    def test_a_rank_zero_resumed_after_a_stop_reads_the_goodbyes_before_blaming_anyone(self):
        ranks = Ranks()
        self.addCleanup(ranks.close)
        zero = subprocess.Popen([sys.executable, str(Path(__file__).with_name("rendezvous_peer.py")), "--rank", "0",
                                 "--size", "3", "--port", "0", "--secret", SECRET.decode(), "--nccl", str(NCCL),
                                 "--payload-hex", ID.hex(), "--interval", "0.2", "--limit", "1"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                env=dict(os.environ, PYTHONPATH=str(Path(rdzv.__file__).parents[1])))
        self.addCleanup(_end, zero)
        port = int(zero.stdout.readline().split()[1])
        members = [ranks.start(r, 3, port, heartbeat_interval=0.2) for r in (1, 2)]
        assert zero.stdout.readline().startswith("joined ")
        assert all(m.result(WAIT).payload == ID for m in members)
        os.kill(zero.pid, signal.SIGSTOP)
        ranks.close()  # each waits the silence limit for rank 0's end, which a stopped rank 0 never sends
        os.kill(zero.pid, signal.SIGCONT)
        zero.stdin.write("close\n")
        zero.stdin.flush()
        assert zero.stdout.readline() == "closed\n", "rank 0's first line after it resumed"
        assert zero.wait(WAIT) == 0


class FloodTest(support.TestCase):
    """A Python rank 0 on a thread here while a stranger without the secret floods it (rendezvous_flood.py, a quarter
    of the flood measured for docs/multinode.md, as Java's RendezvousFloodTest runs it): the ranks get in within 2 s
    of the last one's start, and rank 0 holds at most its places' worth of descriptors and 64 MiB more memory."""

    def setUp(self):
        self.ranks = Ranks()
        self.addCleanup(self.ranks.close)

    def test_the_ranks_get_in_through_a_flood(self):
        size = 4
        before, rss_before = len(os.listdir("/proc/self/fd")), _rss_kib()
        port = self.ranks.host(size)
        flood = subprocess.Popen([sys.executable, str(Path(__file__).with_name("rendezvous_flood.py")), "--port",
                                  str(port), "--silent", "50", "--slow", "50", "--garbage", "250", "--rate", "25"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 env=dict(os.environ, PYTHONPATH=str(Path(rdzv.__file__).parents[1])))
        self.addCleanup(_end, flood)
        most = [0, 0]
        sampling = threading.Event()

        def sample():
            while not sampling.wait(0.005):
                most[0] = max(most[0], len(os.listdir("/proc/self/fd")))
                most[1] = max(most[1], _rss_kib())

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            assert flood.stdout.readline() == "flooding\n"
            members = [self.ranks.start(r, size, port) for r in range(1, size)]
            last_started = time.monotonic()
            joined = []
            for f in members + [self.ranks.futures[0]]:
                f.add_done_callback(lambda _: joined.append(time.monotonic()))
            assert all(f.result(WAIT).payload == ID for f in members + [self.ranks.futures[0]])
            assert max(joined) - last_started < 2.0, f"joined {max(joined) - last_started:.2f} s after the last start"
        finally:
            sampling.set()
            sampler.join()
        # the test's own pipes to the flood count here too: they are within the 50 to spare
        assert most[0] <= before + rdzv._Handshakes.MAX + size + 50, f"{most[0]} descriptors, {before} before"
        assert most[1] - rss_before < 64 * 1024, f"memory grew by {most[1] - rss_before} KiB"
        flood.stdin.close()
        opened, seconds, garbage = flood.stdout.readline().split()[1:]
        assert int(opened) >= float(seconds) * 25 and int(garbage) >= 250, (opened, seconds, garbage)


def _end(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()
    process.stdin.close()
    process.stdout.close()


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


class WireGoldenTest(support.TestCase):
    """The formats and bytes interop-golden/launch/frames.json pins, which Java's WireGoldenTest checks too."""

    def setUp(self):
        self.golden = json.loads(FRAMES.read_text(encoding="ascii"))

    def test_every_format_is_the_tables_field_by_field(self):
        codes = {"i32": "i", "u32": "I", "u16": "H", "u8": "B"}
        table = self.golden["layouts"]
        assert set(table) == set(rdzv._LAYOUTS)
        for name, fields in table.items():
            expected = ">" + "".join(codes.get(kind, kind) for _, kind in fields)
            assert rdzv._LAYOUTS[name].format == expected, name
        assert (rdzv._PREAMBLE.size, rdzv._FRAME_HEAD.size, rdzv._JOIN.size) == (12, 5, 76)
        assert rdzv._FRAME_HEAD.format.startswith(rdzv._FRAME_LENGTH.format)

    def test_every_frame_and_proof_is_the_files_bytes(self):
        i = self.golden["inputs"]
        server, client, proof, secret = (bytes.fromhex(i[k]) for k in ("server_nonce", "client_nonce", "proof",
                                                                         "secret"))
        fault = i["fault"]
        got = {
            "preamble": rdzv._preamble(),
            "challenge": rdzv._frame(rdzv.CHALLENGE, server),
            "join": rdzv._join(i["rank"], i["size"], i["nccl"], client, proof),
            "welcome": rdzv._frame(rdzv.WELCOME, proof),
            "start": rdzv._frame(rdzv.START, bytes.fromhex(i["payload"])),
            "refuse": rdzv._text(rdzv.REFUSE, i["refusal"]),
            "heartbeat": rdzv._frame(rdzv.HEARTBEAT),
            "fault": rdzv._fault_frame(rdzv.Fault(fault["rank"], fault["kind"], fault["message"])),
            "goodbye": rdzv._frame(rdzv.GOODBYE),
            "barrier": rdzv._barrier(i["generation"]),
            "join_proof": rdzv._join_mac(secret, server, i["rank"], i["size"], i["nccl"], client),
            "welcome_proof": rdzv._welcome_mac(secret, client, server),
        }
        assert {k: v.hex() for k, v in got.items()} == self.golden["bytes"]

    def test_bodies_read_back_and_wrong_sizes_are_refused(self):
        assert rdzv._parse_barrier(rdzv._BARRIER.pack(9)) == 9
        with self.assertRaisesRegex(OSError, "^BARRIER frame of 3 bytes$"):
            rdzv._parse_barrier(b"abc")
        assert rdzv._parse_fault(rdzv._fault_frame(rdzv.Fault(5, "LEFT", "gone"))[5:]) == rdzv.Fault(5, "LEFT", "gone")
        with self.assertRaisesRegex(OSError, "^FAULT frame of 4 bytes is too short$"):
            rdzv._parse_fault(b"abcd")


class RendezvousPartsTest(support.TestCase):
    def test_the_silence_limit_comes_from_the_variable_and_is_checked(self):
        assert rdzv.silence_limit_from(None) == 3.0
        assert rdzv.silence_limit_from("1.5") == 1.5
        with self.assertRaisesRegex(ValueError, "CUDAIPC4J_HEARTBEAT_TIMEOUT=soon is not a number of seconds"):
            rdzv.silence_limit_from("soon")
        with self.assertRaisesRegex(ValueError, "must be longer than the heartbeat interval"):
            rdzv.join(0, 1, ("127.0.0.1", 0), payload=b"", heartbeat_interval=1.0, silence_limit=1.0)
        self.enterContext(mock.patch.dict(os.environ, {"CUDAIPC4J_HEARTBEAT_TIMEOUT": "0"}))
        with self.assertRaisesRegex(ValueError, "CUDAIPC4J_HEARTBEAT_TIMEOUT=0"):
            rdzv.join(0, 1, ("127.0.0.1", 0), payload=b"")

    def test_a_group_of_one_is_rank_zero_alone(self):
        with rdzv.join(0, 1, ("127.0.0.1", 0), payload=ID) as g:
            assert g.payload == ID
            g.barrier(0.001)
            assert g.fault() is None

    def test_versions_are_written_as_nccl_writes_them(self):
        assert rdzv.nccl_version_text(22809) == "2.28.9"
        assert rdzv.nccl_version_text(21903) == "2.19.3"
        assert rdzv.nccl_version_text(2708) == "2.7.8"

    def test_the_watch_reports_each_silent_rank_once(self):
        w = rdzv._Watch(1.0)
        w.watch(1, 0.0)
        w.watch(2, 0.0)
        w.heard(1, 0.9)
        assert w.overdue(1.0) == []
        assert w.overdue(1.5) == [(2, 1.5)]
        overdue = w.overdue(2.5)
        assert [rank for rank, _ in overdue] == [1]
        self.assertApprox(overdue[0][1], 1.6)
        assert w.overdue(9.0) == []

    def test_a_watcher_that_was_itself_stopped_blames_nobody_and_counts_every_silence_again(self):
        w = rdzv._Watch(1.0)
        w.watch(1, 0.0)
        w.watch(2, 0.0)
        assert w.check(0.25) == []
        assert w.check(8.0) == [], "its own checks stopped for 7.75 s: nobody is blamed"
        w.forget(2)  # the goodbye that waited unread
        for t in (8.25, 8.5, 8.75, 9.0):
            assert w.check(t) == [], f"silences count from the resumption at 8 s: {t}"
        assert w.check(9.25) == [(1, 1.25)]

    def test_a_watcher_stopped_before_its_first_check_blames_nobody(self):
        w = rdzv._Watch(1.0)
        w.watch(1, 0.0)
        assert w.check(3.0) == []

    def test_checks_half_the_limit_apart_still_report_the_silent(self):
        w = rdzv._Watch(1.0)
        w.watch(1, 0.0)
        assert w.check(0.5) == []
        assert w.check(1.0) == []
        assert w.check(1.5) == [(1, 1.5)]

    def test_a_port_taken_is_one_line_and_leaves_no_socket(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            port = taken.getsockname()[1]
            before = open_sockets()
            with warnings.catch_warnings(record=True) as warned:
                warnings.simplefilter("always", ResourceWarning)
                with self.assertRaises(rdzv.RendezvousError) as e:
                    rdzv.join(0, 2, ("127.0.0.1", port), secret=SECRET, payload=ID, join_timeout=1.0)
                assert str(e.exception) == (f"rendezvous on 127.0.0.1:{port}: cannot listen on port {port} (Address"
                                            f" already in use): set CUDAIPC4J_RENDEZVOUS=host:port to an address of"
                                            f" this host with a free port")
                gc.collect()
            assert open_sockets() == before
            assert not [w for w in warned if issubclass(w.category, ResourceWarning)], \
                "closed, not left to the collector"
