"""A full filesystem: the AOF lives on a small tmpfs the test mounts (root only; skipped
cleanly when mounting is not permitted). When a write fails, write commands (and PING, as in
Redis) get `MISCONF Errors writing to the AOF file: No space left on device`, reads keep
working, nothing half-written stays in the file, and once space comes back the buffered
records are written, writes are accepted again, and everything acknowledged loads after a
restart. Under appendfsync always the reply of the write that hit the full disk is held until
its record is on disk."""

import os
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

import aof_helpers as h
from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(), "no streamd binary")

MISCONF = "MISCONF Errors writing to the AOF file: No space left on device"


def mount_tmpfs(size: str) -> Path | None:
    if os.geteuid() != 0:
        return None
    d = Path(tempfile.mkdtemp(prefix="streamd-tmpfs-"))
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)],
                       capture_output=True)
    if r.returncode != 0:
        d.rmdir()
        return None
    return d


def umount(d: Path) -> None:
    subprocess.run(["umount", "-l", str(d)], capture_output=True)
    try:
        d.rmdir()
    except OSError:
        pass


@needs_streamd
class DiskFullTest(unittest.TestCase):
    def setUp(self):
        self.fs = mount_tmpfs("4m")
        if self.fs is None:
            self.skipTest("cannot mount a tmpfs (needs root)")
        self.addCleanup(umount, self.fs)
        # Ballast: deleting it is how space "comes back".
        self.ballast = self.fs / "ballast"
        self.ballast.write_bytes(b"\0" * (1 << 20))

    def fill(self, c, key):
        """XADDs of 64 KiB until one is refused; returns the acknowledged IDs and the error."""
        acked = []
        for i in range(200):
            rep = c.call("XADD", key, "*", "i", i, "blob", "x" * 65536)
            if rep.is_error:
                return acked, rep.error_text()
            acked.append(rep.text)
        self.fail("the filesystem never filled up")

    def test_everysec_refuses_writes_serves_reads_and_recovers(self):
        s = servers.start_streamd(workdir=self.fs)
        self.addCleanup(s.stop)
        with s.client() as c:
            h.call(c, "SET", "k", "v")
            acked, err = self.fill(c, "big")
            self.assertEqual(err, MISCONF)
            # Reads keep working; writes and PING are refused.
            self.assertEqual(h.call(c, "GET", "k"), b"v")
            self.assertEqual(h.call(c, "XLEN", "big"), len(acked))
            self.assertEqual(c.call("SET", "k", "w").error_text(), MISCONF)
            self.assertEqual(c.call("PING").error_text(), MISCONF)
            self.assertEqual(h.info(s)["aof_last_write_status"], "err")
            # Space comes back: the next retry (cron) writes what was buffered.
            self.ballast.unlink()
            deadline = time.monotonic() + 10
            while h.info(s)["aof_last_write_status"] != "ok":
                self.assertLess(time.monotonic(), deadline, "never recovered")
                time.sleep(0.05)
            h.call(c, "SET", "k", "after")
            self.assertEqual(h.call(c, "PING"), b"PONG")
        self.assertIn("AOF write error looks solved", s.log_text())
        s.stop()
        s = servers.start_streamd(workdir=self.fs)
        self.addCleanup(s.stop)
        with s.client() as c:
            self.assertEqual(h.call(c, "GET", "k"), b"after")
            ids = [e[0] for e in h.call(c, "XRANGE", "big", "-", "+")]
            self.assertEqual(ids[:len(acked)], acked)

    def test_always_holds_the_reply_until_the_record_is_on_disk(self):
        s = servers.start_streamd("--appendfsync", "always", workdir=self.fs)
        self.addCleanup(s.stop)
        held = {}
        with s.client() as c:
            acked = []
            # Fill until one XADD does not answer quickly: it is waiting for the disk.
            for i in range(200):
                c.send_command("XADD", "big", "*", "i", i, "blob", "x" * 65536)
                if not c.has_data(2.0):
                    break
                rep = c.read()
                self.assertFalse(rep.is_error, rep.error_text())
                acked.append(rep.text)
            else:
                self.fail("the filesystem never filled up")
            # Other clients: reads are served, writes refused.
            with s.client() as other:
                self.assertEqual(h.call(other, "XLEN", "big"), len(acked) + 1)
                self.assertEqual(other.call("SET", "x", "1").error_text(), MISCONF)

            def wait_reply():
                held["reply"] = c.read(timeout=20)

            t = threading.Thread(target=wait_reply)
            t.start()
            time.sleep(0.3)
            self.assertNotIn("reply", held)
            self.ballast.unlink()
            t.join(20)
            self.assertIn("reply", held)
            self.assertFalse(held["reply"].is_error)
            acked.append(held["reply"].text)
        s.stop()
        s = servers.start_streamd("--appendfsync", "always", workdir=self.fs)
        self.addCleanup(s.stop)
        with s.client() as c:
            ids = [e[0] for e in h.call(c, "XRANGE", "big", "-", "+")]
            self.assertEqual(ids, acked)


if __name__ == "__main__":
    runner.main()
