"""The job loop of the XAUTOCLAIM documentation, shared by the integration tests that run it.

Producers append jobs to one stream; consumers of one group read them with XREADGROUP; a janitor
walks XAUTOCLAIM's cursor to reclaim idle pending entries. JobLoopTest holds what every such
test needs: a streamd started per test, redis-py clients, threads whose exceptions reach the test,
the loop started and waited for until a condition holds, and one janitor pass. The tests decide
what processing a job means (test_recovery_loop.py, test_dead_letter.py).
"""

import threading
import time
import unittest
from typing import Callable

from . import servers

try:
    import redis  # Debian's python3-redis
except ImportError:  # pragma: no cover - reported as a skip
    redis = None

STREAM = "jobs"
GROUP = "workers"
MIN_IDLE_MS = 1000

# Skips (exit 0) only when the streamd binary or redis-py is missing.
requires_streamd_and_redis_py = unittest.skipUnless(
    servers.streamd_available() and redis is not None, "streamd binary or python3-redis missing")


class JobLoopTest(unittest.TestCase):
    server_args: tuple = ()  # streamd's arguments for the test's server
    client_timeout: float = 10.0

    def setUp(self):
        self.server = servers.start_streamd(*self.server_args)
        self.addCleanup(self.server.cleanup)
        self.lock = threading.Lock()
        self.processed: dict[bytes, str] = {}  # entry ID -> who processed it
        self.errors: list[BaseException] = []

    def client(self, server=None):
        return (server or self.server).redis_py(socket_timeout=self.client_timeout)

    def guarded(self, fn, *args):
        """A thread running fn(*args) whose exception is raised by the test thread later."""
        def run():
            try:
                fn(*args)
            except BaseException as e:  # surfaced by the test thread
                self.errors.append(e)
        return threading.Thread(target=run)

    def run_loop(self, workers: list[Callable[[threading.Event], None]],
                 producers: list[Callable[[], None]], done: Callable[[], bool],
                 producers_timeout: float, settle_timeout: float, workers_timeout: float) -> None:
        """Starts the workers (each gets the stop event) and the producers, waits for the
        producers, then until done() (or settle_timeout), stops the workers and raises the first
        error any thread had."""
        stop = threading.Event()
        worker_threads = [self.guarded(w, stop) for w in workers]
        producer_threads = [self.guarded(p) for p in producers]
        for t in worker_threads + producer_threads:
            t.start()
        for t in producer_threads:
            t.join(producers_timeout)
        deadline = time.monotonic() + settle_timeout
        while time.monotonic() < deadline and not done():
            time.sleep(0.05)
        stop.set()
        for t in worker_threads:
            t.join(workers_timeout)
        if self.errors:
            raise self.errors[0]

    def processed_count(self) -> int:
        with self.lock:
            return len(self.processed)

    def janitor_pass(self, r, handle: Callable[[list], None], count: int = 10) -> None:
        """Walks XAUTOCLAIM's cursor once over the group, handing each batch to handle()."""
        cursor = "0-0"
        while True:
            # redis-py 4.3 returns [next cursor, claimed entries, deleted IDs] (Redis 7).
            reply = r.xautoclaim(STREAM, GROUP, "janitor", MIN_IDLE_MS, cursor, count=count)
            cursor, claimed = reply[0], reply[1]
            # Nothing was deleted from the stream (a dead-lettered entry is in neither list).
            self.assertEqual(reply[2], [])
            handle(claimed)
            if cursor in (b"0-0", "0-0"):
                return
