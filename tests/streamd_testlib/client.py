"""A raw RESP client: send exact bytes, read exactly one reply as raw bytes."""

from __future__ import annotations

import select
import socket
import time

from .resp import ReplyReader, Reply, encode_command, encode_inline, parse_reply

DEFAULT_TIMEOUT = 10.0


class ConnectionClosed(Exception):
    """The server closed the connection before a complete reply arrived."""


class ReplyTimeout(Exception):
    """No complete reply arrived in time."""


class RawClient:
    """One TCP connection speaking raw RESP.

    send*() write bytes; read_raw() returns the bytes of exactly one complete reply (replies
    that arrived together stay buffered for the next read). Nothing is interpreted, so the
    caller sees exactly what the server wrote.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 6379, timeout: float = DEFAULT_TIMEOUT):
        self.host = host
        self.port = port
        self.timeout = timeout
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = ReplyReader()
        self.closed_by_peer = False

    # -- sending ----------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_command(self, *args) -> None:
        self.send_raw(encode_command(*args))

    def send_inline(self, line) -> None:
        self.send_raw(encode_inline(line))

    # -- receiving --------------------------------------------------------------------------

    def _recv_some(self, deadline: float) -> bool:
        """Read what the socket has; False on EOF."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ReplyTimeout("timed out waiting for a reply")
        self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(1 << 16)
        except socket.timeout:
            raise ReplyTimeout("timed out waiting for a reply") from None
        except ConnectionResetError:
            data = b""
        if not data:
            self.closed_by_peer = True
            return False
        self.reader.feed(data)
        return True

    def read_reply(self, timeout: float | None = None) -> tuple[bytes, Reply]:
        """Exactly one complete reply as (raw bytes, decoded tree)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            got = self.reader.get()
            if got is not None:
                return got
            if not self._recv_some(deadline):
                partial = self.reader.buffered
                raise ConnectionClosed(
                    "connection closed by server"
                    + (f" with {partial} bytes of an incomplete reply" if partial else "")
                )

    def read_raw(self, timeout: float | None = None) -> bytes:
        return self.read_reply(timeout)[0]

    def read(self, timeout: float | None = None) -> Reply:
        return self.read_reply(timeout)[1]

    def has_data(self, wait: float = 0.0) -> bool:
        """True when a reply (or EOF) is available within `wait` seconds, without consuming it
        from the stream (bytes read are kept in the reader's buffer)."""
        if self.reader.buffered:
            return True
        ready, _, _ = select.select([self.sock], [], [], wait)
        if not ready:
            return False
        self.sock.settimeout(0.5)
        try:
            data = self.sock.recv(1 << 16)
        except (socket.timeout, BlockingIOError):
            return False
        except ConnectionResetError:
            data = b""
        if not data:
            self.closed_by_peer = True
            return True
        self.reader.feed(data)
        return True

    def wait_closed(self, timeout: float | None = None) -> bytes:
        """Wait for EOF; return any bytes received before it (raise ReplyTimeout if the
        connection stays open)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        extra = bytearray()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ReplyTimeout("connection was not closed by the server")
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                raise ReplyTimeout("connection was not closed by the server") from None
            except ConnectionResetError:
                data = b""
            if not data:
                self.closed_by_peer = True
                return bytes(extra)
            extra += data

    # -- convenience ------------------------------------------------------------------------

    def call_raw(self, *args, timeout: float | None = None) -> bytes:
        """Send an argv as multibulk and return the raw bytes of its one reply."""
        self.send_command(*args)
        return self.read_raw(timeout)

    def call(self, *args, timeout: float | None = None) -> Reply:
        self.send_command(*args)
        return self.read(timeout)

    def call_inline(self, line, timeout: float | None = None) -> bytes:
        self.send_inline(line)
        return self.read_raw(timeout)

    def hello(self, proto: int) -> Reply:
        reply = self.call("HELLO", str(proto))
        if reply.is_error:
            raise RuntimeError(f"HELLO {proto} failed: {reply.error_text()}")
        return reply

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> "RawClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def decode_raw(raw: bytes) -> Reply:
    return parse_reply(raw)
