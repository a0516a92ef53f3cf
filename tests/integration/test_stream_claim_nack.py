"""XREADGROUP ... CLAIM min-idle-time (Redis 8.4) and XNACK (Redis 8.8) over real sockets, in RESP2
and RESP3: the documented examples (the redis.io pages for XREADGROUP and XNACK), reply shapes
byte for byte, errors, COUNT shared between claimed and new entries, BLOCK with CLAIM waking when
an entry becomes claimable (by time, by XNACK, by XADD), XPENDING / XINFO after XNACK, and the
PEL (owners, counts, NACK zone order) surviving a restart with appendonly yes, before and after
BGREWRITEAOF.

Delivery times are set with XCLAIM ... TIME rather than by sleeping, where a test does not need
real time to pass. Skips (exit 0) only when the streamd binary is missing.
"""

import shutil
import tempfile
import threading
import time
import unittest
from pathlib import Path

from streamd_testlib import runner, servers
from streamd_testlib.resp import to_python


def now_ms(c) -> int:
    sec, usec = to_python(c.call("TIME"))
    return int(sec) * 1000 + int(usec) // 1000


class Base(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = servers.start_streamd()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def setUp(self):
        self.clients = []
        self.c = self.client()
        self.assertEqual(self.c.call_raw("FLUSHALL"), b"+OK\r\n")

    def tearDown(self):
        for c in self.clients:
            c.close()

    def client(self, proto: int = 2):
        c = self.server.client()
        self.clients.append(c)
        if proto == 3:
            c.hello(3)
        return c

    def py(self, *args, c=None):
        rep = (c or self.c).call(*args)
        if rep.is_error:
            raise AssertionError(f"{args!r} -> {rep.error_text()}")
        return to_python(rep)

    def err(self, *args) -> str:
        rep = self.c.call(*args)
        self.assertTrue(rep.is_error, f"{args!r} should fail, got {to_python(rep)!r}")
        return rep.error_text()

    def stream(self, n: int, key="s"):
        for i in range(1, n + 1):
            self.py("XADD", key, f"{i}-0", "f", f"v{i}")
        self.py("XGROUP", "CREATE", key, "g", "0")

    def age(self, ms: int, *ids, key="s", consumer="c1"):
        """Makes the given pending entries `ms` old (XCLAIM TIME, owner and count kept)."""
        t = now_ms(self.c) - ms
        for i in ids:
            self.py("XCLAIM", key, "g", consumer, "0", i, "TIME", t, "JUSTID")


@unittest.skipUnless(servers.streamd_available(), "streamd binary not found")
class ClaimTest(Base):
    def test_claimed_then_new_entries_with_four_integer_elements(self):
        self.stream(2)
        self.py("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "s", ">")
        self.age(5000, "1-0")
        raw = self.c.call_raw("XREADGROUP", "GROUP", "g", "c2", "CLAIM", "1000", "STREAMS", "s", ">")
        head = (b"*1\r\n*2\r\n$1\r\ns\r\n*2\r\n"
                b"*4\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$2\r\nv1\r\n:")
        self.assertTrue(raw.startswith(head), raw)
        idle = int(raw[len(head):].split(b"\r\n")[0])
        self.assertGreaterEqual(idle, 5000)
        self.assertLess(idle, 8000)
        self.assertTrue(raw.endswith(b"\r\n:1\r\n*4\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$2\r\nv2\r\n"
                                     b":0\r\n:0\r\n"), raw)
        # Ownership moved, count incremented like XCLAIM.
        pend = self.py("XPENDING", "s", "g", "-", "+", "10")
        self.assertEqual([(p[0], p[1], p[3]) for p in pend],
                         [(b"1-0", b"c2", 2), (b"2-0", b"c2", 1)])

    def test_resp3_map_reply(self):
        self.stream(2)
        self.py("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "s", ">")
        self.age(5000, "1-0")
        c3 = self.client(3)
        rep = to_python(c3.call("XREADGROUP", "GROUP", "g", "c2", "CLAIM", "1000", "STREAMS", "s",
                                ">"))
        self.assertEqual(list(rep.keys()), [b"s"])
        (e1, e2) = rep[b"s"]
        self.assertEqual(e1[:2], [b"1-0", [b"f", b"v1"]])
        self.assertGreaterEqual(e1[2], 5000)
        self.assertEqual(e1[3], 1)
        self.assertEqual(e2, [b"2-0", [b"f", b"v2"], 0, 0])
        # Nothing claimable and nothing new: null.
        self.assertEqual(c3.call_raw("XREADGROUP", "GROUP", "g", "c2", "CLAIM", "1000", "STREAMS",
                                     "s", ">"), b"_\r\n")
        self.assertEqual(self.c.call_raw("XREADGROUP", "GROUP", "g", "c2", "CLAIM", "1000",
                                         "STREAMS", "s", ">"), b"*-1\r\n")

    def test_count_is_shared_and_idlest_come_first(self):
        self.stream(6)
        self.py("XREADGROUP", "GROUP", "g", "c1", "COUNT", "3", "STREAMS", "s", ">")
        self.age(3000, "2-0")
        self.age(9000, "3-0")
        self.age(6000, "1-0")
        got = self.py("XREADGROUP", "GROUP", "g", "c2", "COUNT", "4", "CLAIM", "1000", "STREAMS",
                      "s", ">")
        ids = [e[0] for e in got[0][1]]
        self.assertEqual(ids, [b"3-0", b"1-0", b"2-0", b"4-0"])
        self.assertEqual([e[3] for e in got[0][1]], [1, 1, 1, 0])
        # Claim fills COUNT: no new entries at all.
        self.age(2000, "1-0", "2-0", "3-0", consumer="c2")
        got = self.py("XREADGROUP", "GROUP", "g", "c3", "COUNT", "2", "CLAIM", "1000", "STREAMS",
                      "s", ">")
        self.assertEqual([e[0] for e in got[0][1]], [b"1-0", b"2-0"])
        self.assertEqual([e[3] for e in got[0][1]], [2, 2])
        # CLAIM 0 claims everything pending, even just delivered (4-0 is put between 3-0 and the
        # two just claimed: deliveries in one millisecond would otherwise tie, and ties go by ID).
        self.age(1500, "4-0", consumer="c2")
        got = self.py("XREADGROUP", "GROUP", "g", "c4", "CLAIM", "0", "STREAMS", "s", ">")
        self.assertEqual([e[0] for e in got[0][1]], [b"3-0", b"4-0", b"1-0", b"2-0", b"5-0", b"6-0"])

    def test_noack_history_and_several_streams(self):
        self.stream(2, key="a")
        self.stream(2, key="b")
        self.py("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "a", "b", ">", ">")
        self.age(2000, "1-0", key="a")
        self.age(2000, "1-0", key="b")
        got = self.py("XREADGROUP", "GROUP", "g", "c1", "NOACK", "CLAIM", "1000", "STREAMS", "a",
                      "b", ">", ">")
        self.assertEqual([k for k, _ in got], [b"a", b"b"])
        for _, entries in got:
            self.assertEqual([(e[0], e[3]) for e in entries], [(b"1-0", 1), (b"2-0", 0)])
        # NOACK applied to the new entry only: the claimed one is still pending.
        self.assertEqual(self.py("XPENDING", "a", "g")[0], 1)
        # A history read ignores CLAIM: plain two-element entries.
        got = self.py("XREADGROUP", "GROUP", "g", "c1", "CLAIM", "0", "STREAMS", "a", "0")
        self.assertEqual(got, [[b"a", [[b"1-0", [b"f", b"v1"]]]]])

    def test_deleted_pending_entries_are_dropped(self):
        self.stream(3)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        self.age(5000, "1-0", "2-0", "3-0")
        self.py("XTRIM", "s", "MAXLEN", "0")
        self.assertIsNone(self.py("XREADGROUP", "GROUP", "g", "c2", "CLAIM", "100", "STREAMS", "s",
                                  ">"))
        self.assertEqual(self.py("XPENDING", "s", "g")[0], 0)

    def test_errors(self):
        self.stream(1)
        for bad in ("test", "5.5", "+10", "-0", "10e"):
            self.assertEqual(self.err("XREADGROUP", "GROUP", "g", "c", "CLAIM", bad, "STREAMS", "s",
                                      ">"), "ERR min-idle-time is not an integer")
        self.assertEqual(self.err("XREADGROUP", "GROUP", "g", "c", "CLAIM", "-10", "STREAMS", "s",
                                  ">"), "ERR min-idle-time must be a positive integer")
        self.assertEqual(self.err("XREADGROUP", "CLAIM", "GROUP", "g", "c", "STREAMS", "s", ">"),
                         "ERR min-idle-time is not an integer")
        self.assertTrue(self.err("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "CLAIM",
                                 ">").startswith("ERR Unbalanced"))
        self.assertEqual(self.err("XREAD", "COUNT", "2", "CLAIM", "10", "STREAMS", "s", "0-0"),
                         "ERR The CLAIM option is only supported by XREADGROUP. You called XREAD "
                         "instead.")
        self.assertTrue(self.err("XREADGROUP", "GROUP", "nog", "c", "CLAIM", "5", "STREAMS", "s",
                                 ">").startswith("NOGROUP"))
        # The option may come anywhere before STREAMS; the last one wins.
        got = self.py("XREADGROUP", "CLAIM", "50", "GROUP", "g", "c", "CLAIM", "0", "STREAMS", "s",
                      ">")
        self.assertEqual(got[0][1][0][3], 0)


@unittest.skipUnless(servers.streamd_available(), "streamd binary not found")
class ClaimBlockTest(Base):
    def read_in_thread(self, c, *args):
        out = {}

        def run():
            t0 = time.monotonic()
            rep = c.call(*args, timeout=10)
            out["rep"] = rep
            out["elapsed"] = time.monotonic() - t0

        th = threading.Thread(target=run)
        th.start()
        return th, out

    def wait_blocked(self, n):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            text = self.c.call_raw("INFO", "clients").decode()
            if f"blocked_clients:{n}\r\n" in text:
                return
            time.sleep(0.005)
        self.fail(f"blocked_clients never reached {n}")

    def test_wakes_when_an_entry_becomes_claimable(self):
        self.stream(1)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        for proto in (2, 3):
            with self.subTest(proto=proto):
                self.age(0, "1-0")  # delivered now
                c = self.client(proto)
                th, out = self.read_in_thread(c, "XREADGROUP", "GROUP", "g", "c2", "BLOCK", "5000",
                                              "CLAIM", "300", "STREAMS", "s", ">")
                th.join()
                rep = to_python(out["rep"])
                entries = rep[b"s"] if proto == 3 else rep[0][1]
                self.assertEqual(entries[0][0], b"1-0")
                self.assertGreaterEqual(entries[0][2], 300)
                self.assertGreaterEqual(out["elapsed"], 0.25)
                self.assertLess(out["elapsed"], 2.0)

    def test_wakes_on_xnack_and_on_xadd(self):
        self.stream(2)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        c = self.client()
        th, out = self.read_in_thread(c, "XREADGROUP", "GROUP", "g", "c2", "BLOCK", "5000", "CLAIM",
                                      "100000", "STREAMS", "s", ">")
        self.wait_blocked(1)
        self.assertEqual(self.py("XNACK", "s", "g", "FAIL", "IDS", "2", "1-0", "2-0"), 2)
        th.join()
        self.assertLess(out["elapsed"], 2.0)
        entries = to_python(out["rep"])[0][1]
        self.assertEqual([(e[0], e[2], e[3]) for e in entries], [(b"1-0", -1, 1), (b"2-0", -1, 1)])
        pend = self.py("XPENDING", "s", "g", "-", "+", "10", "c2")
        self.assertEqual([p[0] for p in pend], [b"1-0", b"2-0"])
        # A new entry wakes it before any pending entry is idle enough.
        th, out = self.read_in_thread(c, "XREADGROUP", "GROUP", "g", "c3", "BLOCK", "5000", "CLAIM",
                                      "100000", "STREAMS", "s", ">")
        self.wait_blocked(1)
        self.py("XADD", "s", "3-0", "f", "v3")
        th.join()
        self.assertEqual(to_python(out["rep"])[0][1], [[b"3-0", [b"f", b"v3"], 0, 0]])

    def test_times_out_and_two_blocked_clients(self):
        self.stream(1)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        t0 = time.monotonic()
        self.assertIsNone(self.py("XREADGROUP", "GROUP", "g", "c2", "BLOCK", "200", "CLAIM",
                                  "100000", "STREAMS", "s", ">"))
        self.assertGreaterEqual(time.monotonic() - t0, 0.18)
        # Redis's test: both block on an empty stream; the XADD serves the first, and the second
        # gets that same entry once it has been idle 100 ms.
        self.py("XACK", "s", "g", "1-0")
        c1, c2 = self.client(), self.client()
        th1, out1 = self.read_in_thread(c1, "XREADGROUP", "GROUP", "g", "k1", "BLOCK", "0",
                                        "CLAIM", "100", "STREAMS", "s", ">")
        self.wait_blocked(1)
        th2, out2 = self.read_in_thread(c2, "XREADGROUP", "GROUP", "g", "k2", "BLOCK", "0",
                                        "CLAIM", "100", "STREAMS", "s", ">")
        self.wait_blocked(2)
        self.py("XADD", "s", "2-0", "f", "v2")
        th1.join()
        th2.join()
        self.assertEqual(to_python(out1["rep"])[0][1][0][:2], [b"2-0", [b"f", b"v2"]])
        e2 = to_python(out2["rep"])[0][1][0]
        self.assertEqual((e2[0], e2[3]), (b"2-0", 1))
        self.assertGreaterEqual(e2[2], 100)
        self.assertEqual(self.py("XPENDING", "s", "g", "-", "+", "10")[0][1], b"k2")

    def test_multi_never_blocks(self):
        self.stream(1)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        self.py("MULTI")
        self.c.call("XREADGROUP", "GROUP", "g", "c2", "BLOCK", "0", "CLAIM", "100000", "STREAMS",
                    "s", ">")
        self.assertEqual(self.py("EXEC"), [None])


@unittest.skipUnless(servers.streamd_available(), "streamd binary not found")
class NackTest(Base):
    def test_documented_example(self):
        self.stream(2)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        self.assertEqual(self.c.call_raw("XNACK", "s", "g", "FAIL", "IDS", "2", "1-0", "2-0"),
                         b":2\r\n")
        raw = self.c.call_raw("XPENDING", "s", "g", "-", "+", "10")
        self.assertEqual(raw, b"*2\r\n*4\r\n$3\r\n1-0\r\n$0\r\n\r\n:-1\r\n:1\r\n"
                              b"*4\r\n$3\r\n2-0\r\n$0\r\n\r\n:-1\r\n:1\r\n")
        c3 = self.client(3)
        self.assertEqual(c3.call_raw("XPENDING", "s", "g", "-", "+", "1"),
                         b"*1\r\n*4\r\n$3\r\n1-0\r\n$0\r\n\r\n:-1\r\n:1\r\n")
        # The summary counts them; no consumer owns them (an empty list, not the null of an empty
        # PEL).
        self.assertEqual(self.py("XPENDING", "s", "g"), [2, b"1-0", b"2-0", []])
        self.assertEqual(self.py("XPENDING", "s", "g", "-", "+", "10", "c1"), [])
        self.assertEqual(self.py("XINFO", "CONSUMERS", "s", "g")[0][3], 0)

    def test_modes_retrycount_force(self):
        self.stream(4)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        self.py("XNACK", "s", "g", "FAIL", "IDS", "1", "1-0")
        self.py("XNACK", "s", "g", "FATAL", "IDS", "1", "2-0")
        self.py("XNACK", "s", "g", "SILENT", "IDS", "1", "3-0")
        pend = self.py("XPENDING", "s", "g", "-", "+", "10")
        self.assertEqual(pend[:3], [[b"1-0", b"", -1, 1], [b"2-0", b"", -1, 9223372036854775807],
                                    [b"3-0", b"", -1, 0]])
        self.assertEqual(pend[3][1], b"c1")
        # SILENT stops at 0; RETRYCOUNT overrides any mode; duplicates count twice.
        self.assertEqual(self.py("XNACK", "s", "g", "SILENT", "IDS", "2", "3-0", "3-0"), 2)
        self.assertEqual(self.py("XNACK", "s", "g", "FATAL", "RETRYCOUNT", "42", "IDS", "1", "2-0"),
                         1)
        self.assertEqual(self.py("XPENDING", "s", "g", "-", "+", "10")[1][3], 42)
        # Unknown IDs are skipped; FORCE creates only for entries in the stream.
        self.assertEqual(self.py("XNACK", "s", "g", "FAIL", "IDS", "1", "9-9"), 0)
        self.py("XACK", "s", "g", "4-0")
        self.assertEqual(self.py("XNACK", "s", "g", "FAIL", "IDS", "2", "4-0", "9-9", "FORCE"), 1)
        self.assertEqual(self.py("XPENDING", "s", "g", "-", "+", "10")[3], [b"4-0", b"", -1, 0])
        # XINFO STREAM FULL: owner "", delivery time 0, nacked-count.
        full = self.py("XINFO", "STREAM", "s", "FULL")
        group = full[full.index(b"groups") + 1][0]
        fields = dict(zip(group[::2], group[1::2]))
        self.assertEqual(fields[b"nacked-count"], 4)
        self.assertEqual(fields[b"pel-count"], 4)
        self.assertEqual(fields[b"pending"][0], [b"1-0", b"", 0, 1])
        self.assertEqual(group[-2], b"nacked-count")
        # XCLAIM takes a NACKed entry whatever min-idle-time; the zone shrinks.
        self.assertEqual(len(self.py("XCLAIM", "s", "g", "c2", "99999", "1-0")), 1)
        full = self.py("XINFO", "STREAM", "s", "FULL")
        group = full[full.index(b"groups") + 1][0]
        self.assertEqual(group[-1], 3)

    def test_zone_order_and_claim_order(self):
        self.stream(4)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        self.age(50000, "4-0")
        self.py("XNACK", "s", "g", "FAIL", "IDS", "3", "1-0", "2-0", "3-0")
        self.py("XNACK", "s", "g", "FAIL", "IDS", "1", "1-0")  # to the end of the zone
        order = []
        for _ in range(4):
            got = self.py("XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "CLAIM", "10000",
                          "STREAMS", "s", ">")
            order.append(got[0][1][0][0])
        self.assertEqual(order, [b"2-0", b"3-0", b"1-0", b"4-0"])

    def test_errors(self):
        self.assertTrue(self.err("XNACK", "nokey", "g", "SILENT", "IDS", "1", "1-0")
                        .startswith("NOGROUP"))
        self.py("SET", "str", "x")
        self.assertTrue(self.err("XNACK", "str", "g", "FAIL", "IDS", "1", "1-0")
                        .startswith("WRONGTYPE"))
        self.stream(2)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        cases = [
            (["XNACK", "s", "g", "SILENT", "IDS", "1"],
             "ERR wrong number of arguments for 'xnack' command"),
            (["XNACK", "s", "g", "BADMODE", "IDS", "1", "1-0"],
             "ERR mode must be SILENT, FAIL, or FATAL"),
            (["XNACK", "s", "g", "FAIL", "FATAL", "IDS", "1", "1-0"],
             "ERR Unrecognized XNACK option 'FATAL'"),
            (["XNACK", "s", "g", "FAIL", "IDS", "1", "1-0", "2-0"],
             "ERR Unrecognized XNACK option '2-0'"),
            (["XNACK", "s", "g", "FAIL", "IDS", "1", "1-0", "RETRYCOUNT"],
             "ERR Unrecognized XNACK option 'RETRYCOUNT'"),
            (["XNACK", "s", "g", "SILENT", "FORCE", "RETRYCOUNT", "5"],
             "ERR syntax error, expected IDS keyword"),
            (["XNACK", "s", "g", "SILENT", "IDS", "0", "1-0"], "ERR numids must be a positive integer"),
            (["XNACK", "s", "g", "SILENT", "IDS", "abc", "1-0"],
             "ERR numids must be a positive integer"),
            (["XNACK", "s", "g", "SILENT", "IDS", "2", "1-0"], "ERR number of IDs doesn't match numids"),
            (["XNACK", "s", "g", "FAIL", "IDS", "1", "bad"],
             "ERR Invalid stream ID specified as stream command argument"),
            (["XNACK", "s", "g", "FAIL", "IDS", "1", "1-0", "RETRYCOUNT", "-1"],
             "ERR Invalid RETRYCOUNT value, must be >= 0"),
            (["XNACK", "s", "g", "FAIL", "IDS", "1", "1-0", "RETRYCOUNT", "abc"],
             "ERR value is not an integer or out of range"),
        ]
        for args, want in cases:
            with self.subTest(args=args):
                self.assertEqual(self.err(*args), want)
        # Options before and after the IDS block.
        self.assertEqual(self.py("XNACK", "s", "g", "FAIL", "FORCE", "RETRYCOUNT", "7", "IDS", "1",
                                 "1-0"), 1)
        self.assertEqual(self.py("XPENDING", "s", "g", "-", "+", "1")[0][3], 7)

    def test_delconsumer_keeps_nacked_entries(self):
        self.stream(2)
        self.py("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">")
        self.py("XNACK", "s", "g", "FAIL", "IDS", "1", "1-0")
        self.assertEqual(self.py("XGROUP", "DELCONSUMER", "s", "g", "c1"), 1)
        self.assertEqual(self.py("XPENDING", "s", "g", "-", "+", "10"), [[b"1-0", b"", -1, 1]])
        self.assertEqual(self.py("XAUTOCLAIM", "s", "g", "c2", "99999", "0-0")[1][0][0], b"1-0")


@unittest.skipUnless(servers.streamd_available(), "streamd binary not found")
class RestartTest(unittest.TestCase):
    """The PEL after CLAIM and XNACK comes back from the AOF: replayed records, then a rewrite."""

    def state(self, s):
        with s.client() as c:
            pend = to_python(c.call("XPENDING", "s", "g", "-", "+", "100"))
            full = to_python(c.call("XINFO", "STREAM", "s", "FULL", "COUNT", "0"))
            group = full[full.index(b"groups") + 1][0]
            fields = dict(zip(group[::2], group[1::2]))
            consumers = sorted((dict(zip(x[::2], x[1::2]))[b"name"],
                                dict(zip(x[::2], x[1::2]))[b"pel-count"])
                               for x in fields[b"consumers"])
            return {
                # idle changes with time; owners, counts and NACK state must not
                "pending": [(p[0], p[1], p[2] == -1, p[3]) for p in pend],
                "times": [(p[0], p[2]) for p in fields[b"pending"]],
                "nacked": fields[b"nacked-count"],
                "last": fields[b"last-delivered-id"],
                "consumers": consumers,
            }

    def claim_order(self, s):
        with s.client() as c:
            got = to_python(c.call("XREADGROUP", "GROUP", "g", "probe", "CLAIM", "0", "STREAMS", "s",
                                   ">"))
            return [e[0] for e in got[0][1]] if got else []

    def test_restart_restores_pel_after_claim_and_xnack(self):
        wd = Path(tempfile.mkdtemp(prefix="streamd-claim-"))
        self.addCleanup(shutil.rmtree, wd, True)

        def start():
            s = servers.start_streamd("--appendonly", "yes", "--appendfsync", "always", workdir=wd)
            self.addCleanup(s.stop)
            return s

        s = start()
        with s.client() as c:
            for i in range(1, 9):
                c.call("XADD", "s", f"{i}-0", "f", f"v{i}")
            c.call("XGROUP", "CREATE", "s", "g", "0")
            c.call("XREADGROUP", "GROUP", "g", "c1", "COUNT", "6", "STREAMS", "s", ">")
            t = now_ms(c)
            c.call("XCLAIM", "s", "g", "c1", "0", "2-0", "TIME", t - 9000, "JUSTID")
            c.call("XCLAIM", "s", "g", "c1", "0", "5-0", "TIME", t - 7000, "JUSTID")
            rep = to_python(c.call("XREADGROUP", "GROUP", "g", "c2", "COUNT", "3", "CLAIM", "5000",
                                   "STREAMS", "s", ">"))
            self.assertEqual([e[0] for e in rep[0][1]], [b"2-0", b"5-0", b"7-0"])
            self.assertEqual(to_python(c.call("XNACK", "s", "g", "FATAL", "IDS", "2", "3-0", "1-0")),
                             2)
            self.assertEqual(to_python(c.call("XNACK", "s", "g", "SILENT", "IDS", "1", "2-0")), 1)
            self.assertEqual(to_python(c.call("XNACK", "s", "g", "FAIL", "IDS", "1", "8-0",
                                              "FORCE")), 1)
        before = self.state(s)
        self.assertEqual(before["nacked"], 4)
        self.assertEqual(s.stop(), 0)

        s = start()
        self.assertEqual(self.state(s), before)
        with s.client() as c:
            self.assertEqual(to_python(c.call("BGREWRITEAOF"))[:10], b"Background")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                info = c.call_raw("INFO", "persistence").decode()
                if "aof_rewrite_in_progress:0" in info and "aof_rewrite_scheduled:0" in info:
                    break
                time.sleep(0.05)
        self.assertEqual(s.stop(), 0)

        s = start()
        self.assertEqual(self.state(s), before)
        # The NACK zone's order survived too: released first, in release order.
        self.assertEqual(self.claim_order(s)[:4], [b"3-0", b"1-0", b"2-0", b"8-0"])


if __name__ == "__main__":
    runner.main()
