"""The package's errors: each derives from :class:`Error`, and from the builtin exception that callers caught before
it had one base (ValueError for a refused descriptor, OSError for an fd that cannot be taken, RuntimeError for a
failed CUDA call...), so ``except cudaipc4j.Error`` catches every failure of the package's own and no old handler
stops catching."""
from __future__ import annotations

import importlib
from types import ModuleType


class Error(Exception):
    """The base of every error the package raises for its own failures."""


class MissingDependencyError(Error, ModuleNotFoundError):
    """A call needs a package that is not installed; the message says what to install (the extra of cudaipc4j that
    brings it)."""


#: What brings each optional package, by its top-level module
_INSTALL = {
    "cuda": "pip install 'cudaipc4j[cuda]' (NVIDIA's cuda-bindings and cuda-core)",
    "torch": "pip install 'cudaipc4j[torch]'",
    "cupy": "CuPy for this machine's CUDA (pip install cupy-cuda12x, or cupy-cuda13x)",
}


def require(module: str) -> ModuleType:
    """``module``, imported; where it, or the optional package it belongs to, is not installed,
    MissingDependencyError naming what to install."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = module.partition(".")[0]
        if top not in _INSTALL or (e.name or "").partition(".")[0] != top:
            raise  # a module of another package that is missing: a broken installation, not an extra to add
        raise MissingDependencyError(f"{module} is not installed ({e}): {_INSTALL[top]}", name=e.name) from e
