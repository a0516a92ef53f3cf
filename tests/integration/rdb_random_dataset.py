"""A random dataset for the RDB / DUMP round-trip tests (issue 14): a few hundred keys from a
fixed seed, built through commands every server under test accepts (redis-server 7.0.15 and
streamd), with explicit stream IDs so the same seed gives the same entries on either.

Streams get tombstones, exact and approximate trims, consumer groups (from 0, $, an ID in the
middle, with ENTRIESREAD), consumers reading new entries and their history, NOACK reads, acks,
claims with RETRYCOUNT, XAUTOCLAIM, idle consumers, pending entries deleted from the stream,
XSETID with ENTRIESADDED / MAXDELETEDID, emptied streams and TTLs; strings are short, integer,
long and compressible, binary, with and without TTLs, in several databases.

`keyspace(server)` reads back what the round trips compare: aof_helpers.snapshot (XINFO STREAM
FULL less consumer timing, XINFO GROUPS, extended XPENDING less idle, PEXPIRETIME) less the
groups' lag (computed, by rules newer than 7.0.15's), plus every stream's XRANGE and its
consumers' seen-time (an RDB keeps it, a replay would not).
"""

from __future__ import annotations

import random

import aof_helpers as h

DATABASES = (0, 1, 3)


def _value(rng: random.Random) -> bytes:
    r = rng.random()
    if r < 0.25:
        return str(rng.randint(-10**12, 10**12)).encode()
    if r < 0.45:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
    if r < 0.6:
        return (b"ab" * rng.randint(20, 3000))  # long and compressible (LZF)
    return ("v%d" % rng.randint(0, 10**6)).encode() * rng.randint(1, 4)


def _string(c, rng: random.Random, key: str) -> None:
    v = _value(rng)
    r = rng.random()
    if r < 0.3:
        h.call(c, "SET", key, v, "PX", rng.randint(10**6, 10**9))
    elif r < 0.4:
        h.call(c, "SET", key, v, "EX", rng.randint(1000, 10**6))
    else:
        h.call(c, "SET", key, v)


class _Stream:
    def __init__(self, c, rng: random.Random, key: str):
        self.c, self.rng, self.key = c, rng, key
        self.ids: list[bytes] = []
        self.ms = rng.randint(1, 10**13)

    def add(self, n: int) -> None:
        rng = self.rng
        same = [f"f{i}" for i in range(rng.randint(1, 4))]
        for _ in range(n):
            self.ms += rng.choice((0, 0, 1, 3, 1000, 10**6))
            if rng.random() < 0.7:
                fields = same
            else:
                fields = [f"x{rng.randint(0, 9)}" for _ in range(rng.randint(1, 5))]
            argv = []
            for f in fields:
                argv += [f, _value(rng) if rng.random() < 0.3 else str(rng.randint(0, 999))]
            self.ids.append(h.call(self.c, "XADD", self.key, f"{self.ms}-*", *argv))

    def delete_some(self, fraction: float) -> None:
        victims = [i for i in self.ids if self.rng.random() < fraction]
        if victims:
            h.call(self.c, "XDEL", self.key, *victims)

    def groups(self) -> None:
        c, rng, key = self.c, self.rng, self.key
        for g in range(rng.randint(0, 3)):
            name = f"g{g}"
            start = rng.choice(["0", "$", self.ids[len(self.ids) // 2] if self.ids else "0"])
            if rng.random() < 0.3:
                h.call(c, "XGROUP", "CREATE", key, name, start, "ENTRIESREAD",
                       rng.randint(0, len(self.ids) + 2))
            else:
                h.call(c, "XGROUP", "CREATE", key, name, start)
            consumers = [f"c{i}" for i in range(rng.randint(1, 4))]
            for _ in range(rng.randint(1, 6)):
                who = rng.choice(consumers)
                r = rng.random()
                if r < 0.6:
                    h.call(c, "XREADGROUP", "GROUP", name, who, "COUNT", rng.randint(1, 30),
                           "STREAMS", key, ">")
                elif r < 0.75:
                    h.call(c, "XREADGROUP", "GROUP", name, who, "COUNT", rng.randint(1, 10),
                           "STREAMS", key, "0")
                else:
                    h.call(c, "XREADGROUP", "GROUP", name, who, "NOACK", "COUNT",
                           rng.randint(1, 5), "STREAMS", key, ">")
            pending = h.call(c, "XPENDING", key, name, "-", "+", 1000)
            acked = [p[0] for p in pending if rng.random() < 0.3]
            if acked:
                h.call(c, "XACK", key, name, *acked)
            left = [p[0] for p in pending if p[0] not in acked]
            claim = [i for i in left if rng.random() < 0.2]
            if claim:
                h.call(c, "XCLAIM", key, name, rng.choice(consumers + ["thief"]), 0, *claim,
                       "RETRYCOUNT", rng.randint(0, 50))
            if rng.random() < 0.3:
                h.call(c, "XAUTOCLAIM", key, name, "auto", 0, "0", "COUNT", rng.randint(1, 4))
            if rng.random() < 0.3:
                h.call(c, "XGROUP", "CREATECONSUMER", key, name, "idle")
        # Pending entries deleted from the stream stay in the PEL.
        if rng.random() < 0.4:
            self.delete_some(0.1)

    def finish(self) -> None:
        c, rng, key = self.c, self.rng, self.key
        r = rng.random()
        if r < 0.15 and self.ids:
            h.call(c, "XTRIM", key, "MAXLEN", rng.randint(0, len(self.ids)))
        elif r < 0.25 and self.ids:
            h.call(c, "XTRIM", key, "MAXLEN", "~", rng.randint(0, len(self.ids)))
        elif r < 0.32 and self.ids:
            added = len(self.ids) + rng.randint(0, 5)
            h.call(c, "XSETID", key, f"{self.ms + 10}-0", "ENTRIESADDED", added,
                   "MAXDELETEDID", self.ids[-1])
        if rng.random() < 0.2:
            h.call(c, "PEXPIRE", key, rng.randint(10**6, 10**9))


def build(server, seed: int = 14, keys: int = 300) -> None:
    rng = random.Random(seed)
    with server.client(timeout=60) as c:
        for k in range(keys):
            db = DATABASES[0] if rng.random() < 0.8 else rng.choice(DATABASES[1:])
            h.call(c, "SELECT", db)
            key = f"k{k}:{rng.randint(0, 10**6)}"
            if rng.random() < 0.4:
                _string(c, rng, key)
                continue
            s = _Stream(c, rng, key)
            if rng.random() < 0.08:
                h.call(c, "XADD", key, "MAXLEN", 0, f"{s.ms}-1", "a", "b")  # empty, last id set
                s.ids.append(f"{s.ms}-1".encode())
            else:
                s.add(rng.choice((1, 2, 5, 20, 60, 150, 400)))
                s.delete_some(rng.choice((0.0, 0.0, 0.05, 0.3)))
            s.groups()
            s.finish()
        h.call(c, "SELECT", 0)


def _streams_extra(c, key: bytes) -> dict:
    full = h.pairs(h.call(c, "XINFO", "STREAM", key, "FULL", "COUNT", 0))
    seen = {}
    for g in full[b"groups"]:
        g = h.pairs(g)
        for cons in g[b"consumers"]:
            cons = h.pairs(cons)
            seen[(g[b"name"], cons[b"name"])] = cons[b"seen-time"]
    return {"xrange": h.call(c, "XRANGE", key, "-", "+"), "seen-time": seen}


def _without_lag(snap: dict) -> dict:
    # A group's lag is computed from what is compared (entries-added, entries-read,
    # last-delivered-id, tombstones), by rules that changed on purpose after 7.0.15
    # (tests/differential/VERSIONS.md, the xinfo_lag_* rows): not a property of the file.
    for (_t, _exp, v) in snap.values():
        if isinstance(v, dict):
            for g in v.get(b"groups", []) + v.get(b"xinfo-groups", []):
                g.pop(b"lag", None)
    return snap


def keyspace(server) -> dict:
    out = {("snapshot",): _without_lag(h.snapshot(server, layout=False))}
    with server.client(timeout=60) as c:
        for db in range(16):
            h.call(c, "SELECT", db)
            for k in sorted(h.call(c, "KEYS", "*")):
                if h.call(c, "TYPE", k) == b"stream":
                    out[(db, k)] = _streams_extra(c, k)
    return out


def copy_by_dump(src, dst) -> int:
    """DUMP every key of `src`, RESTORE it on `dst` with its absolute expiry (ABSTTL). Returns
    how many keys were copied."""
    n = 0
    with src.client(timeout=60) as a, dst.client(timeout=60) as b:
        for db in range(16):
            h.call(a, "SELECT", db)
            h.call(b, "SELECT", db)
            for k in sorted(h.call(a, "KEYS", "*")):
                payload = h.call(a, "DUMP", k)
                exp = h.call(a, "PEXPIRETIME", k)
                h.call(b, "RESTORE", k, exp if exp > 0 else 0, payload, "ABSTTL")
                n += 1
    return n
