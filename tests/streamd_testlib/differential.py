"""Differential runner: one script, two servers, raw reply bytes compared step by step.

Side A is streamd (or, in self-test mode, a second redis-server); side B is redis-server.
Both sides get each step at the same moment (send to A, send to B, then read A, read B), so
sleeps and expirations line up.

Command line (PYTHONPATH=tests):
    python3 -m streamd_testlib.differential [--self-test] [--proto 2|3] [--repeat N]
                                            [--transcript] [NAME...]
NAME is a script stem or glob (`strings`, `key*`); no NAME runs every script.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .client import ConnectionClosed, RawClient, ReplyTimeout
from .masks import apply_masks
from .resp import ProtocolError, Reply, describe, encode
from .script import Closed, NoReply, Read, Reconnect, Script, Send, Sleep, parse_script
from . import servers

SCRIPTS_DIR = Path(__file__).resolve().parents[1] / "differential" / "scripts"
REPLY_TIMEOUT = float(os.environ.get("STREAMD_DIFF_TIMEOUT", "5"))
MAX_MISMATCHES = 5


def selftest_enabled() -> bool:
    return os.environ.get("STREAMD_DIFF_SELFTEST", "") not in ("", "0")


def discover_scripts(patterns: list[str] | None = None) -> list[Path]:
    paths = sorted(SCRIPTS_DIR.glob("*.txt"))
    if patterns:
        paths = [p for p in paths if any(fnmatch.fnmatch(p.stem, pat) for pat in patterns)]
    return paths


def env_patterns() -> list[str] | None:
    raw = os.environ.get("STREAMD_DIFF_SCRIPTS", "").strip()
    return [p.strip() for p in raw.split(",") if p.strip()] or None


def env_protocols() -> tuple[int, ...]:
    raw = os.environ.get("STREAMD_DIFF_PROTO", "").strip()
    return (int(raw),) if raw in ("2", "3") else (2, 3)


# -- servers ---------------------------------------------------------------------------------


class ServerPair:
    """The two servers under comparison; reused across scripts (FLUSHALL between them) and
    restarted when a script asks for fresh servers or a server died."""

    def __init__(self, selftest: bool):
        self.selftest = selftest
        self.a: servers.Server | None = None
        self.b: servers.Server | None = None
        self.args: list[str] | None = None
        self.label_a = "redis(A)" if selftest else "streamd"
        self.label_b = "redis(B)" if selftest else "redis"
        self.start_failures = 0
        self.first_start_error = ""

    def _start_a(self, args: list[str]) -> servers.Server:
        if self.selftest:
            return servers.start_redis(*args)
        return servers.start_streamd("--appendonly", "no", *args)

    def stop(self) -> None:
        for s in (self.a, self.b):
            if s is not None:
                s.cleanup()
        self.a = self.b = None

    def prepare(self, script: Script) -> None:
        """Make both servers ready and empty for `script`."""
        want = list(script.server_args)
        if script.fresh or self.args != want or not self._healthy():
            self.stop()
        if self.a is not None and all(_reset(s) for s in (self.a, self.b)):
            return
        self.stop()
        self._start_both(want)

    def _start_both(self, args: list[str]) -> None:
        # A binary that cannot start would otherwise cost a start timeout per script.
        if self.start_failures >= 2:
            raise servers.ServerStartError(
                f"not starting the servers again after {self.start_failures} failed starts; "
                f"first error:\n{self.first_start_error}")
        try:
            self.a = self._start_a(args)
            self.b = servers.start_redis(*args)
        except servers.ServerStartError as e:
            self.stop()
            self.start_failures += 1
            self.first_start_error = self.first_start_error or str(e)
            raise
        self.args = args

    def _healthy(self) -> bool:
        return self.a is not None and self.a.alive() and self.b is not None and self.b.alive()


def _reset(server: servers.Server) -> bool:
    try:
        with RawClient(server.host, server.port, timeout=2) as c:
            return c.call_raw("FLUSHALL") == b"+OK\r\n"
    except (OSError, ConnectionClosed, ReplyTimeout, ProtocolError):
        return False


# -- running ---------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one side did at one step: a reply, or an event (closed, timeout, garbage)."""

    raw: bytes | None = None
    reply: Reply | None = None
    event: str | None = None  # "closed", "timeout", "protocol error: ...", "send failed"

    def key(self, masks: list[str]) -> bytes | str:
        if self.event is not None:
            return self.event.split(":")[0]
        assert self.reply is not None
        return encode(apply_masks(self.reply, masks)) if masks else self.raw

    def lines(self, masks: list[str]) -> list[str]:
        if self.event is not None:
            return [f"<{self.event}>"]
        assert self.reply is not None
        out = describe(self.reply)
        if masks:
            masked = apply_masks(self.reply, masks)
            if encode(masked) != self.raw:
                out += ["masked as:"] + describe(masked)
        return out


class Side:
    def __init__(self, label: str, server: servers.Server, proto: int):
        self.label = label
        self.server = server
        self.proto = proto
        self.conns: dict[int, RawClient] = {}
        self.pending: dict[int, int | None] = {}  # replies still expected; None = unknown

    def conn(self, n: int) -> RawClient:
        c = self.conns.get(n)
        if c is None:
            c = RawClient(self.server.host, self.server.port, timeout=REPLY_TIMEOUT)
            if self.proto == 3:
                reply = c.call("HELLO", "3")
                if reply.kind != "%":
                    c.close()
                    raise SetupError(
                        f"{self.label}: HELLO 3 on connecting #{n} answered "
                        f"{' '.join(describe(reply))}"
                    )
            self.conns[n] = c
            self.pending[n] = 0
        return c

    def drop(self, n: int) -> None:
        c = self.conns.pop(n, None)
        self.pending.pop(n, None)
        if c is not None:
            c.close()

    def close_all(self) -> None:
        for n in list(self.conns):
            self.drop(n)

    def send(self, n: int, payload: bytes, replies: int | None) -> str | None:
        try:
            c = self.conn(n)
            c.send_raw(payload)
        except SetupError:
            raise
        except OSError as e:
            return f"send failed: {e}"
        if replies is None:
            self.pending[n] = None
        elif self.pending.get(n) is not None:
            self.pending[n] += replies
        return None

    def read(self, n: int) -> Outcome:
        c = self.conns.get(n)
        if c is None:
            return Outcome(event="no such connection")
        try:
            raw, reply = c.read_reply()
        except ConnectionClosed:
            self.drop(n)
            return Outcome(event="closed")
        except ReplyTimeout:
            return Outcome(event="timeout")
        except ProtocolError as e:
            return Outcome(event=f"protocol error: {e}")
        except OSError as e:
            return Outcome(event=f"socket error: {e}")
        if self.pending.get(n):
            self.pending[n] -= 1
        return Outcome(raw=raw, reply=reply)

    def extra_bytes(self, n: int) -> bool:
        """Bytes already received beyond the replies the script expects (a double reply)."""
        c = self.conns.get(n)
        return c is not None and self.pending.get(n) == 0 and c.reader.buffered > 0


class SetupError(Exception):
    pass


def _side_by_side(left: list[str], right: list[str], la: str, lb: str, width: int = 58) -> str:
    rows = [f"    {la:<{width}} | {lb}", f"    {'-' * width}-+-{'-' * width}"]
    for i in range(max(len(left), len(right))):
        l = left[i] if i < len(left) else ""
        r = right[i] if i < len(right) else ""
        mark = " " if l == r else "*"
        if len(l) > width:
            l = l[: width - 3] + "..."
        rows.append(f"  {mark} {l:<{width}} | {r}")
    return "\n".join(rows)


def _raw_repr(raw: bytes | None, limit: int = 240) -> str:
    if raw is None:
        return "-"
    r = repr(raw)
    return r if len(r) <= limit else r[:limit] + f"... ({len(raw)} bytes)"


class ScriptRun:
    def __init__(self, script: Script, proto: int, pair: ServerPair, transcript: bool = False):
        self.script = script
        self.proto = proto
        self.pair = pair
        self.a = Side(pair.label_a, pair.a, proto)
        self.b = Side(pair.label_b, pair.b, proto)
        self.problems: list[str] = []
        self.transcript = transcript
        self.aborted = False

    def where(self, step) -> str:
        return f"{self.script.path.name}:{step.lineno} (RESP{self.proto}, conn #{step.conn})"

    def fail(self, step, message: str) -> None:
        self.problems.append(f"{self.where(step)}: {step.text}\n{message}")

    def compare(self, step, masks: list[str], compare: bool, oa: Outcome, ob: Outcome) -> bool:
        """Record a mismatch; return False when the script cannot meaningfully go on."""
        if self.transcript:
            print(f"{self.script.name}:{step.lineno} {step.text}")
            for line in ob.lines(masks):
                print(f"      {line}")
        if ob.event is not None and (oa.event is None or ob.event == "timeout"):
            # The reference server did not answer as the script expects: a script bug.
            self.fail(step, f"  {self.pair.label_b} side: {ob.event}; {self.a.label} side: "
                            f"{oa.event or 'replied'} (is the script right?)")
            return False
        if not compare and oa.event is None and ob.event is None:
            return True
        if oa.key(masks) == ob.key(masks):
            return True
        msg = [
            f"  replies differ{' after masks ' + ' '.join(masks) if masks else ''}:",
            _side_by_side(oa.lines(masks), ob.lines(masks), self.a.label, self.b.label),
            f"    raw {self.a.label}: {_raw_repr(oa.raw)}",
            f"    raw {self.b.label}: {_raw_repr(ob.raw)}",
        ]
        self.fail(step, "\n".join(msg))
        # A reply of the wrong kind (event vs reply) desynchronises the connection.
        return oa.event is None and ob.event is None

    def run(self) -> list[str]:
        try:
            self._run_steps()
        except SetupError as e:
            self.problems.append(f"{self.script.path.name} (RESP{self.proto}): {e}")
        finally:
            self.a.close_all()
            self.b.close_all()
        for side in (self.a,):
            if not side.server.alive():
                self.problems.append(
                    f"{side.label} exited (code {side.server.proc.poll()}) while running "
                    f"{self.script.path.name} in RESP{self.proto}\n--- log ---\n"
                    f"{side.server.log_tail(60)}"
                )
        return self.problems

    def _run_steps(self) -> None:
        for step in self.script.steps:
            if len(self.problems) >= MAX_MISMATCHES:
                self.problems.append(f"(stopping after {MAX_MISMATCHES} mismatches)")
                return
            if not self._step(step):
                self.problems.append(f"(script aborted at line {step.lineno}: the two sides "
                                     "are no longer in the same state)")
                return
        # Exactly one reply per command: nothing may be left over at the end.
        time.sleep(0.02)
        for n in sorted(set(self.a.conns) | set(self.b.conns)):
            leftovers = [self._leftover(side, n) for side in (self.a, self.b)]
            if leftovers[0] is None and leftovers[1] is None:
                continue
            if leftovers[0] == leftovers[1] == "EOF":
                continue
            self.problems.append(
                f"{self.script.path.name} (RESP{self.proto}): unread data on conn #{n} at the "
                f"end of the script: {self.a.label}: {leftovers[0] or 'nothing'}; "
                f"{self.b.label}: {leftovers[1] or 'nothing'}"
            )

    @staticmethod
    def _leftover(side: "Side", n: int) -> str | None:
        c = side.conns.get(n)
        if c is None or side.pending.get(n) != 0 or not c.has_data(0):
            return None
        return _raw_repr(bytes(c.reader._buf)) if c.reader.buffered else "EOF"

    def _step(self, step) -> bool:
        if isinstance(step, Sleep):
            time.sleep(step.ms / 1000)
            return True
        if isinstance(step, Send):
            replies = step.replies if step.exact_count else None
            ea = self.a.send(step.conn, step.payload, replies)
            eb = self.b.send(step.conn, step.payload, replies)
            if ea or eb:
                if ea and eb:
                    return True
                self.fail(step, f"  {self.a.label}: {ea or 'sent'}; {self.b.label}: {eb or 'sent'}")
                return False
            if not step.read_now:
                return True
            for _ in range(step.replies):
                if not self._read_both(step, step.masks, step.compare):
                    return False
            if step.exact_count:
                for side in (self.a, self.b):
                    if side.extra_bytes(step.conn):
                        self.fail(step, f"  {side.label} sent more than {step.replies} "
                                        f"repl{'y' if step.replies == 1 else 'ies'}: "
                                        f"{_raw_repr(bytes(side.conns[step.conn].reader._buf))}")
                        return False
            return True
        if isinstance(step, Read):
            return self._read_both(step, step.masks, step.compare)
        if isinstance(step, NoReply):
            time.sleep(step.ms / 1000)
            ok = True
            for side in (self.a, self.b):
                c = side.conns.get(step.conn)
                if c is None:
                    self.fail(step, f"  {side.label}: connection #{step.conn} is not open")
                    return False
                if c.has_data(0):
                    got = _raw_repr(bytes(c.reader._buf)) if c.reader.buffered else "EOF"
                    self.fail(step, f"  {side.label} answered though no reply was expected: {got}")
                    ok = False
            return ok
        if isinstance(step, Closed):
            results = []
            for side in (self.a, self.b):
                c = side.conns.get(step.conn)
                if c is None:
                    results.append("not open")
                    continue
                try:
                    extra = c.wait_closed(timeout=REPLY_TIMEOUT)
                    results.append("closed" if not extra else f"closed after {_raw_repr(extra)}")
                except ReplyTimeout:
                    results.append("still open")
                side.drop(step.conn)
            if results[0] != results[1]:
                self.fail(step, f"  {self.a.label}: {results[0]}; {self.b.label}: {results[1]}")
                return False
            return True
        if isinstance(step, Reconnect):
            self.a.drop(step.conn)
            self.b.drop(step.conn)
            return True
        raise AssertionError(f"unknown step {step!r}")

    def _read_both(self, step, masks: list[str], compare: bool) -> bool:
        oa = self.a.read(step.conn)
        ob = self.b.read(step.conn)
        return self.compare(step, masks, compare, oa, ob)


def run_script(script: Script, proto: int, pair: ServerPair, transcript: bool = False) -> list[str]:
    pair.prepare(script)
    return ScriptRun(script, proto, pair, transcript).run()


# -- command line ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("names", nargs="*", help="script stems or globs (default: all)")
    ap.add_argument("--self-test", action="store_true",
                    help="compare redis-server with redis-server (checks the scripts)")
    ap.add_argument("--proto", choices=("2", "3"), help="run only this protocol")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run everything N times (catches values that vary between runs)")
    ap.add_argument("--transcript", action="store_true",
                    help="print every command with the reply of the reference side")
    opts = ap.parse_args(argv)
    selftest = opts.self_test or selftest_enabled()
    if not selftest and not servers.streamd_available():
        print(f"streamd binary not found at {servers.streamd_bin()} (set STREAMD_BIN)")
        return 2
    paths = discover_scripts(opts.names or None)
    if not paths:
        print("no scripts match")
        return 2
    protos = (int(opts.proto),) if opts.proto else env_protocols()
    pair = ServerPair(selftest)
    passed = failed = skipped = 0
    try:
        for path in [p for p in paths for _ in range(max(1, opts.repeat))]:
            script = parse_script(path)
            for proto in protos:
                if proto not in script.protocols:
                    skipped += 1
                    continue
                started = time.monotonic()
                problems = run_script(script, proto, pair, opts.transcript)
                took = time.monotonic() - started
                status = "ok" if not problems else "FAIL"
                print(f"{status:4} {script.name} RESP{proto} ({took:.2f}s)")
                for p in problems:
                    print(p)
                    print()
                passed += not problems
                failed += bool(problems)
    finally:
        pair.stop()
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
