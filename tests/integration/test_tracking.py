"""Client-side caching over real sockets, as client libraries use it:

- RESP2 (redis-py 4.x, Jedis 5 in RESP2): a pub/sub connection subscribed to
  `__redis__:invalidate` and a data connection with `CLIENT TRACKING on REDIRECT <id>`; writes by
  a third client arrive there as messages, FLUSHALL as a null, and once the pub/sub connection
  is gone the data connection reports the redirect broken.
- RESP3 (node-redis, redis-py 5+): invalidation pushes on the data connection itself,
  interleaved with replies, in default and BCAST mode.

STREAMD_TRACKING_SELFTEST=1 runs the same against redis-server (7.0.15 passes).
Skips (exit 0, SKIPPED line) only when the server binary does not exist.
"""

import os
import time
import unittest

from streamd_testlib import runner, servers

SELFTEST = os.environ.get("STREAMD_TRACKING_SELFTEST") == "1"
available = servers.redis_available() if SELFTEST else servers.streamd_available()
needs_server = unittest.skipUnless(available, "server binary not found")


def start():
    return servers.start_redis() if SELFTEST else servers.start_streamd()


def wait_message(pubsub, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = pubsub.get_message(timeout=0.1)
        if m is not None and m["type"] == "message":
            return m
    raise AssertionError("no message arrived")


@needs_server
class TrackingTest(unittest.TestCase):
    def setUp(self):
        self.server = start()
        self.addCleanup(self.server.cleanup)

    def client(self, **kw):
        c = self.server.redis_py(**kw)
        self.addCleanup(c.close)
        return c

    def test_resp2_redirect_to_a_pubsub_connection(self):
        # redis-py's PubSub owns its connection: its id comes from CLIENT LIST (the one client
        # in pub/sub mode).
        listener = self.client()
        pubsub = listener.pubsub()
        self.addCleanup(pubsub.close)
        pubsub.subscribe("__redis__:invalidate")
        self.assertEqual(pubsub.get_message(timeout=2)["type"], "subscribe")
        admin = self.client(decode_responses=True)
        redirect = next(c["id"] for c in admin.client_list() if "P" in c["flags"])

        # A single connection (no pool) so that tracking and the reads share it.
        data = self.client(single_connection_client=True)
        self.assertTrue(data.execute_command("CLIENT", "TRACKING", "on", "REDIRECT", redirect))
        self.assertEqual(int(data.execute_command("CLIENT", "GETREDIR")), int(redirect))
        data.set("user:1", "a")
        self.assertEqual(data.get("user:1"), b"a")
        data.mget("user:2", "user:3")

        writer = self.client()
        writer.set("user:1", "b")
        m = wait_message(pubsub)
        self.assertEqual(m["channel"], b"__redis__:invalidate")
        self.assertEqual(m["data"], [b"user:1"])
        writer.set("user:1", "c")  # forgotten until read again: no second message
        writer.set("user:2", "x")
        self.assertEqual(wait_message(pubsub)["data"], [b"user:2"])

        writer.flushall()
        self.assertIsNone(wait_message(pubsub)["data"])

        # The pub/sub connection goes away: the data connection's redirect is broken.
        data.get("user:3")
        pubsub.close()
        time.sleep(0.2)
        writer.set("user:3", "y")
        info = data.execute_command("CLIENT", "TRACKINGINFO")
        flags = set(info[1])
        self.assertIn(b"broken_redirect", flags)
        line = data.execute_command("CLIENT", "INFO").decode()
        self.assertIn(" flags=tR ", line)

    def test_resp3_pushes_on_the_same_connection(self):
        c = self.server.client()
        self.addCleanup(c.close)
        c.hello(3)
        self.assertEqual(c.call_raw("CLIENT", "TRACKING", "on"), b"+OK\r\n")
        c.call_raw("GET", "k")
        w = self.client()
        w.set("k", "1")
        push_k = b">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"
        self.assertEqual(c.read_raw(), push_k)
        # Its own write: the reply first, then the push.
        c.call_raw("GET", "k")
        self.assertEqual(c.call_raw("SET", "k", "2"), b"+OK\r\n")
        self.assertEqual(c.read_raw(), push_k)
        # BCAST: one message per batch for every key under the prefix, sorted.
        self.assertEqual(c.call_raw("CLIENT", "TRACKING", "off"), b"+OK\r\n")
        self.assertEqual(c.call_raw("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "job:"),
                         b"+OK\r\n")
        w.mset({"job:2": "a", "job:1": "b", "other": "c"})
        self.assertEqual(c.read_raw(),
                         b">2\r\n$10\r\ninvalidate\r\n*2\r\n$5\r\njob:1\r\n$5\r\njob:2\r\n")
        self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")


if __name__ == "__main__":
    runner.main()
