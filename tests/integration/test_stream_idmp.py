"""Redis 8.6 idempotent production over real sockets, in RESP2 and RESP3: XADD IDMP / IDMPAUTO,
XCFGSET, the IDMP fields of XINFO STREAM [FULL], and duplicates still detected after a restart
through the AOF (appendonly yes, SHUTDOWN, start again), also after BGREWRITEAOF.

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist.
"""

import time
import unittest

from stream8_helpers import Conn, Err, each_proto
from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")

IDMP_FIELDS = [b"idmp-duration", b"idmp-maxsize", b"pids-tracked", b"iids-tracked",
               b"iids-added", b"iids-duplicates"]


def info_map(reply):
    if isinstance(reply, dict):
        return reply
    return {reply[i]: reply[i + 1] for i in range(0, len(reply), 2)}


@needs_streamd
class StreamIdmpTest(servers.SharedStreamdTest, unittest.TestCase):
    def each_proto(self):
        return each_proto(self, self.server)

    def test_documented_examples(self):
        for c in self.each_proto():
            first = c("XADD", "mystream", "IDMP", "producer1", "msg1", "*", "field", "value")
            again = c("XADD", "mystream", "IDMP", "producer1", "msg1", "*", "field", "other")
            self.assertEqual(again, first)
            self.assertEqual(c("XLEN", "mystream"), 1)
            # Producers are isolated: the same iid under another pid is a new entry.
            other = c("XADD", "mystream", "IDMP", "producer-2", "msg1", "*", "field", "value")
            self.assertNotEqual(other, first)
            # IDMPAUTO: the iid is the content.
            a = c("XADD", "mystream", "IDMPAUTO", "p3", "*", "f", "1", "g", "2")
            self.assertEqual(c("XADD", "mystream", "IDMPAUTO", "p3", "*", "f", "1", "g", "2"), a)
            b = c("XADD", "mystream", "IDMPAUTO", "p3", "*", "g", "2", "f", "1")
            self.assertNotEqual(b, a)
            self.assertEqual(c("XLEN", "mystream"), 4)
            info = info_map(c("XINFO", "STREAM", "mystream"))
            self.assertEqual(list(info)[7:13], IDMP_FIELDS)
            self.assertEqual([info[k] for k in IDMP_FIELDS], [100, 100, 3, 4, 4, 2])

    def test_duplicate_of_a_deleted_entry_returns_its_id(self):
        for c in self.each_proto():
            first = c("XADD", "s", "IDMP", "p", "i", "*", "f", "v")
            c("XDEL", "s", first)
            self.assertEqual(c("XADD", "s", "IDMP", "p", "i", "*", "f", "v"), first)
            self.assertEqual(c("XLEN", "s"), 0)

    def test_plain_stream_has_the_idmp_fields_with_defaults(self):
        # Newest Redis (redis-py 8.1.0's test_xinfo_stream_idempotent_fields): every stream
        # carries them, a stream that never used IDMP with 100, 100, 0, 0, 0, 0.
        for c in self.each_proto():
            c("XADD", "s", "*", "f", "v")
            for args, n in ((("XINFO", "STREAM", "s"), 16), (("XINFO", "STREAM", "s", "FULL"), 15)):
                info = info_map(c(*args))
                self.assertEqual(len(info), n)
                self.assertEqual(list(info)[7:13], IDMP_FIELDS)
                self.assertEqual([info[k] for k in IDMP_FIELDS], [100, 100, 0, 0, 0, 0])
            self.assertEqual(c("XCFGSET", "s", "IDMP-MAXSIZE", "100"), b"OK")
            self.assertEqual(len(info_map(c("XINFO", "STREAM", "s"))), 16)
            full = info_map(c("XINFO", "STREAM", "s", "FULL"))
            self.assertEqual(len(full), 15)
            self.assertEqual(full[b"idmp-maxsize"], 100)

    def test_xcfgset(self):
        for c in self.each_proto():
            self.assertEqual(c("XCFGSET", "nokey", "IDMP-DURATION", "5"), Err("ERR no such key"))
            c("XADD", "s", "IDMP", "p", "a", "*", "f", "v")
            c("XADD", "s", "IDMP", "p", "b", "*", "f", "v")
            # Same values: the map stays.
            self.assertEqual(c("XCFGSET", "s", "IDMP-DURATION", "100", "IDMP-MAXSIZE", "100"),
                             b"OK")
            self.assertEqual(info_map(c("XINFO", "STREAM", "s"))[b"iids-tracked"], 2)
            # New values clear it.
            self.assertEqual(c("XCFGSET", "s", "IDMP-MAXSIZE", "1"), b"OK")
            info = info_map(c("XINFO", "STREAM", "s"))
            self.assertEqual((info[b"idmp-maxsize"], info[b"iids-tracked"]), (1, 0))
            ids = [c("XADD", "s", "IDMP", "p", iid, "*", "f", "v") for iid in ("x", "y")]
            # MAXSIZE 1: only y is remembered; x is new again.
            self.assertEqual(c("XADD", "s", "IDMP", "p", "y", "*", "f", "v"), ids[1])
            self.assertNotEqual(c("XADD", "s", "IDMP", "p", "x", "*", "f", "v"), ids[0])
            # Errors change nothing.
            for args, text in [
                (("XCFGSET", "s"), "ERR XCFGSET requires at least one of IDMP-DURATION or "
                                   "IDMP-MAXSIZE"),
                (("XCFGSET", "s", "IDMP-DURATION", "0"),
                 "ERR IDMP-DURATION must be between 1 and 86400 seconds"),
                (("XCFGSET", "s", "IDMP-DURATION", "86401"),
                 "ERR IDMP-DURATION must be between 1 and 86400 seconds"),
                (("XCFGSET", "s", "IDMP-MAXSIZE", "10001"),
                 "ERR IDMP-MAXSIZE must be between 1 and 10000"),
                (("XCFGSET", "s", "IDMP-MAXSIZE", "x"),
                 "ERR value is not an integer or out of range"),
                (("XCFGSET", "s", "IDMP-MAXSIZE"), "ERR syntax error"),
                (("XCFGSET", "s", "FOO", "1"), "ERR syntax error"),
            ]:
                self.assertEqual(c(*args), Err(text), args)
            self.assertEqual(info_map(c("XINFO", "STREAM", "s"))[b"idmp-maxsize"], 1)

    def test_duration_expiry(self):
        for c in self.each_proto():
            c("XADD", "s", "*", "f", "v")
            c("XCFGSET", "s", "IDMP-DURATION", "1")
            first = c("XADD", "s", "IDMP", "p", "i", "*", "f", "v")
            self.assertEqual(c("XADD", "s", "IDMP", "p", "i", "*", "f", "v"), first)
            time.sleep(1.1)
            self.assertNotEqual(c("XADD", "s", "IDMP", "p", "i", "*", "f", "v"), first)
            info = info_map(c("XINFO", "STREAM", "s"))
            self.assertEqual((info[b"pids-tracked"], info[b"iids-tracked"]), (1, 1))

    def test_xadd_errors(self):
        for c in self.each_proto():
            for args, text in [
                (("XADD", "s", "IDMP", "p", "i", "1-1", "f", "v"),
                 "ERR IDMP and IDMPAUTO can be used only with auto-generated IDs"),
                (("XADD", "s", "IDMPAUTO", "p", "1-1", "f", "v"),
                 "ERR IDMP and IDMPAUTO can be used only with auto-generated IDs"),
                (("XADD", "s", "IDMP", "", "i", "*", "f", "v"),
                 "ERR IDMP pid and iid must not be empty"),
                (("XADD", "s", "IDMP", "p", "i", "*", "f"),
                 "ERR wrong number of arguments for 'xadd' command"),
            ]:
                self.assertEqual(c(*args), Err(text), args)
            self.assertEqual(c("EXISTS", "s"), 0)
            # NOMKSTREAM still applies.
            self.assertIsNone(c("XADD", "s", "NOMKSTREAM", "IDMP", "p", "i", "*", "f", "v"))

    def test_state_survives_restart_and_rewrite(self):
        server = servers.start_streamd("--appendonly", "yes")
        self.addCleanup(server.cleanup)
        c = Conn(server, 2)
        c("XADD", "s", "*", "f", "0")
        c("XCFGSET", "s", "IDMP-DURATION", "300", "IDMP-MAXSIZE", "3")
        ids = {iid: c("XADD", "s", "IDMP", "p1", iid, "*", "f", iid) for iid in "abcd"}
        auto = c("XADD", "s", "IDMPAUTO", "p2", "*", "x", "y")
        before = info_map(c("XINFO", "STREAM", "s"))

        def restart():
            nonlocal c
            c.raw.send_command("SHUTDOWN")
            c.close()
            self.assertEqual(server.wait(10), 0)
            server.start()
            server.wait_ready()
            c = Conn(server, 2)

        for round_ in ("restart", "rewrite"):
            with self.subTest(round_=round_):
                if round_ == "rewrite":
                    self.assertEqual(c("BGREWRITEAOF")[:10], b"Background")
                    for _ in range(100):
                        if info_map_persistence(c).get(b"aof_rewrite_in_progress", b"0") == b"0":
                            break
                        time.sleep(0.05)
                restart()
                # Still duplicates: same IDs back, nothing added.
                for iid in "bcd":
                    self.assertEqual(c("XADD", "s", "IDMP", "p1", iid, "*", "f", iid), ids[iid])
                self.assertEqual(c("XADD", "s", "IDMPAUTO", "p2", "*", "x", "y"), auto)
                self.assertEqual(c("XLEN", "s"), 6)
                after = info_map(c("XINFO", "STREAM", "s"))
                for k in (b"idmp-duration", b"idmp-maxsize", b"pids-tracked", b"iids-tracked"):
                    self.assertEqual(after[k], before[k], k)
        # "a" was evicted by MAXSIZE 3 before the restart: it is new.
        self.assertNotEqual(c("XADD", "s", "IDMP", "p1", "a", "*", "f", "a"), ids["a"])
        c.close()


def info_map_persistence(c):
    text = c("INFO", "persistence")
    out = {}
    for line in text.split(b"\r\n"):
        if b":" in line:
            k, v = line.split(b":", 1)
            out[k] = v
    return out


if __name__ == "__main__":
    runner.main()
