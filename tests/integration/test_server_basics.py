"""streamd over real sockets: raw RESP, redis-py, redis-cli, limits, signals, command line.

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist; any other problem
fails. redis-cli sessions are also run against Debian's redis-server and the outputs compared.
"""

import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from streamd_testlib import runner, servers
from streamd_testlib.client import ConnectionClosed, RawClient, ReplyTimeout

SKIP_REASON = (f"streamd binary not found at {servers.streamd_bin()} "
               "(build it: cmake --build build, or set STREAMD_BIN)")
needs_streamd = unittest.skipUnless(servers.streamd_available(), SKIP_REASON)
needs_redis = unittest.skipUnless(servers.redis_available() and os.access(servers.REDIS_CLI, os.X_OK),
                                  "redis-server/redis-cli not installed")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """Read until EOF or reset; returns (data, closed)."""
    sock.settimeout(timeout)
    data = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(1 << 20)
        except socket.timeout:
            return bytes(data), False
        except (ConnectionResetError, BrokenPipeError):
            return bytes(data), True
        if not chunk:
            return bytes(data), True
        data += chunk
    return bytes(data), False


@needs_streamd
class ServerBasicsTest(servers.SharedStreamdTest, unittest.TestCase):
    """One shared streamd for the tests that do not change server state."""


    def test_ping(self):
        with self.server.client() as c:
            self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")
            self.assertEqual(c.call_raw("PING", "hi"), b"$2\r\nhi\r\n")

    def test_redis_py_round_trip(self):
        r = self.server.redis_py(socket_timeout=10)
        try:
            self.assertTrue(r.ping())
            self.assertTrue(r.set("greeting", "hello"))
            self.assertEqual(r.get("greeting"), b"hello")
            self.assertIsNone(r.get("missing"))
            self.assertEqual(r.incr("counter"), 1)
            self.assertEqual(r.delete("greeting", "counter", "missing"), 2)
            big = os.urandom(300_000)
            r.set("big", big)
            self.assertEqual(r.get("big"), big)
        finally:
            r.close()

    def test_redis_py_memory_stats_and_doctor(self):
        # Debian's redis-py (4.3.4) cannot parse Redis 7.4+'s reply with memory_stats(): it takes
        # every key starting with "db." for a database, db.dict.rehashing.count too, and fails
        # on its integer (TypeError against redis-server built from Redis main as well); newer
        # redis-py checks the value's type. The pairs are read here as that fix does.
        r = self.server.redis_py(socket_timeout=10, db=5)
        try:
            r.set("memstat:a", "x" * 100)
            flat = r.execute_command("MEMORY", "STATS")
            stats = {k.decode(): v for k, v in zip(flat[::2], flat[1::2])}
            self.assertGreaterEqual(stats["keys.count"], 1)
            db5 = dict(zip(stats["db.5"][::2], stats["db.5"][1::2]))
            self.assertEqual(list(db5), [b"overhead.hashtable.main", b"overhead.hashtable.expires"])
            self.assertIsInstance(stats["db.dict.rehashing.count"], int)
            self.assertEqual(stats["total.allocated"],
                             stats["overhead.total"] + stats["dataset.bytes"])
            self.assertGreater(float(stats["fragmentation"]), 0)
            report = r.execute_command("MEMORY", "DOCTOR")
            self.assertTrue(report.startswith(b"Hi Sam"), report)
            r.delete("memstat:a")
        finally:
            r.close()

    def test_redis_py_pipeline_of_1000_commands(self):
        r = self.server.redis_py(socket_timeout=10)
        try:
            pipe = r.pipeline(transaction=False)
            for i in range(500):
                pipe.set(f"k:{i}", f"v:{i}")
            for i in range(500):
                pipe.get(f"k:{i}")
            results = pipe.execute()
            self.assertEqual(results[:500], [True] * 500)
            self.assertEqual(results[500:], [f"v:{i}".encode() for i in range(500)])
            self.assertEqual(r.dbsize(), 500)
        finally:
            r.close()

    def test_redis_py_transaction(self):
        r = self.server.redis_py(socket_timeout=10)
        try:
            pipe = r.pipeline(transaction=True)
            pipe.set("a", 1).incr("a").get("a")
            self.assertEqual(pipe.execute(), [True, 2, b"2"])
        finally:
            r.close()

    def test_inline_commands_over_a_raw_socket(self):
        with socket.create_connection((self.server.host, self.server.port), timeout=5) as s:
            s.sendall(b"PING\r\n")
            self.assertEqual(s.recv(100), b"+PONG\r\n")
            # Several inline commands in one write, LF-only line ends, quoting.
            s.sendall(b'SET inline "a b"\r\nGET inline\nECHO \'x y\'\r\nEXISTS inline nosuch\r\n')
            want = b"+OK\r\n$3\r\na b\r\n$3\r\nx y\r\n:1\r\n"
            got = b""
            while len(got) < len(want):
                chunk = s.recv(1000)
                self.assertTrue(chunk, f"closed after {got!r}")
                got += chunk
            self.assertEqual(got, want)

    def test_request_split_in_single_bytes(self):
        with self.server.client() as c:
            for b in b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n":
                c.send_raw(bytes([b]))
                time.sleep(0.001)
            self.assertEqual(c.read_raw(), b"+OK\r\n")
            self.assertEqual(c.call_raw("GET", "k"), b"$5\r\nhello\r\n")

    def test_large_pipeline_in_one_write(self):
        with self.server.client() as c:
            n = 5000
            c.send_raw(b"".join(b"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n" for _ in range(n)))
            for i in range(1, n + 1):
                self.assertEqual(c.read_raw(), b":%d\r\n" % i)

    def test_protocol_error_closes_after_the_error_reply(self):
        cases = [
            (b"*1\r\n$x\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
            (b"*abc\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
            (b"*1\r\n+PING\r\n", b"-ERR Protocol error: expected '$', got '+'\r\n"),
            (b'ECHO "unterminated\r\n', b"-ERR Protocol error: unbalanced quotes in request\r\n"),
        ]
        for request, error in cases:
            with self.subTest(request=request):
                with self.server.client(timeout=5) as c:
                    c.send_raw(b"PING\r\n" + request)
                    self.assertEqual(c.read_raw(), b"+PONG\r\n")
                    self.assertEqual(c.read_raw(), error)
                    self.assertEqual(c.wait_closed(timeout=5), b"")
        with self.server.client() as c:
            self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")

    def test_too_big_inline_request_is_refused(self):
        with self.server.client(timeout=10) as c:
            try:
                c.send_raw(b"a" * (70 * 1024))
            except (BrokenPipeError, ConnectionResetError):
                pass
            try:
                self.assertEqual(c.read_raw(), b"-ERR Protocol error: too big inline request\r\n")
                c.wait_closed(timeout=5)
            except ConnectionClosed:
                self.fail("connection closed without the protocol error reply")

    # -- redis-cli ---------------------------------------------------------------------------

    def cli(self, *args, **kw):
        proc = self.server.cli(*args, **kw)
        self.assertEqual(proc.returncode, 0, f"redis-cli {args} failed: {proc.stderr!r}")
        return proc.stdout

    def test_redis_cli_ping_and_resp3(self):
        self.assertEqual(self.cli("PING"), b"PONG\n")
        self.assertEqual(self.cli("SET", "k", "v"), b"OK\n")
        self.assertEqual(self.cli("GET", "k", resp3=True), b"v\n")
        self.assertEqual(self.cli("INCRBYFLOAT", "f", "1.5", resp3=True), b"1.5\n")
        out = self.cli("HELLO", "3", resp3=True).decode()
        self.assertIn("proto\n3\n", out.replace(" ", "\n"))

    def test_redis_cli_scan(self):
        keys = {f"user:{i}" for i in range(1500)} | {f"other:{i}" for i in range(300)}
        r = self.server.redis_py(socket_timeout=10)
        try:
            pipe = r.pipeline(transaction=False)
            for k in keys:
                pipe.set(k, "1")
            pipe.execute()
        finally:
            r.close()
        got = self.cli("--scan").decode().split()
        self.assertEqual(len(got), len(set(got)), "SCAN returned a key twice")
        self.assertEqual(set(got), keys)
        got = self.cli("--scan", "--pattern", "other:*").decode().split()
        self.assertEqual(set(got), {k for k in keys if k.startswith("other:")})

    def test_redis_cli_pipe(self):
        n = 20000
        lines = []
        for i in range(n):
            k, v = f"pipe:{i}".encode(), f"value-{i}".encode()
            lines.append(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
        proc = self.server.cli("--pipe", input=b"".join(lines), timeout=60)
        out = proc.stdout.decode()
        self.assertEqual(proc.returncode, 0, out + proc.stderr.decode())
        self.assertIn(f"errors: 0, replies: {n}", out)
        self.assertEqual(self.cli("DBSIZE"), f"{n}\n".encode())
        self.assertEqual(self.cli("GET", "pipe:12345"), b"value-12345\n")


@needs_streamd
@needs_redis
class RedisCliSessionTest(unittest.TestCase):
    """A file of commands on redis-cli's stdin gives the same output as with redis-server."""

    SESSION = b"\n".join([
        b"SET a 1",
        b"GET a",
        b"INCR a",
        b"GET nosuch",
        b"MSET b 2 c 3",
        b"MGET a b nosuch c",
        b"NOSUCH command here",
        b"SET",
        b"EXISTS a b nosuch",
        b"SET s \"with space\"",
        b"GET s",
        b"DEL a b c s",
        b"INCRBYFLOAT f 2.5",
        b"TTL f",
        b"TYPE f",
        b"MULTI",
        b"INCR m",
        b"INCR m",
        b"EXEC",
    ]) + b"\n"

    @classmethod
    def setUpClass(cls):
        cls.streamd = servers.start_streamd()
        cls.redis = servers.start_redis()

    @classmethod
    def tearDownClass(cls):
        cls.streamd.cleanup()
        cls.redis.cleanup()

    def compare(self, *args, input=None, resp3=False):
        a = self.streamd.cli(*args, input=input, resp3=resp3)
        b = self.redis.cli(*args, input=input, resp3=resp3)
        self.assertEqual((a.returncode, a.stdout.decode(errors="replace")),
                         (b.returncode, b.stdout.decode(errors="replace")),
                         f"redis-cli {args} differs (left streamd, right redis-server)")

    def test_commands_on_stdin(self):
        self.compare("FLUSHALL")
        self.compare(input=self.SESSION)

    def test_commands_on_stdin_resp3(self):
        self.compare("FLUSHALL")
        self.compare(input=self.SESSION, resp3=True)

    def test_commands_as_arguments(self):
        self.compare("FLUSHALL")
        for args in [("SET", "x", "1"), ("GET", "x"), ("GET", "nosuch"), ("NOSUCH",),
                     ("MGET", "x", "nosuch"), ("DEL", "x")]:
            with self.subTest(args=args):
                self.compare(*args)
                self.compare(*args, resp3=True)


@needs_streamd
class RequirepassTest(unittest.TestCase):
    """A password set at startup or by CONFIG SET applies to every client that connects after
    it (streamd used to accept every network client as authenticated)."""

    def test_new_connections_must_authenticate(self):
        server = servers.start_streamd("--requirepass", "s3cret")
        self.addCleanup(server.cleanup)
        with server.client() as c:
            self.assertEqual(c.call_raw("PING"), b"-NOAUTH Authentication required.\r\n")
            self.assertEqual(c.call_raw("XLEN", "s"), b"-NOAUTH Authentication required.\r\n")
            self.assertEqual(c.call_raw("AUTH", "wrong"),
                             b"-WRONGPASS invalid username-password pair or user is disabled.\r\n")
            self.assertEqual(c.call_raw("AUTH", "s3cret"), b"+OK\r\n")
            self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")

    def test_config_set_requirepass_applies_to_the_next_connections(self):
        server = servers.start_streamd()
        self.addCleanup(server.cleanup)
        with server.client() as c:
            self.assertEqual(c.call_raw("CONFIG", "SET", "requirepass", "pw"), b"+OK\r\n")
            # The client that set it stays authenticated, as in Redis.
            self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")
            with server.client() as d:
                self.assertEqual(d.call_raw("PING"), b"-NOAUTH Authentication required.\r\n")
                self.assertEqual(d.call_raw("AUTH", "default", "pw"), b"+OK\r\n")
                self.assertEqual(d.call_raw("PING"), b"+PONG\r\n")


@needs_streamd
class LimitsTest(unittest.TestCase):
    def test_maxclients(self):
        server = servers.start_streamd("--maxclients", "2")
        self.addCleanup(server.cleanup)
        c1, c2 = server.client(), server.client()
        self.addCleanup(c1.close)
        self.addCleanup(c2.close)
        self.assertEqual(c1.call_raw("PING"), b"+PONG\r\n")
        self.assertEqual(c2.call_raw("PING"), b"+PONG\r\n")
        with server.client(timeout=5) as c3:
            self.assertEqual(c3.read_raw(), b"-ERR max number of clients reached\r\n")
            self.assertEqual(c3.wait_closed(timeout=5), b"")
        # A freed slot can be taken again.
        c2.close()
        deadline = time.monotonic() + 5
        while True:
            with server.client(timeout=5) as c4:
                reply = c4.call_raw("PING")
            if reply == b"+PONG\r\n" or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(reply, b"+PONG\r\n")
        self.assertEqual(c1.call_raw("PING"), b"+PONG\r\n")

    def test_client_output_buffer_limit_disconnects_a_client_that_never_reads(self):
        server = servers.start_streamd("--client-output-buffer-limit", "normal 1mb 0 0")
        self.addCleanup(server.cleanup)
        value = b"x" * (100 * 1024)
        with server.client() as c:
            self.assertEqual(c.call_raw("SET", "big", value), b"+OK\r\n")
        rss_before = rss_kib(server.proc.pid)

        slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.addCleanup(slow.close)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        slow.connect((server.host, server.port))
        request = b"*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n" * 100
        slow.settimeout(2)
        sent_gets = 0
        try:
            for _ in range(30):  # up to 3000 GETs: 300 MB of replies if nothing stopped them
                slow.sendall(request)
                sent_gets += 100
                time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        # The server must drop the client: reading shows EOF (after what the kernel held).
        received, closed = read_until_closed(slow, timeout=20)
        self.assertTrue(closed, f"client was not disconnected (sent {sent_gets} GETs)")
        self.assertLess(len(received), 100 * len(value) * 2 + 64 * 1024 * 1024,
                        "the server sent far more than the limit allows")
        # The server stays healthy and its memory bounded.
        with server.client() as c:
            self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")
        growth_mib = (rss_kib(server.proc.pid) - rss_before) / 1024
        self.assertLess(growth_mib, 100, f"RSS grew by {growth_mib:.0f} MiB")


@needs_streamd
class ProcessTest(unittest.TestCase):
    def run_streamd(self, *args, timeout=10):
        return subprocess.run([str(servers.streamd_bin()), *args], capture_output=True,
                              timeout=timeout, cwd=tempfile.gettempdir())

    def test_sigterm_exits_cleanly(self):
        server = servers.start_streamd()
        self.addCleanup(server.cleanup)
        with server.client() as c:
            self.assertEqual(c.call_raw("SET", "k", "v"), b"+OK\r\n")
            server.signal(signal.SIGTERM)
            code = server.wait(timeout=10)
        self.assertIsNotNone(code, "streamd did not exit within 10s of SIGTERM")
        self.assertEqual(code, 0, f"exit code {code}; log:\n{server.log_tail()}")

    def test_sigint_exits_cleanly(self):
        server = servers.start_streamd()
        self.addCleanup(server.cleanup)
        server.signal(signal.SIGINT)
        code = server.wait(timeout=10)
        self.assertEqual(code, 0, f"exit code {code}; log:\n{server.log_tail()}")

    def test_version(self):
        for flag in ("--version", "-v"):
            with self.subTest(flag=flag):
                p = self.run_streamd(flag)
                out = (p.stdout + p.stderr).decode(errors="replace")
                self.assertEqual(p.returncode, 0, out)
                self.assertRegex(out, r"\d+\.\d+\.\d+")

    def test_help(self):
        # Like redis-server: usage text, exit code 1.
        for flag in ("--help", "-h"):
            with self.subTest(flag=flag):
                p = self.run_streamd(flag)
                out = (p.stdout + p.stderr).decode(errors="replace")
                self.assertEqual(p.returncode, 1, out)
                self.assertRegex(out, r"(?i)usage")

    def test_unknown_directive(self):
        port = servers.free_port()
        p = self.run_streamd("--port", str(port), "--nosuchdirective", "foo")
        out = (p.stdout + p.stderr).decode(errors="replace")
        self.assertEqual(p.returncode, 1, out)
        self.assertIn("nosuchdirective", out)

    @needs_redis
    def test_rename_command_errors_stop_startup_as_in_redis(self):
        for args in (["NOSUCH", "x"], ["get", "SET"], ["get"]):
            port = servers.free_port()
            ours = self.run_streamd("--port", str(port), "--rename-command", *args)
            theirs = subprocess.run([servers.REDIS_SERVER, "--port", str(port),
                                     "--rename-command", *args], capture_output=True,
                                    timeout=10, cwd=tempfile.gettempdir())
            self.assertEqual(ours.returncode, 1, args)
            self.assertEqual(theirs.returncode, 1, args)
            # The same text but for the product name in the banner.
            self.assertEqual(ours.stderr.decode().replace("streamd 0.1.0", "Redis 7.0.15"),
                             theirs.stdout.decode() + theirs.stderr.decode(), args)

    def test_renamed_commands(self):
        server = servers.start_streamd("--rename-command", "CONFIG", "GuessMe",
                                       "--rename-command", "FLUSHALL", "")
        self.addCleanup(server.cleanup)
        with server.client() as c:
            self.assertEqual(c.call_raw("GUESSME", "GET", "hz"), b"*2\r\n$2\r\nhz\r\n$2\r\n10\r\n")
            self.assertEqual(c.call_raw("CONFIG", "GET", "hz"),
                             b"-ERR unknown command 'CONFIG', with args beginning with: 'GET' "
                             b"'hz' \r\n")
            self.assertEqual(c.call_raw("FLUSHALL"),
                             b"-ERR unknown command 'FLUSHALL', with args beginning with: \r\n")

    def test_bad_directive_value(self):
        port = servers.free_port()
        p = self.run_streamd("--port", str(port), "--maxclients", "notanumber")
        out = (p.stdout + p.stderr).decode(errors="replace")
        self.assertEqual(p.returncode, 1, out)
        self.assertIn("maxclients", out)

    def test_missing_config_file(self):
        p = self.run_streamd("/nonexistent/streamd.conf")
        self.assertEqual(p.returncode, 1, (p.stdout + p.stderr).decode(errors="replace"))

    def test_config_file_then_flags(self):
        tmp = Path(tempfile.mkdtemp(prefix="streamd-conf-"))
        self.addCleanup(lambda: __import__("shutil").rmtree(tmp, ignore_errors=True))
        conf = tmp / "streamd.conf"
        other_port = servers.free_port()
        conf.write_text(
            "# a comment\n"
            f"port {other_port}\n"
            "databases 4\n"
            "\n"
            "maxclients 50\n"
        )
        # --port on the command line wins over the file's port.
        server = servers.start_streamd(config_file=conf)
        self.addCleanup(server.cleanup)
        with server.client() as c:
            self.assertEqual(c.call_raw("SELECT", "3"), b"+OK\r\n")
            self.assertEqual(c.call_raw("SELECT", "4"), b"-ERR DB index is out of range\r\n")
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", other_port), timeout=1).close()


if __name__ == "__main__":
    runner.main()
