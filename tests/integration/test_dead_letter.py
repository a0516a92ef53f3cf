"""Dead-letter streams (STREAMD.DEADLETTER, a streamd extension) with redis-py.

The recovery loop of test_recovery_loop.py (producers, two consumers reading with XREADGROUP,
a janitor reclaiming idle entries with XAUTOCLAIM and walking the cursor), with a poison job:
every worker that gets it fails on it and leaves it pending. With MAXDELIVERIES 3 on the group,
the janitor's XAUTOCLAIMs hand it out until it has been delivered 3 times; the next one moves it
to the dead-letter stream instead, and the loop goes on until every other job is processed and
nothing is pending. Then a restart from the AOF (and one from a rewritten AOF) keeps the policy
and the dead-lettered entry, and the policy still works.

Skips (exit 0) only when the streamd binary or redis-py is missing.
"""

import threading
import time

from streamd_testlib import runner, servers
from streamd_testlib.job_loop import GROUP, STREAM, JobLoopTest, requires_streamd_and_redis_py
from streamd_testlib.resp import to_python

DLQ = "jobs:dead"
MAX_DELIVERIES = 3
JOBS_PER_PRODUCER = 300
PRODUCERS = 2
POISON = b"poison"


def is_poison(fields) -> bool:
    return fields.get(b"job") == POISON


@requires_streamd_and_redis_py
class DeadLetterLoopTest(JobLoopTest):
    server_args = ("--appendfsync", "always")
    client_timeout = 20.0

    def setUp(self):
        super().setUp()
        self.poison_attempts: list[tuple[str, bytes]] = []  # (who, entry ID)

    def work(self, who: str, r, entry_id: bytes, fields) -> None:
        """Processes one job: the poison one always fails (left pending, never acknowledged)."""
        if is_poison(fields):
            with self.lock:
                self.poison_attempts.append((who, entry_id))
            return
        with self.lock:
            self.processed[entry_id] = who
        self.assertEqual(r.xack(STREAM, GROUP, entry_id), 1)

    def producer(self, n: int) -> None:
        r = self.client()
        for i in range(JOBS_PER_PRODUCER):
            r.xadd(STREAM, {"producer": n, "job": i})
            if n == 0 and i == JOBS_PER_PRODUCER // 2:
                r.xadd(STREAM, {"producer": n, "job": POISON})
        r.close()

    def consumer(self, name: str, stop: threading.Event) -> None:
        r = self.client()
        while not stop.is_set():
            reply = r.xreadgroup(GROUP, name, {STREAM: ">"}, count=10, block=100)
            for _stream, entries in reply or []:
                for entry_id, fields in entries:
                    self.work(name, r, entry_id, fields)
        r.close()

    def janitor(self, stop: threading.Event) -> None:
        r = self.client()

        def handle(claimed):
            for entry_id, fields in claimed:
                self.work("janitor", r, entry_id, fields)

        while not stop.is_set():
            self.janitor_pass(r, handle)
            time.sleep(0.05)
        r.close()

    def dead_letters(self, r):
        return r.xrange(DLQ)

    def test_poison_job_lands_in_the_dead_letter_stream_and_the_loop_goes_on(self):
        admin = self.client()
        self.assertTrue(admin.xgroup_create(STREAM, GROUP, id="$", mkstream=True))
        self.assertEqual(
            admin.execute_command("STREAMD.DEADLETTER", "SET", STREAM, GROUP,
                                  "MAXDELIVERIES", MAX_DELIVERIES, "STREAM", DLQ), b"OK")

        total = PRODUCERS * JOBS_PER_PRODUCER  # the poison job is never processed
        self.run_loop(
            [lambda stop, n=name: self.consumer(n, stop) for name in ("alice", "bob")] +
            [self.janitor], [lambda n=n: self.producer(n) for n in range(PRODUCERS)],
            lambda: (self.processed_count() == total
                     and admin.xpending(STREAM, GROUP)["pending"] == 0 and admin.exists(DLQ)),
            producers_timeout=120, settle_timeout=60, workers_timeout=20)

        # Every other job was processed exactly once, nothing is pending.
        self.assertEqual(len(self.processed), total)
        self.assertEqual(admin.xpending(STREAM, GROUP)["pending"], 0)
        self.assertEqual(admin.xlen(STREAM), total + 1)  # the source keeps the poison job

        # The poison job was handed out exactly MAX_DELIVERIES times (one consumer, then the
        # janitor), then moved: one dead letter naming where it came from.
        poison_ids = {i for _, i in self.poison_attempts}
        self.assertEqual(len(poison_ids), 1)
        poison_id = poison_ids.pop()
        self.assertEqual(len(self.poison_attempts), MAX_DELIVERIES, self.poison_attempts)
        self.assertIn(self.poison_attempts[0][0], ("alice", "bob"))
        self.assertEqual([w for w, _ in self.poison_attempts[1:]],
                         ["janitor"] * (MAX_DELIVERIES - 1))
        letters = self.dead_letters(admin)
        self.assertEqual(len(letters), 1)
        dl_id, dl_fields = letters[0]
        with self.server.client() as c:  # the exact field order, which redis-py's dict drops
            flat = to_python(c.call("XRANGE", DLQ, "-", "+"))[0][1]
        self.assertEqual(flat[:12], [
            b"streamd-dl-stream", STREAM.encode(), b"streamd-dl-group", GROUP.encode(),
            b"streamd-dl-id", poison_id, b"streamd-dl-deliveries", str(MAX_DELIVERIES).encode(),
            b"streamd-dl-consumer", b"janitor", b"streamd-dl-reason", b"max-deliveries"])
        self.assertEqual(dl_fields[b"job"], POISON)
        self.assertEqual(dl_fields[b"producer"], b"0")

        policy = admin.execute_command("STREAMD.DEADLETTER", "GET", STREAM, GROUP)
        self.assertEqual(policy[:4], [b"max-deliveries", MAX_DELIVERIES, b"stream", DLQ.encode()])
        self.assertEqual(policy[5], 1)
        group = admin.xinfo_groups(STREAM)[0]
        self.assertEqual(group["max-deliveries"], MAX_DELIVERIES)
        self.assertEqual(group["dead-letter-stream"], DLQ.encode())
        self.assertEqual(group["pending"], 0)
        self.assertEqual(admin.info("stats")["streamd_dead_lettered_entries"], 1)
        admin.close()

        # The AOF has the plain XADD and XACK (and the policy); a restart keeps both.
        before_dlq = self.dead_letters(self.client())
        before_groups = self.client().xinfo_groups(STREAM)
        wd = self.server.workdir
        self.server.stop()
        for phase in ("incremental AOF", "rewritten AOF"):
            with self.subTest(phase):
                s = servers.start_streamd("--appendfsync", "always", workdir=wd)
                try:
                    r = self.client(s)
                    self.assertEqual(self.dead_letters(r), before_dlq)
                    self.assertEqual(r.xinfo_groups(STREAM), before_groups)
                    self.assertEqual(
                        r.execute_command("STREAMD.DEADLETTER", "GET", STREAM, GROUP)[:4],
                        [b"max-deliveries", MAX_DELIVERIES, b"stream", DLQ.encode()])
                    if phase == "incremental AOF":
                        self.assertTrue(r.bgrewriteaof())
                        wait_rewrite(r)
                    r.close()
                finally:
                    s.stop()
        # After both restarts the policy still works: a new poison job moves after 3 deliveries.
        s = servers.start_streamd("--appendfsync", "always", workdir=wd)
        self.addCleanup(s.cleanup)
        r = self.client(s)
        new_id = r.xadd(STREAM, {"job": POISON})
        r.xreadgroup(GROUP, "alice", {STREAM: ">"}, count=1)
        for _ in range(MAX_DELIVERIES - 1):
            self.assertEqual(len(r.xclaim(STREAM, GROUP, "bob", 0, [new_id])), 1)
        self.assertEqual(r.xclaim(STREAM, GROUP, "bob", 0, [new_id]), [])
        letters = self.dead_letters(r)
        self.assertEqual(len(letters), 2)
        self.assertEqual(letters[1][1][b"streamd-dl-id"], new_id)
        r.close()


def wait_rewrite(r, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        i = r.info("persistence")
        if i["aof_rewrite_in_progress"] == 0 and i["aof_rewrite_scheduled"] == 0:
            return
        time.sleep(0.05)
    raise AssertionError("rewrite still running")


if __name__ == "__main__":
    runner.main()
