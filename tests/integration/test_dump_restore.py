"""DUMP / RESTORE between streamd and Debian's redis-server 7.0.15, both directions (issue 14):
streamd at rdb-version 10 writes payloads redis-server restores (strings byte-equal to Redis's
own DUMP when not LZF-compressed), and streamd restores what redis-server dumps; every key's XINFO STREAM FULL, XRANGE,
XPENDING and TTL compared (radix-tree-nodes left out: the trees differ; streamd's newer consumer
field active-time left out). Also streamd to streamd at the default rdb-version 12, RESTORE
propagating to a redis-server replica (a relative TTL as ABSTTL) and surviving an AOF restart.

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist.
"""

import random
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, wait_for

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")
needs_redis = unittest.skipUnless(servers.redis_available(), "redis-server not installed")

# Fields of XINFO STREAM FULL only newer Redis versions (and streamd) have.
NEWER_STREAM_FIELDS = {"idmp-duration", "idmp-maxsize", "pids-tracked", "iids-tracked",
                       "iids-added", "iids-duplicates"}
NEWER_GROUP_FIELDS = {"nacked-count"}
NEWER_CONSUMER_FIELDS = {"active-time"}


def build_dataset(r):
    """Strings of each encoding and streams with several nodes, tombstones, groups, PELs."""
    r.set("int", "12345")
    r.set("short", "hello")
    r.set("long", "abc" * 50)
    r.set("binary", bytes(range(256)) * 3)
    # 100 bytes LZF cannot shorten: stored as they are, so the payload is byte-equal to Redis's.
    r.set("random", random.Random(14).randbytes(100))
    r.set("ttl", "soon", px=500000)
    r.execute_command("CONFIG", "SET", "stream-node-max-entries", "4")
    for i in range(1, 30):
        r.xadd("s", {"f": str(i), "g": "x" * (i % 7)}, id=f"{i}-{i % 3}")
    r.xdel("s", "5-2", "6-0", "29-2")
    r.xgroup_create("s", "g1", id="0")
    r.xgroup_create("s", "g2", id="10-1")
    r.xgroup_create("s", "idle", id="$")
    r.xreadgroup("g1", "alice", {"s": ">"}, count=5)
    r.xreadgroup("g1", "bob", {"s": ">"}, count=3)
    r.xreadgroup("g2", "carol", {"s": ">"}, count=2)
    r.xack("s", "g1", "2-2")
    r.execute_command("XCLAIM", "s", "g1", "bob", "0", "3-0", "TIME", "1700000000000",
                      "RETRYCOUNT", "7")
    r.execute_command("XGROUP", "CREATECONSUMER", "s", "g2", "dave")
    r.xadd("e", {"a": "b"}, id="1-1")
    r.xdel("e", "1-1")
    r.execute_command("XSETID", "e", "5-5", "ENTRIESADDED", "9", "MAXDELETEDID", "3-3")
    r.xgroup_create("e", "g", id="0")
    r.pexpire("s", 900000)


def stream_state(r, key):
    info = r.xinfo_stream(key, full=True)
    info.pop("radix-tree-nodes", None)
    for f in NEWER_STREAM_FIELDS:
        info.pop(f, None)
    for g in info.get("groups", []):
        for f in NEWER_GROUP_FIELDS:
            g.pop(f, None)
        # redis-py leaves each consumer a flat [name, value, ...] list of bytes.
        g["consumers"] = [
            {k: v for k, v in zip(c[::2], c[1::2]) if k.decode() not in NEWER_CONSUMER_FIELDS}
            for c in g.get("consumers", [])]
    pending = {}
    for g in r.xinfo_groups(key):
        name = g["name"]
        rows = r.xpending_range(key, name, "-", "+", 1000)
        # Idle times depend on when each side answered; the rest is exact.
        pending[name] = [(e["message_id"], e["consumer"], e["times_delivered"]) for e in rows]
    return info, r.xrange(key), pending


def key_state(r, key):
    t = r.type(key)
    ttl = r.execute_command("PEXPIRETIME", key)
    if t == b"stream":
        return t, ttl, stream_state(r, key)
    return t, ttl, r.get(key)


KEYS = ["int", "short", "long", "binary", "random", "ttl", "s", "e"]


def copy_keys(src, dst, keys, absttl=True):
    """DUMP each key on src and RESTORE it on dst with its absolute expiry."""
    for k in keys:
        payload = src.dump(k)
        when = src.execute_command("PEXPIRETIME", k)
        args = ["RESTORE", k, str(max(when, 0)), payload]
        if when > 0:
            args.append("ABSTTL")
        assert dst.execute_command(*args) == b"OK", k


@needs_streamd
@needs_redis
class DumpRestoreInteropTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.streamd = servers.start_streamd("--appendonly", "no", "--rdb-version", "10")
        cls.redis = servers.start_redis()

    @classmethod
    def tearDownClass(cls):
        cls.streamd.cleanup()
        cls.redis.cleanup()

    def setUp(self):
        self.s = self.streamd.redis_py()
        self.r = self.redis.redis_py()
        self.addCleanup(self.s.close)
        self.addCleanup(self.r.close)
        self.s.flushall()
        self.r.flushall()

    def assert_same(self, a, b, keys):
        for k in keys:
            with self.subTest(key=k):
                self.assertEqual(key_state(a, k), key_state(b, k))

    def test_streamd_dump_restores_into_redis(self):
        build_dataset(self.s)
        copy_keys(self.s, self.r, KEYS)
        self.assert_same(self.s, self.r, KEYS)
        # Redis's sanitizer accepts them too (it validates listpacks, PEL and consumers deeply).
        self.r.execute_command("CONFIG", "SET", "sanitize-dump-payload", "yes")
        self.r.flushall()
        copy_keys(self.s, self.r, KEYS)
        self.assert_same(self.s, self.r, KEYS)
        # Strings Redis would not compress: the payload bytes are redis-server's own (LZF output
        # is streamd's compressor's, which redis-server restores above).
        for k in ["int", "short", "random"]:
            with self.subTest(key=k):
                self.assertEqual(self.s.dump(k), self.r.dump(k))

    def test_redis_dump_restores_into_streamd(self):
        build_dataset(self.r)
        copy_keys(self.r, self.s, KEYS)
        self.assert_same(self.r, self.s, KEYS)
        # And back: the round trip is exact.
        self.r.flushall()
        copy_keys(self.s, self.r, KEYS)
        self.assert_same(self.s, self.r, KEYS)

    def test_rdb_12_payloads_are_refused_by_redis_7_0(self):
        self.s.set("k", "v")
        self.s.execute_command("CONFIG", "SET", "rdb-version", "12")
        try:
            payload = self.s.dump("k")
        finally:
            self.s.execute_command("CONFIG", "SET", "rdb-version", "10")
        self.assertEqual(payload[-10:-8], b"\x0c\x00")
        with self.assertRaisesRegex(Exception, "DUMP payload version or checksum are wrong"):
            self.r.restore("k", 0, payload)
        # streamd reads every version up to 12, its own included.
        self.s.restore("k2", 0, payload)
        self.assertEqual(self.s.get("k2"), b"v")


@needs_streamd
class DumpRestoreStreamdTest(unittest.TestCase):
    def test_rdb_12_round_trip_keeps_newer_fields(self):
        srv = servers.start_streamd("--appendonly", "no")
        self.addCleanup(srv.cleanup)
        s = srv.redis_py()
        self.addCleanup(s.close)
        build_dataset(s)
        for k in KEYS:
            s.restore(k + ".copy", 0, s.dump(k))
        a = s.xinfo_stream("s", full=True)
        b = s.xinfo_stream("s.copy", full=True)
        a.pop("radix-tree-nodes")
        b.pop("radix-tree-nodes")
        self.assertEqual(a, b)  # active-time included
        self.assertEqual(s.xrange("s"), s.xrange("s.copy"))
        self.assertEqual(s.get("binary"), s.get("binary.copy"))

    def test_restore_survives_an_aof_restart(self):
        srv = servers.start_streamd("--appendonly", "yes")
        self.addCleanup(srv.cleanup)
        s = srv.redis_py()
        build_dataset(s)
        payload = s.dump("s")
        s.restore("copy", 100000, payload)
        when = s.execute_command("PEXPIRETIME", "copy")
        before = stream_state(s, "copy")
        s.close()
        srv.stop()
        srv2 = servers.start_streamd("--appendonly", "yes", workdir=srv.workdir)
        self.addCleanup(srv2.cleanup)
        s2 = srv2.redis_py()
        self.addCleanup(s2.close)
        self.assertEqual(s2.execute_command("PEXPIRETIME", "copy"), when)
        self.assertEqual(stream_state(s2, "copy"), before)


@needs_streamd
@needs_redis
class RestorePropagationTest(unittest.TestCase):
    def test_redis_replica_follows_restore(self):
        master = servers.start_streamd("--appendonly", "no", "--repl-diskless-sync-delay", "0",
                                       "--rdb-version", "10")
        self.addCleanup(master.cleanup)
        m = master.redis_py()
        self.addCleanup(m.close)
        m.set("seed", "1")
        replica = servers.start_redis("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(replica.cleanup)
        r = replica.redis_py()
        self.addCleanup(r.close)
        wait_for(lambda: link_up(r), timeout=60, what="redis-server replica link up")
        build_dataset(m)
        m.restore("copy", 100000, m.dump("s"), idletime=5)
        m.set("old", "x")
        m.restore("old", 1, m.dump("short"), replace=True, absttl=True)  # in the past: a DEL
        m.set("last", "1")
        wait_for(lambda: r.get("last") == b"1", timeout=30, what="replica caught up")
        self.assertEqual(r.execute_command("PEXPIRETIME", "copy"),
                         m.execute_command("PEXPIRETIME", "copy"))
        self.assertEqual(stream_state(r, "copy"), stream_state(m, "copy"))
        self.assertEqual(r.exists("old"), 0)


if __name__ == "__main__":
    runner.main()
