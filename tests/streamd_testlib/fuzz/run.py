"""Run one command sequence on streamd and on redis-server 7.0.15 and compare reply by reply.

Each run opens a new connection per server (HELLO 3 first in RESP3), flushes the keyspace,
sends the whole sequence pipelined (one client, so the order of execution is the order of the
list on both sides) and reads one reply per command. Then, step by step:

  1. equal raw bytes: equal;
  2. else both replies are normalised (normalise.py) and compared again;
  3. else a versions row's matcher (or several composed, matchers.py) may explain the step:
     the step is counted as skipped under each row used, and with `after stop` nothing later in
     the sequence is compared (the servers may hold different state from here on); `after
     continue` goes on;
  4. else it is a difference: the run reports it and compares no further.
An event on one side (timeout, closed connection, protocol error) is a difference unless both
sides had the same event.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..client import ConnectionClosed, RawClient, ReplyTimeout
from ..differential import Outcome
from ..resp import ProtocolError, encode, encode_command
from .matchers import Matcher, command_line, explain_all
from .normalise import normalise

REPLY_TIMEOUT = 5.0


@dataclass
class Difference:
    index: int
    argv: list[bytes]
    streamd: Outcome
    redis: Outcome


@dataclass
class Result:
    steps: int = 0  # steps compared
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (index, row) explained
    stopped_at: int | None = None  # a row's `after stop` ended the comparison here
    difference: Difference | None = None


def _connect(server, proto: int) -> RawClient:
    c = RawClient(server.host, server.port, timeout=REPLY_TIMEOUT)
    if proto == 3:
        c.send_raw(encode_command("HELLO", "3"))
        c.read_reply()
    if c.call_raw("FLUSHALL") != b"+OK\r\n":
        raise RuntimeError(f"{server.name}: FLUSHALL failed")
    return c


def _read_all(c: RawClient, n: int) -> list[Outcome]:
    out: list[Outcome] = []
    for _ in range(n):
        try:
            raw, reply = c.read_reply()
            out.append(Outcome(raw=raw, reply=reply))
        except (ConnectionClosed, ReplyTimeout, ProtocolError, OSError) as e:
            event = {ConnectionClosed: "closed", ReplyTimeout: "timeout"}.get(
                type(e), f"protocol error: {e}")
            out += [Outcome(event=event)] * (n - len(out))
            break
    return out


def execute(cmds: list[list[bytes]], server, proto: int) -> list[Outcome]:
    """The replies `server` gives to `cmds` (pipelined, from an empty keyspace)."""
    c = _connect(server, proto)
    try:
        c.send_raw(b"".join(encode_command(a) for a in cmds))
        return _read_all(c, len(cmds))
    finally:
        c.close()


def run_sequence(cmds: list[list[bytes]], streamd, redis, proto: int,
                 matchers: list[Matcher]) -> Result:
    # Both servers work at the same time: send to both, then read both.
    ca, cb = _connect(streamd, proto), _connect(redis, proto)
    try:
        payload = b"".join(encode_command(a) for a in cmds)
        ca.send_raw(payload)
        cb.send_raw(payload)
        got_a, got_b = _read_all(ca, len(cmds)), _read_all(cb, len(cmds))
    finally:
        ca.close()
        cb.close()
    return compare(cmds, got_a, got_b, matchers)


def compare(cmds, got_a: list[Outcome], got_b: list[Outcome], matchers: list[Matcher]) -> Result:
    res = Result()
    gen = False  # an entry was added with `*`: generated IDs are masked from here on
    # Matchers with `after-command` wait until their cause has run (without an error on both).
    armed = [m for m in matchers if m.cause is None]
    waiting = [m for m in matchers if m.cause is not None]
    for i, (argv, a, b) in enumerate(zip(cmds, got_a, got_b)):
        res.steps = i + 1
        if a.event is not None or b.event is not None:
            if a.event != b.event:
                res.difference = Difference(i, argv, a, b)
            return res  # no more replies to compare on either side
        if argv[0].upper() == b"XADD" and b"*" in argv[2:] and "$" in (a.reply.kind, b.reply.kind):
            gen = True
        if waiting and not a.reply.is_error and not b.reply.is_error:
            line = command_line(argv)
            for m in [m for m in waiting if m.cause.search(line)]:
                waiting.remove(m)
                armed.append(m)
        if a.raw == b.raw:
            continue
        if encode(normalise(argv, a.reply, gen)) == encode(normalise(argv, b.reply, gen)):
            continue
        used = explain_all(armed, argv, b.reply, a.reply, gen)
        if used is None:
            res.difference = Difference(i, argv, a, b)
            return res
        res.skipped += [(i, m.row) for m in used]
        if any(m.after == "stop" for m in used):
            res.stopped_at = i
            return res
    return res
