"""XREADGROUP reading history (an ID, not `>`) and what the AOF keeps of it (issue 14 item 1),
differentially: the same commands on redis-server 7.0.15 and on streamd, both with an AOF, then
the extended XPENDING live, after each restarts from its own AOF, and after each loads the
other's AOF directory.

What redis-server does (t_stream.c, and its test "XREADGROUP from PEL does not change dirty"):
a history read bumps the delivery count and time of every entry it serves that still exists,
propagates nothing and counts no change; so its own AOF (and its replicas) end with the count of
the last `>` delivery or claim: 1 where the live server had 2.
What streamd does on purpose (commands/stream/propagation.h): the same live state, and the
re-delivery logged as XCLAIM ... TIME t RETRYCOUNT n FORCE JUSTID, so that a restart, a replica
and a redis-server replaying streamd's AOF all keep the live count. Like Redis it counts no
change (rdb_changes_since_last_save) for a history read, as Redis 7.4+ (7.0.15 counted one). Entries deleted from the stream are
served as [id, nil] and keep their count on both."""

import shutil
import unittest

import aof_helpers as h
from streamd_testlib import servers

AOF = ("--appendonly", "yes", "--appendfsync", "always", "--aof-use-rdb-preamble", "no")


def scenario(server) -> int:
    """Runs the commands; returns the changes the two history reads counted."""
    with server.client() as c:
        for i in range(1, 5):
            h.call(c, "XADD", "s", f"{i}-0", "f", str(i))
        h.call(c, "XGROUP", "CREATE", "s", "g", "0")
        h.call(c, "XREADGROUP", "GROUP", "g", "alice", "COUNT", 3, "STREAMS", "s", ">")
        h.call(c, "XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">")
        h.call(c, "XDEL", "s", "3-0")
        dirty = int(h.info(server)["rdb_changes_since_last_save"])
        # History: 1-0 and 2-0 served again, 3-0 as [3-0, nil] (deleted), twice for 1-0.
        h.call(c, "XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0")
        h.call(c, "XREADGROUP", "GROUP", "g", "alice", "COUNT", 1, "STREAMS", "s", "0")
        return int(h.info(server)["rdb_changes_since_last_save"]) - dirty


def counts(server) -> dict:
    with server.client() as c:
        return {p[0]: (p[1], p[3]) for p in h.call(c, "XPENDING", "s", "g", "-", "+", 100)}


LIVE = {b"1-0": (b"alice", 3), b"2-0": (b"alice", 2), b"3-0": (b"alice", 1),
        b"4-0": (b"bob", 1)}
# What redis-server 7.0.15 keeps of a history read in its AOF: nothing.
REDIS_REPLAYED = {b"1-0": (b"alice", 1), b"2-0": (b"alice", 1), b"3-0": (b"alice", 1),
                  b"4-0": (b"bob", 1)}


@unittest.skipUnless(servers.missing_reason() is None, servers.missing_reason() or "")
class HistoryReadPropagationTest(unittest.TestCase):
    def test_live_restart_and_cross_loading(self):
        swd, rwd = h.workdir(self), h.workdir(self)
        s = h.start(self, swd, *AOF)
        r = servers.start_redis(*AOF, workdir=rwd)
        self.addCleanup(r.stop)
        # Redis 7.4+ counts no change for a history read (redis/redis#13251); 7.0.15 still
        # counted one per read. streamd follows the newer Redis.
        self.assertEqual(scenario(s), 0)
        self.assertEqual(scenario(r), 2)
        self.assertEqual(counts(r), LIVE)
        self.assertEqual(counts(s), LIVE)
        # The history reads' delivery times are kept too: XPENDING's idle of 1-0 restarts.
        s.stop()
        r.stop()

        s = h.start(self, swd, "--appendonly", "yes")
        self.assertEqual(counts(s), LIVE, "streamd restarted from its own AOF")
        s.stop()
        r = servers.start_redis("--appendonly", "yes", workdir=rwd)
        self.addCleanup(r.stop)
        self.assertEqual(counts(r), REDIS_REPLAYED, "redis-server restarted from its own AOF")
        r.stop()

        # Each loads the other's AOF directory.
        s_on_r, r_on_s = h.workdir(self), h.workdir(self)
        shutil.copytree(swd / "appendonlydir", r_on_s / "appendonlydir")
        shutil.copytree(rwd / "appendonlydir", s_on_r / "appendonlydir")
        r = servers.start_redis("--appendonly", "yes", workdir=r_on_s)
        self.addCleanup(r.stop)
        self.assertEqual(counts(r), LIVE, "redis-server replaying streamd's AOF")
        s = h.start(self, s_on_r, "--appendonly", "yes")
        self.assertEqual(counts(s), REDIS_REPLAYED, "streamd replaying redis-server's AOF")


if __name__ == "__main__":
    unittest.main()
