"""WAITAOF with replicas (issue 13): a streamd replica with appendonly yes acknowledges with
REPLCONF ACK <offset> FACK <offset its AOF has fsynced> (Redis 7.2+); a streamd master counts
the replicas whose FACK covers the client's last write. A replica without an AOF sends no FACK
and is not counted (WAITAOF waits out its timeout), while WAIT still counts it. On a replica
WAITAOF is refused with Redis's text.

redis-server 7.0.15 has no WAITAOF; the semantics follow Redis 7.2+'s source and redis.io
(numlocal: 1 when this client's writes are fsynced locally; numreplicas: replicas that
acknowledged them fsynced).

Skips (exit 0, SKIPPED line) only when the streamd binary or redis-server does not exist.
"""

import time
import unittest

import redis

from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, needs_servers, same_offset, wait_for


@needs_servers
class WaitAof(unittest.TestCase):
    def replica(self, master, *args):
        rep = servers.start_streamd("--replicaof", "127.0.0.1", str(master.port), *args)
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        return r

    def test_counts_replicas_whose_aof_is_fsynced(self):
        master = servers.start_streamd("--repl-diskless-sync-delay", "0", "--appendonly", "yes")
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        with_aof = self.replica(master, "--appendonly", "yes", "--appendfsync", "everysec")
        without_aof = self.replica(master, "--appendonly", "no")
        wait_for(lambda: m.info("replication")["connected_slaves"] == 2, what="two replicas")

        m.xadd("s", {"f": "1"})
        t0 = time.monotonic()
        self.assertEqual(m.execute_command("WAITAOF", 1, 1, 5000), [1, 1])
        self.assertLess(time.monotonic() - t0, 4)
        # The replica without an AOF is not counted: the timeout passes.
        t0 = time.monotonic()
        self.assertEqual(m.execute_command("WAITAOF", 0, 2, 300), [1, 1])
        self.assertGreaterEqual(time.monotonic() - t0, 0.25)
        # WAIT counts both.
        self.assertEqual(m.execute_command("WAIT", 2, 2000), 2)
        wait_for(lambda: same_offset(m, with_aof, without_aof), what="offsets equal")
        # Several writes in a row, then one WAITAOF covering them all.
        for i in range(50):
            m.set(f"k{i}", i)
        self.assertEqual(m.execute_command("WAITAOF", 1, 1, 5000), [1, 1])
        self.assertEqual(with_aof.get("k49"), "49")

        with self.assertRaisesRegex(
                redis.ResponseError,
                "^WAITAOF cannot be used with replica instances. Please also note that writes to "
                "replicas are just local and are not propagated.$"):
            with_aof.execute_command("WAITAOF", 0, 0, 0)

    def test_master_without_aof(self):
        master = servers.start_streamd("--repl-diskless-sync-delay", "0", "--appendonly", "no")
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        self.replica(master, "--appendonly", "yes")
        m.set("a", "1")
        with self.assertRaisesRegex(
                redis.ResponseError,
                "^WAITAOF cannot be used when numlocal is set but appendonly is disabled.$"):
            m.execute_command("WAITAOF", 1, 1, 0)
        self.assertEqual(m.execute_command("WAITAOF", 0, 1, 5000), [0, 1])


if __name__ == "__main__":
    runner.main()
