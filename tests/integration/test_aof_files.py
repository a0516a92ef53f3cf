"""AOF files from elsewhere and damaged files:
- an AOF directory written by redis-server 7.0.15 (appendonly yes, aof-use-rdb-preamble no)
  loads into streamd with the same contents as redis-server itself loads from it;
- a truncated last command loads everything before it with aof-load-truncated yes (and the file
  is cut so appending continues cleanly), and stops startup with no;
- an unterminated MULTI at the end is reverted;
- a corrupt byte stops startup with a message naming the file and the offset;
- `streamd --check-aof [--fix]` reports and repairs as redis-check-aof does;
- an old single-file appendonly.aof (Redis 6 layout) is migrated into the directory."""

import shutil
import subprocess
import unittest

import aof_helpers as h
from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(), "no streamd binary")
needs_redis = unittest.skipUnless(servers.redis_available(), "no redis-server")


def check_aof(*args):
    return subprocess.run([str(servers.streamd_bin()), "--check-aof", *map(str, args)],
                          capture_output=True, text=True, timeout=60)


@needs_streamd
class FilesTest(unittest.TestCase):
    def written_by_streamd(self, *args):
        wd = h.workdir(self)
        s = h.start(self, wd, *args)
        with s.client() as c:
            h.call(c, "SET", "before", "1")
            h.call(c, "XADD", "s", "1-1", "a", "1")
        s.stop()
        return wd

    @needs_redis
    def test_a_redis_directory_loads_into_streamd(self):
        wd = h.workdir(self)
        red = h.start_redis(self, wd, "--appendfsync", "always")
        with red.client() as c:
            h.build_dataset(c)
            self.assertEqual(c.call("BGREWRITEAOF").text,
                             b"Background append only file rewriting started")
        h.wait_rewrite(red)
        with red.client() as c:
            h.build_dataset(c, part=2)
        red.stop()
        copy = h.workdir(self)
        shutil.copytree(wd / "appendonlydir", copy / "appendonlydir")
        # What redis-server makes of its own files...
        red2 = h.start_redis(self, wd)
        theirs = h.snapshot(red2, layout=False)
        red2.stop()
        # ... is what streamd makes of them.
        s = h.start(self, copy)
        ours = h.snapshot(s, layout=False)
        self.assertEqual(theirs, ours, h.diff(theirs, ours))
        self.assertIn("DB loaded from append only file", s.log_text())

    def test_records_are_canonical_whatever_the_client_sent(self):
        """Records copy a client's own argument bytes when they are the canonical encoding; the
        parser, as lenient as Redis's, also takes any byte after a header's '\\r' and any two
        bytes after a payload, and those must not reach the file (nor a replica)."""
        wd = h.workdir(self)
        s = h.start(self, wd)
        canonical = h.encode("SET", "plain", "v\r\n1") + h.encode("XADD", "s", "1-1", "f", "a")
        lenient = (b"*3\r\n$3\r\nSET\r\n$1\r_k\r\n$1\r\nvXY"  # header '\n', terminator
                   b"*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$3\r\n1-2\r\n$1\r_g\r\n$1\r\nbXY"
                   b"*4\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n$1\r\nf\r\n")  # arity error
        with s.client() as c:
            # Pipelined in one send, so that they are parsed ahead as whole commands.
            c.send_raw(canonical + lenient)
            replies = [c.read_reply()[0] for _ in range(5)]
            xadd_star = h.call(c, "XADD", "s", "*", "f", "c")
        self.assertEqual(replies[:4], [b"+OK\r\n", b"$3\r\n1-1\r\n", b"+OK\r\n",
                                       b"$3\r\n1-2\r\n"])
        self.assertTrue(replies[4].startswith(b"-ERR wrong number of arguments"), replies[4])
        s.stop()
        logged = h.last_incr(wd).read_bytes()
        self.assertEqual(logged, h.encode("SELECT", "0") + canonical + h.encode("SET", "k", "v")
                         + h.encode("XADD", "s", "1-2", "g", "b")
                         + h.encode("XADD", "s", xadd_star, "f", "c"))
        s = h.start(self, wd)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "k"), b"v")
            self.assertEqual(h.call(c, "XLEN", "s"), 3)

    def test_truncated_last_command(self):
        wd = self.written_by_streamd()
        incr = h.last_incr(wd)
        good = incr.stat().st_size
        with open(incr, "ab") as f:
            f.write(h.encode("SET", "after", "2")[:-5])
        # aof-load-truncated no: startup stops and says how to fix it.
        with self.assertRaises(servers.ServerStartError) as e:
            servers.start_streamd("--aof-load-truncated", "no", workdir=wd)
        self.assertIn("appendonly.aof.1.incr.aof", str(e.exception))
        self.assertEqual(incr.stat().st_size, good + len(h.encode("SET", "after", "2")) - 5)
        # yes (the default): everything before loads, with a warning, and the tail is cut.
        s = h.start(self, wd)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "before"), b"1")
            self.assertIsNone(h.call(c, "GET", "after"))
            h.call(c, "SET", "appended", "3")
        self.assertIn("Truncating the AOF appendonly.aof.1.incr.aof at offset", s.log_text())
        s.stop()
        s = h.start(self, wd)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "appended"), b"3")

    def test_unterminated_multi_is_reverted(self):
        wd = self.written_by_streamd()
        incr = h.last_incr(wd)
        with open(incr, "ab") as f:
            f.write(h.encode("MULTI") + h.encode("SET", "half", "1"))
        s = h.start(self, wd)
        with s.client() as c:
            self.assertIsNone(h.call(c, "GET", "half"))
            self.assertEqual(h.call(c, "GET", "before"), b"1")
            h.call(c, "SET", "next", "1")
        self.assertIn("Revert incomplete MULTI/EXEC transaction", s.log_text())
        s.stop()
        s = h.start(self, wd)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "next"), b"1")
            self.assertIsNone(h.call(c, "GET", "half"))

    def test_corrupt_file_stops_startup_naming_file_and_offset(self):
        wd = self.written_by_streamd()
        incr = h.last_incr(wd)
        data = incr.read_bytes()
        bad = data.index(b"$1\r\nbefore"[0:2], 20)  # a bulk header well inside the file
        incr.write_bytes(data[:bad] + b"!" + data[bad + 1:])
        with self.assertRaises(servers.ServerStartError) as e:
            servers.start_streamd(workdir=wd)
        msg = str(e.exception)
        self.assertIn("Bad file format reading the append only file appendonly.aof.1.incr.aof "
                      f"at offset {bad}", msg)
        self.assertEqual(incr.read_bytes()[:bad], data[:bad])  # nothing was "repaired"

    def test_check_aof(self):
        wd = self.written_by_streamd()
        m = wd / "appendonlydir" / "appendonly.aof.manifest"
        r = check_aof(m)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("All AOF files and manifest are valid", r.stdout)
        incr = h.last_incr(wd)
        good = incr.stat().st_size
        with open(incr, "ab") as f:
            f.write(b"*2\r\n$3\r\nDEL\r\n$5\r\nbef")
        r = check_aof(m)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"ok_up_to={good}", r.stdout)
        self.assertIn("is not valid. Use the --fix option to try fixing it.", r.stdout)
        r = check_aof("--fix", m)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(incr.stat().st_size, good)
        r = check_aof(incr)   # a single file works too
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("is valid", r.stdout)
        s = h.start(self, wd, "--aof-load-truncated", "no")
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "before"), b"1")

    def test_missing_file_listed_in_the_manifest_stops_startup(self):
        wd = self.written_by_streamd()
        (wd / "appendonlydir" / "appendonly.aof.1.base.aof").unlink()
        with self.assertRaises(servers.ServerStartError) as e:
            servers.start_streamd(workdir=wd)
        self.assertIn("appendonly.aof.1.base.aof", str(e.exception))

    def test_old_single_file_aof_is_migrated(self):
        wd = h.workdir(self)
        (wd / "appendonly.aof").write_bytes(h.encode("SELECT", 0) + h.encode("SET", "legacy", "1"))
        s = h.start(self, wd)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "legacy"), b"1")
            h.call(c, "SET", "new", "2")
        s.stop()
        self.assertFalse((wd / "appendonly.aof").exists())
        s = h.start(self, wd)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "legacy"), b"1")
            self.assertEqual(h.call(c, "GET", "new"), b"2")

    def test_appendonly_no_writes_nothing(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--appendonly", "no")
        with s.client() as c:
            h.call(c, "SET", "a", "1")
        s.stop()
        self.assertEqual(h.aof_files(wd), [])

    def test_config_set_appendonly_at_runtime(self):
        wd = h.workdir(self)
        s = h.start(self, wd, "--appendonly", "no")
        with s.client() as c:
            h.call(c, "XADD", "s", "*", "a", "1")
            h.call(c, "CONFIG", "SET", "appendonly", "yes")
            h.wait_rewrite(s)
            h.call(c, "XADD", "s", "*", "a", "2")
        before = h.snapshot(s, layout=False)
        s.stop()
        s = h.start(self, wd)
        after = h.snapshot(s, layout=False)
        self.assertEqual(before, after, h.diff(before, after))

    def test_config_set_appendonly_over_an_older_aof(self):
        # An AOF from an earlier run is superseded by what is in memory: the new files continue
        # its sequence numbers, the old ones go, and no temporary file is left.
        wd = self.written_by_streamd()
        s = h.start(self, wd, "--appendonly", "no")
        with s.client() as c:
            self.assertIsNone(h.call(c, "GET", "before"))
            h.call(c, "SET", "mem", "1")
            h.call(c, "CONFIG", "SET", "appendonly", "yes")
            h.call(c, "SET", "during", "2")
            h.wait_rewrite(s)
            h.call(c, "SET", "after", "3")
        s.stop()
        self.assertEqual(h.aof_files(wd), ["appendonly.aof.2.base.aof",
                                           "appendonly.aof.2.incr.aof",
                                           "appendonly.aof.manifest"])
        s = h.start(self, wd)
        with s.client() as c:
            self.assertEqual([h.call(c, "GET", k) for k in ("before", "mem", "during", "after")],
                             [None, b"1", b"2", b"3"])


if __name__ == "__main__":
    runner.main()
