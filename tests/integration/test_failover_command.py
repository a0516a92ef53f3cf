"""FAILOVER, the coordinated failover a master runs itself (Redis 6.2+), on three nodes A (master),
B and C (replicas of A):

- to a named replica that lags (SIGSTOP): writes wait while the failover waits for it
  (master_failover_state waiting-for-sync; REPLICAOF refused, CLIENT UNPAUSE does not end it),
  then A becomes B's replica, B the master with a partial resync, the waiting write gets
  READONLY, and every node has the same DEBUG DIGEST;
- to any replica: the one caught up is chosen;
- TIMEOUT without FORCE aborts (A stays master), with FORCE fails over to the lagging target;
- FAILOVER ABORT while waiting;
- a target that refuses PSYNC ... FAILOVER (a fake replica): the failover aborts and A is a
  master again.

The argument errors are in tests/differential/scripts/failover_errors.txt. The same scenarios
against redis-server 7.0.15 nodes check the test itself:

    STREAMD_FAILOVER_CMD_SELFTEST=1 PYTHONPATH=tests /usr/bin/python3 \\
        tests/integration/test_failover_command.py
"""

import os
import signal
import socket
import threading
import time
import unittest

import redis

from streamd_testlib import runner, servers
from streamd_testlib.fake_replica import FakeReplica
from streamd_testlib.replica import NodeKind, link_up, repl, wait_for
from streamd_testlib.resp import ReplyReader

NODES = NodeKind("STREAMD_FAILOVER_CMD_SELFTEST", "--repl-diskless-sync-delay", "0",
                 "--enable-debug-command", "yes", "--appendonly", "no")
needs_servers = NODES.needs_servers
node = NODES.start


def state(r) -> str:
    return repl(r)["master_failover_state"]


def stats(r) -> dict:
    return r.info("stats")


@needs_servers
class FailoverCommandTest(unittest.TestCase):
    def setUp(self):
        self.nodes = [node() for _ in range(3)]
        for n in self.nodes:
            self.addCleanup(n.stop)
        self.a, self.b, self.c = (n.redis_py(decode_responses=True) for n in self.nodes)
        for r in (self.b, self.c):
            r.execute_command("REPLICAOF", "127.0.0.1", str(self.nodes[0].port))
        wait_for(lambda: link_up(self.b) and link_up(self.c), timeout=30, what="replicas up")
        wait_for(lambda: repl(self.a)["connected_slaves"] == 2
                 and all(repl(self.a)[f"slave{i}"]["state"] == "online" for i in (0, 1)),
                 what="both online")
        for i in range(20):
            self.a.xadd("jobs", {"n": str(i)})
            self.a.set(f"k{i}", i)
        self.a.xgroup_create("jobs", "g", "0")
        self.a.xreadgroup("g", "w", {"jobs": ">"}, count=5)
        self.stopped = []

    def tearDown(self):
        for n in self.stopped:
            os.kill(n.proc.pid, signal.SIGCONT)

    def stop(self, i):
        os.kill(self.nodes[i].proc.pid, signal.SIGSTOP)
        self.stopped.append(self.nodes[i])

    def cont(self, i):
        os.kill(self.nodes[i].proc.pid, signal.SIGCONT)
        self.stopped.remove(self.nodes[i])

    def port(self, i):
        return str(self.nodes[i].port)

    def digests_equal(self, *clients):
        return len({c.execute_command("DEBUG", "DIGEST") for c in clients}) == 1

    def test_refusals_that_need_replicas(self):
        with self.assertRaisesRegex(redis.ResponseError, "is not a replica"):
            self.a.execute_command("FAILOVER", "TO", "127.0.0.1", "1")
        with self.assertRaisesRegex(redis.ResponseError, "is not a replica"):
            self.a.execute_command("FAILOVER", "TO", "invalidhost", self.port(1))
        with self.assertRaisesRegex(redis.ResponseError, "requires both a timeout"):
            self.a.execute_command("FAILOVER", "TO", "127.0.0.1", self.port(1), "FORCE")
        with self.assertRaisesRegex(redis.ResponseError, "not valid when server is a replica"):
            self.b.execute_command("FAILOVER", "TO", "127.0.0.1", self.port(1))
        self.assertEqual(state(self.a), "no-failover")

    def test_failover_to_a_lagging_replica_waits_then_hands_over(self):
        full_b, partial_b = stats(self.b)["sync_full"], stats(self.b)["sync_partial_ok"]
        self.stop(1)
        for i in range(20, 30):
            self.a.xadd("jobs", {"n": str(i)})
        self.assertTrue(self.a.execute_command("FAILOVER", "TO", "127.0.0.1", self.port(1)))
        self.assertEqual(state(self.a), "waiting-for-sync")
        with self.assertRaisesRegex(redis.ResponseError, "REPLICAOF not allowed while failing"):
            self.a.execute_command("REPLICAOF", "NO", "ONE")
        with self.assertRaisesRegex(redis.ResponseError, "FAILOVER already in progress"):
            self.a.execute_command("FAILOVER")
        # Writes wait; reads do not; CLIENT UNPAUSE does not end a failover's pause.
        self.assertTrue(self.a.execute_command("CLIENT", "UNPAUSE"))
        self.assertEqual(self.a.xlen("jobs"), 30)
        writer = self.nodes[0].client()
        self.addCleanup(writer.close)
        writer.send_raw(b"*5\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$1\r\n*\r\n$1\r\nn\r\n$4\r\nlate\r\n")
        time.sleep(0.3)
        self.assertEqual(self.a.xlen("jobs"), 30)
        self.assertEqual(state(self.a), "waiting-for-sync")

        self.cont(1)
        wait_for(lambda: state(self.a) == "no-failover", timeout=20, what="failover over")
        self.assertEqual(repl(self.a)["role"], "slave")
        self.assertEqual(repl(self.b)["role"], "master")
        self.assertTrue(writer.read_raw().startswith(b"-READONLY"))
        self.c.execute_command("REPLICAOF", "127.0.0.1", self.port(1))
        wait_for(lambda: link_up(self.a) and link_up(self.c), timeout=30, what="A, C follow B")
        wait_for(lambda: self.digests_equal(self.a, self.b, self.c), what="same dataset")
        self.assertEqual(self.b.xlen("jobs"), 30)
        self.assertEqual(self.b.xpending("jobs", "g")["pending"], 5)
        # B continued A's history: both A and C resynced partially, nothing was copied whole.
        self.assertEqual(stats(self.b)["sync_partial_ok"] - partial_b, 2)
        self.assertEqual(stats(self.b)["sync_full"] - full_b, 0)
        self.b.xadd("jobs", {"n": "on-b"})
        wait_for(lambda: self.a.xlen("jobs") == 31 and self.c.xlen("jobs") == 31,
                 what="B's writes reach A and C")

    def test_failover_to_any_replica_picks_one_caught_up(self):
        self.stop(1)
        self.a.set("only-c-has-this", "1")
        self.assertTrue(self.a.execute_command("FAILOVER"))
        wait_for(lambda: state(self.a) == "no-failover", timeout=20, what="failover over")
        self.assertEqual(repl(self.c)["role"], "master")
        self.assertEqual(repl(self.a)["role"], "slave")
        self.assertEqual(repl(self.a)["master_port"], self.nodes[2].port)
        wait_for(lambda: link_up(self.a), what="A follows C")
        self.assertEqual(self.a.get("only-c-has-this"), "1")

    def test_timeout_aborts_and_force_fails_over_anyway(self):
        self.stop(1)
        self.a.set("x", "1")
        self.assertTrue(self.a.execute_command(
            "FAILOVER", "TO", "127.0.0.1", self.port(1), "TIMEOUT", "200"))
        wait_for(lambda: state(self.a) == "no-failover", timeout=10, what="timed out")
        self.assertEqual(repl(self.a)["role"], "master")
        self.assertTrue(self.a.set("y", "2"))  # writes flow again

        self.assertTrue(self.a.execute_command(
            "FAILOVER", "TO", "127.0.0.1", self.port(1), "TIMEOUT", "200", "FORCE"))
        wait_for(lambda: state(self.a) == "failover-in-progress", timeout=10, what="forced")
        self.assertEqual(repl(self.a)["role"], "slave")
        self.cont(1)
        wait_for(lambda: state(self.a) == "no-failover", timeout=20, what="failover over")
        self.assertEqual(repl(self.b)["role"], "master")
        wait_for(lambda: link_up(self.a), timeout=30, what="A follows B")
        # Whether B had read what A sent while it was stopped (it sat in B's socket) before it
        # took over decides if y survived; either way A ends with exactly B's dataset.
        wait_for(lambda: self.digests_equal(self.a, self.b), what="A has B's dataset")

    def test_abort_while_waiting(self):
        self.stop(1)
        self.stop(2)
        self.a.set("x", "1")
        self.assertTrue(self.a.execute_command("FAILOVER"))
        self.assertEqual(state(self.a), "waiting-for-sync")
        self.assertTrue(self.a.execute_command("FAILOVER", "ABORT"))
        self.assertEqual(state(self.a), "no-failover")
        self.assertEqual(repl(self.a)["role"], "master")
        self.assertTrue(self.a.set("y", "2"))
        with self.assertRaisesRegex(redis.ResponseError, "No failover in progress"):
            self.a.execute_command("FAILOVER", "ABORT")


@needs_servers
class RefusedFailoverTest(unittest.TestCase):
    """The target refuses PSYNC ... FAILOVER: the failover aborts, the master is a master again."""

    def test_a_target_refusing_psync_failover_aborts_it(self):
        master = node()
        self.addCleanup(master.stop)
        r = master.redis_py(decode_responses=True)
        listener = socket.create_server(("127.0.0.1", 0))
        self.addCleanup(listener.close)
        fake_port = listener.getsockname()[1]
        fake = FakeReplica(master.port)
        self.addCleanup(fake.close)
        fake.handshake(fake_port)
        reply = fake.call("PSYNC", "?", "-1").split()
        self.assertEqual(reply[0], b"+FULLRESYNC")
        fake.snapshot()
        r.set("k", "v")
        wait_for(lambda: repl(r)["connected_slaves"] == 1, what="fake replica attached")

        seen = []

        def target():
            """Answers the handshake a master sends its new master: +PONG / +OK, -ERR to PSYNC."""
            conn, _ = listener.accept()
            conn.settimeout(20)
            requests = ReplyReader()  # a request is an array of bulk strings
            while chunk := conn.recv(4096):
                requests.feed(chunk)
                while (item := requests.get()) is not None:
                    args = [a.text for a in item[1].items]
                    seen.append(args)
                    name = args[0].upper()
                    conn.sendall(b"+PONG\r\n" if name == b"PING" else
                                 b"-ERR no failover here\r\n" if name == b"PSYNC" else b"+OK\r\n")

        t = threading.Thread(target=target, daemon=True)
        t.start()
        # Online once the master has reaped its snapshot child (a slow machine: after the
        # snapshot reached us); FAILOVER refuses a target that is not online yet.
        wait_for(lambda: repl(r)["slave0"]["state"] == "online", what="fake replica online")
        offset = repl(r)["master_repl_offset"]
        fake.send("REPLCONF", "ACK", offset)
        wait_for(lambda: repl(r)["slave0"]["offset"] == offset, what="ack seen")
        self.assertTrue(r.execute_command("FAILOVER", "TO", "127.0.0.1", fake_port))
        wait_for(lambda: any(a and a[0].upper() == b"PSYNC" for a in seen), timeout=20,
                 what="PSYNC sent to the target")
        psync = next(a for a in seen if a[0].upper() == b"PSYNC")
        self.assertEqual(psync[3].upper(), b"FAILOVER")
        wait_for(lambda: state(r) == "no-failover" and repl(r)["role"] == "master",
                 timeout=20, what="failover aborted")
        self.assertTrue(r.set("after", "1"))


if __name__ == "__main__":
    runner.main()
