"""Keyspace notifications over real sockets: redis-py's PSUBSCRIBE '__key*__:*' sees Redis's
events in command order (stream, string and generic commands, MULTI/EXEC, lazy and active
expiry with short TTLs); notify-keyspace-events from the command line, a config file and CONFIG
SET; a RESP3 client subscribed to its own keys gets the event after the command's reply (newest
Redis); nothing of it reaches the AOF.

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist.
"""

import tempfile
import time
import unittest
from pathlib import Path

from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")


class Subscriber:
    """redis-py PubSub on '__key*__:*' that hands back (channel, message) pairs."""

    def __init__(self, server):
        self.client = server.redis_py(decode_responses=True)
        self.ps = self.client.pubsub()
        self.ps.psubscribe("__key*__:*")
        first = self.ps.get_message(timeout=5)
        assert first and first["type"] == "psubscribe", first

    def take(self, n, timeout=5.0):
        """Exactly n messages (fails on a timeout), then checks nothing else is queued."""
        got = []
        deadline = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < deadline:
            m = self.ps.get_message(timeout=0.1)
            if m and m["type"] == "pmessage":
                got.append((m["channel"], m["data"]))
        extra = self.ps.get_message(timeout=0.05)
        assert extra is None, f"unexpected extra message {extra!r} after {got!r}"
        return got

    def close(self):
        self.ps.close()
        self.client.close()


def events(pairs):
    """The keyevent messages as 'event key' strings (the keyspace twins are checked apart)."""
    out = []
    for channel, message in pairs:
        if channel.startswith("__keyevent@"):
            out.append(channel.split("__:", 1)[1] + " " + message)
    return out


@needs_streamd
class KeyspaceNotificationsTest(servers.SharedStreamdTest, unittest.TestCase):
    server_args = ("--notify-keyspace-events", "KEA")

    def setUp(self):
        super().setUp()
        self.r = self.server.redis_py(decode_responses=True)
        self.r.config_set("notify-keyspace-events", "KEA")
        self.sub = Subscriber(self.server)

    def tearDown(self):
        self.sub.close()
        self.r.close()

    def test_flag_sets_the_directive(self):
        self.assertEqual(self.r.config_get("notify-keyspace-events"),
                         {"notify-keyspace-events": "AKE"})

    def test_keyspace_and_keyevent_channels_in_order(self):
        self.r.set("k", "v")
        self.assertEqual(self.sub.take(2), [("__keyspace@0__:k", "set"),
                                            ("__keyevent@0__:set", "k")])
        db3 = self.server.redis_py(decode_responses=True, db=3)
        db3.delete("nosuch")
        db3.set("k3", "v")
        self.assertEqual(self.sub.take(2), [("__keyspace@3__:k3", "set"),
                                            ("__keyevent@3__:set", "k3")])
        db3.close()

    def test_stream_commands(self):
        r = self.r
        r.xadd("s", {"f": "v"}, id="1-1")
        r.xadd("s", {"f": "v"}, id="2-1", maxlen=1, approximate=False)
        r.xtrim("s", maxlen=0, approximate=False)
        r.xadd("s", {"f": "v"}, id="3-1")
        r.xdel("s", "3-1")
        r.execute_command("XSETID", "s", "5-0")
        r.xgroup_create("s", "g", id="0")
        r.xgroup_createconsumer("s", "g", "c1")
        r.xgroup_setid("s", "g", id="0")
        r.xgroup_delconsumer("s", "g", "c1")
        r.xadd("s", {"f": "v"}, id="6-1")
        r.xreadgroup("g", "reader", {"s": ">"})
        r.xclaim("s", "g", "claimer", 0, ["6-1"])
        r.xack("s", "g", "6-1")
        r.xgroup_destroy("s", "g")
        self.assertEqual(events(self.sub.take(30)), [
            "xadd s", "xadd s", "xtrim s", "xtrim s", "xadd s", "xdel s", "xsetid s",
            "xgroup-create s", "xgroup-createconsumer s", "xgroup-setid s",
            "xgroup-delconsumer s", "xadd s", "xgroup-createconsumer s",
            "xgroup-createconsumer s", "xgroup-destroy s"])

    def test_string_and_generic_commands(self):
        r = self.r
        r.set("a", "1", px=50000)
        r.incr("a")
        r.incrbyfloat("a", 0.5)
        r.append("a", "0")
        r.persist("a")
        r.rename("a", "b")
        r.execute_command("MOVE", "b", "2")
        r.getdel("nosuch")
        r.delete("nosuch")
        got = self.sub.take(20)
        self.assertEqual(events(got), [
            "set a", "expire a", "incrby a", "incrbyfloat a", "append a", "persist a",
            "rename_from a", "rename_to b", "move_from b", "move_to b"])
        self.assertEqual(got[-2:], [("__keyspace@2__:b", "move_to"),
                                    ("__keyevent@2__:move_to", "b")])

    def test_multi_exec_events_in_command_order(self):
        p = self.r.pipeline(transaction=True)
        p.set("x", "1")
        p.xadd("s", {"f": "v"}, id="1-1")
        p.delete("x")
        p.expire("s", 100)
        p.execute()
        self.assertEqual(events(self.sub.take(8)), ["set x", "xadd s", "del x", "expire s"])

    def test_expired_lazily_and_actively(self):
        r = self.r
        # Active: the expiry cycle (hz 10) removes it without any command touching it.
        r.set("active", "v", px=50)
        self.assertEqual(events(self.sub.take(4)), ["set active", "expire active"])
        self.assertEqual(events(self.sub.take(2, timeout=3)), ["expired active"])
        # Lazy: DEBUG SLEEP holds the server past the TTL (no cycle runs), then GET, sent in
        # the same packet, finds the key expired.
        dbg = servers.start_streamd("--notify-keyspace-events", "KEx",
                                    "--enable-debug-command", "yes")
        try:
            sub = Subscriber(dbg)
            with dbg.client() as c:
                c.call_raw("SET", "lazy", "v", "PX", "100")
                c.send_raw(b"DEBUG SLEEP 0.3\r\nGET lazy\r\n")
                self.assertEqual(c.read_raw(), b"+OK\r\n")
                self.assertEqual(c.read_raw(), b"$-1\r\n")
            self.assertEqual(sub.take(2), [("__keyspace@0__:lazy", "expired"),
                                           ("__keyevent@0__:expired", "lazy")])
            sub.close()
        finally:
            dbg.cleanup()

    def test_runtime_config_set(self):
        self.r.config_set("notify-keyspace-events", "Et")
        self.r.set("ignored", "v")
        self.r.xadd("s", {"f": "v"}, id="1-1")
        self.assertEqual(self.sub.take(1), [("__keyevent@0__:xadd", "s")])
        self.r.config_set("notify-keyspace-events", "")
        self.r.xadd("s", {"f": "v"}, id="2-1")
        self.assertEqual(self.sub.take(0), [])

    def test_resp3_own_event_follows_the_reply(self):
        with self.server.client() as c:
            c.hello(3)
            c.call_raw("SUBSCRIBE", "__keyspace@0__:mine")
            c.send_command("SET", "mine", "v")
            self.assertEqual(c.read_raw(), b"+OK\r\n")
            self.assertEqual(
                c.read_raw(),
                b">3\r\n$7\r\nmessage\r\n$19\r\n__keyspace@0__:mine\r\n$3\r\nset\r\n")
        self.sub.take(2)


@needs_streamd
class NotificationConfigAndAofTest(unittest.TestCase):
    def test_config_file_and_no_aof_records(self):
        d = Path(tempfile.mkdtemp(prefix="streamd-notify-"))
        conf = d / "streamd.conf"
        conf.write_text("notify-keyspace-events Kx$\nappendonly yes\nappendfsync always\n")
        s = servers.start_streamd(config_file=conf)
        try:
            r = s.redis_py(decode_responses=True)
            self.assertEqual(r.config_get("notify-keyspace-events"),
                             {"notify-keyspace-events": "$xK"})
            sub = Subscriber(s)
            r.set("k", "v", px=100)
            r.xadd("s", {"f": "v"}, id="1-1")  # class t is off
            self.assertEqual(sub.take(1), [("__keyspace@0__:k", "set")])
            self.assertEqual(sub.take(1, timeout=3), [("__keyspace@0__:k", "expired")])
            sub.close()
            r.close()
            aof = b"".join(p.read_bytes() for p in (s.workdir / "appendonlydir").iterdir()
                           if p.suffix == ".aof")
            self.assertIn(b"XADD", aof)
            for absent in (b"PUBLISH", b"__keyspace", b"__keyevent"):
                self.assertNotIn(absent, aof)
        finally:
            s.cleanup()


if __name__ == "__main__":
    runner.main()
