"""The ctypes NCCL binding without NCCL: layouts, versions, errors and the choice of library."""
import ctypes

from cudaipc4j import nccl

from . import support


class _FakeNccl:
    """NCCL's calls a communicator's wait makes, answered from a list of states."""

    def __init__(self, states, failing=None):
        self.states, self.calls, self.failing = list(states), [], failing or {}

    def _check(self, name, *args):
        r = self.call(name, *args)
        if r != nccl.SUCCESS:
            raise self.error(name, r)

    def call(self, name, *args):
        self.calls.append(name)
        if name in self.failing:
            return self.failing[name]
        if name == "ncclCommGetAsyncError":
            args[1]._obj.value = self.states.pop(0) if len(self.states) > 1 else self.states[0]
        return nccl.SUCCESS

    def error(self, name, code, comm=None):
        return nccl.NcclError(name, code)


def _communicator(states, timeout=60.0):
    comm = object.__new__(nccl.Communicator)
    comm.nccl, comm.rank, comm.size, comm.timeout = _FakeNccl(states), 1, 2, timeout
    comm._comm, comm._aborted, comm._abort_request = 1234, None, None
    return comm



class NcclTest(support.TestCase):
    def test_config_has_the_offsets_of_nccl_h_2_28(self):
        expected = [("size", 0), ("magic", 8), ("version", 12), ("blocking", 16), ("cgaClusterSize", 20),
                    ("minCTAs", 24), ("maxCTAs", 28), ("netName", 32), ("splitShare", 40), ("trafficClass", 44),
                    ("commName", 48), ("collnetEnable", 56), ("CTAPolicy", 60), ("shrinkShare", 64), ("nvlsCTAs", 68),
                    ("nChannelsPerNetPeer", 72), ("nvlinkCentricSched", 76)]
        assert [(f, getattr(nccl.Config, f).offset) for f, _ in nccl.Config._fields_] == expected
        assert ctypes.sizeof(nccl.Config) == 80

    def test_initializer_leaves_every_int_field_to_nccl(self):
        c = nccl.Config.initializer()
        assert (c.size, c.magic, c.version) == (80, 0xcafebeef, 22800)
        assert c.blocking == c.nvlinkCentricSched == c.splitShare == -2 ** 31
        assert c.netName is None and c.commName is None

    def test_unique_id_is_128_bytes(self):
        assert ctypes.sizeof(nccl.UniqueId) == 128

    def test_versions_decode(self):
        assert nccl.decode_version(22809) == "2.28.9"
        assert nccl.decode_version(nccl.MINIMUM_VERSION) == "2.19.0"

    def test_errors_name_known_and_unknown_codes(self):
        assert str(nccl.NcclError("ncclSend", 6, "Connection closed")) == \
            "ncclSend failed: ncclRemoteError: Connection closed"
        assert str(nccl.NcclError("ncclSend", 8)) == "ncclSend failed: ncclResult(8)"

    def test_the_variable_names_the_library(self):
        assert nccl.default_library({nccl.LIBRARY_ENV: "/opt/x/libnccl.so.2"}) == "/opt/x/libnccl.so.2"

    def test_a_missing_library_says_which_and_what_to_set(self):
        with self.assertRaises(nccl.NcclError) as e:
            nccl.Nccl("/nonexistent/libnccl.so.2")
        assert "cannot load NCCL from /nonexistent/libnccl.so.2" in str(e.exception)
        assert nccl.LIBRARY_ENV in str(e.exception)

    def test_a_library_that_is_not_nccl_is_refused(self):
        with self.assertRaises(nccl.NcclError) as e:
            nccl.Nccl("libc.so.6")
        assert "has no ncclGetVersion" in str(e.exception)

    def test_every_function_is_declared_once_with_a_result_or_a_string(self):
        for name, (restype, _) in nccl.FUNCTIONS.items():
            assert name.startswith("nccl")
            assert restype in (ctypes.c_int, ctypes.c_char_p), name

    def test_a_call_in_progress_is_waited_for_until_success(self):
        comm = _communicator([nccl.IN_PROGRESS] * 5 + [nccl.SUCCESS])
        comm._wait_ready("ncclSend")
        assert comm.nccl.calls.count("ncclCommGetAsyncError") == 6 and comm._aborted is None

    def test_an_async_error_aborts_and_names_the_call(self):
        comm = _communicator([nccl.IN_PROGRESS, 6])
        with self.assertRaisesRegex(nccl.NcclError, "ncclSend failed: ncclRemoteError"):
            comm._wait_ready("ncclSend")
        assert comm.nccl.calls[-1] == "ncclCommAbort"

    def test_the_deadline_aborts_a_wait_that_never_ends(self):
        comm = _communicator([nccl.IN_PROGRESS], timeout=0.02)
        with self.assertRaisesRegex(nccl.DeadlineError,
                                    r"rank 1: ncclSend did not finish within 0\.0 s; aborted") as e:
            comm._wait_ready("ncclSend")
        assert isinstance(e.exception, TimeoutError) and isinstance(e.exception, nccl.AbortedError)
        assert comm._aborted == "ncclSend did not finish within 0.0 s"
        comm = _communicator([nccl.SUCCESS])
        with self.assertRaisesRegex(nccl.DeadlineError, r"rank 1: NCCL work did not finish within 0\.0 s; aborted"):
            comm.wait(lambda: False, timeout=0.02)

    def test_waiting_for_work_ends_when_done_and_treats_success_as_healthy(self):
        comm = _communicator([nccl.SUCCESS])
        queries = []
        comm.wait(lambda: queries.append(1) or len(queries) > 3)
        assert len(queries) == 4 and comm.nccl.calls.count("ncclCommGetAsyncError") == 3
        comm = _communicator([nccl.SUCCESS, nccl.SUCCESS, 2])
        with self.assertRaisesRegex(nccl.NcclError, "ncclCommGetAsyncError failed: ncclSystemError"):
            comm.wait(lambda: False)

    def test_an_abort_request_ends_a_wait_first(self):
        comm = _communicator([nccl.SUCCESS])
        comm.request_abort("rank 0 died")
        with self.assertRaisesRegex(nccl.AbortedError, "communicator aborted: rank 0 died") as e:
            comm._wait_ready("ncclSend")
        assert isinstance(e.exception, RuntimeError)
        assert "ncclCommGetAsyncError" not in comm.nccl.calls and comm._aborted == "rank 0 died"

    def test_a_communicator_that_cannot_be_closed_is_aborted(self):
        for failing in ["ncclCommFinalize", "ncclCommDestroy"]:
            with self.subTest(failing=failing):
                comm = _communicator([nccl.SUCCESS])
                comm.nccl.failing[failing] = 2
                with self.assertRaisesRegex(nccl.NcclError, f"{failing} failed: ncclSystemError"):
                    comm.close()
                assert comm.nccl.calls[-1] == "ncclCommAbort" and comm._comm is None
                comm.close()  # idempotent
                assert comm.nccl.calls.count("ncclCommAbort") == 1

    def test_a_closed_communicator_is_finalised_and_destroyed_only(self):
        comm = _communicator([nccl.SUCCESS])
        comm.close()
        assert comm.nccl.calls == ["ncclCommFinalize", "ncclCommDestroy"]
