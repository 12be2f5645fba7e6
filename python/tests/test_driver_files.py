"""driver_files.py without a GPU: fake driver files named for a dead pid, for this process and for a child, found and
removed or kept."""
import os
import subprocess
import sys
import time
import unittest

from . import driver_files, outcomes, support

DEAD_PID = (1 << 22) + 5  # above any pid_max (2^22): no process has it


@unittest.skipUnless(driver_files.DIRECTORY.is_dir(), "no /dev/shm here")
class DriverFilesTest(support.TestCase):
    def fake(self, pid):
        """Makes a fake driver file of a pid, removed after the test: the last field one the driver never writes, so
        that no real file is touched, and this run's own, so that a run of another checkout at the same time does
        not collide with it."""
        p = driver_files.DIRECTORY / f"cuda.shm.0.{pid:x}.driverfilestest{os.getpid():x}"
        p.touch(exist_ok=False)
        self.addCleanup(p.unlink, missing_ok=True)
        return p

    def test_a_driver_file_names_its_process_in_hex(self):
        assert driver_files.producer("cuda.shm.0.1a2b.1") == 0x1a2b
        assert driver_files.producer("cuda.shm.0.zz.1") == -1
        assert driver_files.producer("cuda.shm.0.1a2b") == -1
        assert driver_files.producer("cudaipc4j-1-2") == -1

    def test_the_file_of_an_ended_process_is_removed_and_one_of_a_live_process_is_kept(self):
        dead, live = self.fake(DEAD_PID), self.fake(os.getpid())
        assert driver_files.of(DEAD_PID) == [dead.name]
        assert driver_files.remove_of_ended(os.getpid()) == []
        assert live.exists()
        assert driver_files.remove_of_ended(DEAD_PID) == [dead.name]
        assert not dead.exists()
        assert driver_files.remove_of_ended(DEAD_PID) == []

    def test_what_is_left_since_a_snapshot_is_the_new_files_of_ended_processes(self):
        before = driver_files.names()
        dead = self.fake(DEAD_PID)
        self.fake(os.getpid())
        assert driver_files.left_since(before) == [dead.name]
        assert driver_files.left_since(driver_files.names()) == []

    def test_a_childs_file_is_kept_while_it_runs_and_removed_once_it_has_ended(self):
        child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
        try:
            file = self.fake(child.pid)
            assert driver_files.remove_of_ended(child.pid) == []
            assert file.exists()
            child.stdin.close()
            child.wait(timeout=60)
            assert driver_files.remove_of_ended(child.pid) == [file.name]
        finally:
            child.kill()
            child.wait()

    def test_a_file_is_removed_by_a_process_of_its_own_once_its_process_has_ended(self):
        child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
        try:
            file = self.fake(child.pid)
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

    def test_the_remover_of_a_process_that_has_already_ended_removes_at_once(self):
        file = self.fake(DEAD_PID)
        assert driver_files.remove_after_exit(DEAD_PID).wait(timeout=60) == 0
        assert not file.exists()

    def test_a_gpu_test_leaving_a_file_of_an_ended_process_fails_and_the_runners_own_goes_after_it(self):
        for runner in outcomes.RUNNERS:
            with self.subTest(runner=runner):
                self.skip_unless_available(runner)
                self._leave_files(runner)

    def _leave_files(self, runner):
        tag = f"{os.getpid():x}{runner}"
        dead = driver_files.DIRECTORY / f"cuda.shm.0.{DEAD_PID:x}.driverfilestest{tag}"
        own = lambda: list(driver_files.DIRECTORY.glob(f"cuda.shm.0.*.driverfilestest{tag}"))  # noqa: E731
        try:
            r = self.suite_outcomes(runner, SUITE.format(dead=DEAD_PID, tag=tag),
                                    env={"CUDAIPC4J_REQUIRE_GPU": "0"})
            assert {t: o.outcome for t, o in r.tests.items()} == {
                "test_suite.Suite.test_leaves_one_of_an_ended_process": "failed",
                "test_suite.Suite.test_leaves_its_own_while_it_runs": "passed"}, r.output
            assert f"CUDA driver files of ended processes left in /dev/shm (removed now): ['{dead.name}']" \
                in r.tests["test_suite.Suite.test_leaves_one_of_an_ended_process"].message, r.output
            assert not dead.exists(), "removed by the check"
            deadline = time.monotonic() + 60
            while own() and time.monotonic() < deadline:
                time.sleep(0.05)  # the remover is a process of the ended run's: nothing to wait on but the file
            assert own() == [], "the run's own, removed once it had ended"
        finally:
            dead.unlink(missing_ok=True)
            for left in own():
                left.unlink(missing_ok=True)  # the run's own: its remover may not have come yet


SUITE = """
import os

from tests import gpu_policy, support

gpu_policy.unavailable_reason = lambda: None

DEAD = "cuda.shm.0.{dead:x}.driverfilestest{tag}"


class Suite(support.TestCase):
    @support.gpu
    def test_leaves_one_of_an_ended_process(self):
        open("/dev/shm/" + DEAD, "x").close()

    @support.gpu
    def test_leaves_its_own_while_it_runs(self):
        open(f"/dev/shm/cuda.shm.0.{{os.getpid():x}}.driverfilestest{tag}", "x").close()
"""
