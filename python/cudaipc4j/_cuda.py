"""Checked calls into cuda.bindings' driver API: a failure raises CudaError naming the call, the error and its text."""
from __future__ import annotations

from typing import Any

from .errors import Error, require


class CudaError(Error, RuntimeError):
    def __init__(self, call: str, code: Any, name: str, text: str) -> None:
        super().__init__(f"{call} failed: {name} ({text})")
        self.call = call
        self.code = code
        self.error_name = name


def check(result: Any, call: str) -> Any:
    """The values of a cuda.bindings call's (error, *values) result; raises CudaError unless CUDA_SUCCESS."""
    cu = require("cuda.bindings.driver")
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        _, text = cu.cuGetErrorString(err)
        decode = lambda b: b.decode() if isinstance(b, bytes) else str(b)  # noqa: E731
        raise CudaError(call, err, decode(name), decode(text))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)
