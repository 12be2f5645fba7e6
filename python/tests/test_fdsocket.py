"""The descriptor socket's client, against a server that frames messages as org.cudaipc4j.coord.fd.FdChannel does."""
import os
import socket
import struct
import threading

from cudaipc4j import descriptor, fdsocket

from . import support
from .golden_cases import CASES


def pair():
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


def open_fds():
    return set(int(n) for n in os.listdir("/proc/self/fd"))


BAD_MESSAGES = [
    (struct.pack("<Iii", 0x12345678, 0, 0), 0, "not a descriptor message (magic 0x12345678)"),
    (struct.pack("<Iii", fdsocket.MAGIC, -1, 0), 0, "announces -1 bytes"),
    (struct.pack("<Iii", fdsocket.MAGIC, 0, 300), 0, "announces 0 bytes and 300 fds"),
    (struct.pack("<Iii", fdsocket.MAGIC, 0, 2), 1, "announced 2 fds but 1 arrived"),
    (struct.pack("<Iii", fdsocket.MAGIC, 10, 0) + b"abc", 0, "closed the connection after 3 of 10 bytes"),
    (b"CIF", 0, "in the middle of a message"),
    (b"", 0, "closed the connection"),
]


class FdSocketTest(support.TestCase):
    def test_a_descriptor_and_its_fd_travel_as_java_frames_them(self):
        a, b = pair()
        r, w = os.pipe()
        with a, b:
            d = CASES["vmm-fd"]
            fdsocket.send_descriptor(a, d, [r])
            os.close(r)
            got, fds = fdsocket.receive_descriptor(b, timeout=5)
            assert got == d and len(fds) == 1
            os.write(w, b"x")
            assert os.read(fds[0], 1) == b"x"  # the same pipe, through SCM_RIGHTS
            assert os.get_inheritable(fds[0]) is False
            os.close(fds[0])
        os.close(w)

    def test_the_header_is_javas(self):
        a, b = pair()
        with a, b:
            fdsocket.send(a, b"done")
            assert b.recv(100) == struct.pack("<Iii", 0x44464943, 4, 0) + b"done"

    def test_a_message_split_in_pieces_is_put_together(self):
        a, b = pair()
        with a, b:
            data = struct.pack("<Iii", fdsocket.MAGIC, 5, 0) + b"hello"

            def trickle():
                for i in range(len(data)):
                    a.send(data[i:i + 1])
            t = threading.Thread(target=trickle)
            t.start()
            assert fdsocket.receive(b, timeout=5) == (b"hello", [])
            t.join()

    def test_bad_messages_are_refused_and_their_fds_closed(self):
        for raw, fds, message in BAD_MESSAGES:
            with self.subTest(message=message):
                a, b = pair()
                with b:
                    before = open_fds()
                    r, w = os.pipe()
                    if fds:
                        socket.send_fds(a, [raw], [r] * fds)
                    elif raw:
                        a.send(raw)
                    a.close()
                    os.close(r)
                    os.close(w)
                    with self.assertRaisesRegex(fdsocket.ProtocolError,
                                                message.replace("(", r"\(").replace(")", r"\)")):
                        fdsocket.receive(b, timeout=5)
                    assert open_fds() <= before | {b.fileno()}

    def test_a_descriptor_with_the_wrong_number_of_fds_is_refused(self):
        a, b = pair()
        with a, b:
            fdsocket.send(a, descriptor.to_json(CASES["vmm-fd"]).encode())
            with self.assertRaisesRegex(fdsocket.ProtocolError, "a descriptor of 1 fd\\(s\\) came with 0"):
                fdsocket.receive_descriptor(b, timeout=5)
        with self.assertRaisesRegex(ValueError, "says 1 fd"):
            fdsocket.send_descriptor(a, CASES["vmm-fd"], [])

    def test_a_timeout_is_one_line(self):
        a, b = pair()
        with a, b:
            with self.assertRaisesRegex(fdsocket.ProtocolError, "no message from the peer within 0.05 s"):
                fdsocket.receive(b, timeout=0.05)
            assert b.gettimeout() is None, "the call's timeout stays with the call"
            fdsocket.send(a, b"x")
            assert fdsocket.receive(b, timeout=5) == (b"x", []) and b.gettimeout() is None

    def test_connect_waits_for_the_server_and_checks_its_user(self):
        path = str(self.temporary_directory() / "s")
        with self.assertRaisesRegex(fdsocket.ProtocolError, "no descriptor server at .* within 0.05 s"):
            fdsocket.connect(path, timeout=0.05)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(1)
        with server:
            client = fdsocket.connect(path, timeout=5)
            conn, _ = server.accept()
            with client, conn:
                pid, uid, _ = fdsocket.check_peer(conn, "the client")
                assert (pid, uid) == (os.getpid(), os.getuid())
                fdsocket.send(conn, b"ok")
                assert fdsocket.receive(client, timeout=5) == (b"ok", [])
