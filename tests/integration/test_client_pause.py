"""CLIENT PAUSE / UNPAUSE over real connections: a WRITE pause holds a client's pipeline at its
first write (the reads before it are answered, the rest waits unread) and the client shows as
blocked; UNPAUSE (or the end time) lets it go on in order; keys do not expire meanwhile.

Every test also passes against redis-server 7.0.15 (STREAMD_BIN=/usr/bin/redis-server)."""

import time
import unittest

from streamd_testlib import servers
from streamd_testlib.replica import wait_for

needs_streamd = unittest.skipUnless(servers.streamd_available(), "no streamd binary")


def info_field(c, section: str, name: str) -> str:
    text = c.call_raw("INFO", section).decode()
    for line in text.split("\r\n"):
        if line.startswith(name + ":"):
            return line.split(":", 1)[1]
    raise AssertionError(f"{name} not in INFO {section}")


@needs_streamd
class ClientPauseTest(unittest.TestCase):
    def setUp(self):
        self.server = servers.start_streamd()
        self.addCleanup(self.server.cleanup)

    def client(self):
        c = self.server.client()
        self.addCleanup(c.close)
        return c

    def test_a_write_pause_holds_the_pipeline_at_its_first_write(self):
        admin, worker = self.client(), self.client()
        worker.call("CLIENT", "SETNAME", "worker")
        self.assertEqual(admin.call_raw("CLIENT", "PAUSE", "100000", "WRITE"), b"+OK\r\n")
        worker.send_raw(b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
                        b"*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$3\r\n1-1\r\n$1\r\nf\r\n$1\r\nv\r\n"
                        b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
        self.assertEqual(worker.read_raw(), b"$-1\r\n")  # a read before the write is served
        self.assertFalse(worker.has_data(0.3))           # the XADD and what follows wait
        wait_for(lambda: info_field(admin, "clients", "blocked_clients") == "1", what="blocked")
        listing = admin.call_raw("CLIENT", "LIST").decode()
        line = next(entry for entry in listing.split("\n") if "name=worker" in entry)
        self.assertIn(" flags=b ", line)
        self.assertEqual(admin.call_raw("XLEN", "s"), b":0\r\n")  # reads are not paused
        self.assertEqual(admin.call_raw("CLIENT", "UNPAUSE"), b"+OK\r\n")
        self.assertEqual(worker.read_raw(), b"$3\r\n1-1\r\n")
        self.assertEqual(worker.read_raw(), b"$-1\r\n")
        self.assertEqual(info_field(admin, "clients", "blocked_clients"), "0")

    def test_an_all_pause_holds_every_command_until_its_end(self):
        admin, other = self.client(), self.client()
        start = time.monotonic()
        self.assertEqual(admin.call_raw("CLIENT", "PAUSE", "300"), b"+OK\r\n")
        other.send_raw(b"*1\r\n$4\r\nPING\r\n")
        self.assertEqual(other.read_raw(timeout=10), b"+PONG\r\n")
        self.assertGreaterEqual(time.monotonic() - start, 0.25)

    def test_keys_do_not_expire_while_paused(self):
        c = self.client()
        c.call("SET", "k", "v", "PX", "50")
        c.call("CLIENT", "PAUSE", "100000", "WRITE")
        time.sleep(0.3)
        # Hidden from reads, but not deleted: no DEL is written during the pause.
        self.assertEqual(c.call_raw("GET", "k"), b"$-1\r\n")
        self.assertEqual(c.call_raw("DBSIZE"), b":1\r\n")
        c.call("CLIENT", "UNPAUSE")
        wait_for(lambda: c.call_raw("DBSIZE") == b":0\r\n", what="active expiry after the pause")

    def test_exec_of_a_transaction_with_a_write_waits(self):
        admin, tx = self.client(), self.client()
        tx.call("MULTI")
        tx.call("GET", "k")
        tx.call("PING")
        admin.call("CLIENT", "PAUSE", "100000", "WRITE")
        tx.send_raw(b"*1\r\n$4\r\nEXEC\r\n")
        self.assertEqual(tx.read_raw(), b"*2\r\n$-1\r\n+PONG\r\n")  # only reads: it runs
        tx.call("MULTI")
        tx.call("GET", "k")
        tx.send_raw(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")  # waits before it is queued
        self.assertFalse(tx.has_data(0.3))
        admin.call("CLIENT", "UNPAUSE")
        self.assertEqual(tx.read_raw(), b"+QUEUED\r\n")
        tx.send_raw(b"*1\r\n$4\r\nEXEC\r\n")
        self.assertEqual(tx.read_raw(), b"*2\r\n$-1\r\n+OK\r\n")


    def test_a_paused_replica_holds_its_masters_stream(self):
        master = servers.start_streamd("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.cleanup)
        m, r = master.client(), self.client()
        self.addCleanup(m.close)
        r.call("REPLICAOF", "127.0.0.1", str(master.port))
        wait_for(lambda: info_field(r, "replication", "master_link_status") == "up",
                 what="link up")
        m.call("SET", "before", "1")
        wait_for(lambda: r.call_raw("GET", "before") == b"$1\r\n1\r\n", what="first write")
        wait_for(lambda: info_field(r, "replication", "slave_repl_offset")
                 == info_field(m, "replication", "master_repl_offset"), what="caught up")
        applied = info_field(r, "replication", "slave_repl_offset")
        r.call("CLIENT", "PAUSE", "100000", "WRITE")
        m.call("SET", "during", "1")
        time.sleep(0.5)
        self.assertEqual(r.call_raw("GET", "during"), b"$-1\r\n")
        self.assertEqual(info_field(r, "replication", "slave_repl_offset"), applied)
        r.call("CLIENT", "UNPAUSE")
        wait_for(lambda: r.call_raw("GET", "during") == b"$1\r\n1\r\n", what="applied after")

if __name__ == "__main__":
    unittest.main()
