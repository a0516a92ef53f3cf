"""A replica link over a raw socket that speaks what a Redis replica speaks to its master: the
handshake, PSYNC and its reply, the snapshot in either framing, then the command stream byte
for byte (test_replication_master.py, test_failover_command.py)."""

from __future__ import annotations

import socket

from .resp import encode_command


class FakeReplica:
    """One replica link over a raw socket."""

    def __init__(self, port: int, timeout: float = 20.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def close(self):
        self.sock.close()

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("master closed the link")
        self.buf += chunk

    def send(self, *args):
        self.sock.sendall(encode_command(*args))

    def line(self) -> bytes:
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def call(self, *args) -> bytes:
        self.send(*args)
        return self.line()

    def handshake(self, listening_port: int, capas=("eof", "psync2")):
        assert self.call("PING") == b"+PONG"
        assert self.call("REPLCONF", "listening-port", listening_port) == b"+OK"
        if capas:
            args = []
            for c in capas:
                args += ["capa", c]
            assert self.call("REPLCONF", *args) == b"+OK"

    def snapshot(self) -> tuple[bytes, str]:
        """Reads the snapshot; returns (payload, framing) with framing 'eof' or 'len'."""
        head = self.line()
        assert head.startswith(b"$"), head
        if head.startswith(b"$EOF:"):
            mark = head[5:]
            assert len(mark) == 40, head
            # Nothing follows the mark before this replica's first REPLCONF ACK (a Redis replica
            # finds the end by the mark being the last bytes it read), so it ends the data.
            data = bytearray(self.buf)
            self.buf = b""
            while not data.endswith(mark):
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError("master closed the link")
                data += chunk
            return bytes(data[:-40]), "eof"
        n = int(head[1:])
        return self.exactly(n), "len"

    def command(self) -> tuple[list[bytes], bytes]:
        """One command of the stream: (arguments, its raw bytes)."""
        head = self.line()
        assert head.startswith(b"*"), head
        raw = head + b"\r\n"
        args = []
        for _ in range(int(head[1:])):
            h = self.line()
            assert h.startswith(b"$"), h
            v = self.exactly(int(h[1:]) + 2)
            raw += h + b"\r\n" + v
            args.append(v[:-2])
        return args, raw

    def command_skipping_pings(self) -> tuple[list[bytes], bytes]:
        """The next command that is not a PING (returns the bytes skipped with it)."""
        skipped = b""
        while True:
            args, raw = self.command()
            skipped += raw
            if args != [b"PING"]:
                return args, skipped
