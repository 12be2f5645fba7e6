"""A reader process for test_torch_leases: holds ``n`` slots of the counter files named after ``n`` (10000 of each in
turn) through the default leases, drops the entry of slot ``dropped`` (-1: none), says ``ready <watcher pid>
<book path>``, then on the line ``exit`` exits without freeing anything; the test may kill it instead.
Arguments: ``<counter directory> <n> <dropped> <counter name>...``."""
import os
import sys

from cudaipc4j import torch_counters, torch_leases


def main() -> None:
    directory, n, dropped, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    torch_counters.DIRECTORY = directory  # as the default leases find torch's counter files
    leases = torch_leases.start()
    for i in range(n):
        entry = leases.hold(names[i // torch_counters.SLOTS], i % torch_counters.SLOTS)
        if i == dropped:
            leases.drop(entry)
    print("ready", leases.watcher.pid, leases.book_paths[0], flush=True)
    if sys.stdin.readline().strip() == "exit":
        os._exit(0)


if __name__ == "__main__":
    main()
