"""Pipelines sent in one write, against streamd and Debian's redis-server 7.0.15, compared byte
for byte to the end of the connection.

streamd parses the commands queued behind the running one ahead of it and prefetches their keys
(net/connection.cc parse_ahead, in a database of at least 1,024 keys): what runs, in which order
and with which parser limits must be exactly what parsing one command at a time gives. So the
databases here hold 3,000 keys, and the pipelines mix key commands with what changes the
parser's limits in the middle of a batch (AUTH, CONFIG SET proto-max-bulk-len), blocks (XREAD
BLOCK), switches databases, queues (MULTI) and ends the connection (QUIT, a protocol error).

Skips (exit 0, SKIPPED line) when the streamd binary or redis-server is missing.
"""

import random
import socket
import time
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.resp import encode_command as encode

KEYS = 3000

needs_both = unittest.skipUnless(servers.streamd_available() and servers.redis_available(),
                                 "streamd binary or redis-server not found")


def exchange(port: int, blob: bytes, timeout: float = 10.0) -> bytes:
    """Sends `blob` in one write and returns every byte the server sends until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(blob)
        chunks = []
        while True:
            data = s.recv(1 << 16)
            if not data:
                return b"".join(chunks)
            chunks.append(data)


def random_pipeline(rng: random.Random, n: int) -> bytes:
    ids = {}

    def key():
        return rng.choice(["s:", "x:"]) + str(rng.randrange(KEYS + 50))  # a few missing keys

    def next_id(k):
        ids[k] = ids.get(k, 1) + rng.randint(0, 2)  # sometimes equal: XADD's error
        return f"{ids[k]}-1"

    cmds = []
    for _ in range(n):
        k = key()
        cmds.append(rng.choice([
            ("GET", k), ("SET", k, rng.randint(0, 99)), ("APPEND", k, "z"), ("INCR", k),
            ("STRLEN", k), ("TYPE", k), ("EXISTS", k, key()), ("DEL", k), ("XLEN", k),
            ("XADD", k, next_id(k), "f", "v"), ("XRANGE", k, "-", "+", "COUNT", 2),
            ("XTRIM", k, "MAXLEN", 1), ("EXPIRE", k, 1000), ("PERSIST", k), ("ECHO", k),
            ("PING",), ("SELECT", rng.choice([0, 0, 0, 1])), ("MULTI",), ("EXEC",),
            ("MGET", k, key(), key()), ("XREAD", "COUNT", 1, "STREAMS", k, "0"),
        ]))
    return b"".join(encode(*c) for c in cmds)


@needs_both
class PipelineBatchesTest(unittest.TestCase):
    def setUp(self):
        self.streamd = servers.start_streamd("--save", "", "--appendonly", "no")
        self.redis = servers.start_redis()
        self.addCleanup(self.streamd.stop)
        self.addCleanup(self.redis.stop)
        self.reset()

    def reset(self):
        """FLUSHALL, then KEYS string and stream keys in database 0 on both servers."""
        blob = [encode("FLUSHALL")]
        for i in range(KEYS // 2):
            blob.append(encode("SET", f"s:{i}", i))
            blob.append(encode("XADD", f"x:{i}", "1-1", "f", i))
        blob.append(encode("QUIT"))
        for srv in (self.streamd, self.redis):
            exchange(srv.port, b"".join(blob))

    def same(self, blob: bytes, what: str):
        got = exchange(self.streamd.port, blob)
        want = exchange(self.redis.port, blob)
        if got != want:
            at = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]),
                      min(len(got), len(want)))
            self.fail(f"{what}: replies differ at byte {at} of {len(want)}:\n"
                      f"streamd {got[max(0, at - 200):at + 200]!r}\n"
                      f"redis   {want[max(0, at - 200):at + 200]!r}")
        return got

    def test_random_pipelines_in_one_write(self):
        for seed in range(1, 9):
            rng = random.Random(seed)
            for length in (1, 2, 17, 33, 400):
                self.same(random_pipeline(rng, length) + encode("QUIT"),
                          f"seed {seed}, {length} commands")
            self.reset()

    def test_limits_changed_by_auth_in_the_middle_of_a_batch(self):
        # Before AUTH, a multibulk of more than 10 arguments is a protocol error; right after it
        # in the same write it is a command. Both limits apply exactly where the parser is.
        for srv in (self.streamd, self.redis):
            exchange(srv.port, encode("CONFIG", "SET", "requirepass", "pw") + encode("QUIT"))
        big_mset = encode("MSET", *[x for i in range(12) for x in (f"s:{i}", f"m{i}")])
        self.same(encode("AUTH", "pw") + big_mset + encode("GET", "s:3") + encode("QUIT"),
                  "AUTH then 25 arguments")
        self.same(encode("PING") + big_mset + encode("GET", "s:3") + encode("QUIT"),
                  "25 arguments unauthenticated")
        self.same(encode("AUTH", "pw") + encode("GET", "s:3") + encode("AUTH", "bad") +
                  big_mset + encode("MGET", "s:1", "s:11") + encode("QUIT"),
                  "a failed AUTH keeps the client authenticated")
        # RESET de-authenticates (requirepass is set): the 25 arguments behind it, which the
        # authenticated client could have parsed ahead, are a protocol error again.
        self.same(encode("AUTH", "pw") + encode("GET", "s:3") + encode("RESET") + big_mset +
                  encode("GET", "s:3") + encode("QUIT"), "RESET then 25 arguments")

    def test_bulk_limit_changed_in_the_middle_of_a_batch(self):
        value = b"v" * (1536 * 1024)
        # The write ends at the refused bulk's header: the servers close with nothing unread,
        # so the client sees every reply before the end (unread bytes would make it a reset).
        self.same(encode("SET", "s:1", value) + encode("STRLEN", "s:1") +
                  encode("CONFIG", "SET", "proto-max-bulk-len", "1mb") + encode("GET", "s:2") +
                  b"*3\r\n$3\r\nSET\r\n$3\r\ns:2\r\n$%d\r\n" % len(value),
                  "proto-max-bulk-len lowered before a 1.5 MB bulk")
        for srv in (self.streamd, self.redis):
            exchange(srv.port, encode("CONFIG", "SET", "proto-max-bulk-len", "512mb") +
                     encode("QUIT"))

    def test_blocking_and_transactions_in_the_middle_of_a_batch(self):
        blob = (encode("GET", "s:5") + encode("XREAD", "BLOCK", 100, "STREAMS", "x:7", "$") +
                encode("XLEN", "x:7") + encode("MULTI") + encode("INCR", "s:9") +
                encode("XADD", "x:9", "5-1", "f", "v") + encode("GET", "s:9") + encode("EXEC") +
                encode("SELECT", 1) + encode("GET", "s:5") + encode("SELECT", 0) +
                encode("GET", "s:5") + encode("QUIT") + encode("GET", "s:6"))
        self.same(blob, "XREAD BLOCK, MULTI, SELECT, then QUIT with a command behind it")

    def test_a_command_split_across_reads_then_a_batch(self):
        # The first write ends inside a command: parse() keeps its progress. The second write
        # completes it and queues more, which are parsed as one batch with it.
        first = encode("SET", "s:1", "x" * 5000) + encode("GET", "s:2")
        cut = len(encode("SET", "s:1", "x" * 5000)) - 2000
        rest = b"".join(encode("XADD", f"x:{i}", "7-1", "f", "v") for i in range(40))
        rest += encode("GET", "s:1") + encode("QUIT")
        replies = []
        for srv in (self.streamd, self.redis):
            with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as s:
                s.sendall(first[:cut])
                time.sleep(0.1)
                s.sendall(first[cut:] + rest)
                chunks = []
                while data := s.recv(1 << 16):
                    chunks.append(data)
                replies.append(b"".join(chunks))
        self.assertEqual(replies[0], replies[1])
        self.assertTrue(replies[0].startswith(b"+OK\r\n$1\r\n2\r\n$3\r\n7-1\r\n"))

    def test_protocol_error_behind_whole_commands(self):
        blob = encode("GET", "s:1") + encode("XLEN", "x:1") + b"*1\r\n$x\r\n" + encode("PING")
        self.same(blob, "a malformed bulk length after two commands")


if __name__ == "__main__":
    runner.main()
