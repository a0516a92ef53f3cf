"""The recovery loop of the XAUTOCLAIM documentation, run with redis-py (Debian's python3-redis).

Producers append jobs; two consumers of one group read with XREADGROUP and acknowledge what they
processed; one of them dies mid-batch (it read a batch, acknowledged part of it, and its
connection is closed); a janitor reclaims idle pending entries with XAUTOCLAIM, walking the
cursor, processes and acknowledges them. At the end every job was processed, nothing is pending,
and the dead consumer's entries were processed by the janitor.

Skips (exit 0) only when the streamd binary or redis-py is missing.
"""

import threading
import time
import unittest

from streamd_testlib.job_loop import GROUP, STREAM, JobLoopTest, requires_streamd_and_redis_py

JOBS_PER_PRODUCER = 600
PRODUCERS = 3


@requires_streamd_and_redis_py
class RecoveryLoopTest(JobLoopTest):
    def setUp(self):
        super().setUp()
        self.duplicates: list[bytes] = []

    def record(self, who: str, entry_id: bytes) -> None:
        with self.lock:
            if entry_id in self.processed:
                self.duplicates.append(entry_id)
            self.processed[entry_id] = who

    def producer(self, n: int) -> None:
        r = self.client()
        for i in range(JOBS_PER_PRODUCER):
            r.xadd(STREAM, {"producer": n, "job": i})
        r.close()

    def consumer(self, name: str, stop: threading.Event) -> None:
        r = self.client()
        while not stop.is_set():
            reply = r.xreadgroup(GROUP, name, {STREAM: ">"}, count=10, block=100)
            for _stream, entries in reply or []:
                for entry_id, fields in entries:
                    self.assertIn(b"job", fields)
                    self.record(name, entry_id)
                if entries:
                    self.assertEqual(r.xack(STREAM, GROUP, *[e[0] for e in entries]), len(entries))
        r.close()

    def doomed_consumer(self) -> list[bytes]:
        """Reads one batch, acknowledges only its first entry, then its connection dies."""
        r = self.client()
        reply = r.xreadgroup(GROUP, "doomed", {STREAM: ">"}, count=25, block=2000)
        entries = reply[0][1]
        self.assertEqual(len(entries), 25)
        self.record("doomed", entries[0][0])
        self.assertEqual(r.xack(STREAM, GROUP, entries[0][0]), 1)
        r.connection_pool.disconnect()  # killed mid-batch: 24 entries stay pending
        return [e[0] for e in entries[1:]]

    def janitor(self, stop: threading.Event) -> None:
        r = self.client()

        def handle(claimed):
            for entry_id, fields in claimed:
                self.assertIn(b"job", fields)
                self.record("janitor", entry_id)
            if claimed:
                self.assertEqual(r.xack(STREAM, GROUP, *[e[0] for e in claimed]), len(claimed))

        while not stop.is_set():
            self.janitor_pass(r, handle)
            time.sleep(0.05)
        r.close()

    def test_every_entry_processed_and_nothing_pending(self):
        admin = self.client()
        self.assertTrue(admin.xgroup_create(STREAM, GROUP, id="$", mkstream=True))

        # The doomed consumer takes the first batch, so the producers must have written it.
        admin.xadd(STREAM, {"producer": "seed", "job": "first"})
        for _ in range(24):
            admin.xadd(STREAM, {"producer": "seed", "job": "batch"})
        abandoned = self.doomed_consumer()

        total = PRODUCERS * JOBS_PER_PRODUCER + 25
        self.run_loop(
            [lambda stop, n=name: self.consumer(n, stop) for name in ("alice", "bob")] +
            [self.janitor], [lambda n=n: self.producer(n) for n in range(PRODUCERS)],
            lambda: (self.processed_count() == total
                     and admin.xpending(STREAM, GROUP)["pending"] == 0),
            producers_timeout=60, settle_timeout=30, workers_timeout=10)

        self.assertEqual(admin.xlen(STREAM), total)
        self.assertEqual(len(self.processed), total, "every entry is processed")
        all_ids = {e[0] for e in admin.xrange(STREAM)}
        self.assertEqual(set(self.processed), all_ids)
        for entry_id in abandoned:
            self.assertEqual(self.processed[entry_id], "janitor",
                             "the dead consumer's entries were reclaimed by the janitor")
        # A janitor pass and a consumer can race only through XAUTOCLAIM of an entry whose
        # consumer is alive but slow; our consumers ack at once, so nothing runs twice.
        self.assertEqual(self.duplicates, [])
        summary = admin.xpending(STREAM, GROUP)
        self.assertEqual(summary["pending"], 0)
        consumers = {c["name"]: c for c in admin.xinfo_consumers(STREAM, GROUP)}
        self.assertEqual(consumers[b"doomed"]["pending"], 0)
        self.assertEqual(consumers[b"janitor"]["pending"], 0)
        group = admin.xinfo_groups(STREAM)[0]
        self.assertEqual(group["pending"], 0)
        self.assertEqual(group["last-delivered-id"], admin.xinfo_stream(STREAM)["last-generated-id"])
        admin.close()


if __name__ == "__main__":
    unittest.main()
