"""Expired keys on a replica (issue 13): a replica hides a key whose TTL has passed (reads answer
as if it did not exist) but does not delete it, neither on lookup nor in its active expiry; only
the master's DEL removes it, so DBSIZE and INFO keyspace still count it meanwhile, as a
redis-server 7.0.15 replica does.

To let the replicas see an expired key before the master's DEL, the master is paused with
SIGSTOP after the keys reached the replicas, and resumed once the replicas were checked: its
active expiry then deletes the keys and the DELs reach the replicas.

One redis-server master with a redis-server replica and a streamd replica side by side (their
answers compared), and a streamd master with a streamd replica.

Skips (exit 0, SKIPPED line) only when the streamd binary or redis-server does not exist.
"""

import signal
import time
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, needs_servers, same_offset, wait_for

TTL_MS = 1500

# What a redis-server 7.0.15 replica answers about "k" (string) and "s" (stream), both expired,
# and "p" (persistent), while its master has not sent the DELs yet.
HIDDEN = {
    "get": None,
    "exists": 0,
    "xlen": 0,
    "xrange": [],
    "ttl": -2,
    "type": "none",
    "dbsize": 3,
    "keys": ["p"],
    "scan": ["p"],
    "keyspace": (3, 2),
}


def observe(r) -> dict:
    ks = r.info("keyspace").get("db0", {})
    return {
        "get": r.get("k"),
        "exists": r.exists("k", "s"),
        "xlen": r.xlen("s"),
        "xrange": r.xrange("s"),
        "ttl": r.ttl("k"),
        "type": r.type("s"),
        "dbsize": r.dbsize(),
        "keys": sorted(r.keys("*")),
        "scan": sorted(r.scan_iter("*")),
        "keyspace": (ks.get("keys"), ks.get("expires")),
    }


def populate(m):
    m.set("k", "v", px=TTL_MS)
    m.xadd("s", {"f": "v"}, id="1-1")
    m.pexpire("s", TTL_MS)
    m.set("p", "x")
    return time.monotonic()


@needs_servers
class ReplicaExpiry(unittest.TestCase):
    def start_replica(self, start, master):
        rep = start("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(rep.stop)
        return rep.redis_py(decode_responses=True)

    def pause(self, master):
        master.signal(signal.SIGSTOP)
        self.addCleanup(master.signal, signal.SIGCONT)

    def check(self, master, replicas):
        m = master.redis_py(decode_responses=True)
        for r in replicas:
            wait_for(lambda: link_up(r), timeout=30, what="link up")
        t0 = populate(m)
        wait_for(lambda: same_offset(m, *replicas), what="the keys on the replicas")
        for r in replicas:
            self.assertEqual(r.get("k"), "v")
            self.assertEqual(r.dbsize(), 3)
        self.pause(master)
        time.sleep(max(0.0, t0 + TTL_MS / 1000 + 0.2 - time.monotonic()))
        seen = [observe(r) for r in replicas]
        # A while of the replicas' own crons (active expiry) changes nothing.
        time.sleep(0.5)
        seen += [observe(r) for r in replicas]
        for s in seen:
            self.assertEqual(s, HIDDEN)
        master.signal(signal.SIGCONT)
        # The master's active expiry deletes both keys; its DELs remove them on the replicas.
        for r in replicas:
            wait_for(lambda: r.dbsize() == 1, what="the master's DELs applied")
            self.assertEqual(r.exists("k", "s"), 0)
            self.assertEqual(r.info("keyspace")["db0"]["keys"], 1)
            self.assertEqual(r.info("keyspace")["db0"]["expires"], 0)
        return seen

    def test_redis_master_redis_and_streamd_replicas_agree(self):
        master = servers.start_redis("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        redis_replica = self.start_replica(servers.start_redis, master)
        streamd_replica = self.start_replica(servers.start_streamd, master)
        seen = self.check(master, [redis_replica, streamd_replica])
        self.assertEqual(seen[0], seen[1])

    def test_streamd_master_and_replica(self):
        master = servers.start_streamd("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        self.check(master, [self.start_replica(servers.start_streamd, master)])

    def test_promoted_replica_deletes(self):
        # REPLICAOF NO ONE: a master again, its lookups and active expiry delete.
        master = servers.start_streamd("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        r = self.start_replica(servers.start_streamd, master)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        m = master.redis_py(decode_responses=True)
        t0 = populate(m)
        wait_for(lambda: same_offset(m, r), what="the keys on the replica")
        self.pause(master)
        time.sleep(max(0.0, t0 + TTL_MS / 1000 + 0.2 - time.monotonic()))
        self.assertEqual(r.dbsize(), 3)
        self.assertTrue(r.execute_command("REPLICAOF", "NO", "ONE"))
        wait_for(lambda: r.dbsize() == 1, what="the promoted replica's active expiry")
        self.assertEqual(r.info("stats")["expired_keys"], 2)


if __name__ == "__main__":
    runner.main()
