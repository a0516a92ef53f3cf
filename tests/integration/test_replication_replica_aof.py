"""A replica's AOF after a full sync (issue 13): Redis stops and restarts a replica's AOF once the
master's snapshot is loaded, so the loaded data becomes the base of a new AOF. streamd must do
the same: a server with appendonly yes and data of its own (a stream "s" of other entries, a key
"old") becomes a replica (REPLICAOF at runtime), receives the master's snapshot and then its
command stream; restarted from its AOF alone (no replicaof), it must hold exactly the master's
dataset: not its old data, and not the stream's commands without the snapshot they apply to.

Skips only when the streamd binary is missing.
"""

import unittest

from aof_helpers import diff, snapshot
from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, same_offset, wait_for
from test_replication_tls import normalised

needs = unittest.skipUnless(servers.streamd_available(), "streamd binary missing")


def state(server):
    return normalised(snapshot(server, layout=False, databases=3))


def rewrite_idle(r) -> bool:
    p = r.info("persistence")
    return p["aof_rewrite_in_progress"] == 0 and p["aof_rewrite_scheduled"] == 0


@needs
class ReplicaAofAfterFullSyncTest(unittest.TestCase):
    def test_restarted_replica_has_exactly_the_masters_data(self):
        master = servers.start_streamd("--appendonly", "no", "--repl-diskless-sync-delay", "0")
        self.addCleanup(master.cleanup)
        m = master.redis_py(decode_responses=True)
        for i in range(50):
            m.xadd("s", {"master": str(i)})
        m.xgroup_create("s", "g", id="0")
        m.xreadgroup("g", "alice", {"s": ">"}, count=10)
        m.set("from-master", "1")

        replica = servers.start_streamd("--appendonly", "yes", "--appendfsync", "always")
        self.addCleanup(replica.cleanup)
        r = replica.redis_py(decode_responses=True)
        # Its own data, written while it is a master: in its AOF.
        for i in range(30):
            r.xadd("s", {"old": str(i)}, id=f"{i + 1}-0")
        r.xgroup_create("s", "oldgroup", id="0")
        r.set("old", "1")
        r.xadd("oldstream", {"f": "v"})

        r.execute_command("REPLICAOF", "127.0.0.1", str(master.port))
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        wait_for(lambda: rewrite_idle(r), timeout=30, what="no AOF rewrite running")
        # The command stream after the snapshot.
        for i in range(5):
            m.xadd("s", {"live": str(i)})
        m.xreadgroup("g", "bob", {"s": ">"}, count=3)
        m.xack("s", "g", m.xrange("s", count=1)[0][0])
        m.set("live", "1")
        wait_for(lambda: same_offset(r, m), timeout=30, what="replica caught up")
        expected = state(master)
        self.assertEqual(state(replica), expected)

        replica.stop()
        restarted = servers.start_streamd("--appendonly", "yes", workdir=replica.workdir)
        self.addCleanup(restarted.cleanup)
        got = state(restarted)
        if got != expected:
            self.fail("the replica's AOF does not load to the master's dataset:\n" +
                      diff(expected, got)[:3000])


if __name__ == "__main__":
    runner.main()
