"""The ctypes NCCL binding without NCCL: layouts, versions, errors and the choice of library."""
import ctypes

import pytest

from cudaipc4j import nccl


def test_config_has_the_offsets_of_nccl_h_2_28():
    expected = [("size", 0), ("magic", 8), ("version", 12), ("blocking", 16), ("cgaClusterSize", 20),
                ("minCTAs", 24), ("maxCTAs", 28), ("netName", 32), ("splitShare", 40), ("trafficClass", 44),
                ("commName", 48), ("collnetEnable", 56), ("CTAPolicy", 60), ("shrinkShare", 64), ("nvlsCTAs", 68),
                ("nChannelsPerNetPeer", 72), ("nvlinkCentricSched", 76)]
    assert [(f, getattr(nccl.Config, f).offset) for f, _ in nccl.Config._fields_] == expected
    assert ctypes.sizeof(nccl.Config) == 80


def test_initializer_leaves_every_int_field_to_nccl():
    c = nccl.Config.initializer()
    assert (c.size, c.magic, c.version) == (80, 0xcafebeef, 22800)
    assert c.blocking == c.nvlinkCentricSched == c.splitShare == -2 ** 31
    assert c.netName is None and c.commName is None


def test_unique_id_is_128_bytes():
    assert ctypes.sizeof(nccl.UniqueId) == 128


def test_versions_decode():
    assert nccl.decode_version(22809) == "2.28.9"
    assert nccl.decode_version(nccl.MINIMUM_VERSION) == "2.19.0"


def test_errors_name_known_and_unknown_codes():
    assert str(nccl.NcclError("ncclSend", 6, "Connection closed")) == "ncclSend failed: ncclRemoteError: Connection closed"
    assert str(nccl.NcclError("ncclSend", 8)) == "ncclSend failed: ncclResult(8)"


def test_the_variable_names_the_library():
    assert nccl.default_library({nccl.LIBRARY_ENV: "/opt/x/libnccl.so.2"}) == "/opt/x/libnccl.so.2"


def test_a_missing_library_says_which_and_what_to_set():
    with pytest.raises(nccl.NcclError) as e:
        nccl.Nccl("/nonexistent/libnccl.so.2")
    assert "cannot load NCCL from /nonexistent/libnccl.so.2" in str(e.value)
    assert nccl.LIBRARY_ENV in str(e.value)


def test_a_library_that_is_not_nccl_is_refused():
    with pytest.raises(nccl.NcclError) as e:
        nccl.Nccl("libc.so.6")
    assert "has no ncclGetVersion" in str(e.value)


def test_every_function_is_declared_once_with_a_result_or_a_string():
    for name, (restype, _) in nccl.FUNCTIONS.items():
        assert name.startswith("nccl")
        assert restype in (ctypes.c_int, ctypes.c_char_p), name
