"""The AOF keeps everything: a dataset with streams (tombstones, trimmed heads, groups,
consumers, pending entries with delivery counts, deleted pending entries, empty streams) and
strings with TTLs comes back identical after a restart: after a clean shutdown (incremental
file replayed), after BGREWRITEAOF (base file), and mixed (base + incremental), under each
fsync policy. A file streamd wrote loads into redis-server 7.0.15 to the same contents."""

import time
import unittest

import aof_helpers as h
from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(), "no streamd binary")


@needs_streamd
class RoundTripTest(unittest.TestCase):
    def restart_and_compare(self, wd, before, *args, layout=True):
        s = h.start(self, wd, *args)
        after = h.snapshot(s, layout=layout)
        self.assertEqual(before, after, h.diff(before, after))
        return s

    def test_clean_shutdown_replays_the_incremental_file(self):
        for policy in ("always", "everysec", "no"):
            with self.subTest(appendfsync=policy):
                wd = h.workdir(self)
                s = h.start(self, wd, "--appendfsync", policy)
                with s.client() as c:
                    h.build_dataset(c)
                    h.build_dataset(c, part=2)
                before = h.snapshot(s)
                self.assertEqual(s.stop(), 0)
                # A fresh AOF is the Redis 7 layout: an empty base, one incremental file.
                self.assertEqual(h.aof_files(wd), ["appendonly.aof.1.base.aof",
                                                   "appendonly.aof.1.incr.aof",
                                                   "appendonly.aof.manifest"])
                self.assertEqual(h.manifest(wd), "file appendonly.aof.1.base.aof seq 1 type b\n"
                                                 "file appendonly.aof.1.incr.aof seq 1 type i\n")
                s2 = self.restart_and_compare(wd, before)
                s2.stop()

    def test_after_bgrewriteaof_the_base_file_holds_everything(self):
        wd = h.workdir(self)
        s = h.start(self, wd)
        with s.client() as c:
            h.build_dataset(c)
            h.build_dataset(c, part=2)
            # "gone" (PX 1) has expired but may not have been reclaimed yet: active expiry
            # would then log its DEL to the new incremental file after the rewrite (Redis too).
            # Reading it deletes it now, so the new incremental file stays empty.
            self.assertIsNone(h.call(c, "GET", "gone"))
            self.assertEqual(c.call("BGREWRITEAOF").text,
                             b"Background append only file rewriting started")
        i = h.wait_rewrite(s)
        self.assertEqual(i["aof_last_bgrewrite_status"], "ok")
        self.assertEqual(i["aof_rewrites"], "1")
        self.assertGreater(int(i["aof_last_cow_size"]), 0)   # at least the child's own buffers
        stats = h.info(s, "stats")
        self.assertEqual(stats["total_forks"], "1")
        self.assertGreater(int(stats["latest_fork_usec"]), 0)
        before = h.snapshot(s, layout=False)
        s.stop()
        self.assertEqual(h.aof_files(wd), ["appendonly.aof.2.base.aof",
                                           "appendonly.aof.2.incr.aof",
                                           "appendonly.aof.manifest"])
        self.assertEqual((wd / "appendonlydir" / "appendonly.aof.2.incr.aof").stat().st_size, 0)
        self.restart_and_compare(wd, before, layout=False)

    def test_mixed_base_and_incremental_across_restarts(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--appendfsync", "always")
        with s.client() as c:
            h.build_dataset(c)
            c.call("BGREWRITEAOF")
            h.wait_rewrite(s)
            h.build_dataset(c, part=2)
        before = h.snapshot(s, layout=False)
        s.stop()
        s = self.restart_and_compare(wd, before, "--appendfsync", "always", layout=False)
        # Keep going on the reloaded server: more changes, a second rewrite, more changes.
        with s.client() as c:
            h.call(c, "XADD", "st", "*", "third", "1")
            h.call(c, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 2, "STREAMS", "st", ">")
            c.call("BGREWRITEAOF")
            h.wait_rewrite(s)
            h.call(c, "XACK", "st", "g1", h.call(c, "XPENDING", "st", "g1", "-", "+", 1)[0][0])
            h.call(c, "SET", "after-second-rewrite", "1", "PX", 600000)
        before = h.snapshot(s, layout=False)
        s.stop()
        self.assertEqual(h.aof_files(wd), ["appendonly.aof.3.base.aof",
                                           "appendonly.aof.3.incr.aof",
                                           "appendonly.aof.manifest"])
        self.restart_and_compare(wd, before, layout=False)

    def test_writes_during_a_rewrite_are_kept(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--appendfsync", "always")
        with s.client() as c:
            for i in range(20):
                h.call(c, "XADD", "bulk", "*", "i", i, "pad", "x" * 200)
        h.fill_stream(s, "bulk", 20000)
        w = h.BackgroundWriter(s)
        acked = w.acked
        time.sleep(0.1)
        with s.client() as c:
            self.assertEqual(c.call("BGREWRITEAOF").text,
                             b"Background append only file rewriting started")
            self.assertEqual(c.call("BGREWRITEAOF").error_text(),
                             "ERR Background append only file rewriting already in progress")
        h.wait_rewrite(s)
        time.sleep(0.1)
        w.stop()
        self.assertGreater(len(acked), 10)
        before = h.snapshot(s, layout=False)
        s.stop()
        s = self.restart_and_compare(wd, before, layout=False)
        with s.client() as c:
            ids = [e[0] for e in h.call(c, "XRANGE", "during", "-", "+")]
        self.assertEqual(ids, acked)

    def test_automatic_rewrite_on_growth(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--auto-aof-rewrite-min-size", "200kb",
                    "--auto-aof-rewrite-percentage", "100")
        with s.client() as c:
            h.call(c, "XGROUP", "CREATE", "q", "g", "$", "MKSTREAM")
            # Under the minimum size nothing happens.
            for i in range(100):
                h.call(c, "XADD", "q", "*", "i", i, "pad", "x" * 1000)
            time.sleep(0.3)
            self.assertEqual(h.info(s)["aof_rewrites"], "0")
            for i in range(200):
                h.call(c, "XADD", "q", "*", "i", i, "pad", "x" * 1000)
            h.call(c, "XREADGROUP", "GROUP", "g", "c", "COUNT", 10, "STREAMS", "q", ">")
            deadline = time.monotonic() + 10
            while h.info(s)["aof_rewrites"] == "0":
                self.assertLess(time.monotonic(), deadline, "no automatic rewrite")
                time.sleep(0.05)
        i = h.wait_rewrite(s)
        self.assertEqual(i["aof_last_bgrewrite_status"], "ok")
        self.assertIn("Starting automatic rewriting of AOF on", s.log_text())
        self.assertIn("appendonly.aof.2.base.aof", h.aof_files(wd))
        # The new base is the growth reference: the next rewrite needs the AOF to double again.
        self.assertEqual(i["aof_base_size"], str((wd / "appendonlydir" /
                                                  "appendonly.aof.2.base.aof").stat().st_size))
        time.sleep(0.3)
        self.assertEqual(h.info(s)["aof_rewrites"], "1")
        before = h.snapshot(s, layout=False)
        s.stop()
        self.restart_and_compare(wd, before, layout=False)

    def test_bgrewriteaof_inside_multi_is_scheduled(self):
        wd = h.workdir(self)
        s = h.start(self, wd)
        with s.client() as c:
            h.call(c, "MULTI")
            h.call(c, "INCR", "n")
            h.call(c, "BGREWRITEAOF")
            h.call(c, "INCR", "n")
            replies = h.call(c, "EXEC")
            self.assertEqual(replies[1], b"Background append only file rewriting scheduled")
        h.wait_rewrite(s, 10)
        before = h.snapshot(s)
        s.stop()
        self.restart_and_compare(wd, before)

    def test_expired_keys_are_propagated_as_del(self):
        wd = h.workdir(self)
        s = h.start(self, wd)
        with s.client() as c:
            h.call(c, "SET", "k", "v", "PX", 50)
            time.sleep(0.3)
            self.assertIsNone(h.call(c, "GET", "k"))
            h.call(c, "XADD", "k", "*", "now", "a-stream")   # same name, another type
        before = h.snapshot(s)
        s.stop()
        self.assertIn(b"DEL", (wd / "appendonlydir" / "appendonly.aof.1.incr.aof").read_bytes())
        self.restart_and_compare(wd, before)

    def test_waitaof(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--appendfsync", "no")
        with s.client() as c:
            h.call(c, "XADD", "s", "*", "a", "1")
            self.assertEqual(h.call(c, "WAITAOF", 1, 0, 0), [1, 0])
            self.assertEqual(h.call(c, "WAITAOF", 0, 0, 100), [1, 0])
            self.assertEqual(c.call("WAITAOF", 1, 0, -1).error_text(), "ERR timeout is negative")
        wd2 = h.workdir(self)
        s2 = h.start(self, wd2, "--appendonly", "no")
        with s2.client() as c:
            self.assertEqual(
                c.call("WAITAOF", 1, 0, 0).error_text(),
                "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")
            self.assertEqual(h.call(c, "WAITAOF", 0, 0, 0), [0, 0])

    def test_info_persistence(self):
        wd = h.workdir(self)
        s = h.start(self, wd)
        with s.client() as c:
            h.call(c, "SET", "a", "b")
        i = h.info(s)
        self.assertEqual(i["loading"], "0")
        self.assertEqual(i["aof_enabled"], "1")
        self.assertEqual(i["aof_last_write_status"], "ok")
        self.assertEqual(i["aof_last_bgrewrite_status"], "ok")
        self.assertGreater(int(i["aof_current_size"]), 0)
        self.assertEqual(i["aof_base_size"], "0")

    def test_debug_loadaof_replays_the_files_into_the_running_server(self):
        # Redis's own test suite checks what an AOF holds this way (DEBUG LOADAOF after a
        # command, then the state). The replay appends nothing to the AOF.
        wd = h.workdir(self)
        s = h.start(self, wd, "--enable-debug-command", "yes")
        with s.client() as c:
            h.build_dataset(c)
            self.assertIsNone(h.call(c, "GET", "gone"))  # expired: reclaimed now, see above
            before = h.snapshot(s)
            c.call("SET", "written", "before the reload")
            size = h.last_incr(wd).stat().st_size
            c.call("DEL", "written")
            # Buffered records are written first: the DEL is part of what is replayed.
            self.assertEqual(c.call_raw("DEBUG", "LOADAOF"), b"+OK\r\n")
            self.assertGreater(h.last_incr(wd).stat().st_size, size)
            size = h.last_incr(wd).stat().st_size
            after = h.snapshot(s)
            self.assertEqual(before, after, h.diff(before, after))
            self.assertEqual(c.call_raw("DEBUG", "LOADAOF"), b"+OK\r\n")
            self.assertEqual(h.last_incr(wd).stat().st_size, size)
            stats = h.info(s, "persistence")
            self.assertEqual(stats["rdb_changes_since_last_save"], "0")
            c.call("SET", "after", "1")
        self.assertGreater(h.last_incr(wd).stat().st_size, size)

    def test_debug_loadaof_without_an_aof_is_an_error(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--appendonly", "no", "--enable-debug-command", "yes")
        with s.client() as c:
            c.call("SET", "k", "v")
            self.assertEqual(c.call_raw("DEBUG", "LOADAOF"),
                             b"-ERR Error trying to load the AOF files, check server logs.\r\n")

    def test_streamd_files_load_into_redis(self):
        if not servers.redis_available():
            self.skipTest("no redis-server")
        wd = h.workdir(self)
        s = h.start(self, wd)
        with s.client() as c:
            h.build_dataset(c)
            c.call("BGREWRITEAOF")
            h.wait_rewrite(s)
            h.build_dataset(c, part=2)
        s.stop()
        ref = h.start(self, wd)     # what the files mean to streamd...
        ours = h.snapshot(ref, layout=False)
        ref.stop()
        red = h.start_redis(self, wd)   # ... and to redis-server 7.0.15
        theirs = h.snapshot(red, layout=False)
        self.assertEqual(ours, theirs, h.diff(ours, theirs))


if __name__ == "__main__":
    runner.main()
