"""Tests of the test harness itself: RESP reader, script parser, masks, and the runner's
mismatch detection (with two differently configured redis-servers). Needs no streamd."""

import socket
import threading
import unittest
from pathlib import Path

from streamd_testlib import differential, runner, servers
from streamd_testlib.client import ConnectionClosed, RawClient, ReplyTimeout
from streamd_testlib.differential import SCRIPTS_DIR, ServerPair, ScriptRun
from streamd_testlib.masks import apply_masks
from streamd_testlib.resp import (
    ProtocolError,
    ReplyReader,
    describe,
    encode,
    encode_command,
    parse_reply,
    to_python,
)
from streamd_testlib.script import (
    NoReply,
    Read,
    ScriptError,
    Send,
    parse_script,
    parse_script_text,
    split_args,
)

# One reply of every type, as a server could send it.
SAMPLES = [
    b"+OK\r\n",
    b"-ERR unknown command 'x'\r\n",
    b":0\r\n",
    b":-9223372036854775808\r\n",
    b"$0\r\n\r\n",
    b"$5\r\nhe\r\no\r\n",
    b"$-1\r\n",
    b"*-1\r\n",
    b"*0\r\n",
    b"*3\r\n:1\r\n$1\r\na\r\n*1\r\n_\r\n",
    b"_\r\n",
    b",3.14\r\n",
    b",inf\r\n",
    b",-nan\r\n",
    b"#t\r\n",
    b"#f\r\n",
    b"!21\r\nSYNTAX invalid syntax\r\n",
    b"=15\r\ntxt:Some string\r\n",
    b"(3492890328409238509324850943850943825024385\r\n",
    b"%2\r\n$1\r\na\r\n:1\r\n+b\r\n*2\r\n#t\r\n_\r\n",
    b"~2\r\n+x\r\n:2\r\n",
    b">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n",
    b"|1\r\n+ttl\r\n:3600\r\n$3\r\nval\r\n",
    b"*2\r\n|1\r\n+a\r\n:1\r\n:2\r\n:3\r\n",
    b"$?\r\n;4\r\nHell\r\n;3\r\no w\r\n;0\r\n",
    b"*?\r\n:1\r\n:2\r\n.\r\n",
    b"%?\r\n+a\r\n:1\r\n.\r\n",
]


class ReplyReaderTest(unittest.TestCase):
    def test_every_type_round_trips(self):
        for raw in SAMPLES:
            with self.subTest(raw=raw):
                node = parse_reply(raw)
                self.assertEqual(encode(node), raw)
                describe(node)
                to_python(node)

    def test_byte_by_byte_feeding_gives_the_same_replies(self):
        stream = b"".join(SAMPLES)
        reader = ReplyReader()
        got = []
        for i in range(len(stream)):
            reader.feed(stream[i : i + 1])
            while (r := reader.get_reply()) is not None:
                got.append(r)
        self.assertEqual(got, SAMPLES)
        self.assertEqual(reader.buffered, 0)

    def test_all_at_once_gives_one_reply_at_a_time(self):
        reader = ReplyReader()
        reader.feed(b"".join(SAMPLES))
        got = []
        while (r := reader.get_reply()) is not None:
            got.append(r)
        self.assertEqual(got, SAMPLES)

    def test_incomplete_replies_wait(self):
        for raw in SAMPLES:
            for cut in range(len(raw)):
                reader = ReplyReader()
                reader.feed(raw[:cut])
                self.assertIsNone(reader.get_reply(), f"{raw[:cut]!r} is not complete")

    def test_garbage_is_a_protocol_error(self):
        for bad in [b"?x\r\n", b":abc\r\n", b"$3\r\nabcd\r\n", b"*x\r\n", b"#x\r\n",
                    b",notanumber\r\n", b"_x\r\n", b"$-2\r\n", b"\r\n", b".\r\n",
                    b"$?\r\n+x\r\n", b"(12a\r\n"]:
            with self.subTest(bad=bad):
                reader = ReplyReader()
                reader.feed(bad)
                with self.assertRaises(ProtocolError):
                    reader.get_reply()

    def test_trailing_bytes_rejected_by_parse_reply(self):
        with self.assertRaises(ProtocolError):
            parse_reply(b"+OK\r\n+OK\r\n")

    def test_python_values(self):
        self.assertEqual(to_python(parse_reply(SAMPLES[19])), {b"a": 1, b"b": [True, None]})
        self.assertEqual(to_python(parse_reply(b"=7\r\ntxt:abc\r\n")), b"abc")

    def test_encode_command(self):
        self.assertEqual(encode_command("SET", b"k\x00", 5),
                         b"*3\r\n$3\r\nSET\r\n$2\r\nk\x00\r\n$1\r\n5\r\n")


class ScriptParserTest(unittest.TestCase):
    def test_split_args_like_redis_cli(self):
        self.assertEqual(split_args('SET k "a b" \'c d\' "" x\\y'),
                         [b"SET", b"k", b"a b", b"c d", b"", b"x\\y"])
        self.assertEqual(split_args(r'ECHO "\x41\n\"\\" ' + r"'it\'s'"),
                         [b"ECHO", b'A\n"\\', b"it's"])
        self.assertEqual(split_args("ECHO \"\xe9\""), [b"ECHO", "\xe9".encode()])
        for bad in ['ECHO "abc', "ECHO 'abc", 'ECHO "a"b']:
            with self.assertRaises(ScriptError):
                split_args(bad)

    def test_steps_and_modifiers(self):
        s = parse_script_text(
            "# desc\n!protocols 3\n!fresh\nPING\n@2 GET k\n!mask ids sort\n!send\nXREAD x\n"
            "!noreply 1 50\n!mask ints\n!read\n!inline PING\n!raw \"*1\\r\\n\" \"$4\\r\\nPING\\r\\n\"\n"
        )
        self.assertEqual(s.protocols, (3,))
        self.assertTrue(s.fresh)
        self.assertEqual(s.description, "desc")
        kinds = [type(st).__name__ for st in s.steps]
        self.assertEqual(kinds, ["Send", "Send", "Send", "NoReply", "Read", "Send", "Send"])
        self.assertEqual(s.steps[1].conn, 2)
        self.assertFalse(s.steps[2].read_now)
        self.assertEqual(s.steps[2].masks, ["ids", "sort"])
        self.assertIsInstance(s.steps[3], NoReply)
        self.assertEqual(s.steps[3].ms, 50)
        self.assertIsInstance(s.steps[4], Read)
        self.assertEqual(s.steps[4].masks, ["ints"])
        self.assertEqual(s.steps[5].payload, b"PING\r\n")
        self.assertIsInstance(s.steps[6], Send)
        self.assertEqual(s.steps[6].payload, b"*1\r\n$4\r\nPING\r\n")

    def test_sticky_masks(self):
        s = parse_script_text("!masks sort\nKEYS *\n!mask ids\nKEYS *\n!masks\nKEYS *\n")
        self.assertEqual([st.masks for st in s.steps], [["sort"], ["sort", "ids"], []])

    def test_errors(self):
        for text in ["!bogus\n", "!mask nosuchmask\nPING\n", "PING\n!protocols 2\n",
                     "!protocols 4\n", "@0 PING\n", "@x PING\n", "PING \"x\n", "!mask ids\n",
                     "!send\n!read\n", "!sleep x\n", "!mask range:1\nPING\n",
                     "!mask regex:(\nPING\n"]:
            with self.subTest(text=text):
                with self.assertRaises(ScriptError):
                    parse_script_text(text)

    def test_every_script_parses(self):
        paths = sorted(SCRIPTS_DIR.glob("*.txt"))
        self.assertTrue(paths, f"no scripts in {SCRIPTS_DIR}")
        for p in paths:
            with self.subTest(script=p.name):
                s = parse_script(p)
                self.assertTrue(s.steps)
                self.assertTrue(s.description, "start the script with a # description line")


class MaskTest(unittest.TestCase):
    def masked(self, raw, *masks):
        return encode(apply_masks(parse_reply(raw), list(masks)))

    def test_ids(self):
        self.assertEqual(self.masked(b"$15\r\n1700000000000-0\r\n", "ids"), b"$4\r\n<ID>\r\n")

    def test_ints_and_range(self):
        self.assertEqual(self.masked(b"*2\r\n:5\r\n:500\r\n", "range:0:10"),
                         b"*2\r\n:<IN-RANGE>\r\n:500\r\n")
        self.assertEqual(self.masked(b":5\r\n", "ints"), b":<INT>\r\n")

    def test_fields_in_map_and_flat_array(self):
        self.assertEqual(self.masked(b"%2\r\n$2\r\nid\r\n:7\r\n$1\r\nx\r\n:1\r\n", "fields:id"),
                         b"%2\r\n$2\r\nid\r\n:<MASKED>\r\n$1\r\nx\r\n:1\r\n")
        self.assertEqual(self.masked(b"*2\r\n$2\r\nid\r\n:7\r\n", "fields:id"),
                         b"*2\r\n$2\r\nid\r\n:<MASKED>\r\n")

    def test_drop_in_map_and_flat_array(self):
        self.assertEqual(self.masked(b"%2\r\n$2\r\nid\r\n:7\r\n$1\r\nx\r\n:1\r\n", "drop:id,zz"),
                         b"%1\r\n$1\r\nx\r\n:1\r\n")
        self.assertEqual(self.masked(b"*4\r\n$2\r\nid\r\n:7\r\n$1\r\nx\r\n:1\r\n", "drop:id"),
                         b"*2\r\n$1\r\nx\r\n:1\r\n")
        self.assertEqual(self.masked(b"*3\r\n$2\r\nid\r\n:7\r\n:1\r\n", "drop:id"),
                         b"*3\r\n$2\r\nid\r\n:7\r\n:1\r\n")  # odd: not key/value pairs

    def test_sort_only_scalar_arrays(self):
        self.assertEqual(self.masked(b"*2\r\n$1\r\n7\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n", "sort"),
                         b"*2\r\n$1\r\n7\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n")

    def test_shape_keeps_types(self):
        self.assertNotEqual(self.masked(b"$1\r\na\r\n", "shape"), self.masked(b"+a\r\n", "shape"))
        self.assertEqual(self.masked(b"$1\r\na\r\n", "shape"), self.masked(b"$2\r\nbb\r\n", "shape"))

    def test_range_after_another_mask(self):
        r = parse_reply(b"*4\r\n$4\r\nidle\r\n:5\r\n$1\r\nn\r\n:7\r\n")
        out = encode(apply_masks(r, ["fields:idle", "range:0:10"]))
        self.assertEqual(out, b"*4\r\n$4\r\nidle\r\n:<MASKED>\r\n$1\r\nn\r\n:<IN-RANGE>\r\n")

    def test_column(self):
        r = parse_reply(b"*2\r\n*4\r\n$3\r\n1-1\r\n$1\r\nc\r\n:17\r\n:3\r\n"
                        b"*4\r\n$3\r\n1-2\r\n$1\r\nc\r\n:9\r\n:1\r\n")
        out = encode(apply_masks(r, ["column:2"]))
        self.assertEqual(out.count(b":<COL>"), 2)
        self.assertIn(b":3\r\n", out)
        self.assertIn(b":1\r\n", out)  # delivery counts stay exact
        with self.assertRaises(ScriptError):
            parse_script_text("!mask column:x\nPING\n")

    def test_regex_numbers_strings(self):
        self.assertEqual(self.masked(b"+idle=12 x\r\n", "regex:idle=\\d+"), b"+<RE> x\r\n")
        self.assertEqual(self.masked(b"+a1b22\r\n", "numbers"), b"+a<N>b<N>\r\n")
        self.assertEqual(self.masked(b"=7\r\ntxt:abc\r\n", "strings"), b"=9\r\ntxt:<STR>\r\n")


class _FakeServer:
    """A one-connection TCP server that answers from a list of canned byte strings."""

    def __init__(self, replies):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.replies = list(replies)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.sock.accept()
        with conn:
            for r in self.replies:
                if conn.recv(65536) == b"":
                    return
                if r is None:
                    return  # close
                conn.sendall(r)
            conn.recv(65536)


class RawClientTest(unittest.TestCase):
    def test_one_reply_at_a_time_then_close(self):
        srv = _FakeServer([b"+A\r\n+B\r\n$3\r\nab", None])
        with RawClient("127.0.0.1", srv.port, timeout=2) as c:
            c.send_command("X")
            self.assertEqual(c.read_raw(), b"+A\r\n")
            self.assertEqual(c.read_raw(), b"+B\r\n")
            c.send_command("Y")
            with self.assertRaises(ConnectionClosed):
                c.read_raw()

    def test_timeout(self):
        srv = _FakeServer([b"$5\r\nab"])
        with RawClient("127.0.0.1", srv.port, timeout=0.3) as c:
            c.send_command("X")
            with self.assertRaises(ReplyTimeout):
                c.read_raw()


@unittest.skipUnless(servers.redis_available(), "redis-server not installed")
class RunnerDetectsDifferencesTest(unittest.TestCase):
    """Two redis-servers that differ in one setting must make the runner report exactly the
    steps where they differ, and nothing else."""

    @classmethod
    def setUpClass(cls):
        cls.pair = ServerPair(selftest=True)
        cls.pair.a = servers.start_redis("--databases", "4")
        cls.pair.b = servers.start_redis()

    @classmethod
    def tearDownClass(cls):
        cls.pair.stop()

    def run_text(self, text, proto=2):
        script = parse_script_text(text, Path("inline.txt"))
        return ScriptRun(script, proto, self.pair).run()

    def test_identical_steps_pass(self):
        self.assertEqual(self.run_text("PING\nSELECT 3\n!mask fields:id\nHELLO 3\n"), [])

    def test_difference_is_reported_with_both_replies(self):
        problems = self.run_text("PING\nSELECT 5\nPING\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("inline.txt:2", problems[0])
        self.assertIn("DB index is out of range", problems[0])
        self.assertIn("+OK", problems[0])

    def test_nocompare_and_masks_hide_only_what_they_say(self):
        self.assertEqual(self.run_text("!nocompare\nSELECT 5\n"), [])
        problems = self.run_text("!mask strings\nSELECT 5\n")
        self.assertEqual(len(problems), 1, "a mask must not hide a type difference")

    def test_reply_counts(self):
        problems = self.run_text("!send\nPING\n")
        self.assertEqual(problems, [])  # a reply the script chose not to read yet is fine
        problems = self.run_text('!raw "PING\\r\\nPING\\r\\n"\n')
        self.assertEqual(problems, [])  # raw: the reply count is unknown
        old = differential.REPLY_TIMEOUT
        differential.REPLY_TIMEOUT = 0.3
        try:
            problems = self.run_text("!replies 2\nPING\n")
        finally:
            differential.REPLY_TIMEOUT = old
        self.assertTrue(any("timeout" in p for p in problems), problems)

    def test_blocking_steps(self):
        self.assertEqual(self.run_text(
            "!send\nXREAD BLOCK 0 STREAMS s $\n!noreply 1 50\n@2 XADD s 1-1 a b\n!read\n", 3), [])
        problems = self.run_text("!send\nPING\n!noreply 1 50\n")
        self.assertTrue(any("no reply was expected" in p for p in problems), problems)


class VersionsRowTest(unittest.TestCase):
    """The versions-row header lines and the golden file format (streamd_testlib/versions.py)."""

    ROW = ('# XREAD + reads the last entry\n!since 7.4.0\n!source https://x "a title"\n'
           'XADD s 1-1 a 1\n!differs\n!mask ids\nXREAD STREAMS s +\n')

    def test_header_and_differs(self):
        s = parse_script_text(self.ROW, Path("row.txt"))
        self.assertEqual((s.since, s.source), ("7.4.0", 'https://x "a title"'))
        self.assertEqual([st.differs for st in s.steps], [False, True])
        self.assertEqual(s.steps[1].masks, ["ids"])

    def test_differs_errors(self):
        for text in ("!differs\n!send\nPING\n", "!differs\n!nocompare\nPING\n", "!differs\n",
                     "PING\n!since 7.4.0\n", "!source\nPING\n"):
            with self.assertRaises(ScriptError, msg=text):
                parse_script_text(text)

    def test_golden_round_trip(self):
        import tempfile
        from streamd_testlib.differential import Outcome
        from streamd_testlib.versions import Reply1, read_golden, write_golden

        s = parse_script_text(self.ROW, Path("row.txt"))
        raws = [b"$3\r\n1-1\r\n", b"*1\r\n$4\r\n\"\\\x00\xff\r\n"]
        new = [Reply1(f"{st.lineno}.1", st, Outcome(raw=r, reply=parse_reply(r)))
               for st, r in zip(s.steps, raws)]
        old = [new[0], Reply1(new[1].key, s.steps[1], Outcome(event="closed"))]
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "row.golden"
            write_golden(path, ["header"], {2: (new, old)})
            g = read_golden(path)
        self.assertEqual(g.header, ["header"])
        self.assertEqual([o["new"].raw for o in g.replies[2].values()], raws)
        self.assertEqual(list(g.replies[2]["7.1"]), ["new", "old"])
        self.assertEqual(g.replies[2]["7.1"]["old"].event, "closed")
        self.assertNotIn("old", g.replies[2]["4.1"])  # 7.0.15's replies only where they differ

    def test_fuzz_matchers(self):
        from streamd_testlib.fuzz.matchers import explain, parse_matchers

        text = ("# d\n!since 7.4.0\n!source x\n!fuzz command ^XREAD .* \\+$\n"
                "!fuzz old -ERR x\\r\\n\n!fuzz new \\*.*\n!fuzz after continue\n"
                "!fuzz command ^XINFO CONSUMERS\n!fuzz drop-field inactive\n!differs\nPING\n")
        ms = parse_matchers(parse_script_text(text, Path("row.txt")))
        self.assertEqual([(m.after, m.drop) for m in ms], [("continue", set()),
                                                           ("stop", {b"inactive"})])
        err, arr = parse_reply(b"-ERR x\r\n"), parse_reply(b"*0\r\n")
        self.assertIs(explain(ms, [b"xread", b"STREAMS", b"s", b"+"], err, arr), ms[0])
        self.assertIsNone(explain(ms, [b"XREAD", b"STREAMS", b"s", b"0"], err, arr))
        self.assertIsNone(explain(ms, [b"XREAD", b"STREAMS", b"s", b"+"], arr, arr))
        old = parse_reply(b"*1\r\n*4\r\n$4\r\nname\r\n$1\r\nc\r\n$4\r\nidle\r\n:5\r\n")
        new = parse_reply(b"*1\r\n*6\r\n$4\r\nname\r\n$1\r\nc\r\n$4\r\nidle\r\n:7\r\n"
                          b"$8\r\ninactive\r\n:-1\r\n")
        self.assertIs(explain(ms, [b"XINFO", b"CONSUMERS", b"s", b"g"], old, new), ms[1])
        self.assertIsNone(explain(ms, [b"XINFO", b"CONSUMERS", b"s", b"g"], new, old))
        for bad in ("!fuzz old x\n", "!fuzz command x\n", "!fuzz command x\n!fuzz after maybe\n",
                    "!fuzz command (\n!fuzz drop-field a\n"):
            with self.assertRaises(ScriptError, msg=bad):
                parse_matchers(parse_script_text(bad + "PING\n", Path("row.txt")))

    def test_fuzz_subset_and_mask_field(self):
        from streamd_testlib.fuzz.matchers import explain, parse_lines

        ms = parse_lines(["command ^XINFO CONSUMERS", "subset", "command ^XINFO GROUPS",
                          "mask-field consumers"], "row", "row.txt")
        c1 = b"*6\r\n$4\r\nname\r\n$2\r\nc1\r\n$4\r\nidle\r\n:1\r\n$7\r\npending\r\n:0\r\n"
        c2 = c1.replace(b"c1", b"c2")
        two, one = parse_reply(b"*2\r\n" + c1 + c2), parse_reply(b"*1\r\n" + c2)
        cons = [b"XINFO", b"CONSUMERS", b"s", b"g"]
        self.assertIs(explain(ms, cons, one, two), ms[0])
        self.assertIs(explain(ms, cons, parse_reply(b"*0\r\n"), two), ms[0])
        self.assertIsNone(explain(ms, cons, two, one))  # 7.0.15 knowing more is no subset
        other = parse_reply(b"*1\r\n" + c2.replace(b":0", b":3"))
        self.assertIsNone(explain(ms, cons, other, two))
        g = b"*1\r\n*4\r\n$4\r\nname\r\n$1\r\ng\r\n$9\r\nconsumers\r\n:%d\r\n"
        grp = [b"XINFO", b"GROUPS", b"s"]
        self.assertIs(explain(ms, grp, parse_reply(g % 0), parse_reply(g % 2)), ms[1])
        self.assertIsNone(explain(ms, grp, parse_reply(g % 0),
                                  parse_reply((g % 2).replace(b"$1\r\ng", b"$1\r\nh"))))

    def test_fuzz_composition_and_after_command(self):
        from streamd_testlib.differential import Outcome
        from streamd_testlib.fuzz.matchers import explain_all, parse_lines
        from streamd_testlib.fuzz.run import compare

        ms = parse_lines(["command ^XINFO CONSUMERS", "drop-field inactive", "after continue",
                          "command ^XINFO CONSUMERS", "subset", "after-command ^XREADGROUP"],
                         "row", "row.txt")
        c = b"*4\r\n$4\r\nname\r\n$1\r\nc\r\n$8\r\ninactive\r\n:-1\r\n"
        old = parse_reply(b"*1\r\n*2\r\n$4\r\nname\r\n$1\r\nc\r\n")
        new = parse_reply(b"*2\r\n" + c + c.replace(b"$1\r\nc", b"$1\r\nd"))
        cons = [b"XINFO", b"CONSUMERS", b"s", b"g"]
        self.assertIsNone(explain_all(ms[:1], cons, old, new))
        self.assertEqual(explain_all(ms, cons, old, new), ms)  # neither alone, both together

        def o(raw):
            return Outcome(raw=raw, reply=parse_reply(raw))

        ok, nil = o(b"+OK\r\n"), o(b"*-1\r\n")
        # the subset matcher waits for its cause: before any XREADGROUP it explains nothing
        res = compare([cons], [o(encode(new))], [o(encode(old))], ms)
        self.assertIsNotNone(res.difference)
        res = compare([[b"XREADGROUP", b"GROUP", b"g", b"c", b"STREAMS", b"s", b">"], cons],
                      [nil, o(encode(new))], [nil, o(encode(old))], ms)
        self.assertIsNone(res.difference)
        self.assertEqual(res.stopped_at, 1)
        res = compare([[b"SET", b"k", b"v"], cons], [ok, o(encode(new))], [ok, o(encode(old))], ms)
        self.assertIsNotNone(res.difference)

    def test_every_row_is_a_row(self):
        from streamd_testlib.fuzz.matchers import parse_matchers
        from streamd_testlib.versions import load_row, row_paths

        for path in row_paths():
            parse_matchers(load_row(path))


class FuzzLibraryTest(unittest.TestCase):
    """The stream fuzzer's pure parts: generation, normalisation, quoting, shrinking."""

    def test_generation_is_a_function_of_the_seed(self):
        from streamd_testlib.fuzz.gen import Generator

        a, b = Generator(7).sequence(200), Generator(7).sequence(200)
        self.assertEqual(a, b)
        self.assertNotEqual(a, Generator(8).sequence(200))
        names = {argv[0].upper() for argv in Generator(1).sequence(3000)}
        for cmd in (b"XADD", b"XTRIM", b"XDEL", b"XLEN", b"XRANGE", b"XREVRANGE", b"XREAD",
                    b"XREADGROUP", b"XGROUP", b"XACK", b"XPENDING", b"XCLAIM", b"XAUTOCLAIM",
                    b"XINFO", b"XSETID", b"DEL", b"EXISTS", b"TYPE", b"SET"):
            self.assertIn(cmd, names)

    def test_no_block_can_wait_long(self):
        from streamd_testlib.fuzz.gen import Generator

        for argv in Generator(3).sequence(5000):
            if b"BLOCK" in argv:
                t = argv[argv.index(b"BLOCK") + 1] if argv.index(b"BLOCK") + 1 < len(argv) else b""
                self.assertFalse(t.isdigit() and not 0 < int(t) <= 3, argv)

    def test_normalise_times_and_generated_ids(self):
        from streamd_testlib.fuzz.normalise import normalise

        cons = parse_reply(b"*1\r\n*6\r\n$4\r\nidle\r\n:5\r\n$8\r\ninactive\r\n:-1\r\n"
                           b"$7\r\npending\r\n:2\r\n")
        out = encode(normalise([b"XINFO", b"CONSUMERS", b"s", b"g"], cons))
        self.assertIn(b":<T>", out)
        self.assertIn(b":-1", out)  # never active stays visible
        self.assertIn(b":2", out)
        pend = parse_reply(b"*1\r\n*4\r\n$3\r\n1-1\r\n$1\r\nc\r\n:17\r\n:3\r\n")
        out = encode(normalise([b"XPENDING", b"s", b"g", b"-", b"+", b"5"], pend))
        self.assertEqual(out, b"*1\r\n*4\r\n$3\r\n1-1\r\n$1\r\nc\r\n:<T>\r\n:3\r\n")
        gen = parse_reply(b"*2\r\n$15\r\n1796154668904-3\r\n$4\r\n12-0\r\n")
        self.assertEqual(encode(normalise([b"XRANGE"], gen, True)),
                         b"*2\r\n$5\r\n<GEN>\r\n$4\r\n12-0\r\n")
        self.assertEqual(encode(normalise([b"XRANGE"], gen, False)), encode(gen))

    def test_quote_and_render_round_trip(self):
        from streamd_testlib.fuzz.shrink import quote_arg, render_script

        args = [b"XADD", b"s", b"", b"a b", b"c\x00x", b'"', b"\\", b"'", b"1-*"]
        self.assertEqual(split_args(" ".join(quote_arg(a) for a in args)), args)
        text = render_script([[b"XADD", b"s", b"*", b"a", b"1"],
                              [b"XINFO", b"CONSUMERS", b"s", b"g"]], "title", (3,))
        sc = parse_script_text(text)
        self.assertEqual(sc.protocols, (3,))
        self.assertEqual(sc.steps[1].masks, ["ids", "fields:idle,inactive"])

    def test_ddmin_finds_the_two_commands_that_matter(self):
        from streamd_testlib.fuzz import shrink as shrink_mod
        from streamd_testlib.fuzz.run import Difference, Result

        cmds = [[b"SET", b"k%d" % i] for i in range(40)]
        cmds[7], cmds[30] = [b"XADD", b"s"], [b"XLEN", b"s"]

        def fake_run(candidate, *args):
            # "fails" when XADD comes before XLEN: the difference is at the XLEN
            if [b"XADD", b"s"] in candidate and [b"XLEN", b"s"] in candidate:
                i = candidate.index([b"XLEN", b"s"])
                if candidate.index([b"XADD", b"s"]) < i:
                    return Result(difference=Difference(i, candidate[i], None, None))
            return Result()

        real = shrink_mod.run_sequence
        shrink_mod.run_sequence = fake_run
        try:
            small = shrink_mod.shrink(cmds, 30, None, None, 2, [])
        finally:
            shrink_mod.run_sequence = real
        self.assertEqual(small, [[b"XADD", b"s"], [b"XLEN", b"s"]])

    def test_xfail_file_parses(self):
        from streamd_testlib.fuzz.matchers import load_xfail

        for entry in load_xfail():
            self.assertTrue(entry.reason and entry.matchers, entry.name)


if __name__ == "__main__":
    runner.main()
