"""Blocking stream reads over real sockets: FIFO service of blocked clients, several keys,
timeouts, a client that disconnects while blocked, BLOCK inside MULTI, and blocked_clients in INFO.

Skips (exit 0) only when the streamd binary is missing.
"""

import time
import unittest

from streamd_testlib import servers


def info_field(client, field: str) -> str:
    text = client.call_raw("INFO", "clients").decode()
    for line in text.split("\r\n"):
        if line.startswith(field + ":"):
            return line.split(":", 1)[1]
    raise AssertionError(f"{field} not in INFO clients")


def wait_blocked(client, n: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if info_field(client, "blocked_clients") == str(n):
            return
        time.sleep(0.01)
    raise AssertionError(f"blocked_clients never reached {n}")


@unittest.skipUnless(servers.streamd_available(), "streamd binary not found")
class StreamBlockingTest(servers.SharedStreamdTest, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()

    def client(self, proto: int = 2):
        c = self.server.client()
        self.clients.append(c)
        if proto == 3:
            c.hello(3)
        return c

    def test_group_readers_are_served_first_blocked_first(self):
        admin = self.client()
        self.assertEqual(admin.call_raw("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), b"+OK\r\n")
        readers = []
        for name in ("c1", "c2", "c3"):
            c = self.client()
            c.send_command("XREADGROUP", "GROUP", "g", name, "COUNT", "1", "BLOCK", "0",
                           "STREAMS", "s", ">")
            readers.append(c)
            wait_blocked(admin, len(readers))
        for i, c in enumerate(readers):
            admin.call_raw("XADD", "s", f"{i + 1}-1", "n", str(i))
            got = c.read_raw(timeout=5)
            self.assertEqual(got, f"*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n{i + 1}-1\r\n"
                                  f"*2\r\n$1\r\nn\r\n$1\r\n{i}\r\n".encode())
            for later in readers[i + 1:]:
                self.assertFalse(later.has_data(0.05), "only the first blocked reader is served")
        self.assertEqual(info_field(admin, "blocked_clients"), "0")
        self.assertEqual(admin.call_raw("XPENDING", "s", "g", "-", "+", "10", "c2")[:4], b"*1\r\n")

    def test_xread_readers_all_see_an_entry_in_block_order(self):
        admin = self.client()
        readers = [self.client() for _ in range(4)]
        for c in readers:
            c.send_command("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
        wait_blocked(admin, 4)
        admin.call_raw("XADD", "s", "5-5", "a", "b")
        want = b"*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n5-5\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n"
        for c in readers:
            self.assertEqual(c.read_raw(timeout=5), want)

    def test_several_keys_wake_on_any_and_reply_only_that_key(self):
        admin = self.client()
        admin.call_raw("XADD", "a", "1-1", "f", "v")
        reader = self.client(proto=3)
        reader.send_command("XREAD", "BLOCK", "0", "STREAMS", "a", "b", "c", "$", "$", "$")
        wait_blocked(admin, 1)
        admin.call_raw("XADD", "c", "9-9", "x", "y")
        self.assertEqual(reader.read_raw(timeout=5),
                         b"%1\r\n$1\r\nc\r\n*1\r\n*2\r\n$3\r\n9-9\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n")

    def test_timeouts_answer_null_in_each_protocol(self):
        r2 = self.client()
        r3 = self.client(proto=3)
        start = time.monotonic()
        r2.send_command("XREAD", "BLOCK", "150", "STREAMS", "nosuch", "$")
        r3.send_command("XREAD", "BLOCK", "150", "STREAMS", "nosuch", "$")
        self.assertEqual(r2.read_raw(timeout=5), b"*-1\r\n")
        self.assertEqual(r3.read_raw(timeout=5), b"_\r\n")
        self.assertGreaterEqual(time.monotonic() - start, 0.14)
        admin = self.client()
        admin.call_raw("XGROUP", "CREATE", "g1", "g", "$", "MKSTREAM")
        r2.send_command("XREADGROUP", "GROUP", "g", "c", "BLOCK", "100", "STREAMS", "g1", ">")
        self.assertEqual(r2.read_raw(timeout=5), b"*-1\r\n")
        self.assertEqual(info_field(admin, "blocked_clients"), "0")

    def test_a_client_that_disconnects_while_blocked_is_forgotten(self):
        admin = self.client()
        admin.call_raw("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
        gone = self.server.client()
        gone.send_command("XREADGROUP", "GROUP", "g", "ghost", "COUNT", "1", "BLOCK", "0",
                          "STREAMS", "s", ">")
        stays = self.client()
        stays.send_command("XREADGROUP", "GROUP", "g", "alive", "COUNT", "1", "BLOCK", "0",
                           "STREAMS", "s", ">")
        wait_blocked(admin, 2)
        gone.close()
        wait_blocked(admin, 1)
        admin.call_raw("XADD", "s", "1-1", "f", "v")
        reply = stays.read_raw(timeout=5)
        self.assertIn(b"1-1", reply)
        # The entry went to the live client, not to the one that left.
        self.assertEqual(admin.call_raw("XPENDING", "s", "g", "-", "+", "10", "ghost"), b"*0\r\n")
        self.assertEqual(admin.call_raw("PING"), b"+PONG\r\n")

    def test_block_inside_multi_does_not_block(self):
        c = self.client()
        self.assertEqual(c.call_raw("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call_raw("XREAD", "BLOCK", "0", "STREAMS", "s", "$"), b"+QUEUED\r\n")
        self.assertEqual(c.call_raw("XADD", "s", "1-1", "f", "v"), b"+QUEUED\r\n")
        self.assertEqual(c.call_raw("XREAD", "BLOCK", "0", "STREAMS", "s", "0"), b"+QUEUED\r\n")
        got = c.call_raw("EXEC", timeout=5)
        self.assertEqual(got, b"*3\r\n*-1\r\n$3\r\n1-1\r\n"
                              b"*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-1\r\n"
                              b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n")


if __name__ == "__main__":
    unittest.main()
