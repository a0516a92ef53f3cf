"""The replica side of replication (issue 13): streamd as the replica of Debian's redis-server
7.0.15 and of another streamd. The full sync carries streams with groups, PEL and consumers,
strings and expiry times; the live stream (XADD, XREADGROUP, XACK, SET, DEL, EXPIRE) follows with
the replica's offset equal to the master's; writes get READONLY; a blocked XREAD on the replica is
served by the master's XADD; ROLE, INFO replication and CLIENT LIST (flags=M) show the link;
REPLICAOF NO ONE keeps the data and accepts writes; replica-serve-stale-data no answers MASTERDOWN
while the link is down.

Skips (exit 0, SKIPPED line) only when the streamd binary or redis-server does not exist.
"""

import threading
import unittest

import redis

from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, needs_servers, same_offset, wait_for


def pel(client, key="s", group="g"):
    # Without idle times, which differ by when each side ran.
    return [(e["message_id"], e["consumer"], e["times_delivered"])
            for e in client.xpending_range(key, group, "-", "+", 100)]


def groups(client, key="s"):
    return [(g["name"], g["consumers"], g["pending"], g["last-delivered-id"], g["entries-read"],
             g["lag"]) for g in client.xinfo_groups(key)]


def populate(master, m):
    m.xadd("s", {"f": "1"}, id="1-1")
    m.xadd("s", {"f": "2"}, id="2-1")
    m.xadd("s", {"f": "3"}, id="3-1")
    m.xgroup_create("s", "g", id="0")
    m.xreadgroup("g", "alice", {"s": ">"}, count=2)
    m.xack("s", "g", "1-1")
    m.xgroup_create("s", "g2", id="$")
    m.set("plain", "v")
    m.set("ttl", "v", ex=1000)
    m.set("counter", 41)
    master.redis_py(db=2).set("in-db2", "x")


class ReplicaChecks:
    """The same scenario against either kind of master (self.m: redis-py of the master)."""

    def follow_and_check(self, master, m):
        populate(master, m)
        rep = servers.start_streamd("--replicaof", "127.0.0.1", str(master.port),
                                    "--repl-timeout", "10")
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        wait_for(lambda: same_offset(r, m), what="offsets equal after the full sync")
        # The full sync.
        self.assertEqual(r.xrange("s"), m.xrange("s"))
        self.assertEqual(groups(r), groups(m))
        self.assertEqual(pel(r), pel(m))
        self.assertEqual(r.get("plain"), "v")
        self.assertGreater(r.ttl("ttl"), 900)
        self.assertEqual(r.get("counter"), "41")
        r2 = rep.redis_py(decode_responses=True, db=2)
        self.assertEqual(r2.get("in-db2"), "x")

        # A reader blocked on the replica is served by the master's write.
        got = {}

        def blocked_read():
            c = rep.redis_py(decode_responses=True)
            got["r"] = c.xread({"s": "$"}, block=10000)

        t = threading.Thread(target=blocked_read)
        t.start()
        wait_for(lambda: "flags=b" in r.execute_command("CLIENT", "LIST"), what="xread blocked")

        # The live stream.
        new_id = m.xadd("s", {"f": "4"})
        m.xreadgroup("g", "bob", {"s": ">"})
        m.xack("s", "g", "2-1")
        m.set("b", "2")
        m.delete("plain")
        m.expire("b", 500)
        m.incr("counter")
        t.join(15)
        self.assertEqual(got["r"][0][1][0][0], new_id)
        wait_for(lambda: same_offset(r, m), what="offsets equal after the live writes")
        self.assertEqual(r.xrange("s"), m.xrange("s"))
        self.assertEqual(pel(r), pel(m))
        # Without entries-read and lag: the stream carries XREADGROUP as XCLAIM ... LASTID, which
        # leaves entries-read behind on the replica (a redis-server 7.0.15 replica of redis-server
        # shows the same difference).
        self.assertEqual([g[:4] for g in groups(r)], [g[:4] for g in groups(m)])
        self.assertIsNone(r.get("plain"))
        self.assertEqual(r.get("b"), "2")
        self.assertGreater(r.ttl("b"), 400)
        self.assertEqual(r.get("counter"), "42")

        # What a client sees of the link.
        info = r.info("replication")
        self.assertEqual(info["role"], "slave")
        self.assertEqual(info["master_port"], master.port)
        self.assertEqual(info["slave_read_only"], 1)
        raw = rep.cli("INFO", "replication").stdout.decode()
        names = [line.split(":")[0] for line in raw.splitlines()[1:14]]
        self.assertEqual(names, ["role", "master_host", "master_port", "master_link_status",
                                 "master_last_io_seconds_ago", "master_sync_in_progress",
                                 "slave_read_repl_offset", "slave_repl_offset", "slave_priority",
                                 "slave_read_only", "replica_announced", "connected_slaves",
                                 "master_failover_state"])
        role = r.execute_command("ROLE")
        self.assertEqual(role[:4], ["slave", "127.0.0.1", master.port, "connected"])
        self.assertEqual(role[4], info["slave_repl_offset"])
        masters = r.execute_command("CLIENT", "LIST", "TYPE", "master")
        self.assertIn("flags=M", masters)
        hello = r.execute_command("HELLO", "2")
        self.assertEqual(hello[hello.index("role") + 1], "replica")
        # The master sees an online replica that acknowledges.
        wait_for(lambda: m.execute_command("WAIT", 1, 100) == 1, what="WAIT 1 counts the replica")
        self.assertEqual(r.config_get("replicaof")["replicaof"], f"127.0.0.1 {master.port}")

        # Writes are refused, reads and XREAD work.
        with self.assertRaisesRegex(redis.ResponseError,
                                    "^You can't write against a read only replica.$"):
            r.set("x", "1")
        with self.assertRaises(redis.exceptions.ReadOnlyError):
            r.xreadgroup("g", "carol", {"s": ">"})
        self.assertEqual(len(r.xread({"s": "0"})[0][1]), 4)

        # REPLICAOF NO ONE: a master with the same data, accepting writes.
        self.assertTrue(r.execute_command("REPLICAOF", "NO", "ONE"))
        self.assertEqual(r.execute_command("ROLE")[0], "master")
        self.assertEqual(r.xrange("s"), m.xrange("s"))
        r.set("x", "1")
        self.assertEqual(r.get("x"), "1")
        info = r.info("replication")
        self.assertEqual(info["role"], "master")
        self.assertEqual(info["master_replid2"], m.info("replication")["master_replid"])
        self.assertEqual(r.config_get("replicaof")["replicaof"], "")
        return rep


@needs_servers
class ReplicaOfRedis(unittest.TestCase, ReplicaChecks):
    def test_follows_redis_server(self):
        master = servers.start_redis("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        self.follow_and_check(master, master.redis_py(decode_responses=True))

    def test_disk_based_sync_from_redis(self):
        # $<len> framing: redis-server with repl-diskless-sync no.
        master = servers.start_redis("--repl-diskless-sync", "no")
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        m.xadd("s", {"f": "v"}, id="5-5")
        rep = servers.start_streamd("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        self.assertEqual(r.xrange("s"), [("5-5", {"f": "v"})])


@needs_servers
class ReplicaOfStreamd(unittest.TestCase, ReplicaChecks):
    def test_follows_streamd(self):
        master = servers.start_streamd("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        self.follow_and_check(master, master.redis_py(decode_responses=True))

    def test_replicaof_at_runtime_and_stale_data(self):
        master = servers.start_streamd("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        m.set("k", "v")
        dead = servers.free_port()
        rep = servers.start_streamd("--replica-serve-stale-data", "no")
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        r.set("old", "data")
        self.assertEqual(r.execute_command("REPLICAOF", "127.0.0.1", str(dead)), "OK")
        # The link is down: only stale-flagged commands run.
        c = rep.client()
        self.assertEqual(
            c.call_raw("PING"),
            b"-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n")
        self.assertEqual(c.call_raw("GET", "old")[:11], b"-MASTERDOWN")
        self.assertTrue(c.call_raw("INFO", "replication").startswith(b"$"))
        role = r.execute_command("ROLE")
        self.assertEqual(role[0:3], ["slave", "127.0.0.1", dead])
        self.assertIn(role[3], ("connect", "connecting"))
        self.assertEqual(role[4], -1)
        info = r.info("replication")
        self.assertEqual(info["master_link_status"], "down")
        self.assertEqual(info["master_link_down_since_seconds"], -1)
        self.assertEqual(c.call_raw("REPLICAOF", "127.0.0.1", "x"), b"-ERR Invalid master port\r\n")
        self.assertEqual(c.call_raw("REPLICAOF", "127.0.0.1", str(dead)),
                         b"+OK Already connected to specified master\r\n")
        # The real master: the old data set is replaced by the master's.
        self.assertEqual(r.execute_command("REPLICAOF", "127.0.0.1", str(master.port)), "OK")
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        self.assertEqual(r.get("k"), "v")
        self.assertIsNone(r.get("old"))
        self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")
        with self.assertRaises(redis.exceptions.ResponseError):
            r.config_set("replicaof", "127.0.0.1 1")
        c.close()


if __name__ == "__main__":
    runner.main()
