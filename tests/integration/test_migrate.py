"""MIGRATE over TCP (issue 14): streamd to streamd, streamd to Debian's redis-server 7.0.15 and
redis-server to streamd, with COPY, REPLACE, AUTH / AUTH2, KEYS, +NOKEY, the target's errors and
IOERR; the migrating client is parked while other clients are served (the event loop is not).

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist.
"""

import socket
import threading
import time
import unittest

import redis

from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")
needs_redis = unittest.skipUnless(servers.redis_available(), "redis-server not installed")


def fill(c):
    c.set("str", "value")
    c.set("ttl", "t", px=600000)
    for i in range(1, 20):
        c.xadd("s", {"f": str(i)}, id=f"{i}-1")
    c.xgroup_create("s", "g", id="0")
    c.xreadgroup("g", "alice", {"s": ">"}, count=3)


def state(c, key):
    if c.type(key) == b"stream":
        info = c.xinfo_stream(key, full=True)
        info.pop("radix-tree-nodes", None)
        for f in ("idmp-duration", "idmp-maxsize", "pids-tracked", "iids-tracked", "iids-added",
                  "iids-duplicates"):
            info.pop(f, None)
        for g in info["groups"]:
            g.pop("nacked-count", None)
            # A flat [name, value, ...] list per consumer; active-time is newer than 7.0.
            g["consumers"] = [{k: v for k, v in zip(c[::2], c[1::2]) if k != b"active-time"}
                              for c in g["consumers"]]
        return c.xrange(key), info
    return c.get(key)


@needs_streamd
@needs_redis
class MigrateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.a = servers.start_streamd("--appendonly", "no", "--rdb-version", "10")
        cls.b = servers.start_streamd("--appendonly", "no", "--requirepass", "secret")
        cls.r = servers.start_redis()

    @classmethod
    def tearDownClass(cls):
        for s in (cls.a, cls.b, cls.r):
            s.cleanup()

    def setUp(self):
        self.ca = self.a.redis_py()
        self.cb = self.b.redis_py(password="secret")
        self.cr = self.r.redis_py()
        for c in (self.ca, self.cb, self.cr):
            self.addCleanup(c.close)
            c.flushall()

    def test_streamd_to_streamd_with_auth_and_keys(self):
        fill(self.ca)
        before = {k: state(self.ca, k) for k in ("str", "ttl", "s")}
        self.assertEqual(
            self.ca.execute_command("MIGRATE", "127.0.0.1", self.b.port, "", 2, 5000, "AUTH",
                                    "secret", "KEYS", "str", "ttl", "s", "nosuch"), b"OK")
        self.assertEqual(self.ca.exists("str", "ttl", "s"), 0)
        cb2 = self.b.redis_py(password="secret", db=2)
        self.addCleanup(cb2.close)
        for k, v in before.items():
            with self.subTest(key=k):
                self.assertEqual(state(cb2, k), v)
        self.assertGreater(cb2.pttl("ttl"), 500000)
        # Nothing left to move.
        self.assertEqual(self.ca.execute_command("MIGRATE", "127.0.0.1", self.b.port, "str", 0,
                                                 1000), b"NOKEY")

    def test_auth2_copy_replace_and_target_errors(self):
        self.ca.set("k", "new")
        self.cb.set("k", "old")
        with self.assertRaisesRegex(redis.ResponseError,
                                    "^Target instance replied with error: NOAUTH"):
            self.ca.execute_command("MIGRATE", "127.0.0.1", self.b.port, "k", 0, 1000)
        with self.assertRaisesRegex(redis.ResponseError,
                                    "^Target instance replied with error: BUSYKEY"):
            self.ca.execute_command("MIGRATE", "127.0.0.1", self.b.port, "k", 0, 1000,
                                    "AUTH2", "default", "secret")
        self.assertEqual(self.ca.get("k"), b"new")
        self.assertEqual(
            self.ca.execute_command("MIGRATE", "127.0.0.1", self.b.port, "k", 0, 1000, "COPY",
                                    "REPLACE", "AUTH2", "default", "secret"), b"OK")
        self.assertEqual(self.ca.get("k"), b"new")
        self.assertEqual(self.cb.get("k"), b"new")

    def test_streamd_to_redis_and_back(self):
        fill(self.ca)
        before = {k: state(self.ca, k) for k in ("str", "ttl", "s")}
        self.assertEqual(
            self.ca.execute_command("MIGRATE", "127.0.0.1", self.r.port, "", 0, 5000, "KEYS",
                                    "str", "ttl", "s"), b"OK")
        for k, v in before.items():
            with self.subTest(key=k):
                self.assertEqual(state(self.cr, k), v)
        # redis-server's MIGRATE into streamd: RESTORE with Redis's own payloads.
        self.assertEqual(
            self.cr.execute_command("MIGRATE", "127.0.0.1", self.a.port, "", 0, 5000, "KEYS",
                                    "str", "ttl", "s"), b"OK")
        for k, v in before.items():
            with self.subTest(key=k):
                self.assertEqual(state(self.ca, k), v)

    def test_ioerr_and_the_loop_keeps_serving(self):
        self.ca.set("k", "v")
        # Nothing listens there.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            dead = s.getsockname()[1]
        with self.assertRaisesRegex(redis.ResponseError,
                                    "^IOERR error or timeout connecting to the client"):
            self.ca.execute_command("MIGRATE", "127.0.0.1", dead, "k", 0, 500)
        # A target that accepts and never answers: a read timeout, while other clients are served.
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        self.addCleanup(silent.close)
        result = {}

        def run():
            c = self.a.redis_py()
            try:
                c.execute_command("MIGRATE", "127.0.0.1", silent.getsockname()[1], "k", 0, 700)
            except redis.ResponseError as e:
                result["err"] = str(e)
            finally:
                c.close()

        t = threading.Thread(target=run)
        t.start()
        time.sleep(0.2)
        self.assertEqual(self.ca.ping(), True)
        self.assertTrue(t.is_alive())  # answered while MIGRATE still waits for its target
        t.join(10)
        self.assertEqual(result.get("err"), "IOERR error or timeout reading to target instance")
        self.assertEqual(self.ca.get("k"), b"v")


if __name__ == "__main__":
    runner.main()
