"""A fuzzing campaign: many seeded sequences, both protocols, shrunk reproducers of failures.

Sequence k of seed S is Generator(S * 1_000_003 + k).sequence(length), run in each protocol
asked for, so a campaign is reproducible from (seed, sequences, length) alone. Distinct failures
(same command, same pair of normalised replies) are shrunk once each.
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field

from .. import servers
from ..differential import Outcome
from ..resp import encode
from .gen import Generator
from .matchers import Matcher, command_line, load_all, load_xfail
from .normalise import normalise
from .run import Difference, run_sequence
from .shrink import _signature, clean_probe, confirm_script, render_script, shrink


def sequence_seed(seed: int, k: int) -> int:
    return seed * 1_000_003 + k


@dataclass
class Failure:
    seed: int
    k: int
    proto: int
    difference: Difference
    script: str = ""
    small: Difference | None = None  # the difference the reproducer shows
    confirmed: list[str] = field(default_factory=list)


@dataclass
class Stats:
    sequences: int = 0
    steps: int = 0
    skipped: collections.Counter = field(default_factory=collections.Counter)
    stopped: collections.Counter = field(default_factory=collections.Counter)
    failures: list[Failure] = field(default_factory=list)
    duplicates: int = 0
    seconds: float = 0.0


def _reply_key(d: Difference) -> tuple:
    def one(o):
        if o.event is not None:
            return o.event
        return encode(normalise(d.argv, o.reply, True))

    return (_signature(d.argv), one(d.streamd), one(d.redis))


def _describe(o) -> str:
    if o.event is not None:
        return f"<{o.event}>"
    r = repr(o.raw)
    return r if len(r) < 600 else r[:600] + f"... ({len(o.raw)} bytes)"


class Campaign:
    def __init__(self, seed: int, sequences: int, length: int, protos=(2, 3),
                 shrink_failures: int = 10, time_limit: float | None = None, log=print,
                 extra_xfail=(), server_args=(), self_test: bool = False, first: int = 0):
        self.seed, self.sequences, self.length, self.protos = seed, sequences, length, protos
        self.shrink_failures = shrink_failures
        self.time_limit = time_limit
        self.log = log
        self.xfail = load_xfail() + [e for p in extra_xfail for e in load_xfail(p)]
        self.matchers: list[Matcher] = load_all() + [m for e in self.xfail for m in e.matchers]
        # e.g. --stream-node-max-entries 4: many small nodes, so node splits, deletions and
        # trimming across nodes get exercised by sequences of a few dozen entries
        self.server_args = list(server_args)
        # self-test: a second redis-server in streamd's place; any difference then is
        # nondeterminism the generator or the normalisation let through
        self.self_test = self_test
        self.first = first  # skip sequences before this one (to replay one of a long run)
        self.stats = Stats()
        self._seen: set[tuple] = set()
        self.streamd = self.redis = None

    def _start(self) -> None:
        self.streamd = (servers.start_redis(*self.server_args) if self.self_test else
                        servers.start_streamd("--appendonly", "no", *self.server_args))
        self.redis = servers.start_redis(*self.server_args)

    def _stop(self) -> None:
        for s in (self.streamd, self.redis):
            if s is not None:
                s.cleanup()
        self.streamd = self.redis = None

    def _restart_if_dead(self) -> None:
        if not (self.streamd.alive() and self.redis.alive()):
            self.log(f"a server died; streamd log:\n{self.streamd.log_tail(40)}")
            self._stop()
            self._start()

    def run(self) -> Stats:
        started = time.monotonic()
        self._start()
        try:
            self._loop(started)
        except KeyboardInterrupt:  # also SIGTERM, see fuzz_streams.py: keep what ran so far
            self.log(f"interrupted after {self.stats.sequences} sequences")
        finally:
            self._stop()
        self.stats.seconds = time.monotonic() - started
        return self.stats

    def _loop(self, started: float) -> None:
        for k in range(self.sequences):
            if self.time_limit and time.monotonic() - started > self.time_limit:
                self.log(f"time limit reached after {k} sequences")
                break
            if k < self.first:
                continue
            cmds = Generator(sequence_seed(self.seed, k)).sequence(self.length)
            for proto in self.protos:
                self._one(k, cmds, proto)
            self.stats.sequences += 1
            if (k + 1) % 1000 == 0:
                self.log(self.summary_line(time.monotonic() - started))

    def _one(self, k: int, cmds, proto: int) -> None:
        try:
            res = run_sequence(cmds, self.streamd, self.redis, proto, self.matchers)
        except (OSError, RuntimeError) as e:
            # A server that died or stopped answering: a failure of its own (a crash of
            # streamd is exactly what a fuzzer is for), then fresh servers for the rest.
            self.log(f"seed {self.seed} sequence {k} RESP{proto}: {e}")
            self.stats.failures.append(Failure(self.seed, k, proto, Difference(
                0, [b"(connection)"], Outcome(event=f"error: {e}"), Outcome(event="-"))))
            self._restart_if_dead()
            return
        st = self.stats
        st.steps += res.steps
        for _, row in res.skipped:
            st.skipped[row] += 1
        if res.stopped_at is not None:
            for i, row in res.skipped:
                if i == res.stopped_at:
                    st.stopped[row] += 1
        if res.difference is None:
            return
        key = _reply_key(res.difference)
        if key in self._seen:
            st.duplicates += 1
            return
        self._seen.add(key)
        f = Failure(self.seed, k, proto, res.difference)
        st.failures.append(f)
        self.log(self.describe_failure(f))
        if len(st.failures) <= self.shrink_failures:
            try:
                self._shrink(f, cmds)
            except Exception:  # a reproducer that cannot be made must not end the campaign
                import traceback

                self.log(f"shrinking failed:\n{traceback.format_exc()}")
        else:
            self._restart_if_dead()

    def _shrink(self, f: Failure, cmds) -> None:
        self._restart_if_dead()
        small = shrink(cmds, f.difference.index, self.streamd, self.redis, f.proto, self.matchers)
        small = clean_probe(small, self.streamd, self.redis, f.proto, self.matchers)
        diffs = {p: run_sequence(small, self.streamd, self.redis, p, self.matchers).difference
                 for p in (2, 3)}
        protos = tuple(p for p in (2, 3) if diffs[p] is not None)
        d = f.difference
        small_d = diffs.get(f.proto) or next((x for x in diffs.values() if x), None)
        title = (f"fuzz_streams seed {f.seed} sequence {f.k} RESP{f.proto}: "
                 f"{command_line(d.argv)[:100]}")
        f.script = render_script(small, title, protos or (f.proto,), self.server_args)
        f.confirmed = confirm_script(f.script, protos or (f.proto,), self.self_test)
        verdict = ("confirmed by the differential runner on fresh servers" if f.confirmed else
                   "NOT reproduced by the differential runner (volatile? see the full sequence)")
        self.log(f"minimal reproducer ({len(small)} commands, {verdict}):\n{f.script}")
        if small_d is not None:
            f.small = small_d
            self.log(f"  its last step: streamd {_describe(small_d.streamd)}\n"
                     f"                 redis   {_describe(small_d.redis)}\n")

    @staticmethod
    def describe_failure(f: Failure) -> str:
        d = f.difference
        return (f"DIFFERENCE seed {f.seed} sequence {f.k} RESP{f.proto} step {d.index + 1}: "
                f"{command_line(d.argv)}\n  streamd: {_describe(d.streamd)}\n"
                f"  redis:   {_describe(d.redis)}")

    def summary_line(self, seconds: float) -> str:
        st = self.stats
        return (f"{st.sequences} sequences x {len(self.protos)} protocols, {st.steps} steps "
                f"compared, {len(st.failures)} distinct differences ({st.duplicates} repeats), "
                f"{sum(st.skipped.values())} steps skipped by rows, {seconds:.0f}s")
