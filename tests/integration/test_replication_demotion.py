"""Blocked clients when a master becomes a replica (issue 13): REPLICAOF host port answers every
client blocked in XREADGROUP, XREAD or WAIT with "-UNBLOCKED force unblock from blocking
operation, instance state changed (master -> replica?)" and closes its connection after that
reply, as redis-server 7.0.15 does (every blocked client, readers included: its
disconnectAllBlockedClients). Without that, an XREADGROUP woken by the new master's data would
run on the replica and write there (a consumer and a PEL the master never had).

The same scenario runs on redis-server and on streamd, and their observations are compared.

Skips (exit 0, SKIPPED line) only when the streamd binary or redis-server does not exist.
"""

import unittest

from streamd_testlib import runner, servers
from streamd_testlib.client import RawClient
from streamd_testlib.replica import link_up, needs_servers, same_offset, wait_for

UNBLOCKED = (b"-UNBLOCKED force unblock from blocking operation, instance state changed "
             b"(master -> replica?)\r\n")

BLOCKING = [
    ("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"),
    ("XREAD", "BLOCK", "0", "STREAMS", "s", "$"),
    ("XREADGROUP", "GROUP", "g", "bob", "BLOCK", "60000", "STREAMS", "s", ">"),
    ("WAIT", "1", "0"),
]


def groups(r):
    return [(g["name"], g["consumers"], g["pending"]) for g in r.xinfo_groups("s")]


@needs_servers
class Demotion(unittest.TestCase):
    def run_scenario(self, start):
        old = start("--repl-diskless-sync-delay", "0")
        self.addCleanup(old.stop)
        new = start("--repl-diskless-sync-delay", "0")
        self.addCleanup(new.stop)
        o = old.redis_py(decode_responses=True)
        n = new.redis_py(decode_responses=True)
        o.xadd("s", {"f": "old"}, id="1-1")
        o.xgroup_create("s", "g", id="$")
        # The new master's stream has an entry the blocked group readers would be given.
        n.xadd("s", {"f": "new"}, id="5-1")
        n.xgroup_create("s", "g", id="0")

        blocked = []
        for argv in BLOCKING:
            c = RawClient(old.host, old.port, timeout=10)
            self.addCleanup(c.close)
            c.send_command(*argv)
            blocked.append(c)
        wait_for(lambda: o.info("clients")["blocked_clients"] == len(BLOCKING),
                 what="clients blocked")
        # An idle client is left alone.
        idle = RawClient(old.host, old.port, timeout=10)
        self.addCleanup(idle.close)
        self.assertEqual(idle.call_raw("PING"), b"+PONG\r\n")

        self.assertTrue(o.execute_command("REPLICAOF", "127.0.0.1", str(new.port)))
        got = [c.wait_closed(timeout=10) for c in blocked]
        self.assertEqual(idle.call_raw("PING"), b"+PONG\r\n")
        wait_for(lambda: link_up(o), timeout=30, what="link up")
        wait_for(lambda: same_offset(o, n), what="the replica caught up")
        seen = {
            "replies": got,
            "blocked_after": o.info("clients")["blocked_clients"],
            "replica_groups": groups(o),
            "master_groups": groups(n),
            "replica_pending": o.xpending("s", "g")["pending"],
            "entries": o.xrange("s"),
        }
        self.assertEqual(seen["replies"], [UNBLOCKED] * len(BLOCKING))
        self.assertEqual(seen["blocked_after"], 0)
        self.assertEqual(seen["replica_groups"], [("g", 0, 0)])
        self.assertEqual(seen["master_groups"], [("g", 0, 0)])
        self.assertEqual(seen["replica_pending"], 0)
        self.assertEqual(seen["entries"], [("5-1", {"f": "new"})])
        return seen

    def test_streamd_unblocks_as_redis_does(self):
        redis_seen = self.run_scenario(servers.start_redis)
        streamd_seen = self.run_scenario(servers.start_streamd)
        self.assertEqual(streamd_seen, redis_seen)


if __name__ == "__main__":
    runner.main()
