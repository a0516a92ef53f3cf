"""Helpers for the Redis 8.x stream feature tests: a raw client in RESP2 or RESP3 whose replies
come back as plain Python values, so one test body runs under both protocols.

to_py: ':' -> int, '$'/'+' -> bytes, nulls -> None, '*'/'~' -> list, '%' -> dict (keys bytes),
errors -> Err(text). RESP2 and RESP3 differ only where the protocol does (maps).
"""

from __future__ import annotations

from streamd_testlib.client import RawClient


class Err(str):
    """An error reply's text (without the leading '-')."""


def to_py(r):
    if r.is_error:
        return Err(r.error_text())
    if r.null or r.kind == "_":
        return None
    if r.kind == ":":
        return int(r.text)
    if r.kind in "$+=(,":
        return bytes(r.text)
    if r.kind == "#":
        return r.text == b"t"
    if r.kind == "%":
        it = [to_py(x) for x in r.items]
        return {it[i]: it[i + 1] for i in range(0, len(it), 2)}
    if r.items is not None:
        return [to_py(x) for x in r.items]
    raise ValueError(f"unexpected reply kind {r.kind!r}")


class Conn:
    """A connection speaking `proto` (2 or 3)."""

    def __init__(self, server, proto: int = 2):
        self.raw: RawClient = server.client()
        self.proto = proto
        if proto == 3:
            self.raw.hello(3)

    def __call__(self, *args):
        return to_py(self.raw.call(*[str(a) if isinstance(a, int) else a for a in args]))

    def close(self):
        self.raw.close()


def stream_map(reply) -> dict:
    """An XREAD/XREADGROUP reply as {key: [entries]} in both protocols (None -> {})."""
    if reply is None:
        return {}
    if isinstance(reply, dict):
        return reply
    return {k: v for k, v in reply}


def entry_count(reply) -> int:
    return sum(len(v) for v in stream_map(reply).values())


def each_proto(test, server):
    """Runs a test body once per protocol: yields a Conn speaking RESP2, then one speaking RESP3,
    each after FLUSHALL (a failure's log names the protocol)."""
    for proto in (2, 3):
        print(f"  RESP{proto}")
        c = Conn(server, proto)
        try:
            test.assertEqual(c("FLUSHALL"), b"OK")
            yield c
        finally:
            c.close()
