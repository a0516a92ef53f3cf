#!/usr/bin/env python3
"""rdb-version 10: what streamd propagates is Redis 7.0 commands (issue 13/14's interop item).

A streamd master with `rdb-version 10` and an AOF, a Debian redis-server 7.0.15 replica and a
streamd replica. The master runs every Redis 8.2 reference-aware form (KEEPREF / DELREF / ACKED
on XADD and XTRIM, XDELEX, XACKDEL in their three modes, in and out of MULTI, an ACKED walk that
removes entries out of order and one long enough to span several XDEL records); both replicas
and a redis-server 7.0.15 that loads the master's AOF directory must end up with the master's
state (aof_helpers.snapshot: XINFO STREAM FULL with PEL delivery times and counts, XPENDING,
XINFO GROUPS, less the radix-tree layout), and the 7.0 replica must not have logged a single
error. Writes 7.0 has no form for are refused with streamd's error and change nothing; the AOF
loader still replays them (they were accepted under rdb-version 12).

Before this change the 7.0 replica logged "unknown command 'XDELEX'" and "Invalid stream ID"
(XADD ... DELREF) and kept entries the master had removed.
"""

import shutil
import tempfile
import unittest
from pathlib import Path

from aof_helpers import call, diff, snapshot
from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, same_offset, wait_for

needs = unittest.skipUnless(servers.streamd_available() and servers.redis_available(),
                            "streamd or redis-server missing")


def ids(*ns):
    return [f"{n}-1" for n in ns]


def workload(c):
    """Every reference-aware form on stream "s" (two groups) and a long ACKED walk on "big"."""
    for i in range(1, 31):
        call(c, "XADD", "s", f"{i}-1", "n", str(i))
    call(c, "XGROUP", "CREATE", "s", "g1", "0")
    call(c, "XGROUP", "CREATE", "s", "g2", "0")
    call(c, "XREADGROUP", "GROUP", "g1", "a", "COUNT", 20, "STREAMS", "s", ">")
    call(c, "XREADGROUP", "GROUP", "g2", "b", "COUNT", 16, "STREAMS", "s", ">")
    call(c, "XACK", "s", "g1", *ids(1, 2, 4, 5, 7, 8))
    call(c, "XACK", "s", "g2", *ids(1, 2, 4, 6, 8))
    replies = {}
    # Unreferenced: 1, 2, 4, 8; 3 is pending in both groups. The walk removes 1, 2, 4, 8.
    replies["acked walk"] = call(c, "XTRIM", "s", "MAXLEN", "0", "ACKED")
    # Removes 3, 5, 6 and their references (3 in both groups, 5 in g2, 6 in g1).
    replies["delref trim"] = call(c, "XTRIM", "s", "MINID", "=", "7-1", "DELREF")
    call(c, "XADD", "s", "DELREF", "MAXLEN", "=", "20", "31-1", "n", "31")
    call(c, "XADD", "s", "ACKED", "MAXLEN", "=", "5", "32-1", "n", "32")
    call(c, "XADD", "s", "KEEPREF", "MINID", "=", "10-1", "33-1", "n", "33")
    call(c, "XACK", "s", "g1", "13-1")
    call(c, "XACK", "s", "g2", "13-1")  # 13 is now unreferenced
    # 14 goes and leaves references in both groups; DELREF then drops them (answering -1).
    replies["xdelex keepref"] = call(c, "XDELEX", "s", "IDS", 2, "14-1", "99-1")
    replies["xdelex delref"] = call(c, "XDELEX", "s", "DELREF", "IDS", 2, "14-1", "15-1")
    replies["xdelex acked"] = call(c, "XDELEX", "s", "ACKED", "IDS", 2, "12-1", "13-1")
    replies["xackdel keepref"] = call(c, "XACKDEL", "s", "g1", "IDS", 1, "16-1")
    # 12 is still pending in g2: DELREF drops that reference too.
    replies["xackdel delref"] = call(c, "XACKDEL", "s", "g1", "DELREF", "IDS", 2, "12-1", "17-1")
    replies["xackdel acked"] = call(c, "XACKDEL", "s", "g2", "ACKED", "IDS", 2, "16-1", "19-1")
    call(c, "MULTI")
    call(c, "XDELEX", "s", "DELREF", "IDS", 1, "20-1")
    call(c, "XREADGROUP", "GROUP", "g2", "b", "STREAMS", "s", ">")
    call(c, "XACK", "s", "g1", "19-1")
    call(c, "XACK", "s", "g2", "19-1")
    call(c, "XTRIM", "s", "MAXLEN", "=", "3", "ACKED")
    call(c, "XADD", "s", "DELREF", "MAXLEN", "~", "2", "*", "n", "34")
    call(c, "XACKDEL", "s", "g2", "KEEPREF", "IDS", 1, "22-1")
    replies["multi"] = call(c, "EXEC")
    # 2,500 entries, every other one acknowledged: a walk of 1,250 out-of-order removals.
    for i in range(1, 2501):
        call(c, "XADD", "big", f"{i}-1", "n", str(i))
    call(c, "XGROUP", "CREATE", "big", "g", "0")
    call(c, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "big", ">")
    call(c, "XACK", "big", "g", *ids(*range(1, 2501, 2)))
    replies["big walk"] = call(c, "XTRIM", "big", "MAXLEN", "0", "ACKED")
    return replies


@needs
class Redis70FormsTest(unittest.TestCase):

    def test_redis_7_0_replica_and_aof_follow_the_reference_policies(self):
        master = servers.start_streamd("--appendonly", "yes", "--appendfsync", "always",
                                       "--repl-diskless-sync-delay", "0", "--rdb-version", "10")
        self.addCleanup(master.cleanup)
        m = master.redis_py()
        self.addCleanup(m.close)
        m.set("before", "sync")
        redis_replica = servers.start_redis("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(redis_replica.cleanup)
        streamd_replica = servers.start_streamd("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(streamd_replica.cleanup)
        r7, rs = redis_replica.redis_py(), streamd_replica.redis_py()
        self.addCleanup(r7.close)
        self.addCleanup(rs.close)
        wait_for(lambda: link_up(r7) and link_up(rs), timeout=60, what="both replica links up")

        with master.client(timeout=60) as c:
            replies = workload(c)
        self.assertEqual(replies["acked walk"], 4)
        self.assertEqual(replies["delref trim"], 3)
        self.assertEqual(replies["xdelex keepref"], [1, -1])
        self.assertEqual(replies["xdelex delref"], [-1, 1])
        self.assertEqual(replies["xdelex acked"], [2, 1])
        self.assertEqual(replies["xackdel keepref"], [1])
        self.assertEqual(replies["xackdel delref"], [1, 1])
        self.assertEqual(replies["xackdel acked"], [-1, 2])
        self.assertEqual([replies["multi"][i] for i in (0, 2, 3, 4, 6)], [[1], 1, 1, 1, [1]])
        self.assertEqual(replies["big walk"], 1250)
        # The forms the replicas got: no policy token, no 8.2 command.
        wait_for(lambda: same_offset(m, r7, rs), timeout=60, what="replica offsets = master's")

        want = snapshot(master, layout=False, databases=1)
        self.assertEqual(len(want), 3)
        self.assertEqual(diff(want, snapshot(redis_replica, layout=False, databases=1)), "")
        self.assertEqual(diff(want, snapshot(streamd_replica, layout=False, databases=1)), "")
        log = redis_replica.log_text()
        self.assertNotIn("CRITICAL", log)
        self.assertNotIn("rror", log)

        # The AOF holds only 7.0 commands too: redis-server 7.0.15 loads it to the same state.
        aof = Path(master.workdir) / "appendonlydir"
        incr = b"".join(p.read_bytes() for p in sorted(aof.glob("*.incr.aof")))
        for word in (b"XDELEX", b"XACKDEL", b"DELREF", b"ACKED", b"KEEPREF"):
            self.assertNotIn(word, incr)
        self.assertIn(b"XDEL", incr)
        copy = Path(tempfile.mkdtemp(prefix="redis70-aof-"))
        self.addCleanup(shutil.rmtree, copy, True)
        shutil.copytree(aof, copy / "appendonlydir")
        loader = servers.start_redis("--appendonly", "yes", workdir=copy, ready_timeout=60)
        self.addCleanup(loader.cleanup)
        self.assertEqual(diff(want, snapshot(loader, layout=False, databases=1)), "")
        self.assertNotIn("rror", loader.log_text())

    def test_writes_without_a_7_0_form_are_refused_and_change_nothing(self):
        server = servers.start_streamd("--rdb-version", "10")
        self.addCleanup(server.cleanup)
        with server.client() as c:
            call(c, "XADD", "s", "1-1", "f", "v")
            call(c, "XGROUP", "CREATE", "s", "g", "0")
            call(c, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
            before = snapshot(server, layout=False, databases=1)
            offset = call(c, "INFO", "replication")
            refused = {
                "XNACK": ["XNACK", "s", "g", "FAIL", "IDS", 1, "1-1"],
                "XCFGSET": ["XCFGSET", "s", "IDMP-DURATION", 5],
                "IDMP": ["XADD", "s", "IDMP", "p", "i", "*", "f", "v"],
                "IDMPAUTO": ["XADD", "s", "IDMPAUTO", "p", "*", "f", "v"],
                "XIDMPRECORD": ["XIDMPRECORD", "s", "p", "i", "1-1"],
                "STREAMD.DEADLETTER SET": ["STREAMD.DEADLETTER", "SET", "s", "g", "MAXDELIVERIES",
                                           3, "STREAM", "dl"],
                "STREAMD.DEADLETTER REMOVE": ["STREAMD.DEADLETTER", "REMOVE", "s", "g"],
            }
            for what, argv in refused.items():
                rep = c.call(*argv)
                self.assertTrue(rep.is_error, what)
                self.assertEqual(rep.error_text(),
                                 f"ERR {what} has no Redis 7.0 equivalent (rdb-version is 10)")
            # Bad arguments still get Redis's own error first.
            rep = c.call("XNACK", "s", "g", "FAIL")
            self.assertNotIn("Redis 7.0", rep.error_text())
            self.assertEqual(diff(before, snapshot(server, layout=False, databases=1)), "")
            self.assertEqual(call(c, "INFO", "replication"), offset)
            # The refusal follows the setting.
            call(c, "CONFIG", "SET", "rdb-version", "12")
            self.assertEqual(call(c, "XNACK", "s", "g", "FAIL", "IDS", 1, "1-1"), 1)

    def test_the_aof_loader_replays_what_rdb_version_12_accepted(self):
        workdir = Path(tempfile.mkdtemp(prefix="redis70-loader-"))
        self.addCleanup(shutil.rmtree, workdir, True)
        first = servers.start_streamd("--appendonly", "yes", workdir=workdir)
        with first.client() as c:
            call(c, "XADD", "s", "1-1", "f", "v")
            call(c, "XGROUP", "CREATE", "s", "g", "0")
            call(c, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
            call(c, "XNACK", "s", "g", "FAIL", "IDS", 1, "1-1")
            call(c, "XCFGSET", "s", "IDMP-DURATION", 5)
            call(c, "XADD", "s", "IDMP", "p", "i", "*", "f", "w")
            call(c, "STREAMD.DEADLETTER", "SET", "s", "g", "MAXDELIVERIES", 3, "STREAM", "dl")
        want = snapshot(first, layout=False, databases=1)
        first.stop()
        first.cleanup()
        again = servers.start_streamd("--appendonly", "yes", "--rdb-version", "10",
                                      workdir=workdir)
        self.addCleanup(again.cleanup)
        self.assertEqual(diff(want, snapshot(again, layout=False, databases=1)), "")
        self.assertNotIn("failed while loading", again.log_text())
        with again.client() as c:
            self.assertEqual(call(c, "STREAMD.DEADLETTER", "GET", "s", "g")[1], 3)


if __name__ == "__main__":
    runner.main()
