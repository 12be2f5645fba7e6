"""Taking another process's fd by number, and the one-line message of each refusal."""
import errno
import os
import re
import subprocess
import sys
from pathlib import Path

from cudaipc4j import pidfd

from . import support

ROOT = Path(__file__).resolve().parents[2]


def _child_with_a_pipe():
    r, w = os.pipe()
    child = subprocess.Popen([sys.executable, "-c", "import sys; print(flush=True); sys.stdin.read()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(w,))
    os.close(w)
    assert child.stdout.readline() == b"\n"
    return child, r, w


class PidfdTest(support.TestCase):
    def test_take_an_fd_of_a_child_by_number(self):
        child, r, w = _child_with_a_pipe()
        try:
            try:
                (fd,) = pidfd.take_fds(child.pid, [w])
            except pidfd.FdAccessError as e:
                if e.errno == errno.EPERM:
                    self.skipTest(f"this machine refuses ptrace over a child: {e}")
                raise
            os.write(fd, b"y")
            assert os.read(r, 1) == b"y"
            os.close(fd)
            with self.assertRaisesRegex(pidfd.FdAccessError,
                                        f"fd 999 of pid {child.pid}: the process has no such open fd"):
                pidfd.take_fds(child.pid, [w, 999])
        finally:
            child.kill()
            child.wait()
            child.stdin.close()
            child.stdout.close()
            os.close(r)
        with self.assertRaisesRegex(pidfd.FdAccessError, "has exited"):
            pidfd.take_fds(child.pid, [w])

    def test_every_refusal_says_why(self):
        for err, part in [
            (errno.ESRCH, "the process has exited (or runs in another PID namespace"),
            (errno.EPERM, "ptrace rights over the exporter"),
            (errno.EBADF, "has no such open fd"),
            (errno.ENOSYS, "Linux 5.6 or newer"),
            (errno.EMFILE, "ulimit -n"),
            (errno.EINVAL, "invalid argument"),
            (errno.EACCES, os.strerror(errno.EACCES)),
        ]:
            with self.subTest(err=errno.errorcode[err]):
                message = pidfd.explain(err, 459, 45, "pidfd_getfd")
                assert part in message and "fd 45 of pid 459" in message and "\n" not in message

    def test_not_permitted_names_ptrace_and_the_socket_way_in_the_words_of_javas_refusal(self):
        message = pidfd.explain(errno.EPERM, 459, 45, "pidfd_getfd")
        assert "ptrace" in message and message.endswith("; " + pidfd.SOCKET_WAY), message
        java = (ROOT / "cudaipc4j-interop/src/main/java/org/cudaipc4j/interop/torch/ProducerFds.java").read_text()
        joined = re.sub(r'"\s*\+\s*"', "", java)  # Java's string constants split over lines, joined
        assert f'SOCKET_WAY = "{pidfd.SOCKET_WAY}";' in joined, "Java's refusal says the socket way in other words"

    def test_pid_namespace_of_self(self):
        assert pidfd.pid_namespace() == os.stat("/proc/self/ns/pid").st_ino
        assert pidfd.pid_namespace(2 ** 22 + 7) == 0
