"""The Upstash-compatible REST API (rest-port) over real HTTP with http.client: every request
form, pipelines, multi-exec, the full and read-only tokens, base64 encoding, error statuses,
blocking reads held open, keep-alive, malformed HTTP, and RESP clients unaffected.
"""

import base64
import http.client
import json
import socket
import threading
import time
import unittest
import urllib.parse

from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")
TOKEN = "full-token-123"
RO_TOKEN = "readonly-token-456"


@needs_streamd
class RestTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rest_port = servers.free_port()
        cls.server = servers.start_streamd(
            "--rest-port", cls.rest_port, "--rest-bind", "127.0.0.1", "--rest-token", TOKEN,
            "--rest-readonly-token", RO_TOKEN, "--rest-max-body-size", "1mb",
            "--appendonly", "no")

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def setUp(self):
        self.server.redis_py().flushall()

    def conn(self):
        return http.client.HTTPConnection("127.0.0.1", self.rest_port, timeout=15)

    def call(self, method, path, body=None, token=TOKEN, headers=None, conn=None):
        c = conn or self.conn()
        h = dict(headers or {})
        if token is not None:
            h["Authorization"] = f"Bearer {token}"
        if isinstance(body, (list, dict)):
            body = json.dumps(body)
        c.request(method, path, body=body, headers=h)
        resp = c.getresponse()
        data = resp.read()
        if conn is None:
            c.close()
        return resp.status, (json.loads(data) if data else None), resp

    # ---- request forms ----

    def test_path_segments(self):
        status, body, _ = self.call("GET", "/set/foo/bar")
        self.assertEqual((status, body), (200, {"result": "OK"}))
        self.assertEqual(self.call("GET", "/get/foo")[:2], (200, {"result": "bar"}))
        status, body, _ = self.call("GET", "/xadd/s/1-1/f/" + urllib.parse.quote("a b/c", safe=""))
        self.assertEqual((status, body), (200, {"result": "1-1"}))
        self.assertEqual(self.call("GET", "/xrange/s/-/+")[1],
                         {"result": [["1-1", ["f", "a b/c"]]]})
        self.assertEqual(self.call("GET", "/xlen/s")[1], {"result": 1})
        self.assertEqual(self.call("GET", "/get/missing")[1], {"result": None})

    def test_token_as_query_parameter(self):
        status, body, _ = self.call("GET", f"/ping?_token={TOKEN}", token=None)
        self.assertEqual((status, body), (200, {"result": "PONG"}))

    def test_raw_body_is_the_last_argument_and_query_args_follow(self):
        value = '{"nested": ["json", 1]}'
        status, body, _ = self.call("POST", "/set/doc?EX=100", body=value)
        self.assertEqual((status, body), (200, {"result": "OK"}))
        self.assertEqual(self.call("GET", "/get/doc")[1], {"result": value})
        ttl = self.call("GET", "/ttl/doc")[1]["result"]
        self.assertTrue(0 < ttl <= 100)

    def test_json_array_body(self):
        status, body, _ = self.call("POST", "/", ["XADD", "s", "*", "f", "v", "n", 5])
        self.assertEqual(status, 200)
        self.assertRegex(body["result"], r"^\d+-\d+$")
        self.assertEqual(self.server.redis_py().xlen("s"), 1)

    def test_pipeline_is_not_atomic_and_reports_each_result(self):
        status, body, _ = self.call("POST", "/pipeline", [
            ["SET", "a", "1"], ["INCR", "a"], ["XADD", "a", "*", "f", "v"], ["GET", "a"]])
        self.assertEqual(status, 200)
        self.assertEqual(body[0], {"result": "OK"})
        self.assertEqual(body[1], {"result": 2})
        self.assertTrue(body[2]["error"].startswith("WRONGTYPE"))
        self.assertEqual(body[3], {"result": "2"})

    def test_multi_exec_is_atomic(self):
        status, body, _ = self.call("POST", "/multi-exec", [
            ["XADD", "s", "1-1", "f", "v"], ["XADD", "s", "2-1", "f", "w"], ["XLEN", "s"]])
        self.assertEqual((status, body),
                         (200, [{"result": "1-1"}, {"result": "2-1"}, {"result": 2}]))
        # A runtime error inside the transaction is that command's result only.
        status, body, _ = self.call("POST", "/multi-exec", [
            ["SET", "k", "v"], ["XADD", "k", "*", "f", "v"], ["GET", "k"]])
        self.assertEqual(status, 200)
        self.assertEqual(body[0], {"result": "OK"})
        self.assertTrue(body[1]["error"].startswith("WRONGTYPE"))
        # A command rejected while queueing aborts the whole transaction.
        status, body, _ = self.call("POST", "/multi-exec", [
            ["SET", "x", "1"], ["NOSUCHCMD"]])
        self.assertEqual(status, 400)
        self.assertIn("unknown command", body["error"])
        self.assertEqual(self.call("GET", "/exists/x")[1], {"result": 0})

    # ---- tokens ----

    def test_missing_or_wrong_token_is_401(self):
        for token in (None, "wrong", TOKEN + "x"):
            with self.subTest(token=token):
                status, body, _ = self.call("GET", "/ping", token=token)
                self.assertEqual((status, body), (401, {"error": "Unauthorized"}))

    def test_readonly_token_runs_reads_only(self):
        self.call("GET", "/xadd/s/1-1/f/v")
        self.assertEqual(self.call("GET", "/xlen/s", token=RO_TOKEN)[:2], (200, {"result": 1}))
        self.assertEqual(self.call("GET", "/xrange/s/-/+", token=RO_TOKEN)[0], 200)
        status, body, _ = self.call("GET", "/xadd/s/*/f/v", token=RO_TOKEN)
        self.assertEqual(status, 400)
        self.assertIn("NOPERM", body["error"])
        status, body, _ = self.call("POST", "/", ["CONFIG", "SET", "hz", "20"], token=RO_TOKEN)
        self.assertEqual(status, 400)
        status, body, _ = self.call("POST", "/pipeline", [["XLEN", "s"], ["DEL", "s"]],
                                    token=RO_TOKEN)
        self.assertEqual(body[0], {"result": 1})
        self.assertIn("NOPERM", body[1]["error"])
        self.assertEqual(self.server.redis_py().xlen("s"), 1)

    # ---- encoding and errors ----

    def test_base64_encoding(self):
        self.call("POST", "/set/bin", body=b"\xff\x00ok")
        h = {"Upstash-Encoding": "base64"}
        status, body, _ = self.call("GET", "/get/bin", headers=h)
        self.assertEqual(base64.b64decode(body["result"]), b"\xff\x00ok")
        self.assertEqual(self.call("GET", "/set/a/b", headers=h)[1], {"result": "OK"})
        self.assertEqual(self.call("GET", "/ping", headers=h)[1],
                         {"result": base64.b64encode(b"PONG").decode()})
        self.call("GET", "/xadd/s/1-1/f/v")
        self.assertEqual(self.call("GET", "/xrange/s/-/+", headers=h)[1],
                         {"result": [["MS0x", ["Zg==", "dg=="]]]})

    def test_command_errors_are_400_with_redis_text(self):
        status, body, _ = self.call("GET", "/xadd/s")
        self.assertEqual((status, body),
                         (400, {"error": "ERR wrong number of arguments for 'xadd' command"}))
        status, body, _ = self.call("GET", "/nosuch/a")
        self.assertEqual(status, 400)
        self.assertTrue(body["error"].startswith("ERR unknown command 'nosuch'"))
        for cmd in (["MULTI"], ["WATCH", "k"], ["MONITOR"], ["HELLO", "3"]):
            with self.subTest(cmd=cmd):
                status, body, _ = self.call("POST", "/", cmd)
                self.assertEqual(status, 400)
                self.assertIn("not supported over REST", body["error"])

    def test_malformed_requests_get_a_clear_4xx(self):
        cases = [
            (b"GARBAGE\r\n\r\n", 400),
            (b"DELETE /ping HTTP/1.1\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n\r\n",
             405),
            (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", 431),
            (b"POST / HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n", 413),
        ]
        for raw, want in cases:
            with self.subTest(want=want):
                with socket.create_connection(("127.0.0.1", self.rest_port), timeout=10) as s:
                    s.sendall(raw)
                    data = b""
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                self.assertTrue(data.startswith(f"HTTP/1.1 {want} ".encode()), data[:100])
                self.assertIn(b"Connection: close", data)
                body = json.loads(data.split(b"\r\n\r\n", 1)[1])
                self.assertIn("error", body)
        status, body, _ = self.call("POST", "/", "[not json")
        self.assertEqual(status, 400)
        status, body, _ = self.call("POST", "/pipeline", {"a": 1})
        self.assertEqual(status, 400)
        status, body, _ = self.call("GET", "/")
        self.assertEqual(status, 400)

    # ---- connection behaviour ----

    def test_keep_alive_serves_many_requests_on_one_connection(self):
        c = self.conn()
        for i in range(50):
            status, body, resp = self.call("GET", f"/incr/n", conn=c)
            self.assertEqual(body, {"result": i + 1})
            self.assertEqual(resp.getheader("Connection"), "keep-alive")
        c.close()

    def test_pipelined_http_requests_are_answered_in_order(self):
        req = (f"GET /incr/p HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n" * 5)
        with socket.create_connection(("127.0.0.1", self.rest_port), timeout=10) as s:
            s.sendall(req.encode())
            data = b""
            while data.count(b"HTTP/1.1 200") < 5 or not data.endswith(b"}"):
                data += s.recv(65536)
        results = [json.loads(part.split(b"}")[0] + b"}")["result"]
                   for part in data.split(b"\r\n\r\n")[1:]]
        self.assertEqual(results, [1, 2, 3, 4, 5])

    def test_many_pipelined_requests_with_large_replies_all_arrive_in_order(self):
        # 400 x 100 KB of replies is more than the server keeps pending for one client: it
        # pauses the pipeline while the client does not read and resumes as the socket drains.
        self.call("POST", "/set/big", body="x" * 100_000)
        n = 400
        req = "".join(f"GET /get/big?_token={TOKEN} HTTP/1.1\r\nHost: x\r\n\r\n"
                      for i in range(n)).encode()
        with socket.create_connection(("127.0.0.1", self.rest_port), timeout=30) as s:
            s.sendall(req)
            time.sleep(1.0)  # let the server fill its buffers while nothing is read
            data = bytearray()
            while data.count(b"HTTP/1.1 200 OK") < n or not data.endswith(b'"}'):
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
        self.assertEqual(data.count(b"HTTP/1.1 200 OK"), n)

    def test_blocking_read_holds_the_request_until_an_entry_arrives(self):
        self.call("GET", "/xadd/bs/1-1/f/v")
        out = {}

        def reader():
            t0 = time.monotonic()
            out["r"] = self.call("GET", "/xread/block/5000/streams/bs/$")
            out["t"] = time.monotonic() - t0

        t = threading.Thread(target=reader)
        t.start()
        time.sleep(0.3)
        # A RESP client writes; the REST reader wakes.
        self.server.redis_py().xadd("bs", {"g": "w"}, id="2-1")
        t.join(10)
        status, body, _ = out["r"]
        self.assertEqual(status, 200)
        self.assertEqual(body, {"result": [["bs", [["2-1", ["g", "w"]]]]]})
        self.assertLess(out["t"], 3)

    def test_blocking_read_times_out_with_null(self):
        t0 = time.monotonic()
        status, body, _ = self.call("GET", "/xread/block/300/streams/nothing/$")
        elapsed = time.monotonic() - t0
        self.assertEqual((status, body), (200, {"result": None}))
        self.assertTrue(0.25 <= elapsed < 2, elapsed)

    def test_rest_write_wakes_a_blocked_resp_client(self):
        r = self.server.redis_py()
        out = {}
        t = threading.Thread(target=lambda: out.setdefault(
            "r", r.xread({"ws": "$"}, block=5000)))
        t.start()
        time.sleep(0.2)
        self.call("GET", "/xadd/ws/5-1/a/b")
        t.join(10)
        self.assertEqual(out["r"][0][1][0][0], b"5-1")

    def test_resp_clients_unaffected_by_a_slow_http_client(self):
        # A client that sends half a request and stalls must not hold anyone else.
        with socket.create_connection(("127.0.0.1", self.rest_port)) as s:
            s.sendall(b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n[\"PI")
            r = self.server.redis_py()
            t0 = time.monotonic()
            for _ in range(100):
                r.ping()
            self.assertLess(time.monotonic() - t0, 1.0)
            self.assertEqual(self.call("GET", "/ping")[1], {"result": "PONG"})

    def test_rest_session_shows_in_client_list_while_blocked(self):
        t = threading.Thread(target=lambda: self.call("GET", "/xread/block/1500/streams/cl/$"))
        t.start()
        time.sleep(0.3)
        clients = self.server.redis_py().client_list()
        t.join(5)
        self.assertTrue(any(c.get("name") == "rest" for c in clients), clients)

    def test_head_gets_headers_only(self):
        c = self.conn()
        c.request("HEAD", "/ping", headers={"Authorization": f"Bearer {TOKEN}"})
        resp = c.getresponse()
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.read(), b"")
        c.close()


@needs_streamd
class RestConfigTest(unittest.TestCase):
    def start_rest(self, *args):
        port = servers.free_port()
        s = servers.start_streamd("--rest-port", port, "--rest-token", TOKEN, "--appendonly", "no",
                                  *args)
        self.addCleanup(s.cleanup)
        return s, port

    def test_rest_port_without_a_token_refuses_to_start(self):
        with self.assertRaises(servers.ServerStartError) as e:
            servers.start_streamd("--rest-port", servers.free_port(), ready_timeout=5)
        self.assertIn("rest-token", str(e.exception))

    def test_token_can_be_rotated_with_config_set(self):
        port = servers.free_port()
        s = servers.start_streamd("--rest-port", port, "--rest-token", "old", "--appendonly", "no")
        self.addCleanup(s.cleanup)
        s.redis_py().config_set("rest-token", "new")

        def status(tok):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/ping", headers={"Authorization": f"Bearer {tok}"})
            st = c.getresponse().status
            c.close()
            return st

        self.assertEqual(status("old"), 401)
        self.assertEqual(status("new"), 200)

    def test_idle_connections_are_closed_after_rest_idle_timeout(self):
        s, port = self.start_rest("--rest-idle-timeout", "1")
        # A connection that never sends, one that stops half-way through a request, one that
        # keeps a served keep-alive connection open and one blocked in XREAD BLOCK 0.
        silent = socket.create_connection(("127.0.0.1", port), timeout=10)
        partial = socket.create_connection(("127.0.0.1", port), timeout=10)
        partial.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n")
        kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        kept.request("GET", "/ping", headers={"Authorization": f"Bearer {TOKEN}"})
        self.assertEqual(kept.getresponse().read(), b'{"result":"PONG"}')
        blocked = socket.create_connection(("127.0.0.1", port), timeout=10)
        blocked.sendall(b"GET /xread/block/0/streams/idle-s/$ HTTP/1.1\r\nHost: x\r\n"
                        b"Authorization: Bearer " + TOKEN.encode() + b"\r\n\r\n")
        for sock in (silent, partial):
            self.addCleanup(sock.close)
            t0 = time.monotonic()
            self.assertEqual(sock.recv(100), b"")  # closed by the server
            self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(kept.sock.recv(100), b"")
        kept.close()
        # The blocked request is a request in progress: still there, and answered on XADD.
        self.addCleanup(blocked.close)
        s.redis_py().xadd("idle-s", {"f": "v"}, id="1-1")
        blocked.settimeout(5)
        self.assertIn(b"1-1", blocked.recv(1000))

    def test_rest_idle_timeout_zero_keeps_idle_connections(self):
        _, port = self.start_rest("--rest-idle-timeout", "0")
        silent = socket.create_connection(("127.0.0.1", port), timeout=3)
        self.addCleanup(silent.close)
        with self.assertRaises(socket.timeout):
            silent.recv(100)  # nothing comes, and the connection stays open


if __name__ == "__main__":
    runner.main()
