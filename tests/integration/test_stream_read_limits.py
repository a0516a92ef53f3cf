"""Redis 8.10 XREAD / XREADGROUP MAXCOUNT and MAXSIZE over real sockets, in RESP2 and RESP3:
cumulative caps across streams (COUNT stays per stream), streams served in command order, an
entry larger than MAXSIZE still served when it is the first, errors.

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist.
"""

import unittest

from stream8_helpers import Conn, Err, each_proto, entry_count, stream_map, to_py
from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")


def entry_size(entry_id: bytes, fields: list) -> int:
    """RESP bytes of [id, [f, v, ...]] (what MAXSIZE counts)."""
    def bulk(b):
        return len(f"${len(b)}\r\n") + len(b) + 2
    return len("*2\r\n") + bulk(entry_id) + len(f"*{len(fields)}\r\n") + sum(bulk(f) for f in fields)


@needs_streamd
class StreamReadLimitsTest(servers.SharedStreamdTest, unittest.TestCase):
    def each_proto(self):
        # Three streams of three entries each, in each protocol.
        for c in each_proto(self, self.server):
            for key in ("s1", "s2", "s3"):
                for i in range(1, 4):
                    c("XADD", key, f"{i}-0", "f", f"{key}-{i}")
            yield c

    def test_maxcount_documented_example(self):
        for c in self.each_proto():
            r = c("XREAD", "COUNT", "2", "STREAMS", "s1", "s2", "s3", "0", "0", "0")
            self.assertEqual(entry_count(r), 6)
            # 2 from s1, 1 from s2, s3 not served (and not listed).
            r = stream_map(c("XREAD", "COUNT", "2", "MAXCOUNT", "3", "STREAMS", "s1", "s2", "s3",
                             "0", "0", "0"))
            self.assertEqual(list(r), [b"s1", b"s2"])
            self.assertEqual([len(v) for v in r.values()], [2, 1])
            r = stream_map(c("XREAD", "MAXCOUNT", "4", "STREAMS", "s1", "s2", "0", "0"))
            self.assertEqual([len(v) for v in r.values()], [3, 1])

    def test_maxsize_caps_the_reply(self):
        for c in self.each_proto():
            one = entry_size(b"1-0", [b"f", b"s1-1"])
            # Room for exactly two entries.
            r = stream_map(c("XREAD", "MAXSIZE", str(2 * one), "STREAMS", "s1", "s2", "0", "0"))
            self.assertEqual(entry_count(r), 2)
            r = stream_map(c("XREAD", "MAXSIZE", str(4 * one), "STREAMS", "s1", "s2", "0", "0"))
            self.assertEqual([len(v) for v in r.values()], [3, 1])
            # One byte short of the fourth: three.
            r = c("XREAD", "MAXSIZE", str(4 * one - 1), "STREAMS", "s1", "s2", "0", "0")
            self.assertEqual(entry_count(r), 3)

    def test_entry_larger_than_maxsize_is_still_served_first(self):
        for c in self.each_proto():
            big = "x" * 5000
            c("XADD", "big", "1-0", "payload", big)
            c("XADD", "big", "2-0", "payload", big)
            r = stream_map(c("XREAD", "MAXSIZE", "100", "STREAMS", "big", "s1", "0", "0"))
            self.assertEqual(list(r), [b"big"])
            self.assertEqual(len(r[b"big"]), 1)
            self.assertEqual(r[b"big"][0][1], [b"payload", big.encode()])
            # Not first: a small entry first, then the big one does not fit.
            r = stream_map(c("XREAD", "MAXSIZE", "100", "STREAMS", "s1", "big", "2", "0"))
            self.assertEqual(list(r), [b"s1"])
            self.assertEqual(len(r[b"s1"]), 1)
            # XREADGROUP delivers (and records as pending) exactly what it returns.
            c("XGROUP", "CREATE", "big", "g", "0")
            r = stream_map(c("XREADGROUP", "GROUP", "g", "c", "MAXSIZE", "100", "STREAMS", "big",
                             ">"))
            self.assertEqual(len(r[b"big"]), 1)
            self.assertEqual(c("XPENDING", "big", "g")[0], 1)
            r = stream_map(c("XREADGROUP", "GROUP", "g", "c", "MAXSIZE", "100", "STREAMS", "big",
                             ">"))
            self.assertEqual([e[0] for e in r[b"big"]], [b"2-0"])
            # An empty read stays empty (null).
            self.assertIsNone(c("XREADGROUP", "GROUP", "g", "c", "MAXSIZE", "100", "STREAMS",
                                "big", ">"))

    def test_xreadgroup_maxcount_across_streams(self):
        for c in self.each_proto():
            for key in ("s1", "s2", "s3"):
                c("XGROUP", "CREATE", key, "g", "0")
            r = stream_map(c("XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "MAXCOUNT", "3",
                             "STREAMS", "s1", "s2", "s3", ">", ">", ">"))
            self.assertEqual([len(v) for v in r.values()], [2, 1])
            # The PELs hold exactly what was delivered; the next read continues from there.
            self.assertEqual([c("XPENDING", k, "g")[0] for k in ("s1", "s2", "s3")], [2, 1, 0])
            r = stream_map(c("XREADGROUP", "GROUP", "g", "c", "MAXCOUNT", "3", "STREAMS", "s1",
                             "s2", "s3", ">", ">", ">"))
            self.assertEqual({k: [e[0] for e in v] for k, v in r.items()},
                             {b"s1": [b"3-0"], b"s2": [b"2-0", b"3-0"]})
            # History reads share the budget.
            r = stream_map(c("XREADGROUP", "GROUP", "g", "c", "MAXCOUNT", "4", "STREAMS", "s1",
                             "s2", "0", "0"))
            self.assertEqual([len(v) for v in r.values()], [3, 1])

    def test_errors(self):
        for c in self.each_proto():
            for args, text in [
                (("XREAD", "MAXCOUNT", "0", "STREAMS", "s1", "0"),
                 "ERR MAXCOUNT must be a positive integer"),
                (("XREAD", "MAXCOUNT", "-1", "STREAMS", "s1", "0"),
                 "ERR MAXCOUNT must be a positive integer"),
                (("XREAD", "MAXCOUNT", "x", "STREAMS", "s1", "0"),
                 "ERR MAXCOUNT must be a positive integer"),
                (("XREAD", "MAXSIZE", "0", "STREAMS", "s1", "0"),
                 "ERR MAXSIZE must be a positive integer"),
                (("XREAD", "COUNT", "5", "MAXCOUNT", "2", "STREAMS", "s1", "0"),
                 "ERR MAXCOUNT must be greater than or equal to COUNT"),
                (("XREADGROUP", "GROUP", "g", "c", "MAXSIZE", "-5", "STREAMS", "s1", ">"),
                 "ERR MAXSIZE must be a positive integer"),
            ]:
                self.assertEqual(c(*args), Err(text), args)

    def test_blocked_read_with_maxcount(self):
        c = Conn(self.server, 2)
        c("DEL", "b1")
        c.raw.send_command("XREAD", "BLOCK", "5000", "MAXCOUNT", "1", "STREAMS", "b1", "$")
        w = Conn(self.server, 2)
        w("MULTI")
        w("XADD", "b1", "*", "a", "1")
        w("XADD", "b1", "*", "a", "2")
        w("EXEC")
        r = stream_map(to_py(c.raw.read()))
        self.assertEqual(entry_count(r), 1)
        c.close()
        w.close()


if __name__ == "__main__":
    runner.main()
