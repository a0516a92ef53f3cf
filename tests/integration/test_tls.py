"""TLS on tls-port beside the plain port: a throwaway CA, server and client certificates made
with openssl in a temporary directory; redis-cli --tls, redis-py over rediss://, mutual TLS, a
client refused for presenting no certificate (with a log line), and bad handshakes (garbage
bytes, a client that never speaks) that cost other clients nothing.
"""

import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import redis

from streamd_testlib import runner, servers

OPENSSL = shutil.which("openssl")
needs = unittest.skipUnless(servers.streamd_available() and OPENSSL,
                            "streamd binary or openssl not found")


def make_certificates(d: Path) -> None:
    """CA, a server certificate for 127.0.0.1/localhost and a client certificate, all signed by
    the CA."""
    def run(*args):
        subprocess.run([OPENSSL, *args], cwd=d, check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
        "-days", "2", "-subj", "/CN=streamd-test-ca")
    (d / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for name, ext in (("server", ["-extfile", "server.ext"]), ("client", [])):
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
            f"{name}.csr", "-subj", f"/CN={name}")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", *ext)
    # An encrypted copy of the server key, for tls-key-file-pass.
    run("rsa", "-in", "server.key", "-aes256", "-passout", "pass:s3cret", "-out", "server-enc.key")


@needs
class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="streamd-tls-"))
        make_certificates(cls.tmp)
        cls.tls_port = servers.free_port()
        cls.server = servers.start_streamd(*cls.tls_args(cls.tls_port), "--appendonly", "no")

    @classmethod
    def tls_args(cls, port, **extra):
        args = ["--tls-port", port, "--tls-cert-file", cls.tmp / "server.crt",
                "--tls-key-file", cls.tmp / "server.key", "--tls-ca-cert-file",
                cls.tmp / "ca.crt"]
        for k, v in extra.items():
            args += ["--" + k.replace("_", "-"), v]
        return args

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def cli(self, *args, port=None, cert=True):
        argv = [servers.REDIS_CLI, "-h", "127.0.0.1", "-p", str(port or self.tls_port), "--tls",
                "--cacert", str(self.tmp / "ca.crt")]
        if cert:
            argv += ["--cert", str(self.tmp / "client.crt"), "--key", str(self.tmp / "client.key")]
        return subprocess.run(argv + list(args), capture_output=True, timeout=20)

    def tls_client(self, **kw):
        return redis.Redis.from_url(
            f"rediss://127.0.0.1:{self.tls_port}", ssl_ca_certs=str(self.tmp / "ca.crt"),
            ssl_certfile=str(self.tmp / "client.crt"), ssl_keyfile=str(self.tmp / "client.key"),
            socket_timeout=10, **kw)

    def test_redis_cli_with_a_client_certificate(self):
        r = self.cli("PING")
        self.assertEqual(r.stdout.strip(), b"PONG", r.stderr)
        r = self.cli("XADD", "cli-s", "1-1", "f", "v")
        self.assertEqual(r.stdout.strip(), b"1-1", r.stderr)

    def test_rediss_url_and_the_plain_port_side_by_side(self):
        r = self.tls_client()
        self.assertTrue(r.ping())
        r.delete("s")
        ids = [r.xadd("s", {"n": str(i)}) for i in range(50)]
        plain = self.server.redis_py()
        self.assertEqual(plain.xlen("s"), 50)
        self.assertEqual([e[0] for e in plain.xrange("s")], ids)
        # Large replies cross several TLS records and partial writes.
        big = "x" * 300_000
        r.set("big", big)
        self.assertEqual(r.get("big").decode(), big)

    def test_blocking_read_over_tls_is_woken_by_a_plain_client(self):
        r = self.tls_client()
        r.delete("bs")
        import threading
        out = {}
        t = threading.Thread(target=lambda: out.setdefault(
            "r", r.xread({"bs": "$"}, block=5000)))
        t.start()
        time.sleep(0.2)
        self.server.redis_py().xadd("bs", {"a": "1"}, id="7-1")
        t.join(10)
        self.assertEqual(out["r"][0][1][0][0], b"7-1")

    def test_client_without_certificate_is_refused_and_logged(self):
        r = self.cli("PING", cert=False)
        self.assertNotEqual(r.stdout.strip(), b"PONG")
        deadline = time.time() + 5
        while time.time() < deadline and "peer did not return a certificate" not in \
                self.server.log_text():
            time.sleep(0.05)
        self.assertIn("Error accepting a client connection: peer did not return a certificate",
                      self.server.log_text())
        self.assertEqual(self.cli("PING").stdout.strip(), b"PONG")

    def test_garbage_and_silent_handshakes_cost_other_clients_nothing(self):
        silent = [socket.create_connection(("127.0.0.1", self.tls_port)) for _ in range(5)]
        garbage = socket.create_connection(("127.0.0.1", self.tls_port))
        garbage.sendall(b"*1\r\n$4\r\nPING\r\n" * 100)
        garbage.settimeout(5)
        try:
            data = garbage.recv(100)
        except OSError:
            data = b""
        self.assertNotIn(b"PONG", data)
        r = self.tls_client()
        t0 = time.monotonic()
        for _ in range(20):
            self.assertTrue(r.ping())
        self.assertLess(time.monotonic() - t0, 2.0)
        self.assertTrue(self.server.redis_py().ping())
        for s in silent:
            s.close()
        garbage.close()

    def test_silent_client_is_dropped_after_the_handshake_timeout(self):
        s = socket.create_connection(("127.0.0.1", self.tls_port))
        s.settimeout(20)
        t0 = time.monotonic()
        try:
            data = s.recv(10)
        except ConnectionResetError:
            data = b""
        elapsed = time.monotonic() - t0
        s.close()
        self.assertEqual(data, b"")
        self.assertTrue(8 <= elapsed <= 15, elapsed)
        self.assertIn("did not complete its handshake in time", self.server.log_text())


@needs
class TlsOptionsTest(unittest.TestCase):
    """Directive variations, each on its own server."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="streamd-tls-opt-"))
        make_certificates(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def start(self, **extra):
        port = servers.free_port()
        args = ["--tls-port", port, "--tls-cert-file", self.tmp / "server.crt",
                "--tls-ca-cert-file", self.tmp / "ca.crt", "--appendonly", "no"]
        extra.setdefault("tls_key_file", self.tmp / "server.key")
        for k, v in extra.items():
            args += ["--" + k.replace("_", "-"), v]
        s = servers.start_streamd(*args)
        self.addCleanup(s.cleanup)
        return s, port

    def handshake(self, port, cert=False, **ctx_kw):
        ctx = ssl.create_default_context(cafile=str(self.tmp / "ca.crt"))
        if cert:
            ctx.load_cert_chain(str(self.tmp / "client.crt"), str(self.tmp / "client.key"))
        for k, v in ctx_kw.items():
            setattr(ctx, k, v)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                s.sendall(b"PING\r\n")
                return s.recv(100), s.version()

    def test_auth_clients_no_and_optional_accept_a_client_without_certificate(self):
        for mode in ("no", "optional"):
            with self.subTest(mode=mode):
                _, port = self.start(tls_auth_clients=mode)
                self.assertEqual(self.handshake(port)[0], b"+PONG\r\n")
                self.assertEqual(self.handshake(port, cert=True)[0], b"+PONG\r\n")

    def test_encrypted_key_with_tls_key_file_pass(self):
        _, port = self.start(tls_key_file=self.tmp / "server-enc.key", tls_key_file_pass="s3cret",
                             tls_auth_clients="no")
        self.assertEqual(self.handshake(port)[0], b"+PONG\r\n")

    def test_tls_protocols_limits_the_versions(self):
        _, port = self.start(tls_protocols="TLSv1.2", tls_auth_clients="no")
        self.assertEqual(self.handshake(port)[1], "TLSv1.2")
        with self.assertRaises(ssl.SSLError):
            self.handshake(port, minimum_version=ssl.TLSVersion.TLSv1_3)

    def test_rest_api_over_https_with_rest_tls(self):
        import http.client
        import json
        rest_port = servers.free_port()
        self.start(tls_auth_clients="no", rest_port=rest_port, rest_tls="yes",
                   rest_token="tok")
        ctx = ssl.create_default_context(cafile=str(self.tmp / "ca.crt"))
        c = http.client.HTTPSConnection("127.0.0.1", rest_port, context=ctx, timeout=10)
        for path, want in (("/xadd/s/1-1/f/v", "1-1"), ("/xlen/s", 1)):
            c.request("GET", path, headers={"Authorization": "Bearer tok"})
            r = c.getresponse()
            self.assertEqual((r.status, json.loads(r.read())), (200, {"result": want}))
        c.close()
        # Plain HTTP on the HTTPS port gets nowhere, and costs nothing.
        with socket.create_connection(("127.0.0.1", rest_port), timeout=10) as raw:
            raw.sendall(b"GET /ping HTTP/1.1\r\n\r\n")
            try:
                data = raw.recv(100)
            except OSError:
                data = b""
            self.assertNotIn(b"PONG", data)

    def test_bad_configuration_stops_startup(self):
        with self.assertRaises(servers.ServerStartError) as e:
            servers.start_streamd("--tls-port", servers.free_port(), "--tls-cert-file",
                                  self.tmp / "missing.crt", "--tls-key-file",
                                  self.tmp / "server.key", "--tls-auth-clients", "no",
                                  ready_timeout=5)
        self.assertIn("Failed to configure TLS", str(e.exception))


if __name__ == "__main__":
    runner.main()
