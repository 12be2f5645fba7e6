"""The package's errors: each derives from :class:`Error`, and from the builtin exception that callers caught before
it had one base (ValueError for a refused descriptor, OSError for an fd that cannot be taken, RuntimeError for a
failed CUDA call...), so ``except cudaipc4j.Error`` catches every failure of the package's own and no old handler
stops catching."""
from __future__ import annotations


class Error(Exception):
    """The base of every error the package raises for its own failures."""
