"""Shared pieces of the AOF integration tests: a rich dataset built through commands, a
normalised snapshot of everything a client can observe about it, and a few file helpers.

The snapshot covers every key of every database: type, absolute expiry (PEXPIRETIME), the
value of a string, and for a stream XINFO STREAM FULL (all entries, groups, PELs with owners,
delivery times and counts, consumers), XINFO GROUPS and the extended XPENDING of each group.
Consumer seen-time / active-time are left out: no AOF (Redis's included) records them, a replay
sets them to the load time. `layout=False` also leaves out radix-tree-keys / -nodes, which a
rewrite legitimately changes (it drops tombstones).
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

from streamd_testlib import servers
from streamd_testlib.client import RawClient
from streamd_testlib.resp import to_python


class CommandError(Exception):
    pass


def call(c: RawClient, *args):
    rep = c.call(*args, timeout=60)
    if rep.is_error:
        raise CommandError(f"{args!r} -> {rep.error_text()}")
    return to_python(rep)


def pairs(flat) -> dict:
    return {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}


def _normalise_group(g: dict, layout: bool) -> dict:
    g = dict(g)
    consumers = []
    for c in g.get(b"consumers", []):
        c = pairs(c) if isinstance(c, list) else dict(c)
        c.pop(b"seen-time", None)
        c.pop(b"active-time", None)
        consumers.append(c)
    g[b"consumers"] = consumers
    # Redis 8.8 adds nacked-count (XNACK); redis-server 7.0.15, which these snapshots are compared
    # with, has no such field and no released entries: a zero count is the same state.
    if g.get(b"nacked-count") == 0:
        g.pop(b"nacked-count")
    return g


# XINFO STREAM's IDMP fields as a stream that never used IDMP has them (newest Redis shows them
# on every stream, redis-server 7.0.15 on none): dropped at these values so that both compare.
IDMP_DEFAULTS = {b"idmp-duration": 100, b"idmp-maxsize": 100, b"pids-tracked": 0,
                 b"iids-tracked": 0, b"iids-added": 0, b"iids-duplicates": 0}


def stream_state(c: RawClient, key: bytes, layout: bool = True) -> dict:
    full = pairs(call(c, "XINFO", "STREAM", key, "FULL", "COUNT", 0))
    if all(full.get(k) == v for k, v in IDMP_DEFAULTS.items()):
        for k in IDMP_DEFAULTS:
            full.pop(k)
    if not layout:
        full.pop(b"radix-tree-keys", None)
        full.pop(b"radix-tree-nodes", None)
    full[b"groups"] = [_normalise_group(pairs(g), layout) for g in full[b"groups"]]
    groups = []
    for g in call(c, "XINFO", "GROUPS", key):
        g = pairs(g)
        name = g[b"name"]
        pending = call(c, "XPENDING", key, name, "-", "+", 1000000)
        # [id, consumer, idle, count]: idle moves with the clock, the rest must not.
        g[b"xpending"] = [(p[0], p[1], p[3]) for p in pending]
        g[b"summary"] = call(c, "XPENDING", key, name)
        consumers = []
        for cons in call(c, "XINFO", "CONSUMERS", key, name):
            cons = pairs(cons)
            consumers.append((cons[b"name"], cons[b"pending"]))
        g[b"consumers"] = consumers
        groups.append(g)
    full[b"xinfo-groups"] = groups
    full[b"xlen"] = call(c, "XLEN", key)
    return full


def snapshot(server, layout: bool = True, databases: int = 16) -> dict:
    """Everything observable about the dataset, per (db, key)."""
    out = {}
    with server.client(timeout=60) as c:
        for db in range(databases):
            call(c, "SELECT", db)
            keys = sorted(call(c, "KEYS", "*"))
            for k in keys:
                t = call(c, "TYPE", k)
                exp = call(c, "PEXPIRETIME", k)
                if t == b"string":
                    v = call(c, "GET", k)
                elif t == b"stream":
                    v = stream_state(c, k, layout)
                else:
                    v = None
                out[(db, k)] = (t, exp, v)
    return out


def diff(a: dict, b: dict) -> str:
    lines = []
    for k in sorted(set(a) | set(b), key=repr):
        if a.get(k) != b.get(k):
            lines.append(f"{k!r}:\n  before: {a.get(k)!r}\n  after:  {b.get(k)!r}")
    return "\n".join(lines[:10])


def build_dataset(c: RawClient, part: int = 1) -> None:
    """A dataset exercising every kind of state the AOF must keep. part=2 changes it further
    (acks, claims, deletions, more entries), so a test can write in two phases."""
    if part == 1:
        call(c, "SET", "plain", "hello")
        call(c, "SET", "ttl-px", "123", "PX", 900000)
        call(c, "SET", "ttl-ex", "v", "EX", 1000)
        call(c, "SETEX", "ttl-setex", 500, "x")
        call(c, "SET", "float", "1.5")
        call(c, "INCRBYFLOAT", "float", "2.25")
        call(c, "SET", "big", "z" * 5000)
        call(c, "EXPIRE", "plain", 3000)
        call(c, "SET", "gone", "soon", "PX", 1)
        call(c, "SELECT", 3)
        call(c, "SET", "other-db", "x")
        call(c, "XADD", "db3-stream", "*", "a", "1")
        call(c, "SELECT", 0)

        ids = [call(c, "XADD", "st", "*", "n", str(i), "payload", "p" * (i % 7)) for i in range(300)]
        call(c, "XDEL", "st", ids[120], ids[121], ids[200])          # tombstones in the middle
        call(c, "XTRIM", "st", "MAXLEN", "~", 250)                    # approximate head trim
        call(c, "XTRIM", "st", "MINID", ids[60])                      # exact head trim
        call(c, "XGROUP", "CREATE", "st", "g1", "0")
        call(c, "XGROUP", "CREATE", "st", "g2", "$")
        call(c, "XGROUP", "CREATE", "st", "g3", ids[100], "ENTRIESREAD", 40)
        call(c, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 20, "STREAMS", "st", ">")
        call(c, "XREADGROUP", "GROUP", "g1", "bob", "COUNT", 10, "STREAMS", "st", ">")
        call(c, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 5, "STREAMS", "st", "0")
        call(c, "XREADGROUP", "GROUP", "g3", "carol", "COUNT", 7, "STREAMS", "st", ">")
        pend = call(c, "XPENDING", "st", "g1", "-", "+", 100)
        alice = [p[0] for p in pend if p[1] == b"alice"]
        bob = [p[0] for p in pend if p[1] == b"bob"]
        call(c, "XACK", "st", "g1", *alice[:3])
        call(c, "XCLAIM", "st", "g1", "carol", 0, bob[0], bob[1])
        call(c, "XCLAIM", "st", "g1", "dave", 0, bob[2], "JUSTID")
        call(c, "XAUTOCLAIM", "st", "g1", "erin", 0, "0", "COUNT", 3)
        call(c, "XGROUP", "CREATECONSUMER", "st", "g1", "idle-consumer")
        call(c, "XDEL", "st", alice[5])                               # a pending entry deleted
        for i in range(5):
            call(c, "XADD", "st", "*", "late", str(i))
        call(c, "XREADGROUP", "GROUP", "g2", "zed", "NOACK", "COUNT", 3, "STREAMS", "st", ">")

        call(c, "XADD", "emptied", "MAXLEN", 0, "*", "a", "b")        # empty, with a last id
        call(c, "XGROUP", "CREATE", "emptied", "eg", "$")
        call(c, "XGROUP", "CREATE", "made", "mg", "$", "MKSTREAM")   # created empty
        # Consumers created by attempts that deliver or claim nothing (Redis 7.2+): only an
        # explicit record (XGROUP CREATECONSUMER) brings them back.
        call(c, "XREADGROUP", "GROUP", "mg", "lurker", "STREAMS", "made", ">")
        call(c, "XREADGROUP", "GROUP", "mg", "historian", "STREAMS", "made", "0")
        call(c, "XCLAIM", "made", "mg", "ghost", 0, "1-0")
        call(c, "XAUTOCLAIM", "made", "mg", "auto", 0, "0")
        call(c, "XADD", "explicit", "5-1", "a", "1")
        call(c, "XADD", "explicit", "5-*", "a", "2")
        call(c, "XADD", "explicit", "7", "a", "3")
        call(c, "XSETID", "explicit", "100-0", "ENTRIESADDED", 10, "MAXDELETEDID", "6-0")
        call(c, "XADD", "expiring-stream", "*", "a", "1")
        call(c, "PEXPIRE", "expiring-stream", 800000)
        call(c, "MULTI")
        call(c, "XADD", "tx", "*", "a", "1")
        call(c, "SET", "tx-counter", 1)
        call(c, "EXEC")
    else:
        pend = call(c, "XPENDING", "st", "g1", "-", "+", 100)
        call(c, "XACK", "st", "g1", pend[0][0], pend[1][0])
        call(c, "XCLAIM", "st", "g1", "frank", 0, pend[2][0], pend[3][0], "RETRYCOUNT", 9)
        call(c, "XREADGROUP", "GROUP", "g1", "bob", "COUNT", 4, "STREAMS", "st", ">")
        call(c, "XREADGROUP", "GROUP", "g1", "bob", "COUNT", 2, "STREAMS", "st", "0")
        call(c, "XGROUP", "DELCONSUMER", "st", "g1", "dave")
        call(c, "XGROUP", "SETID", "st", "g2", "0", "ENTRIESREAD", 0)
        call(c, "XGROUP", "DESTROY", "st", "g3")
        call(c, "XADD", "st", "MAXLEN", "~", 200, "*", "more", "x")
        for i in range(30):
            call(c, "XADD", "st", "*", "part2", str(i))
        call(c, "XTRIM", "st", "MINID", "~", "0-1")
        call(c, "DEL", "big")
        call(c, "GETDEL", "float")
        call(c, "SET", "plain", "changed", "KEEPTTL")
        call(c, "PERSIST", "ttl-ex")
        call(c, "GETEX", "ttl-setex", "PX", 700000)
        call(c, "RENAME", "tx-counter", "renamed")
        call(c, "INCR", "renamed")
        call(c, "XADD", "made", "*", "now", "not-empty")
        call(c, "SELECT", 5)
        call(c, "SET", "db5", "y")
        call(c, "SELECT", 0)


def info(server, section: str = "persistence") -> dict:
    with server.client() as c:
        text = call(c, "INFO", section).decode()
    out = {}
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k] = v
    return out


def wait_rewrite(server, timeout: float = 60.0) -> dict:
    """Waits until no rewrite is in progress or scheduled; returns INFO persistence."""
    deadline = time.monotonic() + timeout
    while True:
        i = info(server)
        if i.get("aof_rewrite_in_progress") == "0" and i.get("aof_rewrite_scheduled") == "0":
            return i
        if time.monotonic() > deadline:
            raise AssertionError(f"rewrite still running after {timeout}s: {i}")
        time.sleep(0.05)


def workdir(test) -> Path:
    """A temporary directory removed when the test ends (unless STREAMD_KEEP_TMP=1)."""
    d = Path(tempfile.mkdtemp(prefix="streamd-aof-"))
    if not servers.KEEP_TMP:
        test.addCleanup(shutil.rmtree, d, True)
    return d


def start(test, wd: Path, *args, **kwargs):
    s = servers.start_streamd(*args, workdir=wd, **kwargs)
    test.addCleanup(s.stop)
    return s


def start_redis(test, wd: Path, *args):
    """redis-server with its AOF on (RESP only), in `wd`."""
    s = servers.start_redis("--appendonly", "yes", "--aof-use-rdb-preamble", "no", *args,
                            workdir=wd)
    test.addCleanup(s.stop)
    return s


def aof_files(wd: Path, dirname: str = "appendonlydir") -> list[str]:
    d = wd / dirname
    return sorted(os.listdir(d)) if d.is_dir() else []


def manifest(wd: Path, dirname: str = "appendonlydir", name: str = "appendonly.aof") -> str:
    return (wd / dirname / f"{name}.manifest").read_text()


def last_incr(wd: Path, dirname: str = "appendonlydir", name: str = "appendonly.aof") -> Path:
    lines = [l.split() for l in manifest(wd, dirname, name).splitlines() if l.strip()]
    incrs = [l[1] for l in lines if l[-1] == "i"]
    return wd / dirname / incrs[-1]


def encode(*args) -> bytes:
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def fill_stream(server, key: str, n: int, pad: int = 200, batch: int = 500) -> None:
    """XADD n entries to `key`, pipelined in batches (a dataset large enough that a forked
    child takes a while)."""
    with server.client() as c:
        for i in range(0, n, batch):
            c.send_raw(b"".join(encode("XADD", key, "*", "i", j, "pad", "x" * pad)
                                for j in range(i, i + batch)))
            for _ in range(batch):
                c.read()


class BackgroundWriter:
    """A client XADDing to `key` in a thread until stop(); `acked` holds the IDs the server
    acknowledged, in order."""

    def __init__(self, server, key: str = "during"):
        self.acked = []
        self._stop = threading.Event()
        self._server = server
        self._key = key
        self._thread = threading.Thread(target=self._run)
        self._thread.start()

    def _run(self):
        with self._server.client() as w:
            while not self._stop.is_set():
                self.acked.append(call(w, "XADD", self._key, "*", "t", time.time()))

    def stop(self):
        self._stop.set()
        self._thread.join()
