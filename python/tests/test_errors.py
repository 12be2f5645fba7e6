"""One base for the package's errors, cudaipc4j.Error, each error keeping the builtin base callers caught before."""
import ast
import errno
import importlib
import inspect
import pkgutil
from pathlib import Path

import cudaipc4j
from cudaipc4j import errors, pidfd, rendezvous

from . import support

PACKAGE = Path(cudaipc4j.__file__).parent

#: Every error class of the package and the builtin exceptions it is also (what callers may catch)
BUILTIN_BASES = {
    "cudaipc4j._cuda.CudaError": (RuntimeError,),
    "cudaipc4j.descriptor.DescriptorError": (ValueError,),
    "cudaipc4j.devices.DeviceNotFound": (LookupError,),
    "cudaipc4j.errors.MissingDependencyError": (ModuleNotFoundError,),
    "cudaipc4j.fdsocket.ProtocolError": (ConnectionError,),
    "cudaipc4j.holders.HoldersError": (RuntimeError,),
    "cudaipc4j.launch.LaunchEnvironmentError": (ValueError,),
    "cudaipc4j.nccl.AbortedError": (RuntimeError,),
    "cudaipc4j.nccl.DeadlineError": (RuntimeError, TimeoutError),
    "cudaipc4j.nccl.NcclError": (RuntimeError,),
    "cudaipc4j.opening.ReleaseError": (RuntimeError,),
    "cudaipc4j.pidfd.FdAccessError": (OSError,),
    "cudaipc4j.rendezvous.ClosedError": (RuntimeError,),
    "cudaipc4j.rendezvous.RendezvousError": (Exception,),
    "cudaipc4j.rendezvous._ProtocolError": (OSError,),
    "cudaipc4j.torch_leases.LeaseError": (RuntimeError,),
}

#: Builtins that a package error stands for: raised bare, a failure of the package's own would escape Error
#: (ValueError and TypeError stay Python's words for a bad argument)
NOT_RAISED = {"Exception", "RuntimeError", "TimeoutError", "OSError", "ConnectionError", "LookupError", "ImportError",
              "ModuleNotFoundError"}


def _modules():
    return [importlib.import_module(f"cudaipc4j.{m.name}") for m in pkgutil.iter_modules([str(PACKAGE)])]


class ErrorsTest(support.TestCase):
    def test_the_base_is_exported(self):
        assert cudaipc4j.Error is errors.Error and "Error" in cudaipc4j.__all__
        assert issubclass(cudaipc4j.Error, Exception)

    def test_every_error_of_the_package_derives_from_the_base_and_keeps_its_builtin_base(self):
        found = {f"{c.__module__}.{c.__qualname__}": c for m in _modules()
                 for _, c in inspect.getmembers(m, inspect.isclass)
                 if issubclass(c, BaseException) and c.__module__ == m.__name__ and c is not errors.Error}
        assert set(found) == set(BUILTIN_BASES)
        for name, cls in found.items():
            with self.subTest(error=name):
                assert issubclass(cls, cudaipc4j.Error)
                for builtin in BUILTIN_BASES[name]:
                    assert issubclass(cls, builtin)

    def test_no_builtin_error_is_raised_for_the_packages_own_failures(self):
        for path in sorted(PACKAGE.glob("*.py")):
            with self.subTest(module=path.name):
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if isinstance(node, ast.Raise) and node.exc is not None:
                        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                        assert not (isinstance(raised, ast.Name) and raised.id in NOT_RAISED), \
                            f"{path.name}:{node.lineno} raises a bare {raised.id}"

    def test_an_fd_that_cannot_be_taken_keeps_its_errno_and_message(self):
        e = pidfd.FdAccessError(errno.EPERM, "pidfd_getfd: cannot take fd 3 of pid 4: not permitted")
        assert isinstance(e, OSError) and isinstance(e, cudaipc4j.Error)
        assert (e.errno, e.strerror, str(e)) == (errno.EPERM, "pidfd_getfd: cannot take fd 3 of pid 4: not permitted",
                                                 "pidfd_getfd: cannot take fd 3 of pid 4: not permitted")

    def test_a_closed_groups_barrier_is_a_rendezvous_error(self):
        g = rendezvous.join(0, 1, ("127.0.0.1", 0), payload=b"")
        g.close()
        with self.assertRaisesRegex(rendezvous.ClosedError, "rank group of rank 0 is closed") as e:
            g.barrier(1.0)
        assert isinstance(e.exception, rendezvous.RendezvousError) and isinstance(e.exception, RuntimeError)
        assert e.exception.fault is None
