"""A master that refuses PSYNC (issue 13): the streamd replica retries with SYNC, as a Redis
replica does ("Retrying with SYNC..."), loads the payload that comes without a +FULLRESYNC line
and follows the command stream; it sends such a master no REPLCONF ACK.

The old master is a proxy in this test: it answers the handshake itself (+PONG, +OK to
REPLCONF, "-ERR unknown command 'PSYNC'" as a master older than PSYNC does) and, on SYNC, opens
its own connection to a real master, sends it SYNC and relays the bytes both ways. So the real
master's side of SYNC (redis-server 7.0.15 and streamd) is exercised too.

Skips (exit 0, SKIPPED line) only when the streamd binary or redis-server does not exist.
"""

import socket
import threading
import time
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, needs_servers, wait_for

PSYNC_REFUSAL = b"-ERR unknown command 'PSYNC'\r\n"


class OldMaster:
    """Listens on a free port; serves one replica at a time as described above."""

    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.commands: list[list[bytes]] = []  # what replicas sent before SYNC
        self.after_sync = bytearray()  # what replicas sent after SYNC (relayed upstream)
        self.syncs = 0
        self.socks: list[socket.socket] = [self.listener]
        threading.Thread(target=self.accept_loop, daemon=True).start()

    def close(self):
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass

    def accept_loop(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.socks.append(conn)
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    @staticmethod
    def read_command(f) -> list[bytes] | None:
        line = f.readline()
        if not line:
            return None
        line = line.rstrip(b"\r\n")
        if not line.startswith(b"*"):
            return line.split()
        argv = []
        for _ in range(int(line[1:])):
            n = int(f.readline()[1:].rstrip(b"\r\n"))
            argv.append(f.read(n + 2)[:-2])
        return argv

    def serve(self, conn: socket.socket):
        f = conn.makefile("rb")
        while True:
            argv = self.read_command(f)
            if argv is None:
                return
            self.commands.append(argv)
            name = argv[0].upper() if argv else b""
            if name == b"PING":
                conn.sendall(b"+PONG\r\n")
            elif name == b"REPLCONF":
                conn.sendall(b"+OK\r\n")
            elif name == b"PSYNC":
                conn.sendall(PSYNC_REFUSAL)
            elif name == b"SYNC":
                self.syncs += 1
                up = socket.create_connection(("127.0.0.1", self.upstream_port))
                self.socks.append(up)
                up.sendall(b"SYNC\r\n")
                threading.Thread(target=self.pump, args=(up, conn, None), daemon=True).start()
                # Bytes the makefile reader already buffered, then the socket itself.
                rest = f.read1(1 << 16) if f.peek(1) else b""
                if rest:
                    self.after_sync += rest
                    up.sendall(rest)
                self.pump(conn, up, self.after_sync)
                return
            else:
                conn.sendall(b"-ERR unknown command\r\n")

    @staticmethod
    def pump(src: socket.socket, dst: socket.socket, record: bytearray | None):
        while True:
            try:
                data = src.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            if record is not None:
                record += data
            try:
                dst.sendall(data)
            except OSError:
                return


@needs_servers
class SyncFallback(unittest.TestCase):
    def follow(self, master):
        m = master.redis_py(decode_responses=True)
        m.xadd("s", {"f": "1"}, id="1-1")
        m.set("k", "v")
        old = OldMaster(master.port)
        self.addCleanup(old.close)
        rep = servers.start_streamd("--replicaof", "127.0.0.1", str(old.port))
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        self.assertEqual(r.xrange("s"), [("1-1", {"f": "1"})])
        self.assertEqual(r.get("k"), "v")
        # The live stream follows.
        m.xadd("s", {"f": "2"}, id="2-1")
        m.delete("k")
        wait_for(lambda: r.xlen("s") == 2 and r.get("k") is None, what="the stream applied")
        self.assertEqual(old.syncs, 1)
        names = [c[0].upper() for c in old.commands]
        self.assertEqual(names[:1], [b"PING"])
        self.assertEqual(names[-2:], [b"PSYNC", b"SYNC"])
        self.assertEqual(old.commands[-2], [b"PSYNC", b"?", b"-1"])
        log = rep.log_text()
        self.assertIn("Master does not support PSYNC or is in error state (reply: "
                      "-ERR unknown command 'PSYNC')", log)
        self.assertIn("Retrying with SYNC...", log)
        # No REPLCONF ACK goes to a master without PSYNC (the replica acks every second).
        time.sleep(1.3)
        self.assertNotIn(b"ACK", bytes(old.after_sync))
        self.assertEqual(r.execute_command("ROLE")[:4], ["slave", "127.0.0.1", old.port,
                                                         "connected"])

    def test_redis_server_master(self):
        master = servers.start_redis()
        self.addCleanup(master.stop)
        self.follow(master)

    def test_streamd_master(self):
        master = servers.start_streamd()
        self.addCleanup(master.stop)
        self.follow(master)


if __name__ == "__main__":
    runner.main()
