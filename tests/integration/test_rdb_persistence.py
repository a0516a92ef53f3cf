"""RDB snapshots over TCP (issue 14): SAVE then a restart with appendonly no loads dump.rdb;
BGSAVE while a client writes keeps every write acknowledged before it; a dump.rdb written by
redis-server 7.0.15 (streams, groups, PEL, strings with TTL) loads into streamd and a streamd
file at rdb-version 10 loads into redis-server 7.0.15; Debian's redis-check-rdb accepts what
streamd writes, redis-cli --rdb included; SHUTDOWN saves when save rules are set (and with SAVE),
not with NOSAVE; SIGTERM saves with rules set."""

import shutil
import subprocess
import time
import unittest

import aof_helpers as h
from streamd_testlib import servers

needs_streamd = unittest.skipUnless(servers.streamd_available(), "no streamd binary")
needs_redis = unittest.skipUnless(servers.redis_available(), "no redis-server binary")

NO_AOF = ("--appendonly", "no")


def check_rdb(test, path):
    r = subprocess.run(["redis-check-rdb", str(path)], capture_output=True, timeout=60)
    test.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    test.assertIn(b"RDB looks OK", r.stdout)


def wait_bgsave(server, timeout=30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        i = h.info(server)
        if i["rdb_bgsave_in_progress"] == "0":
            return i
        if time.monotonic() > deadline:
            raise AssertionError(f"BGSAVE still running after {timeout}s")
        time.sleep(0.02)


@needs_streamd
class RdbPersistenceTest(unittest.TestCase):
    def test_save_then_restart_loads_the_file(self):
        wd = h.workdir(self)
        s = h.start(self, wd, *NO_AOF, "--rdb-version", "10")
        with s.client() as c:
            h.build_dataset(c)
            h.build_dataset(c, part=2)
            self.assertGreater(int(h.info(s)["rdb_changes_since_last_save"]), 0)
            self.assertEqual(c.call("SAVE").text, b"OK")
            i = h.info(s)
            self.assertEqual(i["rdb_changes_since_last_save"], "0")
            self.assertEqual(i["rdb_saves"], "1")
            self.assertEqual(h.call(c, "LASTSAVE"), int(i["rdb_last_save_time"]))
        before = h.snapshot(s)
        self.assertEqual(s.stop(), 0)
        self.assertEqual(sorted(p.name for p in wd.iterdir() if p.suffix == ".rdb"), ["dump.rdb"])
        check_rdb(self, wd / "dump.rdb")
        s2 = h.start(self, wd, *NO_AOF)
        self.assertEqual(before, h.snapshot(s2), h.diff(before, h.snapshot(s2)))
        self.assertGreater(int(h.info(s2)["rdb_last_load_keys_loaded"]), 10)
        self.assertIn("Done loading RDB", s2.log_text())

    def test_bgsave_while_writing_keeps_every_acknowledged_write(self):
        wd = h.workdir(self)
        s = h.start(self, wd, *NO_AOF, "--dbfilename", "snap.rdb")
        h.fill_stream(s, "bulk", 20000, pad=100)
        w = h.BackgroundWriter(s)
        acked = w.acked
        time.sleep(0.05)
        with s.client() as c:
            # Counted before BGSAVE is sent: a write acknowledged while its reply is on the way
            # may have run after the fork.
            acked_at_fork = len(acked)
            self.assertEqual(c.call("BGSAVE").text, b"Background saving started")
            err = c.call("BGSAVE")
            # The child may already be done on a fast machine; otherwise Redis's error.
            if err.is_error:
                self.assertEqual(err.error_text(), "ERR Background save already in progress")
        i = wait_bgsave(s)
        w.stop()
        self.assertEqual(i["rdb_last_bgsave_status"], "ok")
        self.assertEqual(h.info(s, "stats")["total_forks"], "1")
        with s.client() as c:
            h.call(c, "SET", "after", "1")
        s.kill()  # no shutdown save: what is loaded is the BGSAVE's file
        s2 = h.start(self, wd, *NO_AOF, "--dbfilename", "snap.rdb")
        with s2.client() as c:
            self.assertEqual(h.call(c, "XLEN", "bulk"), 20000)
            loaded = [e[0] for e in h.call(c, "XRANGE", "during", "-", "+")]
            self.assertIsNone(h.call(c, "GET", "after"))
        self.assertGreaterEqual(len(loaded), acked_at_fork)
        self.assertEqual(loaded, acked[:len(loaded)])

    def test_shutdown_saves_with_rules_and_not_with_nosave(self):
        wd = h.workdir(self)
        s = h.start(self, wd, *NO_AOF, "--save", "3600 1")
        with s.client() as c:
            h.call(c, "SET", "k", "v")
            c.send_raw(h.encode("SHUTDOWN", "NOSAVE"))
        s.wait(10)
        self.assertFalse((wd / "dump.rdb").exists())
        s = h.start(self, wd, *NO_AOF, "--save", "3600 1")
        with s.client() as c:
            h.call(c, "SET", "k", "v")
        self.assertEqual(s.stop(), 0)  # SIGTERM: saved as the rules ask
        self.assertIn("Saving the final RDB snapshot before exiting.", s.log_text())
        s = h.start(self, wd, *NO_AOF)  # save "": SHUTDOWN SAVE still saves
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "k"), b"v")
            h.call(c, "SET", "k2", "v2")
            c.send_raw(h.encode("SHUTDOWN", "SAVE"))
        s.wait(10)
        s = h.start(self, wd, *NO_AOF)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "k2"), b"v2")
            # A save that cannot be written: SHUTDOWN answers an error and the server stays up.
            (wd / "dump.rdb").unlink()
            (wd / "dump.rdb" / "blocker").mkdir(parents=True)
            self.assertEqual(c.call("SHUTDOWN", "SAVE").error_text(),
                             "ERR Errors trying to SHUTDOWN. Check logs.")
            self.assertEqual(h.call(c, "PING"), b"PONG")
            shutil.rmtree(wd / "dump.rdb")

    def test_config_directives(self):
        wd = h.workdir(self)
        s = h.start(self, wd, *NO_AOF, "--save", "900 1 300 10")
        with s.client() as c:
            self.assertEqual(h.call(c, "CONFIG", "GET", "save"), [b"save", b"900 1 300 10"])
            self.assertEqual(h.call(c, "CONFIG", "GET", "dbfilename"), [b"dbfilename", b"dump.rdb"])
            self.assertEqual(h.call(c, "CONFIG", "GET", "stop-writes-on-bgsave-error"),
                             [b"stop-writes-on-bgsave-error", b"yes"])
            # Protected, as in redis-server 7.0.15 (enable-protected-configs no).
            self.assertEqual(c.call("CONFIG", "SET", "dbfilename", "x.rdb").error_text(),
                             "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - "
                             "can't set protected config")
        s.stop()
        (wd / "dump.rdb").unlink()  # the shutdown save the rules asked for
        r = subprocess.run([str(servers.streamd_bin()), "--port", "0", "--dbfilename", "a/b"],
                           capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"dbfilename can't be a path, just a filename", r.stderr)
        s = h.start(self, wd, *NO_AOF, "--dbfilename", "other.rdb")
        with s.client() as c:
            h.call(c, "SET", "k", "v")
            self.assertEqual(c.call("SAVE").text, b"OK")
        self.assertTrue((wd / "other.rdb").exists())
        self.assertFalse((wd / "dump.rdb").exists())

    def test_redis_cli_rdb_gives_a_file_redis_check_rdb_accepts(self):
        wd = h.workdir(self)
        s = h.start(self, wd, *NO_AOF, "--rdb-version", "10")
        with s.client() as c:
            h.build_dataset(c)
        out = wd / "cli.rdb"
        r = subprocess.run(["redis-cli", "-p", str(s.port), "--rdb", str(out)],
                           capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        check_rdb(self, out)


@needs_streamd
@needs_redis
class RdbInteropTest(unittest.TestCase):
    def test_a_redis_dump_loads_into_streamd(self):
        rwd = h.workdir(self)
        r = servers.start_redis(workdir=rwd)
        self.addCleanup(r.stop)
        with r.client() as c:
            h.build_dataset(c)
            h.build_dataset(c, part=2)
            self.assertEqual(c.call("SAVE").text, b"OK")
        before = h.snapshot(r, layout=False)
        r.stop()
        wd = h.workdir(self)
        shutil.copy(rwd / "dump.rdb", wd / "dump.rdb")
        s = h.start(self, wd, *NO_AOF)
        after = h.snapshot(s, layout=False)
        self.assertEqual(before, after, h.diff(before, after))
        self.assertIn("Loading RDB produced by version 7.0.15", s.log_text())

    def test_a_streamd_dump_at_rdb_version_10_loads_into_redis(self):
        wd = h.workdir(self)
        s = h.start(self, wd, *NO_AOF, "--rdb-version", "10")
        with s.client() as c:
            h.build_dataset(c)
            h.build_dataset(c, part=2)
            self.assertEqual(c.call("BGSAVE").text, b"Background saving started")
        self.assertEqual(wait_bgsave(s)["rdb_last_bgsave_status"], "ok")
        before = h.snapshot(s, layout=False)
        s.stop()
        check_rdb(self, wd / "dump.rdb")
        rwd = h.workdir(self)
        shutil.copy(wd / "dump.rdb", rwd / "dump.rdb")
        r = servers.start_redis("--sanitize-dump-payload", "yes", workdir=rwd)
        self.addCleanup(r.stop)
        after = h.snapshot(r, layout=False)
        self.assertEqual(before, after, h.diff(before, after))

    def test_a_redis_dump_with_a_list_stops_startup_naming_the_key(self):
        rwd = h.workdir(self)
        r = servers.start_redis(workdir=rwd)
        self.addCleanup(r.stop)
        with r.client() as c:
            h.call(c, "SET", "fine", "1")
            h.call(c, "RPUSH", "mylist", "a", "b")
            self.assertEqual(c.call("SAVE").text, b"OK")
        r.stop()
        wd = h.workdir(self)
        shutil.copy(rwd / "dump.rdb", wd / "dump.rdb")
        r2 = subprocess.run([str(servers.streamd_bin()), "--port", str(servers.free_port()),
                             "--dir", str(wd), *NO_AOF], capture_output=True, timeout=30)
        self.assertNotEqual(r2.returncode, 0)
        out = (r2.stdout + r2.stderr).decode()
        self.assertIn("Unsupported type list", out)
        self.assertIn("mylist", out)
        self.assertNotIn("Ready to accept connections", out)


@needs_streamd
@needs_redis
class AofRdbPreambleTest(unittest.TestCase):
    """aof-use-rdb-preamble yes: the rewrite's base file is an RDB (name *.base.rdb, type b in
    the manifest), as Redis 7 writes it; the loader reads an RDB base from either server."""

    def test_streamd_writes_and_reloads_an_rdb_base(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--aof-use-rdb-preamble", "yes", "--rdb-version", "10")
        with s.client() as c:
            h.build_dataset(c)
            self.assertIsNone(h.call(c, "GET", "gone"))
            c.call("BGREWRITEAOF")
        h.wait_rewrite(s)
        with s.client() as c:
            h.build_dataset(c, part=2)
        before = h.snapshot(s, layout=False)
        s.stop()
        self.assertEqual(h.manifest(wd), "file appendonly.aof.2.base.rdb seq 2 type b\n"
                                         "file appendonly.aof.2.incr.aof seq 2 type i\n")
        base = wd / "appendonlydir" / "appendonly.aof.2.base.rdb"
        self.assertTrue(base.read_bytes().startswith(b"REDIS0010"))
        check_rdb(self, base)
        # Debian's redis-check-aof accepts the directory (RDB base, then the incremental file).
        r = subprocess.run(["redis-check-aof", str(wd / "appendonlydir" / "appendonly.aof.manifest")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("RDB preamble is OK, proceeding with AOF tail", r.stdout)
        self.assertIn("All AOF files and manifest are valid", r.stdout)
        s2 = h.start(self, wd)  # the preamble setting does not matter for loading
        after = h.snapshot(s2, layout=False)
        self.assertEqual(before, after, h.diff(before, after))
        s2.stop()
        # The same directory loads into redis-server 7.0.15.
        rwd = h.workdir(self)
        shutil.copytree(wd / "appendonlydir", rwd / "appendonlydir")
        r = servers.start_redis("--appendonly", "yes", workdir=rwd)
        self.addCleanup(r.stop)
        after = h.snapshot(r, layout=False)
        self.assertEqual(before, after, h.diff(before, after))

    def test_a_redis_aof_with_an_rdb_base_loads_into_streamd(self):
        rwd = h.workdir(self)
        r = servers.start_redis("--appendonly", "yes", "--aof-use-rdb-preamble", "yes",
                                workdir=rwd)
        self.addCleanup(r.stop)
        with r.client() as c:
            h.build_dataset(c)
            self.assertIsNone(h.call(c, "GET", "gone"))
            c.call("BGREWRITEAOF")
        h.wait_rewrite(r)
        with r.client() as c:
            # Plain records in the incremental file after the RDB base. (Part 2 of the dataset
            # is left out here: replaying redis-server 7.0's propagated form of a history
            # XREADGROUP loses the delivery count, a difference of the AOF replay, not of the
            # RDB base.)
            h.call(c, "SET", "after-rewrite", "1")
            h.call(c, "XADD", "st", "*", "after", "rewrite")
        before = h.snapshot(r, layout=False)
        r.stop()
        self.assertIn("type b", h.manifest(rwd))
        self.assertIn(".base.rdb", h.manifest(rwd))
        wd = h.workdir(self)
        shutil.copytree(rwd / "appendonlydir", wd / "appendonlydir")
        s = h.start(self, wd)
        after = h.snapshot(s, layout=False)
        self.assertEqual(before, after, h.diff(before, after))


if __name__ == "__main__":
    unittest.main()
