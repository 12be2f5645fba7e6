"""Whether a test marked ``gpu`` runs, is skipped, or fails: the rule support.TestCase applies under both runners.

Without a GPU (or torch, or cuda.bindings) a GPU test is skipped with the reason. On the GPU machine
``CUDAIPC4J_REQUIRE_GPU=1`` is set, and there a GPU test that does not run - skipped for any reason, by this rule or
by the test itself - is a failure: a suite that silently skipped its GPU tests would pass without testing anything.
"""
from __future__ import annotations

import os
from functools import cache

REQUIRE_VARIABLE = "CUDAIPC4J_REQUIRE_GPU"


def required(environ: dict[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get(REQUIRE_VARIABLE, "")
    if value not in ("", "0", "1"):
        raise ValueError(f"{REQUIRE_VARIABLE} must be 1 (GPU tests must run) or 0/unset, got {value!r}")
    return value == "1"


def skip_outcome(reason: str, require: bool) -> tuple[str, str]:
    """What becomes of a GPU test that was skipped for ``reason``: ("skipped" | "failed", message)."""
    if require:
        return "failed", f"GPU test did not run although {REQUIRE_VARIABLE}=1: {reason}"
    return "skipped", reason


@cache
def unavailable_reason() -> str | None:
    """Why GPU tests cannot run here, or None when torch sees a CUDA device and cuda.bindings imports."""
    try:
        import torch
    except ImportError as e:
        return f"torch is not installed ({e})"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    try:
        from cuda.bindings import driver  # noqa: F401
    except ImportError as e:
        return f"cuda.bindings is not installed ({e})"
    return None
