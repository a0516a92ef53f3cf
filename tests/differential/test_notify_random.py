"""Keyspace notifications on seeded random command sequences: streamd and Debian's
redis-server 7.0.15 (both with notify-keyspace-events KEAnm) run the same commands, and a
PSUBSCRIBE '__key*__:*' subscriber on each must see the same messages, in the same order, after
every command (channels, event names, keys, databases).

The commands are the string, generic and stream commands whose events 7.0.15 and newest Redis
agree on (consumer creation by empty XREADGROUP/XCLAIM attempts changed in 7.2 and is left to
versions/notify_createconsumer_empty_read.txt), over four keys, two databases, with MULTI/EXEC;
no TTL short enough for the expiry cycles of the two servers to race. A mismatch prints the seed
and the commands so far, which replay as a differential script.

Skips (exit 0, SKIPPED line) when the streamd binary or redis-server is missing.
"""

import random
import unittest

from streamd_testlib import runner, servers

SEEDS = range(1, 7)
COMMANDS_PER_SEED = 400

needs_both = unittest.skipUnless(servers.streamd_available() and servers.redis_available(),
                                 "streamd binary or redis-server not found")


def generate(rng):
    k, k2 = rng.choice("abst"), rng.choice("abst")

    def sid():
        return f"{rng.randint(0, 5)}-{rng.randint(0, 3)}"

    return rng.choice([
        ["SET", k, str(rng.randint(0, 9))], ["SET", k, "v", "PX", "100000"], ["SETNX", k, "x"],
        ["SET", k, "v", "XX", "KEEPTTL"], ["SET", k, "v", "NX", "GET"],
        ["GETSET", k, "1"], ["GETDEL", k], ["GETEX", k, "PERSIST"], ["GETEX", k, "EX", "100"],
        ["GETEX", k, "PXAT", "1"], ["SETEX", k, "100", "v"],
        ["MSET", k, "1", k2, "2"], ["MSETNX", k, "1", k2, "2"], ["APPEND", k, "z"], ["INCR", k],
        ["DECRBY", k, "2"], ["INCRBYFLOAT", k, "0.5"], ["GET", k], ["MGET", k, k2], ["STRLEN", k],
        ["DEL", k, k2], ["UNLINK", k], ["EXPIRE", k, rng.choice(["-1", "100"])],
        ["EXPIRE", k, "50", rng.choice(["NX", "XX", "GT", "LT"])], ["PERSIST", k],
        ["RENAME", k, k2], ["RENAMENX", k, k2], ["COPY", k, k2], ["COPY", k, k2, "REPLACE"],
        ["COPY", k, k2, "DB", "1"], ["MOVE", k, "1"], ["TYPE", k], ["TTL", k], ["EXISTS", k, k2],
        ["TOUCH", k], ["OBJECT", "ENCODING", k], ["SELECT", rng.choice(["0", "1"])],
        ["XADD", k, sid(), "f", "v"], ["XADD", k, "*", "f", "v"],
        ["XADD", k, "MAXLEN", str(rng.randint(0, 3)), "*", "f", "v"],
        ["XADD", k, "NOMKSTREAM", "*", "f", "v"], ["XTRIM", k, "MAXLEN", str(rng.randint(0, 3))],
        ["XTRIM", k, "MINID", sid()], ["XDEL", k, sid(), sid()], ["XLEN", k],
        ["XRANGE", k, "-", "+"], ["XREVRANGE", k, "+", "-", "COUNT", "1"],
        ["XREAD", "STREAMS", k, k2, "0", "0"], ["XSETID", k, f"{rng.randint(5, 9)}-0"],
        ["XGROUP", "CREATE", k, "g", rng.choice(["0", "$"])],
        ["XGROUP", "CREATE", k, "g", "0", "MKSTREAM"], ["XGROUP", "DESTROY", k, "g"],
        ["XGROUP", "SETID", k, "g", "0"], ["XGROUP", "CREATECONSUMER", k, "g", "c1"],
        ["XGROUP", "DELCONSUMER", k, "g", "c1"], ["XACK", k, "g", sid()], ["XPENDING", k, "g"],
        ["XINFO", "STREAM", k], ["MULTI"], ["EXEC"],
        # Group reads and claims by a consumer that exists (the group's events, its PEL):
        # the step is the pair of commands.
        [["XGROUP", "CREATECONSUMER", k, "g", "c1"],
         rng.choice([["XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", k, ">"],
                     ["XREADGROUP", "GROUP", "g", "c1", "STREAMS", k, "0"],
                     ["XREADGROUP", "GROUP", "g", "c1", "NOACK", "STREAMS", k, ">"],
                     ["XCLAIM", k, "g", "c1", "0", sid(), sid()],
                     ["XAUTOCLAIM", k, "g", "c1", "0", "0", "COUNT", "2"]])],
    ])


class Side:
    def __init__(self, server):
        self.cmd = server.redis_py()
        self.sub = server.redis_py().pubsub()
        self.sub.psubscribe("__key*__:*")
        self.sub.subscribe("done")
        for kind in ("psubscribe", "subscribe"):
            assert self.sub.get_message(timeout=5)["type"] == kind

    def run(self, argv):
        try:
            return repr(self.cmd.execute_command(*argv))
        except Exception as e:  # error replies are compared by the other suites
            return f"error {type(e).__name__}"

    def messages(self):
        """Everything published since the last call: a PUBLISH to `done` marks the end (messages
        reach a subscriber in publishing order)."""
        self.cmd.publish("done", "")
        got = []
        while True:
            m = self.sub.get_message(timeout=5)
            assert m is not None, f"no end marker after {got!r}"
            if m["channel"] == b"done":
                return got
            got.append((m["channel"], m["data"]))

    def close(self):
        self.sub.close()
        self.cmd.close()


@needs_both
class NotifyRandomTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        args = ("--notify-keyspace-events", "KEAnm")
        cls.servers = [servers.start_redis(*args), servers.start_streamd("--appendonly", "no", *args)]

    @classmethod
    def tearDownClass(cls):
        for s in cls.servers:
            s.cleanup()

    def test_same_events_as_redis(self):
        for seed in SEEDS:
            with self.subTest(seed=seed):
                self.run_seed(seed)

    def run_seed(self, seed):
        rng = random.Random(seed)
        sides = [Side(s) for s in self.servers]
        try:
            for side in sides:
                side.run(["FLUSHALL"])
                side.messages()
            history, in_multi = [], False
            for _ in range(COMMANDS_PER_SEED):
                argv = generate(rng)
                if (argv == ["MULTI"]) == in_multi and argv[0] in ("MULTI", "EXEC"):
                    continue  # no nested MULTI, no EXEC without one
                step = argv if isinstance(argv[0], list) else [argv]
                for one in step:
                    history.append(" ".join(one))
                    for side in sides:
                        side.run(one)
                in_multi = argv == ["MULTI"] or (in_multi and argv != ["EXEC"])
                if in_multi:
                    continue
                redis_msgs, streamd_msgs = [side.messages() for side in sides]
                self.assertEqual(
                    streamd_msgs, redis_msgs,
                    f"seed {seed}: events differ after `{history[-1]}`; commands so far:\n  "
                    + "\n  ".join(history))
        finally:
            for side in sides:
                side.close()


if __name__ == "__main__":
    runner.main()
