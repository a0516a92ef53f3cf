"""A Redis deployment's configuration, unchanged: Debian's stock /etc/redis/redis.conf starts
streamd, protected-mode refuses clients from other hosts while no password is set, and
enable-protected-configs lets (local) clients move `dir`.

Every test also passes against redis-server (STREAMD_BIN=/usr/bin/redis-server), except the
startup warning, which is streamd's own.
"""

import os
import shutil
import socket
import tempfile
import unittest
from pathlib import Path

from streamd_testlib import servers

SKIP_REASON = f"streamd binary not found at {servers.streamd_bin()}"
needs_streamd = unittest.skipUnless(servers.streamd_available(), SKIP_REASON)
IS_REDIS = servers.streamd_bin().name == "redis-server"
DEBIAN_CONF = Path("/etc/redis/redis.conf")  # installed with Debian's redis-server package

# A stock file daemonizes and writes its log and pid under /var: run in the foreground here.
FOREGROUND = ("--daemonize", "no", "--logfile", "", "--pidfile", "")

DENIED = (b"-DENIED Redis is running in protected mode because protected mode is enabled and no "
          b"password is set for the default user. In this mode connections are only accepted "
          b"from the loopback interface. If you want to connect from external computers to "
          b"Redis you may adopt one of the following solutions: 1) Just disable protected mode "
          b"sending the command 'CONFIG SET protected-mode no' from the loopback interface by "
          b"connecting to Redis from the same host the server is running, however MAKE SURE "
          b"Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to "
          b"make this change permanent. 2) Alternatively you can just disable the protected "
          b"mode by editing the Redis configuration file, and setting the protected mode option "
          b"to 'no', and then restarting the server. 3) If you started the server manually just "
          b"for testing, restart it with the '--protected-mode no' option. 4) Set up an "
          b"authentication password for the default user. NOTE: You only need to do one of the "
          b"above things in order for the server to start accepting connections from the "
          b"outside.\r\n")


# redis-server 7.0.15 words item 4 "Setup a an authentication password" (newer Redis fixed it).
EXPECTED_DENIED = DENIED.replace(b"Set up an", b"Setup a an") if IS_REDIS else DENIED


def config_get(c, name: str) -> list[bytes]:
    return [item.text for item in c.call("CONFIG", "GET", name).items]


def non_loopback_ipv4() -> str | None:
    """An IPv4 address of this host that is not a loopback one (the source address of a
    connection to it is itself, so a client connecting there is not local)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent for a UDP connect
            ip = s.getsockname()[0]
    except OSError:
        return None
    return None if ip.startswith("127.") or ip == "0.0.0.0" else ip


def read_all(s: socket.socket) -> bytes:
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk


@needs_streamd
class StockRedisConfTest(unittest.TestCase):

    @unittest.skipUnless(DEBIAN_CONF.exists(), f"{DEBIAN_CONF} not installed")
    def test_debians_stock_redis_conf_starts_it(self):
        server = servers.start_streamd(*FOREGROUND, config_file=DEBIAN_CONF)
        self.addCleanup(server.cleanup)
        with server.client() as c:
            self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")
            self.assertEqual(config_get(c, "protected-mode"), [b"protected-mode", b"yes"])
            self.assertEqual(config_get(c, "lazyfree-lazy-eviction"),
                             [b"lazyfree-lazy-eviction", b"no"])
            self.assertEqual(config_get(c, "oom-score-adj-values"),
                             [b"oom-score-adj-values", b"0 200 800"])
        if not IS_REDIS:
            # Debian's file keeps those directives at their defaults: nothing to warn of.
            self.assertNotIn("does not act on it", server.log_text())

    @unittest.skipIf(IS_REDIS, "the warning is streamd's own")
    def test_a_directive_without_effect_set_to_another_value_is_warned_of(self):
        server = servers.start_streamd("--lazyfree-lazy-user-del", "yes")
        self.addCleanup(server.cleanup)
        self.assertIn("'lazyfree-lazy-user-del' is set to 'yes': streamd accepts this Redis "
                      "directive but does not act on it", server.log_text())

    def test_always_show_logo_names_port_and_pid(self):
        # Redis's own test harness finds a server it started by " PID: <pid>" before "Server
        # initialized" in its log; without the logo Redis logs one "Running mode=" line.
        server = servers.start_streamd("--always-show-logo", "yes")
        self.addCleanup(server.cleanup)
        log = server.log_text()
        self.assertRegex(log, rf"(?s) PID: {server.proc.pid}\b.*Server initialized")
        self.assertRegex(log, rf"\bPort: {server.port}\b")
        self.assertNotIn("Running mode=", log)
        plain = servers.start_streamd()
        self.addCleanup(plain.cleanup)
        self.assertIn(f"Running mode=standalone, port={plain.port}.", plain.log_text())
        self.assertNotIn(f" PID: {plain.proc.pid}", plain.log_text())


@needs_streamd
@unittest.skipUnless(non_loopback_ipv4(), "this host has no non-loopback IPv4 address")
class ProtectedModeTest(unittest.TestCase):

    def setUp(self):
        self.ip = non_loopback_ipv4()

    def remote(self, port: int) -> socket.socket:
        s = socket.create_connection((self.ip, port), timeout=5)
        self.addCleanup(s.close)
        return s

    def test_a_client_from_another_address_is_denied_without_a_password(self):
        server = servers.start_streamd("--bind", "0.0.0.0")
        self.addCleanup(server.cleanup)
        s = self.remote(server.port)
        self.assertEqual(read_all(s), EXPECTED_DENIED)  # then the connection closes
        with server.client() as c:
            self.assertIn(b"rejected_connections:1\r\n", c.call_raw("INFO", "stats"))
            self.assertEqual(c.call_raw("PING"), b"+PONG\r\n")  # loopback clients are served
            self.assertEqual(c.call_raw("CONFIG", "SET", "protected-mode", "no"), b"+OK\r\n")
        s = self.remote(server.port)
        s.sendall(b"PING\r\n")
        self.assertEqual(s.recv(100), b"+PONG\r\n")

    def test_a_password_lifts_it(self):
        server = servers.start_streamd("--bind", "0.0.0.0", "--requirepass", "pw")
        self.addCleanup(server.cleanup)
        s = self.remote(server.port)
        s.sendall(b"AUTH pw\r\nPING\r\n")
        data = b""
        while data.count(b"\r\n") < 2:
            chunk = s.recv(100)
            self.assertTrue(chunk, f"closed after {data!r}")
            data += chunk
        self.assertEqual(data, b"+OK\r\n+PONG\r\n")

    def test_protected_configs_follow_enable_protected_configs_local(self):
        server = servers.start_streamd("--bind", "0.0.0.0", "--protected-mode", "no",
                                       "--enable-protected-configs", "local", "--save", "")
        self.addCleanup(server.cleanup)
        target = Path(tempfile.mkdtemp(prefix="streamd-dir-"))
        self.addCleanup(shutil.rmtree, target, True)
        s = self.remote(server.port)
        s.sendall(b"CONFIG SET dir " + str(target).encode() + b"\r\n")
        self.assertEqual(s.recv(200), b"-ERR CONFIG SET failed (possibly related to argument "
                                      b"'dir') - can't set protected config\r\n")
        with server.client() as c:
            self.assertEqual(c.call_raw("CONFIG", "SET", "dir", "/nonexistent/streamd"),
                             b"-ERR CONFIG SET failed (possibly related to argument 'dir') - No "
                             b"such file or directory\r\n")
            self.assertEqual(c.call_raw("CONFIG", "SET", "dir", str(target)), b"+OK\r\n")
            self.assertEqual(config_get(c, "dir"), [b"dir", str(target).encode()])
            self.assertEqual(c.call_raw("SET", "k", "v"), b"+OK\r\n")
            self.assertEqual(c.call_raw("SAVE"), b"+OK\r\n")
        # The server moved there: SAVE wrote its dump.rdb in the new directory.
        self.assertTrue((target / "dump.rdb").exists(), os.listdir(target))


if __name__ == "__main__":
    unittest.main()
