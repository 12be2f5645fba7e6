"""driver_files.py without a GPU: fake driver files named for a dead pid, for this process and for a child, found and
removed or kept."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import driver_files

pytestmark = pytest.mark.skipif(not driver_files.DIRECTORY.is_dir(), reason="no /dev/shm here")

DEAD_PID = (1 << 22) + 5  # above any pid_max (2^22): no process has it


@pytest.fixture
def fake():
    """Makes fake driver files of a pid: the last field one the driver never writes, so that no real file is touched,
    and this run's own, so that a run of another checkout at the same time does not collide with it."""
    made = []

    def make(pid):
        p = driver_files.DIRECTORY / f"cuda.shm.0.{pid:x}.driverfilestest{os.getpid():x}"
        p.touch(exist_ok=False)
        made.append(p)
        return p

    yield make
    for p in made:
        p.unlink(missing_ok=True)


def test_a_driver_file_names_its_process_in_hex():
    assert driver_files.producer("cuda.shm.0.1a2b.1") == 0x1a2b
    assert driver_files.producer("cuda.shm.0.zz.1") == -1
    assert driver_files.producer("cuda.shm.0.1a2b") == -1
    assert driver_files.producer("cudaipc4j-1-2") == -1


def test_the_file_of_an_ended_process_is_removed_and_one_of_a_live_process_is_kept(fake):
    dead, live = fake(DEAD_PID), fake(os.getpid())
    assert driver_files.of(DEAD_PID) == [dead.name]
    assert driver_files.remove_of_ended(os.getpid()) == []
    assert live.exists()
    assert driver_files.remove_of_ended(DEAD_PID) == [dead.name]
    assert not dead.exists()
    assert driver_files.remove_of_ended(DEAD_PID) == []


def test_what_is_left_since_a_snapshot_is_the_new_files_of_ended_processes(fake):
    before = driver_files.names()
    dead = fake(DEAD_PID)
    fake(os.getpid())
    assert driver_files.left_since(before) == [dead.name]
    assert driver_files.left_since(driver_files.names()) == []


def test_a_childs_file_is_kept_while_it_runs_and_removed_once_it_has_ended(fake):
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        file = fake(child.pid)
        assert driver_files.remove_of_ended(child.pid) == []
        assert file.exists()
        child.stdin.close()
        child.wait(timeout=60)
        assert driver_files.remove_of_ended(child.pid) == [file.name]
    finally:
        child.kill()
        child.wait()


def test_a_file_is_removed_by_a_process_of_its_own_once_its_process_has_ended(fake):
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        file = fake(child.pid)
        cleaner = driver_files.remove_after_exit(child.pid, announce=True)
        assert cleaner.stdout.readline() == "waiting\n", "it watches the process"
        assert cleaner.poll() is None, "it waits while the process runs"
        assert file.exists(), "and removes nothing meanwhile"
        child.stdin.close()
        child.wait(timeout=60)
        assert cleaner.wait(timeout=60) == 0
        cleaner.stdout.close()
        assert not file.exists()
    finally:
        child.kill()
        child.wait()


def test_the_remover_of_a_process_that_has_already_ended_removes_at_once(fake):
    file = fake(DEAD_PID)
    assert driver_files.remove_after_exit(DEAD_PID).wait(timeout=60) == 0
    assert not file.exists()


SUITE = """
import os
import re
import pytest

DEAD = "cuda.shm.0.{dead:x}.driverfilestest{tag}"

@pytest.mark.gpu
def test_leaves_one_of_an_ended_process():
    open("/dev/shm/" + DEAD, "x").close()

@pytest.mark.gpu
def test_leaves_its_own_while_it_runs():
    open(f"/dev/shm/cuda.shm.0.{{os.getpid():x}}.driverfilestest{tag}", "x").close()
"""


def test_a_gpu_test_leaving_a_file_of_an_ended_process_fails_and_pytests_own_goes_after_it(tmp_path):
    here = Path(__file__).parent
    for helper in ("gpu_policy.py", "driver_files.py"):
        (tmp_path / helper).write_text((here / helper).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "conftest.py").write_text((here / "conftest.py").read_text(encoding="utf-8").replace(
        "import gpu_policy  # noqa: E402", "import gpu_policy  # noqa: E402\ngpu_policy.unavailable_reason = lambda: None"),
        encoding="utf-8")
    tag = f"{os.getpid():x}suite"
    (tmp_path / "test_suite.py").write_text(SUITE.format(dead=DEAD_PID, tag=tag), encoding="utf-8")
    dead = driver_files.DIRECTORY / f"cuda.shm.0.{DEAD_PID:x}.driverfilestest{tag}"
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                            "--rootdir", str(tmp_path), str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300, env={**os.environ, "CUDAIPC4J_REQUIRE_GPU": "0"})
        out = r.stdout + r.stderr
        assert re.search(r"2 passed, 1 error", out), out
        assert f"CUDA driver files of ended processes left in /dev/shm (removed now): ['{dead.name}']" in out, out
        assert not dead.exists(), "removed by the check"
        own = lambda: list(driver_files.DIRECTORY.glob(f"cuda.shm.0.*.driverfilestest{tag}"))  # noqa: E731
        deadline = time.monotonic() + 60
        while own() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert own() == [], "the run's own, removed once it had ended"
    finally:
        dead.unlink(missing_ok=True)
        for own in driver_files.DIRECTORY.glob(f"cuda.shm.0.*.driverfilestest{tag}"):
            own.unlink(missing_ok=True)  # the run's own: its remover may not have come yet
