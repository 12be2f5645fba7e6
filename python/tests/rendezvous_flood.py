"""A stranger without the secret who floods a rendezvous's rank 0, for the tests of what that costs rank 0 (Java's
tests start it too).

Holds ``--silent`` connections that never send a byte and ``--slow`` ones that send one byte of a preamble a second;
renews each at once when rank 0 drops it, and the oldest when fewer than ``--rate`` connections a second were opened;
sends garbage frames at ``--garbage-rate`` a second, each on a connection of its own: bytes of another protocol, a
preamble with a frame that is no JOIN, or a JOIN with a wrong proof. Prints ``flooding`` once it has flooded for a
second (every place at rank 0 taken since) and sent ``--garbage`` frames, and goes on until its stdin ends; then
prints ``stopped OPENED SECONDS GARBAGE``: the connections it opened, in how long, and the garbage frames it sent.
"""
import argparse
import collections
import errno
import os
import random
import selectors
import socket
import sys
import time

from cudaipc4j import rendezvous as rdzv

SILENT, SLOW, GARBAGE = "silent", "slow", "garbage"


class Flood:
    def __init__(self, address, rate: float):
        self.address = address
        self.rate = rate
        self.sel = selectors.DefaultSelector()
        self.held: collections.deque = collections.deque()  # (socket, kind), oldest first
        self.opened = 0
        self.sent_garbage = 0
        self.random = random.Random(4)

    def open(self, kind: str) -> None:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        code = s.connect_ex(self.address)
        if code not in (0, errno.EINPROGRESS):
            s.close()
            return
        self.opened += 1
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if kind == GARBAGE else 0)
        self.sel.register(s, events, kind)
        if kind != GARBAGE:
            self.held.append((s, kind))

    def close(self, s: socket.socket, kind: str) -> None:
        self.sel.unregister(s)
        s.close()
        if kind != GARBAGE:
            self.held.remove((s, kind))
            self.open(kind)  # renewed at once

    def garbage(self) -> bytes:
        n = self.sent_garbage % 3
        if n == 0:
            return self.random.randbytes(64)  # another protocol
        if n == 1:
            body = self.random.randbytes(self.random.randrange(0, 200))
            return rdzv._preamble() + rdzv._frame(self.random.randrange(10, 256), body)
        return rdzv._preamble() + rdzv._join(1, 4, 0, self.random.randbytes(32), self.random.randbytes(32))

    def on_event(self, key, events) -> None:
        s, kind = key.fileobj, key.data
        if kind == GARBAGE and events & selectors.EVENT_WRITE:
            self.sel.modify(s, selectors.EVENT_READ, kind)
            try:
                s.send(self.garbage())
                self.sent_garbage += 1
            except OSError:
                self.close(s, kind)
            return
        try:
            if s.recv(4096):
                return  # rank 0's preamble and CHALLENGE, or a REFUSE: read and ignored
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self.close(s, kind)  # dropped by rank 0

    def trickle(self) -> None:
        """One byte of a preamble on every slow connection."""
        for s, kind in list(self.held):
            if kind == SLOW:
                try:
                    s.send(rdzv.MAGIC[:1])
                except OSError:
                    pass  # not connected yet, or dropped: its end shows as readable


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--silent", type=int, default=200)
    p.add_argument("--slow", type=int, default=200)
    p.add_argument("--garbage", type=int, default=1000)
    p.add_argument("--garbage-rate", type=float, default=1000.0)
    p.add_argument("--rate", type=float, default=100.0)
    a = p.parse_args()
    flood = Flood((a.host, a.port), a.rate)
    flood.sel.register(sys.stdin, selectors.EVENT_READ, "stdin")
    for _ in range(a.silent):
        flood.open(SILENT)
    for _ in range(a.slow):
        flood.open(SLOW)
    start = time.monotonic()
    said_flooding = False
    next_trickle = start
    while True:
        now = time.monotonic()
        if not said_flooding and now - start >= 1.0 and flood.sent_garbage >= a.garbage:
            print("flooding", flush=True)
            said_flooding = True
        due = int((now - start) * a.garbage_rate) + 1
        started_garbage = flood.sent_garbage + sum(1 for k in flood.sel.get_map().values() if k.data == GARBAGE
                                                   and k.events & selectors.EVENT_WRITE)
        for _ in range(max(0, due - started_garbage)):
            flood.open(GARBAGE)
        while flood.held and flood.opened < (now - start) * a.rate:
            s, kind = flood.held[0]
            flood.close(s, kind)  # the oldest, renewed
        if now >= next_trickle:
            flood.trickle()
            next_trickle = now + 1.0
        for key, events in flood.sel.select(0.01):
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 4096):
                    print(f"stopped {flood.opened} {time.monotonic() - start:.2f} {flood.sent_garbage}", flush=True)
                    return 0
            else:
                flood.on_event(key, events)


if __name__ == "__main__":
    sys.exit(main())
