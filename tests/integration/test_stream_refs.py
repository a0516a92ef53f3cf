"""Redis 8.2 stream references over real sockets, in RESP2 and RESP3: XDELEX, XACKDEL, and
KEEPREF | DELREF | ACKED on XADD and XTRIM with several consumer groups; errors change nothing;
every change survives a restart through the AOF.

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist.
"""

import unittest

from stream8_helpers import Conn, Err, each_proto
from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")


@needs_streamd
class StreamRefsTest(servers.SharedStreamdTest, unittest.TestCase):
    def each_proto(self):
        return each_proto(self, self.server)

    def setup_two_groups(self, c, n=3):
        ids = [c("XADD", "s", f"{i}-0", "f", str(i)) for i in range(1, n + 1)]
        self.assertEqual(c("XGROUP", "CREATE", "s", "g1", "0"), b"OK")
        self.assertEqual(c("XGROUP", "CREATE", "s", "g2", "0"), b"OK")
        return ids

    def pending(self, c, group):
        return c("XPENDING", "s", group)[0]

    # -- XDELEX ---------------------------------------------------------------------------------

    def test_xdelex_documented_example(self):
        # valkey.io / redis.io example: ACKED keeps a pending entry until it is acknowledged.
        for c in self.each_proto():
            c("XADD", "s4", "1-0", "a", "1")
            c("XGROUP", "CREATE", "s4", "grp", "0")
            c("XREADGROUP", "GROUP", "grp", "cons1", "COUNT", "10", "STREAMS", "s4", ">")
            self.assertEqual(c("XDELEX", "s4", "ACKED", "IDS", "1", "1-0"), [2])
            self.assertEqual(c("XLEN", "s4"), 1)
            self.assertEqual(c("XACK", "s4", "grp", "1-0"), 1)
            self.assertEqual(c("XDELEX", "s4", "ACKED", "IDS", "1", "1-0"), [1])
            self.assertEqual(c("XLEN", "s4"), 0)

    def test_xdelex_modes_with_two_groups(self):
        for c in self.each_proto():
            self.setup_two_groups(c)
            c("XREADGROUP", "GROUP", "g1", "a", "STREAMS", "s", ">")
            c("XREADGROUP", "GROUP", "g2", "b", "COUNT", "2", "STREAMS", "s", ">")
            # Default KEEPREF: deleted, both PELs keep 1-0; a missing ID is -1.
            self.assertEqual(c("XDELEX", "s", "IDS", "2", "1-0", "9-0"), [1, -1])
            self.assertEqual(self.pending(c, "g1"), 3)
            self.assertEqual(self.pending(c, "g2"), 2)
            # DELREF on the dangling 1-0: -1, but the references go.
            self.assertEqual(c("XDELEX", "s", "DELREF", "IDS", "1", "1-0"), [-1])
            self.assertEqual(self.pending(c, "g1"), 2)
            self.assertEqual(self.pending(c, "g2"), 1)
            # DELREF on a live one: deleted everywhere (group and consumer PELs).
            self.assertEqual(c("XDELEX", "s", "IDS", "1", "2-0", "DELREF"), [1])
            self.assertEqual(self.pending(c, "g2"), 0)
            self.assertEqual(c("XPENDING", "s", "g2", "-", "+", "10", "b"), [])
            # ACKED: 3-0 is pending in g1 and undelivered in g2.
            self.assertEqual(c("XDELEX", "s", "ACKED", "IDS", "1", "3-0"), [2])
            c("XACK", "s", "g1", "3-0")
            self.assertEqual(c("XDELEX", "s", "ACKED", "IDS", "1", "3-0"), [2])
            c("XREADGROUP", "GROUP", "g2", "b", "STREAMS", "s", ">")
            c("XACK", "s", "g2", "3-0")
            self.assertEqual(c("XDELEX", "s", "ACKED", "IDS", "1", "3-0"), [1])
            self.assertEqual(c("XLEN", "s"), 0)
            # A missing key: -1 for each ID.
            self.assertEqual(c("XDELEX", "nokey", "IDS", "2", "1-0", "2-0"), [-1, -1])

    def test_xdelex_errors_change_nothing(self):
        for c in self.each_proto():
            self.setup_two_groups(c)
            cases = [
                (("XDELEX", "s", "IDS", "0", "1-0"), "ERR Number of IDs must be a positive integer"),
                (("XDELEX", "s", "IDS", "x", "1-0"), "ERR Number of IDs must be a positive integer"),
                (("XDELEX", "s", "IDS", "3", "1-0", "2-0"),
                 "ERR The `numids` parameter must match the number of arguments"),
                (("XDELEX", "s", "IDS", "2", "1-0", "bad"),
                 "ERR Invalid stream ID specified as stream command argument"),
                (("XDELEX", "s", "IDS", "1", "1-0", "2-0"), "ERR syntax error"),
                (("XDELEX", "s", "KEEPREF", "ACKED", "1-0"), "ERR syntax error"),
                (("XDELEX", "s", "FOO", "IDS", "1", "1-0"), "ERR syntax error"),
                (("XDELEX", "s", "IDS", "1"), "ERR wrong number of arguments for 'xdelex' command"),
                (("XACKDEL", "s", "g1", "IDS", "1"),
                 "ERR wrong number of arguments for 'xackdel' command"),
            ]
            for args, text in cases:
                self.assertEqual(c(*args), Err(text), args)
            self.assertEqual(c("XLEN", "s"), 3)
            c("SET", "str", "x")
            self.assertTrue(c("XDELEX", "str", "IDS", "1", "1-0").startswith("WRONGTYPE"))
            self.assertTrue(c("XACKDEL", "str", "g", "IDS", "1", "1-0").startswith("WRONGTYPE"))

    # -- XACKDEL --------------------------------------------------------------------------------

    def test_xackdel_documented_example(self):
        for c in self.each_proto():
            c("XADD", "s5", "1-0", "a", "1")
            c("XGROUP", "CREATE", "s5", "g1", "0")
            c("XGROUP", "CREATE", "s5", "g2", "0")
            c("XREADGROUP", "GROUP", "g1", "cons1", "COUNT", "10", "STREAMS", "s5", ">")
            self.assertEqual(c("XACKDEL", "s5", "g1", "ACKED", "IDS", "1", "1-0"), [2])
            self.assertEqual(c("XLEN", "s5"), 1)
            c("XREADGROUP", "GROUP", "g2", "cons2", "COUNT", "10", "STREAMS", "s5", ">")
            self.assertEqual(c("XACKDEL", "s5", "g2", "ACKED", "IDS", "1", "1-0"), [1])
            self.assertEqual(c("XLEN", "s5"), 0)

    def test_xackdel_modes(self):
        for c in self.each_proto():
            self.setup_two_groups(c)
            c("XREADGROUP", "GROUP", "g1", "a", "STREAMS", "s", ">")
            c("XREADGROUP", "GROUP", "g2", "b", "STREAMS", "s", ">")
            # KEEPREF: acked in g1 and deleted; g2 keeps its reference.
            self.assertEqual(c("XACKDEL", "s", "g1", "IDS", "1", "1-0"), [1])
            self.assertEqual((self.pending(c, "g1"), self.pending(c, "g2")), (2, 3))
            # DELREF: acked in g1, deleted, and dropped from g2.
            self.assertEqual(c("XACKDEL", "s", "g1", "DELREF", "IDS", "1", "2-0"), [1])
            self.assertEqual((self.pending(c, "g1"), self.pending(c, "g2")), (1, 2))
            # ACKED: still pending in g2, so acked in g1 only.
            self.assertEqual(c("XACKDEL", "s", "g1", "ACKED", "IDS", "2", "3-0", "7-0"), [2, -1])
            self.assertEqual((self.pending(c, "g1"), self.pending(c, "g2")), (0, 2))
            self.assertEqual(c("XLEN", "s"), 1)
            # Missing group or key: -1 each, nothing changes.
            self.assertEqual(c("XACKDEL", "s", "nogroup", "IDS", "1", "3-0"), [-1])
            self.assertEqual(c("XACKDEL", "nokey", "g1", "IDS", "2", "3-0", "1-0"), [-1, -1])
            self.assertEqual(self.pending(c, "g2"), 2)

    # -- XADD / XTRIM with a policy -------------------------------------------------------------

    def test_xtrim_delref_and_acked_with_two_groups(self):
        for c in self.each_proto():
            self.setup_two_groups(c, 6)
            c("XREADGROUP", "GROUP", "g1", "a", "STREAMS", "s", ">")
            c("XREADGROUP", "GROUP", "g2", "b", "COUNT", "4", "STREAMS", "s", ">")
            c("XACK", "s", "g1", "1-0", "3-0", "4-0")
            c("XACK", "s", "g2", "1-0", "3-0", "4-0")
            # ACKED: only 1, 3 and 4 are read and acknowledged by both groups.
            self.assertEqual(c("XTRIM", "s", "MAXLEN", "0", "ACKED"), 3)
            self.assertEqual([e[0] for e in c("XRANGE", "s", "-", "+")], [b"2-0", b"5-0", b"6-0"])
            # KEEPREF (default): trims 2-0, references stay.
            self.assertEqual(c("XTRIM", "s", "MAXLEN", "2"), 1)
            self.assertEqual((self.pending(c, "g1"), self.pending(c, "g2")), (3, 1))
            # DELREF: trims 5-0 and drops every reference below the new first entry.
            self.assertEqual(c("XTRIM", "s", "MINID", "6-0", "DELREF"), 1)
            self.assertEqual((self.pending(c, "g1"), self.pending(c, "g2")), (1, 0))
            self.assertEqual(c("XPENDING", "s", "g1")[1], b"6-0")

    def test_xadd_with_policy(self):
        for c in self.each_proto():
            self.setup_two_groups(c, 3)
            c("XREADGROUP", "GROUP", "g1", "a", "STREAMS", "s", ">")
            c("XREADGROUP", "GROUP", "g2", "b", "STREAMS", "s", ">")
            self.assertEqual(c("XADD", "s", "ACKED", "MAXLEN", "1", "4-0", "f", "4"), b"4-0")
            self.assertEqual(c("XLEN", "s"), 4)  # everything is still pending
            self.assertEqual(c("XADD", "s", "DELREF", "MAXLEN", "2", "5-0", "f", "5"), b"5-0")
            self.assertEqual(c("XLEN", "s"), 2)
            self.assertEqual((self.pending(c, "g1"), self.pending(c, "g2")), (0, 0))
            self.assertEqual(c("XADD", "s", "KEEPREF", "*", "f", "6")[-2:], b"-0")
            self.assertEqual(c("XLEN", "s"), 3)

    def test_changes_survive_restart(self):
        server = servers.start_streamd("--appendonly", "yes")
        self.addCleanup(server.cleanup)
        c = Conn(server, 2)
        self.setup_two_groups(c, 6)
        c("XREADGROUP", "GROUP", "g1", "a", "STREAMS", "s", ">")
        c("XREADGROUP", "GROUP", "g2", "b", "COUNT", "4", "STREAMS", "s", ">")
        c("XACK", "s", "g1", "1-0", "3-0")
        c("XACK", "s", "g2", "1-0", "3-0")
        c("XTRIM", "s", "MAXLEN", "0", "ACKED")
        c("XDELEX", "s", "DELREF", "IDS", "1", "4-0")
        c("XACKDEL", "s", "g1", "KEEPREF", "IDS", "1", "2-0")
        c("XADD", "s", "DELREF", "MINID", "6-0", "7-0", "f", "7")
        before = [c("XRANGE", "s", "-", "+"), c("XPENDING", "s", "g1", "-", "+", "10"),
                  c("XPENDING", "s", "g2", "-", "+", "10"), c("XINFO", "GROUPS", "s")]
        c.raw.send_command("SHUTDOWN")
        c.close()
        self.assertEqual(server.wait(10), 0)
        server.start()
        server.wait_ready()
        c = Conn(server, 2)
        after = [c("XRANGE", "s", "-", "+"), c("XPENDING", "s", "g1", "-", "+", "10"),
                 c("XPENDING", "s", "g2", "-", "+", "10"), c("XINFO", "GROUPS", "s")]
        # Idle times in XPENDING move; compare everything else.
        for rows in (1, 2):
            before[rows] = [r[:2] + r[3:] for r in before[rows]]
            after[rows] = [r[:2] + r[3:] for r in after[rows]]
        self.assertEqual(after, before)
        c.close()


if __name__ == "__main__":
    runner.main()
