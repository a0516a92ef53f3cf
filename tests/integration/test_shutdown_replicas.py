"""A master's shutdown waits for its replicas (Redis 7.0's shutdown-timeout), so that what it
acknowledged reaches them before it exits:

- SHUTDOWN with a replica that has not acknowledged everything (SIGSTOP): the caller stays
  blocked, writes wait, INFO shows shutdown_in_milliseconds; SHUTDOWN ABORT cancels it (the
  caller gets "Errors trying to SHUTDOWN", writes resume); SHUTDOWN again, the replica wakes,
  the master exits once the replica acknowledged the last write, which the replica has;
- a final save that fails cancels the shutdown: both blocked callers get the error, the
  server keeps running;
- SIGTERM waits the same way and exits at the timeout with the replica still lagging (logged);
- SHUTDOWN NOW and shutdown-timeout 0 exit at once.

The same scenarios against redis-server 7.0.15 check the test itself:

    STREAMD_SHUTDOWN_SELFTEST=1 PYTHONPATH=tests /usr/bin/python3 \\
        tests/integration/test_shutdown_replicas.py
"""

import os
import signal
import time
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.replica import NodeKind, link_up, repl, same_offset, wait_for

NODES = NodeKind("STREAMD_SHUTDOWN_SELFTEST", "--repl-diskless-sync-delay", "0", "--appendonly", "no")
needs_servers = NODES.needs_servers
node = NODES.start


def exited(server, timeout):
    try:
        server.proc.wait(timeout=timeout)
        return True
    except Exception:  # subprocess.TimeoutExpired
        return False


@needs_servers
class ShutdownWaitsForReplicasTest(unittest.TestCase):
    def setUp(self):
        self.master = node()
        self.replica = node()
        self.addCleanup(self.master.stop)
        self.addCleanup(self.replica.stop)
        self.m = self.master.redis_py(decode_responses=True)
        self.r = self.replica.redis_py(decode_responses=True)
        self.r.execute_command("REPLICAOF", "127.0.0.1", str(self.master.port))
        wait_for(lambda: link_up(self.r), timeout=30, what="replica up")
        self.m.set("k", 1)
        self.m.xadd("s", {"f": "v"})
        wait_for(lambda: same_offset(self.m, self.r), what="replica caught up")
        self.stopped = False

    def tearDown(self):
        if self.stopped:
            os.kill(self.replica.proc.pid, signal.SIGCONT)

    def stop_replica(self):
        os.kill(self.replica.proc.pid, signal.SIGSTOP)
        self.stopped = True

    def cont_replica(self):
        os.kill(self.replica.proc.pid, signal.SIGCONT)
        self.stopped = False

    def test_shutdown_waits_can_be_aborted_and_exits_once_the_replica_caught_up(self):
        self.stop_replica()
        self.m.incr("k")
        caller = self.master.client()
        self.addCleanup(caller.close)
        caller.send_raw(b"*1\r\n$8\r\nSHUTDOWN\r\n")
        wait_for(lambda: int(self.m.info("server").get("shutdown_in_milliseconds", 0)) > 0,
                 what="shutdown waiting")
        # Writes wait while it does; reads go on.
        writer = self.master.client()
        self.addCleanup(writer.close)
        writer.send_raw(b"*3\r\n$3\r\nSET\r\n$1\r\nw\r\n$1\r\n1\r\n")
        time.sleep(0.3)
        self.assertIsNone(self.m.get("w"))
        self.assertTrue(self.m.execute_command("SHUTDOWN", "ABORT"))
        self.assertEqual(caller.read_raw(), b"-ERR Errors trying to SHUTDOWN. Check logs.\r\n")
        self.assertEqual(writer.read_raw(), b"+OK\r\n")
        self.assertNotIn("shutdown_in_milliseconds", self.m.info("server"))
        with self.assertRaisesRegex(Exception, "No shutdown in progress"):
            self.m.execute_command("SHUTDOWN", "ABORT")

        self.m.incr("k")
        caller2 = self.master.client()
        self.addCleanup(caller2.close)
        caller2.send_raw(b"*1\r\n$8\r\nSHUTDOWN\r\n")
        wait_for(lambda: int(self.m.info("server").get("shutdown_in_milliseconds", 0)) > 0,
                 what="shutdown waiting again")
        self.assertFalse(exited(self.master, 0.5))
        self.cont_replica()
        self.assertTrue(exited(self.master, 15), "master did not exit")
        self.assertEqual(self.r.get("k"), "3")
        self.assertEqual(self.r.get("w"), "1")
        log = self.master.log_text()
        self.assertIn("Waiting for replicas before shutting down", log)
        self.assertIn("1 of 1 replicas are in sync when shutting down", log)
        self.assertNotIn("Lagging replica", log)

    def test_a_failed_final_save_cancels_the_shutdown_and_answers_every_caller(self):
        # dump.rdb is a directory: the final save cannot rename its file into place.
        (self.master.workdir / "dump.rdb").mkdir()
        self.stop_replica()
        self.m.incr("k")
        callers = [self.master.client() for _ in range(2)]
        for c in callers:
            self.addCleanup(c.close)
            c.send_raw(b"*2\r\n$8\r\nSHUTDOWN\r\n$4\r\nSAVE\r\n")
        wait_for(lambda: self.m.info("clients")["blocked_clients"] == 2, what="both blocked")
        # Redis counts neither replica links as clients nor the wait as a blocking key.
        self.assertEqual(self.m.info("clients")["connected_clients"], 3)
        self.assertEqual(self.m.info("clients").get("total_blocking_keys", 0), 0)  # 7.2+
        # The stream the stopped replica has not taken is held for it (Redis 7's shared buffer).
        memory = self.m.info("memory")
        self.assertGreater(memory["mem_total_replication_buffers"], 0)
        # (Redis adds a few bytes of the replica client's own to mem_clients_slaves.)
        self.assertGreaterEqual(memory["mem_replication_backlog"] + memory["mem_clients_slaves"],
                                memory["mem_total_replication_buffers"])
        self.cont_replica()
        for c in callers:
            self.assertEqual(c.read_raw(timeout=15),
                             b"-ERR Errors trying to SHUTDOWN. Check logs.\r\n")
        self.assertFalse(exited(self.master, 0.2))
        self.assertTrue(self.m.set("after", "1"))
        self.assertIn("Errors trying to shut down", self.master.log_text())

    def test_sigterm_waits_until_the_timeout_then_exits_logging_the_lagging_replica(self):
        self.m.config_set("shutdown-timeout", 1)
        self.stop_replica()
        self.m.incr("k")
        t0 = time.monotonic()
        os.kill(self.master.proc.pid, signal.SIGTERM)
        self.assertTrue(exited(self.master, 15), "master did not exit")
        self.assertGreaterEqual(time.monotonic() - t0, 0.8)
        log = self.master.log_text()
        self.assertIn("Lagging replica", log)
        self.assertIn("0 of 1 replicas are in sync when shutting down", log)

    def test_now_and_timeout_zero_exit_at_once(self):
        self.stop_replica()
        self.m.incr("k")
        caller = self.master.client()
        self.addCleanup(caller.close)
        caller.send_raw(b"*2\r\n$8\r\nSHUTDOWN\r\n$3\r\nNOW\r\n")
        self.assertTrue(exited(self.master, 5), "SHUTDOWN NOW did not exit at once")
        self.assertNotIn("Waiting for replicas", self.master.log_text())

    def test_timeout_zero_does_not_wait(self):
        self.m.config_set("shutdown-timeout", 0)
        self.stop_replica()
        self.m.incr("k")
        os.kill(self.master.proc.pid, signal.SIGTERM)
        self.assertTrue(exited(self.master, 5), "did not exit at once")
        self.assertNotIn("Waiting for replicas", self.master.log_text())


if __name__ == "__main__":
    runner.main()
