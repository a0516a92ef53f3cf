"""maxmemory over TCP with redis-py: what a Redis user relies on when the limit is reached.

- noeviction: writes get -OOM, reads and deletes still work, and a pipelined XADD load loses
  nothing it acknowledged and adds nothing it refused (XLEN == the number of IDs returned);
- allkeys-lru under a load that keeps a set of hot keys busy: memory stays near the limit, the
  hot keys survive, cold ones are evicted;
- evictions propagate: a replica and the AOF end with the master's dataset (DEBUG DIGEST), and
  a restart from the AOF loads it;
- the "evicted" keyspace event reaches a subscriber;
- a replica that has not yet loaded its snapshot costs the limit nothing beyond the backlog.

The same scenarios against redis-server 7.0.15 check the test itself:

    STREAMD_MAXMEMORY_SELFTEST=1 PYTHONPATH=tests /usr/bin/python3 tests/integration/test_maxmemory.py
"""

import os
import shutil
import tempfile
import time
import unittest

import redis

from streamd_testlib import servers
from streamd_testlib.fake_replica import FakeReplica
from streamd_testlib.replica import NodeKind, link_up, same_offset, wait_for

NODES = NodeKind("STREAMD_MAXMEMORY_SELFTEST", "--appendonly", "no", "--enable-debug-command",
                 "local")
needs_servers = NODES.needs_servers
node = NODES.start

OOM = "OOM command not allowed when used memory > 'maxmemory'."


def used_memory(r) -> int:
    return int(r.info("memory")["used_memory"])


def set_limit_above_usage(r, extra: int) -> int:
    limit = used_memory(r) + extra
    r.config_set("maxmemory", limit)
    return limit


def is_oom(reply) -> bool:
    return isinstance(reply, redis.exceptions.ResponseError) and OOM in str(reply)


@needs_servers
class NoevictionTest(unittest.TestCase):
    def setUp(self):
        self.server = node()
        self.addCleanup(self.server.stop)
        self.r = self.server.redis_py(decode_responses=True)

    def test_writes_get_oom_and_reads_and_deletes_go_on(self):
        limit = set_limit_above_usage(self.r, 1 << 20)
        value = "x" * 1000
        written = 0
        with self.assertRaises(redis.exceptions.ResponseError) as cm:
            for i in range(10000):
                self.r.set(f"k{i}", value)
                written += 1
        self.assertIn(OOM, str(cm.exception))
        self.assertGreater(written, 500)
        # Over the limit by at most what the last accepted command added (and client buffers).
        self.assertLessEqual(used_memory(self.r), limit + 256 * 1024)
        self.assertEqual(self.r.get("k0"), value)
        self.assertEqual(self.r.dbsize(), written)
        self.assertEqual(self.r.info("stats")["evicted_keys"], 0)
        # Deleting is allowed and makes room again.
        self.assertEqual(self.r.delete(*[f"k{i}" for i in range(300)]), 300)
        self.assertTrue(self.r.set("again", "v"))

    def test_a_pipelined_xadd_load_keeps_exactly_what_it_acknowledged(self):
        set_limit_above_usage(self.r, 2 << 20)
        acked = 0
        refused = 0
        # Distinct payloads: streamd stores a value equal to the node's first entry's in a byte.
        fields = {"payload": "y" * 200, "n": "1"}
        while refused == 0:
            pipe = self.r.pipeline(transaction=False)
            for _ in range(200):
                fields["payload"] = os.urandom(100).hex()
                pipe.xadd("jobs", fields)
            for reply in pipe.execute(raise_on_error=False):
                if is_oom(reply):
                    refused += 1
                else:
                    self.assertIsInstance(reply, str)
                    acked += 1
        self.assertGreater(acked, 1000)
        self.assertEqual(self.r.xlen("jobs"), acked)
        # Consumers can still drain the stream: XREADGROUP and XACK are not refused.
        self.r.config_set("maxmemory", 0)
        self.r.xgroup_create("jobs", "g", id="0")
        self.r.config_set("maxmemory", 1)
        got = self.r.xreadgroup("g", "c", {"jobs": ">"}, count=10)
        ids = [i for i, _ in got[0][1]]
        self.assertEqual(len(ids), 10)
        self.assertEqual(self.r.xack("jobs", "g", *ids), 10)
        with self.assertRaises(redis.exceptions.ResponseError):
            self.r.xadd("jobs", fields)


@needs_servers
class EvictionTest(unittest.TestCase):
    def setUp(self):
        self.server = node()
        self.addCleanup(self.server.stop)
        self.r = self.server.redis_py(decode_responses=True)

    def test_allkeys_lru_evicts_the_least_recently_used_keys(self):
        # Redis's LRU clock ticks in seconds: the cold keys are written, then after two seconds
        # the hot keys are read and more keys written, so that idle times tell them apart.
        self.r.config_set("maxmemory-policy", "allkeys-lru")
        self.r.config_set("maxmemory-samples", 10)
        hot = [f"hot{i}" for i in range(100)]
        for k in hot:
            self.r.set(k, "h" * 100)
        limit = set_limit_above_usage(self.r, 2 << 20)
        value = "c" * 1000
        batch = 0
        while used_memory(self.r) < limit - 300 * 1024:
            pipe = self.r.pipeline(transaction=False)
            for i in range(100):
                pipe.set(f"old{batch}:{i}", value)
            pipe.execute()
            batch += 1
        self.assertEqual(self.r.info("stats")["evicted_keys"], 0)
        time.sleep(2.1)
        for k in hot:
            self.r.get(k)
        pipe = self.r.pipeline(transaction=False)
        for i in range(800):
            pipe.set(f"new{i}", value)
        pipe.execute()
        info = self.r.info()
        self.assertGreater(info["evicted_keys"], 300)
        self.assertLessEqual(info["used_memory"], limit + 64 * 1024)
        self.assertEqual(sum(self.r.exists(k) for k in hot), 100, "hot keys evicted")
        self.assertEqual(sum(self.r.exists(f"new{i}") for i in range(800)), 800)

    def test_the_evicted_event_reaches_a_subscriber(self):
        self.r.config_set("notify-keyspace-events", "Ee")
        for k in ("a", "b", "c"):
            self.r.set(k, 1)
        sub = self.server.redis_py(decode_responses=True).pubsub()
        sub.subscribe("__keyevent@0__:evicted")
        self.assertEqual(sub.get_message(timeout=5)["type"], "subscribe")
        self.r.config_set("maxmemory-policy", "allkeys-random")
        self.r.config_set("maxmemory", 1)
        self.assertIsNone(self.r.get("a"))
        got = set()
        while len(got) < 3:
            m = sub.get_message(timeout=5)
            self.assertIsNotNone(m, f"only {got} evicted")
            got.add(m["data"])
        self.assertEqual(got, {"a", "b", "c"})
        self.r.config_set("maxmemory", 0)
        sub.close()


@needs_servers
class EvictionPropagatesTest(unittest.TestCase):
    def test_replica_and_aof_end_with_the_masters_dataset(self):
        wd = tempfile.mkdtemp(prefix="maxmemory-aof-")
        self.addCleanup(shutil.rmtree, wd, True)
        start = servers.start_redis if NODES.selftest else servers.start_streamd
        args = NODES.node_args + ("--appendonly", "yes")
        master = start(*args, "--maxmemory-policy", "allkeys-random", workdir=wd)
        replica = node()
        self.addCleanup(master.stop)
        self.addCleanup(replica.stop)
        m = master.redis_py(decode_responses=True)
        rr = replica.redis_py(decode_responses=True)
        rr.execute_command("REPLICAOF", "127.0.0.1", str(master.port))
        wait_for(lambda: link_up(rr), timeout=30, what="replica up")
        # The replication backlog (1 MB by default) counts against the limit, as in Redis.
        set_limit_above_usage(m, 3 << 20)
        value = "v" * 500
        for batch in range(50):
            pipe = m.pipeline(transaction=False)
            for i in range(200):
                pipe.set(f"k{batch}:{i}", value)
                if i % 50 == 0:
                    pipe.xadd(f"s{batch}", {"f": value})
            pipe.execute()
        self.assertGreater(m.info("stats")["evicted_keys"], 0)
        # No limit from here on, so that no eviction (cron goes on with one a command's time
        # budget cut short) changes the master while it is compared.
        m.config_set("maxmemory", 0)
        wait_for(lambda: same_offset(m, rr), what="replica caught up")
        self.assertEqual(rr.dbsize(), m.dbsize())
        digest = m.execute_command("DEBUG", "DIGEST")
        self.assertEqual(rr.execute_command("DEBUG", "DIGEST"), digest)
        # The AOF holds the evictions too: a restart without a limit loads the same dataset.
        master.stop()
        restarted = start(*args, workdir=wd)
        self.addCleanup(restarted.stop)
        r2 = restarted.redis_py(decode_responses=True)
        self.assertEqual(r2.execute_command("DEBUG", "DIGEST"), digest)


@needs_servers
class HeldStreamTest(unittest.TestCase):
    def test_a_replica_loading_its_snapshot_costs_the_limit_nothing_beyond_the_backlog(self):
        """Until a replica acknowledges its diskless snapshot the master holds its stream. That
        stream is the replication buffer, which maxmemory counts up to repl-backlog-size only
        (Redis's freeMemoryGetNotCountedMemory), so writes meanwhile evict keys and none is
        refused. streamd kept a copy of its own for such a replica, and the copy's slack counted:
        CI saw -OOM with the keyspace evicted whole, when the master noticed its snapshot child's
        end late (the stream is held until then too)."""
        server = node("--repl-diskless-sync-delay", "0", "--maxmemory-policy", "allkeys-random")
        self.addCleanup(server.stop)
        r = server.redis_py(decode_responses=True)
        replica = FakeReplica(server.port)
        self.addCleanup(replica.close)
        replica.handshake(7777)
        reply = replica.call("PSYNC", "?", "-1").split()
        self.assertEqual(reply[0], b"+FULLRESYNC", reply)
        offset = int(reply[2])
        replica.snapshot()  # and no REPLCONF ACK: the stream stays held
        limit = set_limit_above_usage(r, 3 << 20)
        value = "v" * 500
        for batch in range(80):  # about 10 MB of stream, over three times the room
            pipe = r.pipeline(transaction=False)
            for i in range(200):
                pipe.set(f"k{batch}:{i}", value)
            pipe.execute()  # raises on -OOM
        memory = r.info("memory")
        self.assertGreater(r.info("stats")["evicted_keys"], 0)
        self.assertGreater(memory["mem_not_counted_for_evict"], 6 << 20)
        counted = memory["used_memory"] - memory["mem_not_counted_for_evict"]
        self.assertLessEqual(counted, limit + 256 * 1024)
        # The held stream is the replicas' (mem_clients_slaves), not the clients'.
        self.assertGreater(memory["mem_clients_slaves"], 6 << 20)
        self.assertLess(memory["mem_clients_normal"], 1 << 20)
        # Nothing of the stream is lost: once loaded, the replica gets it from the snapshot on.
        replica.send("REPLCONF", "ACK", offset)
        args, _ = replica.command_skipping_pings()
        self.assertEqual(args, [b"SELECT", b"0"])
        args, _ = replica.command()
        self.assertEqual(args[:2], [b"SET", b"k0:0"])


if __name__ == "__main__":
    unittest.main()
