"""Automatic failover under Sentinel with a stream workload (issue 13).

Three nodes (a master and two replicas) and three Debian redis-sentinel processes, all started
here (streamd_testlib.failover). redis-py's Sentinel client runs a producer (XADD + WAIT 1 on
the same connection) and a consumer (XREADGROUP, XACK + WAIT 1). Then the master fails:

- kill -9: Sentinel promotes a replica, the clients continue on it, every XADD that WAIT saw on
  a replica is on the new master, no XACK that WAIT saw on a replica is pending there, and the
  old master, restarted, is turned into a replica of the new one by Sentinel and catches up;
- SIGSTOP: the same, and the stale master, woken with SIGCONT, is demoted by Sentinel; whatever
  it accepted alone was never confirmed by WAIT (it has no replicas left) and may be lost.

Each test prints the failover time it measured (kill -> first successful write through
Sentinel) with the Sentinel settings used; docs/benchmarks.md records them.

In ctest (about 45 s for both tests) against streamd nodes. The same scenarios on Redis's own
replication check the harness itself:

    STREAMD_FAILOVER_SELFTEST=1 PYTHONPATH=tests /usr/bin/python3 \
        tests/integration/test_failover.py        # redis-server 7.0.15 nodes

Skips when redis-sentinel or the streamd binary is missing.
"""

import os
import signal
import time
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.failover import GROUP, STREAM, Cluster, Workload, info
from streamd_testlib.sentinel import SentinelSettings, missing_reason, wait_until

SELFTEST = os.environ.get("STREAMD_FAILOVER_SELFTEST") == "1"
NODE_KIND = "redis" if SELFTEST else "streamd"
SKIP = missing_reason()
SETTINGS = SentinelSettings(down_after_ms=1000, failover_timeout_ms=6000)
# Full syncs start at once instead of waiting 5 s for more replicas (the initial syncs and the
# restarted old master's): the suite's time, not the failover's.
NODE_ARGS = ("--repl-diskless-sync-delay", "0")


def stream_state(node: servers.Server):
    """The stream's IDs and the group's pending IDs on `node`."""
    r = node.redis_py(decode_responses=True, socket_timeout=10)
    ids = [e[0] for e in r.xrange(STREAM)]
    pending = [p["message_id"] for p in r.xpending_range(STREAM, GROUP, "-", "+", 10**6)]
    return ids, pending


@unittest.skipIf(SKIP is not None, SKIP or "")
class FailoverTest(unittest.TestCase):
    def setUp(self):
        self.cluster = Cluster(replicas=2, sentinels=3, settings=SETTINGS, node_kind=NODE_KIND,
                               node_args=NODE_ARGS)
        self.addCleanup(self.cluster.cleanup)
        g = self.cluster.group
        g.wait_discovered()
        for i in range(3):  # Sentinel learns the replicas from the master's INFO replication
            wait_until(lambda: len(g.command(i, "SENTINEL", "REPLICAS", g.name)) == 2, 60,
                       f"sentinel {i} to know both replicas")
        self.workload = Workload(g)
        self.workload.start()
        self.addCleanup(self.workload.stop)
        self.workload.wait_progress(0, 50, 60, confirmed=True)

    def fail_over(self, how: str) -> servers.Server:
        c, w = self.cluster, self.workload
        old = c.nodes[0]
        t_fail = time.time()
        old.signal(signal.SIGKILL if how == "kill" else signal.SIGSTOP)
        if how == "kill":
            old.wait(10)
        new = c.wait_settled(exclude=[old])
        self.assertIsNot(new, old)
        # The clients continue: writes succeed and are confirmed by the remaining replica.
        w.wait_progress(t_fail, 30, 90, confirmed=True)
        first = min(a[1] for a in w.added_since(t_fail))
        print(f"\n{how}: failover time (signal -> first successful XADD through Sentinel): "
              f"{first - t_fail:.2f} s (down-after-milliseconds {SETTINGS.down_after_ms}, "
              f"failover-timeout {SETTINGS.failover_timeout_ms}, {NODE_KIND} nodes)")
        return old

    def converge(self):
        """The old master is back as a replica: every node holds what the master holds."""
        master = self.cluster.wait_settled()
        self.workload.wait_progress(time.time(), 20, 60, confirmed=True)
        self.workload.stop()
        want = stream_state(master)
        for node in self.cluster.nodes:
            if node is not master:
                wait_until(lambda: stream_state(node) == want, 60,
                           f"the node on port {node.port} to catch up with the master")
        return want

    def check_durability(self, ids, pending):
        w = self.workload
        in_stream = set(ids)
        lost = [i for i in w.confirmed if i not in in_stream]
        self.assertEqual(lost, [], "XADDs that WAIT confirmed on a replica are missing")
        self.assertLessEqual(set(pending), in_stream)
        self.assertEqual(sorted(w.acked_confirmed & set(pending)), [],
                         "entries whose XACK WAIT confirmed are pending again")
        self.assertGreaterEqual(len(w.confirmed), 100)

    def test_kill_9_master(self):
        old = self.fail_over("kill")
        self.cluster.restart(old)
        ids, pending = self.converge()
        self.check_durability(ids, pending)

    def test_sigstop_master(self):
        old = self.fail_over("stop")
        old.signal(signal.SIGCONT)
        # Until Sentinel demotes it, the stale master may still take a write; no replica follows
        # it any more, so WAIT must not count one, and the write must not survive its demotion.
        stale = old.redis_py(decode_responses=True, socket_timeout=10)
        try:
            p = stale.pipeline(transaction=False)
            p.xadd("stale", {"f": "v"})
            p.execute_command("WAIT", 1, 500)
            _, acks = p.execute()
            self.assertEqual(acks, 0, "WAIT counted a replica for the stale master's write")
        except Exception as e:  # already demoted: READONLY
            self.assertIn("READONLY", str(e))
        ids, pending = self.converge()
        self.check_durability(ids, pending)
        for node in self.cluster.nodes:
            self.assertEqual(node.redis_py().exists("stale"), 0, f"node on port {node.port}")


if __name__ == "__main__":
    runner.main()
