"""A process's address space as the readers' GPU tests bound it (the Java tests' org.cudaipc4j.testing.AddressSpace):
``VmSize`` of ``/proc/self/status``, which counts every reserved range (a CUDA virtual-address reservation too,
mapped or not), and the bound a reader must stay within: its size before the first open, plus 1.1 times the bytes
it maps at that moment, plus 1 GiB for the rest of the process. A reader that reserved a range per import sized by
the device's memory, as torch's reader of expandable segments does, is over it at the first import."""
from __future__ import annotations

#: what the bound allows beside the mappings: 1 GiB
SLACK = 1 << 30


def vm_size(status: str | None = None) -> int:
    """``VmSize`` in bytes, of this process or of a ``/proc/<pid>/status`` text.

    :raises ValueError: when there is no ``VmSize:`` line, or it is not a count of kB
    """
    if status is None:
        with open("/proc/self/status", encoding="ascii") as f:
            status = f.read()
    for line in status.splitlines():
        if line.startswith("VmSize:"):
            fields = line[len("VmSize:"):].split()
            if len(fields) == 2 and fields[1] == "kB" and fields[0].isdigit() and fields[0].isascii():
                return int(fields[0]) * 1024
            raise ValueError(f"VmSize is not a count of kB: {line!r}")
    raise ValueError("no VmSize line in the status text (is this Linux?)")


def bound(before: int, mapped: int) -> int:
    """The most address space a reader may hold: ``before + ceil(1.1 * mapped) + SLACK``.

    :raises ValueError: for a negative size
    """
    if before < 0 or mapped < 0:
        raise ValueError(f"sizes are not negative, got before {before} and mapped {mapped}")
    return before + mapped + -(-mapped // 10) + SLACK


def excess(before: int, mapped: int, vm: int) -> int:
    """By how much ``vm`` exceeds :func:`bound`: positive when over it."""
    return vm - bound(before, mapped)


def gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"
