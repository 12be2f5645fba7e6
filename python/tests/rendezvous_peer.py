"""One rank of a rendezvous in a process of its own, for the cross-language tests (Java starts it).

Prints one line per event on stdout: ``descriptors N`` (with ``--descriptors``: how many it has open before it
joins), ``bound PORT`` (rank 0, once listening), ``joined PAYLOAD_HEX``,
``fault RANK KIND MESSAGE``, ``barrier ok`` or ``barrier failed MESSAGE``, ``closed``; ``error MESSAGE`` (exit 3) when
the join fails. Reads commands on stdin: ``barrier``, ``close``; the end of stdin closes the group too.
"""
import argparse
import os
import sys
import threading

from cudaipc4j import rendezvous


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--secret", default="")
    p.add_argument("--nccl", type=int, default=0)
    p.add_argument("--payload-hex", default="")
    p.add_argument("--interval", type=float)
    p.add_argument("--limit", type=float)
    p.add_argument("--join-timeout", type=float, default=20.0)
    p.add_argument("--descriptors", action="store_true")
    a = p.parse_args()
    out = threading.Lock()

    def say(line: str) -> None:
        with out:
            print(line, flush=True)

    if a.descriptors:
        say(f"descriptors {len(os.listdir('/proc/self/fd')) - 1}")  # less the one that lists them

    try:
        g = rendezvous.join(a.rank, a.size, (a.host, a.port), secret=a.secret.encode(), nccl_version=a.nccl,
                            payload=bytes.fromhex(a.payload_hex), join_timeout=a.join_timeout,
                            heartbeat_interval=a.interval, silence_limit=a.limit,
                            on_bound=lambda addr: say(f"bound {addr[1]}"))
    except rendezvous.RendezvousError as e:
        say(f"error {e}")
        return 3
    say(f"joined {g.payload.hex()}")
    g.on_fault(lambda f: say(f"fault {f.rank} {f.kind} {f.message}"))
    for line in sys.stdin:
        command = line.strip()
        if command == "barrier":
            try:
                g.barrier(20.0)
                say("barrier ok")
            except rendezvous.RendezvousError as e:
                say(f"barrier failed {e}")
        elif command == "close":
            break
    g.close()
    say("closed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
