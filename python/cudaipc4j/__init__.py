"""Share CUDA memory between Python and cudaipc4j's Java processes.

``share(tensor)`` describes a torch tensor through torch's own sharing, for a Java reader; ``open(descriptor)`` gives
a tensor over memory a Java process exported. The descriptor is the JSON format of docs/interop-format.md
(:mod:`cudaipc4j.descriptor`). CUDA, torch and CuPy are imported only by the calls that need them, so the format, the
handle parser, the launch variables and the rendezvous work with the standard library alone; a call that needs one
that is not installed raises :class:`~cudaipc4j.errors.MissingDependencyError` naming the extra that brings it
(``cudaipc4j[cuda]``, ``cudaipc4j[torch]``). Every error the package raises for its own failures is an
:class:`Error`.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .descriptor import Descriptor, DescriptorError, from_json, to_json
from .errors import Error

__version__ = "0.1.0.dev0"

__all__ = ["Descriptor", "DescriptorError", "Error", "from_json", "to_json", "share", "open", "torch_tuple",
           "__version__"]

# The three calls import their modules when called, so that ``import cudaipc4j`` stays light; their signatures are
# the implementations' own (test_package.py compares them).


def share(tensor: Any, *, export_id: int | None = None) -> Descriptor:
    """The descriptor of a CUDA torch tensor, through torch's own sharing (see :func:`cudaipc4j.sharing.share`)."""
    from .sharing import share as _share
    return _share(tensor, export_id=export_id)


def open(descriptor: Descriptor | str | bytes, *, fds: Sequence[int] | None = None,  # noqa: A001 - the verb
         device: int | None = None, stream: Any = None, like: Literal["torch", "cupy"] = "torch") -> Any:
    """A tensor over memory another process exported (see :func:`cudaipc4j.opening.open`)."""
    from .opening import open as _open
    return _open(descriptor, fds=fds, device=device, stream=stream, like=like)


def torch_tuple(descriptor: Descriptor | str | bytes, *, device: int | None = None) -> tuple[Any, ...]:
    """torch's own ``rebuild_cuda_tensor`` arguments for a torch descriptor (see
    :func:`cudaipc4j.tuples.torch_tuple`)."""
    from .tuples import torch_tuple as _torch_tuple
    return _torch_tuple(descriptor, device=device)
