"""Crash recovery: writers pipeline XADD, XREADGROUP and XACK while the server is killed with
SIGKILL at random moments (sometimes in the middle of a BGREWRITEAOF), then restarted on the same
directory, round after round.

- appendfsync always: every acknowledged XADD is present after the restart, every acknowledged
  XACK stays acknowledged, every entry whose delivery was acknowledged is still pending or acked.
- appendfsync everysec: the files always load, and what is lost was acknowledged within about
  the last second before the kill.

Bounded: a few rounds of about a second of load each (the file runs in well under 2 minutes).
Set STREAMD_CRASH_ROUNDS to run more rounds."""

import os
import random
import signal
import threading
import time
import unittest

import aof_helpers as h
from streamd_testlib import runner, servers
from streamd_testlib.client import ConnectionClosed, RawClient, ReplyTimeout

needs_streamd = unittest.skipUnless(servers.streamd_available(), "no streamd binary")

ROUNDS = int(os.environ.get("STREAMD_CRASH_ROUNDS", "5"))
PIPELINE = 32


class Load:
    """Three XADD writers, one XREADGROUP+XACK consumer; everything acknowledged is recorded
    with the time its reply arrived."""

    def __init__(self, port: int, round_no: int):
        self.port = port
        self.round = round_no
        self.added = []      # (stream id, reply time)
        self.delivered = []  # (stream id, reply time)
        self.acked = []      # (stream id, reply time)
        self.ack_sent = set()  # ids an XACK was sent for (acknowledged or not)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.writer, args=(i,)) for i in range(3)]
        self.threads.append(threading.Thread(target=self.consumer))

    def start(self):
        for t in self.threads:
            t.start()

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join(30)

    def writer(self, n):
        try:
            c = RawClient("127.0.0.1", self.port, timeout=5)
            seq = 0
            while not self.stop.is_set():
                batch = []
                for _ in range(PIPELINE):
                    seq += 1
                    batch.append(h.encode("XADD", "q", "*", "w", n, "seq", seq, "r", self.round))
                c.send_raw(b"".join(batch))
                for _ in range(PIPELINE):
                    rep = c.read()
                    if not rep.is_error:
                        with self.lock:
                            self.added.append((rep.text, time.time()))
        except (ConnectionClosed, ReplyTimeout, OSError):
            pass

    def consumer(self):
        try:
            c = RawClient("127.0.0.1", self.port, timeout=5)
            while not self.stop.is_set():
                rep = c.call("XREADGROUP", "GROUP", "g", "worker", "COUNT", 20, "STREAMS", "q", ">")
                now = time.time()
                ids = []
                if not rep.null and rep.items:
                    for entry in rep.items[0].items[1].items:
                        ids.append(entry.items[0].text)
                with self.lock:
                    self.delivered += [(i, now) for i in ids]
                # Acknowledge half of them, pipelined one XACK per id.
                to_ack = ids[::2]
                if to_ack:
                    with self.lock:
                        self.ack_sent.update(to_ack)
                    c.send_raw(b"".join(h.encode("XACK", "q", "g", i) for i in to_ack))
                    for i in to_ack:
                        r = c.read()
                        if not r.is_error and int(r.text) == 1:
                            with self.lock:
                                self.acked.append((i, time.time()))
                if not ids:
                    time.sleep(0.005)
        except (ConnectionClosed, ReplyTimeout, OSError):
            pass


@needs_streamd
class CrashTest(unittest.TestCase):
    def run_rounds(self, policy: str, check):
        wd = h.workdir(self)
        self.ack_sent = set()
        rng = random.Random(int(os.environ.get("STREAMD_CRASH_SEED", time.time_ns())))
        all_added, all_acked, all_delivered = [], [], []
        for rnd in range(ROUNDS):
            s = servers.start_streamd("--appendfsync", policy, workdir=wd, ready_timeout=30)
            self.addCleanup(s.kill)
            with s.client() as c:
                if rnd == 0:
                    h.call(c, "XGROUP", "CREATE", "q", "g", "$", "MKSTREAM")
                # Small auto-rewrite threshold: rewrites also happen on their own.
                h.call(c, "CONFIG", "SET", "auto-aof-rewrite-min-size", 256 * 1024)
                # Between rounds a cheap check (nothing ever deletes from q, so every XADD
                # acknowledged so far must be counted; the files loaded); the full check of
                # every ID runs once at the end: what is lost cannot come back in a later round,
                # and reading the whole stream each round made this file take minutes.
                if policy == "always":
                    self.assertGreaterEqual(h.call(c, "XLEN", "q"),
                                            sum(len(a) for a, _ in all_added))
            load = Load(s.port, rnd)
            load.start()
            time.sleep(rng.uniform(0.3, 1.2))
            if rng.random() < 0.5:
                with s.client() as c:
                    c.send_command("BGREWRITEAOF")
                time.sleep(rng.uniform(0.0, 0.3))
            kill_time = time.time()
            s.signal(signal.SIGKILL)
            s.wait(10)
            load.join()
            all_added.append((load.added, kill_time))
            all_acked.append((load.acked, kill_time))
            all_delivered.append((load.delivered, kill_time))
            self.ack_sent |= load.ack_sent
            self.assertGreater(len(load.added), 0, f"round {rnd}: no write was acknowledged")
        s = servers.start_streamd("--appendfsync", policy, workdir=wd, ready_timeout=30)
        self.addCleanup(s.stop)
        with s.client() as c:
            self.verify(c, all_added, all_acked, all_delivered, check)

    def verify(self, c, all_added, all_acked, all_delivered, check):
        present = {e[0] for e in h.call(c, "XRANGE", "q", "-", "+")}
        pending = {p[0] for p in h.call(c, "XPENDING", "q", "g", "-", "+", 10 ** 9)}
        check(present, pending, all_added, all_acked, all_delivered)

    def test_always_loses_nothing_acknowledged(self):
        def check(present, pending, all_added, all_acked, all_delivered):
            for added, _ in all_added:
                missing = [i for i, _ in added if i not in present]
                self.assertEqual(missing, [], "acknowledged XADDs lost")
            maybe_acked = self.ack_sent
            for acked, _ in all_acked:
                back = [i for i, _ in acked if i in pending]
                self.assertEqual(back, [], "acknowledged XACKs undone")
            for delivered, _ in all_delivered:
                lost = [i for i, _ in delivered if i not in pending and i not in maybe_acked]
                self.assertEqual(lost, [], "acknowledged deliveries lost from the PEL")

        self.run_rounds("always", check)

    def test_everysec_always_loads_and_loses_at_most_about_a_second(self):
        def check(present, pending, all_added, all_acked, all_delivered):
            for added, kill_time in all_added:
                missing = [t for i, t in added if i not in present]
                if missing:
                    self.assertGreater(min(missing), kill_time - 2.5,
                                       f"{len(missing)} XADDs lost, some acknowledged long before "
                                       "the kill")

        self.run_rounds("everysec", check)


if __name__ == "__main__":
    runner.main()
