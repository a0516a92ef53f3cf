"""Seeded random command sequences over the stream commands both streamd and 7.0.15 know.

A sequence is a list of argv lists (bytes). `Generator(seed).sequence(n)` is a pure function of
the seed: the same seed gives the same commands, so a CI seed is a fixed test.

What makes the sequences comparable between two correct servers:
  - a few keys (three streams, one string, one that is never created) and small explicit IDs
    (ms 0..15, seq 0..3), so most replies are exact; `*` is rare, and nothing ever names an ID
    it generated (normalise.py maps generated IDs to placeholders);
  - idle thresholds (XPENDING IDLE, XCLAIM / XAUTOCLAIM min-idle-time) are 0, 10^11 or 10^13,
    and XCLAIM's IDLE / TIME put entries either near now or >= 10^12 ms back, so which entries
    qualify never depends on how long a sequence takes;
  - BLOCK timeouts are 1..3 ms (the only client never feeds a blocked read, so it always times
    out the same way) or invalid; never 0 or a long valid timeout.
Malformed arguments (missing, unknown options, bad and huge numbers, every ID form) come from
the same vocabularies with a small probability, so validation order is exercised too.
"""

from __future__ import annotations

import random

STREAMS = ["s1", "s2", "s3"]
STRING_KEY = "str"
MISSING = "nokey"
GROUPS = ["g1", "g2"]
CONSUMERS = ["c1", "c2", "c3"]
FIELDS = ["a", "b", "c"]

BAD_NUMBERS = ["-1", "abc", "", "1.5", "9223372036854775807", "9223372036854775808",
               "-9223372036854775808", "99999999999999999999", "0x10", " 1", "+1", "-0"]
ODD_IDS = ["-", "+", "$", ">", "0", "0-0", "*", "1-*", "5-*", "0-*", "18446744073709551615",
           "18446744073709551616", "18446744073709551615-18446744073709551615",
           "18446744073709551615-*", "1-18446744073709551615", "1-18446744073709551616", "-1",
           "-1-1", "1-", "-1-", "abc", "", "1-abc", "00003-0001", "3-", "(", "(-", "(+", "(0",
           "(3-1", "(18446744073709551615-18446744073709551615", "((3", "+1", "1-+1", " 1"]


class Generator:
    """The generator keeps a rough model of what its own commands probably did (IDs added per
    key, groups created), only to aim later commands at things that exist: most XADDs use an
    ID above the key's last one, most group commands name a (key, group) that was created,
    XACK/XCLAIM/XDEL often name added IDs. The model is never used to predict a reply."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.added: dict[str, list[tuple[int, int]]] = {}
        self.groups: list[tuple[str, str]] = []

    # -- vocabularies ----------------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def key(self) -> str:
        x = self.r.random()
        if x < 0.80:
            return self.pick(STREAMS[:2]) if x < 0.65 else STREAMS[2]
        return STRING_KEY if x < 0.90 else MISSING

    def group(self) -> str:
        return self.pick(GROUPS) if self.chance(0.93) else "nogroup"

    def consumer(self) -> str:
        return self.pick(CONSUMERS) if self.chance(0.95) else self.pick(["", "c\x00x", "c" * 40])

    def ms(self) -> int:
        return self.r.randint(0, 15)

    def exact_id(self, key: str | None = None) -> str:
        known = self.added.get(key) if key else None
        if known and self.chance(0.5):
            ms, seq = self.pick(known)
            return f"{ms}-{seq}"
        if self.chance(0.15):
            return str(self.ms())
        return f"{self.ms()}-{self.r.randint(0, 3)}"

    def any_id(self, p_odd: float = 0.1, key: str | None = None) -> str:
        return self.pick(ODD_IDS) if self.chance(p_odd) else self.exact_id(key)

    def next_id(self, key: str) -> str:
        """An ID above the last one this generator added to `key` (usually accepted)."""
        known = self.added.setdefault(key, [])
        ms, seq = known[-1] if known else (0, 0)
        if self.chance(0.6):
            ms += self.r.randint(1, 3)
            seq = self.r.randint(0, 2)
        else:
            seq += self.r.randint(1, 2)
        known.append((ms, seq))
        return f"{ms}-{seq}"

    def group_target(self) -> tuple[str, str]:
        """(key, group) for a command that needs a group: usually one that was created."""
        if self.groups and self.chance(0.85):
            return self.pick(self.groups)
        return self.key(), self.group()

    def range_bound(self, low: bool) -> str:
        x = self.r.random()
        if x < 0.25:
            return "-" if low else "+"
        if x < 0.45:
            return "(" + self.exact_id()
        if x < 0.85:
            return self.exact_id()
        return self.pick(ODD_IDS)

    def count(self) -> str:
        if self.chance(0.12):
            return self.pick(BAD_NUMBERS)
        return str(self.pick([0, 1, 1, 2, 2, 3, 5, 10, 100]))

    def threshold_maxlen(self) -> str:
        return self.pick(BAD_NUMBERS) if self.chance(0.12) else str(self.r.randint(0, 12))

    def idle_threshold(self) -> str:
        if self.chance(0.06):
            return self.pick(BAD_NUMBERS)
        return self.pick(["0", "0", "100000000000", "10000000000000"])

    def block_ms(self) -> str:
        return self.pick(["1", "2", "3"]) if self.chance(0.8) else self.pick(
            ["-1", "abc", "99999999999999999999", "1.5", ""])

    def fields(self) -> list[str]:
        out = []
        for _ in range(self.pick([1, 1, 1, 2, 3])):
            out += [self.pick(FIELDS), self.pick(["1", "2", "v", "", "x" * 20])]
        if self.chance(0.04):
            out = out[:-1]  # odd number of field/value arguments
        return out

    def trim_spec(self) -> list[str]:
        """MAXLEN|MINID [=|~] threshold [LIMIT count], sometimes malformed."""
        out = [self.pick(["MAXLEN", "MINID", "maxlen", "minid"])]
        approx = None
        if self.chance(0.5):
            approx = self.pick(["=", "~"])
            out.append(approx)
        out.append(self.threshold_maxlen() if out[0].upper() == "MAXLEN" else self.any_id(0.15))
        if self.chance(0.3):
            if approx != "~" and self.chance(0.7):
                out.insert(1, "~") if approx is None else out.__setitem__(1, "~")
            out += ["LIMIT", self.count()]
        if self.chance(0.05):
            out += [self.pick(["MAXLEN", "MINID"]), "1"]  # both strategies
        return out

    # -- commands --------------------------------------------------------------------------

    def xadd(self) -> list[str]:
        out = ["XADD", self.key()]
        if self.chance(0.15):
            out.append("NOMKSTREAM")
        if self.chance(0.25):
            out += self.trim_spec()
        x = self.r.random()
        if x < 0.03:
            out.append("*")
        elif x < 0.10:
            out.append(f"{self.ms()}-*")
        elif x < 0.70:
            out.append(self.next_id(out[1]))
        elif x < 0.92:
            out.append(self.exact_id())
        else:
            out.append(self.pick(ODD_IDS))
        return out + self.fields()

    def xtrim(self) -> list[str]:
        return ["XTRIM", self.key()] + (self.trim_spec() if self.chance(0.95) else [])

    def xdel(self) -> list[str]:
        key = self.key()
        return ["XDEL", key] + [self.any_id(0.08, key) for _ in range(self.pick([1, 1, 2, 3, 0]))]

    def xlen(self) -> list[str]:
        return ["XLEN", self.key()] + (["extra"] if self.chance(0.03) else [])

    def xrange(self) -> list[str]:
        rev = self.chance(0.35)
        lo, hi = self.range_bound(True), self.range_bound(False)
        out = ["XREVRANGE" if rev else "XRANGE", self.key()] + ([hi, lo] if rev else [lo, hi])
        if self.chance(0.35):
            out += ["COUNT", self.count()]
        if self.chance(0.04):
            out.append(self.pick(["COUNT", "LIMIT", "x"]))
        return out

    def _streams_part(self, group: bool, first: str | None = None) -> list[str]:
        keys = [first or self.key()] + [self.key() for _ in range(self.pick([0, 0, 0, 1]))]
        if group:
            ids = [">" if self.chance(0.6) else self.any_id(0.08) for _ in keys]
        else:
            ids = [self.pick(["$", "+", "0"]) if self.chance(0.3) else self.any_id(0.08)
                   for _ in keys]
        if self.chance(0.04):
            ids = ids[:-1]  # unbalanced
        return ["STREAMS"] + keys + ids

    def xread(self) -> list[str]:
        out = ["XREAD"]
        if self.chance(0.4):
            out += ["COUNT", self.count()]
        if self.chance(0.08):
            out += ["BLOCK", self.block_ms()]
        return out + self._streams_part(False)

    def xreadgroup(self) -> list[str]:
        key, group = self.group_target()
        out = ["XREADGROUP", "GROUP", group, self.consumer()]
        if self.chance(0.03):
            out = ["XREADGROUP", "GROUP", self.group()]
        if self.chance(0.4):
            out += ["COUNT", self.count()]
        if self.chance(0.06):
            out += ["BLOCK", self.block_ms()]
        if self.chance(0.2):
            out.append("NOACK")
        return out + self._streams_part(True, key)

    def xgroup(self) -> list[str]:
        sub = self.pick(["CREATE"] * 5 + ["SETID"] * 2 + ["DESTROY", "CREATECONSUMER",
                                                         "CREATECONSUMER", "DELCONSUMER", "HELP"])
        if sub == "HELP":
            return ["XGROUP", "HELP"] + (["x"] if self.chance(0.2) else [])
        key, group = (self.key(), self.group()) if sub == "CREATE" else self.group_target()
        out = ["XGROUP", sub, key, group]
        if sub == "CREATE" and (key, group) not in self.groups:
            self.groups.append((key, group))
        if sub in ("CREATE", "SETID"):
            out.append(self.pick(["$", "0", "$", "-", "+"]) if self.chance(0.4)
                       else self.any_id(0.15))
            if sub == "CREATE" and self.chance(0.6):
                out.append("MKSTREAM")
            if self.chance(0.25):
                out += ["ENTRIESREAD", self.pick(["0", "1", "2", "5", "-1", "-2", "100"])
                        if self.chance(0.85) else self.pick(BAD_NUMBERS)]
        elif sub in ("CREATECONSUMER", "DELCONSUMER"):
            out.append(self.consumer())
        if self.chance(0.04):
            out = out[:-1] if self.chance(0.5) else out + ["extra"]
        return out

    def xack(self) -> list[str]:
        key, group = self.group_target()
        return ["XACK", key, group] + [
            self.any_id(0.08, key) for _ in range(self.pick([1, 1, 2, 3, 0]))]

    def xpending(self) -> list[str]:
        out = ["XPENDING", *self.group_target()]
        if self.chance(0.6):
            if self.chance(0.3):
                out += ["IDLE", self.idle_threshold()]
            out += [self.range_bound(True), self.range_bound(False), self.count()]
            if self.chance(0.4):
                out.append(self.consumer())
        if self.chance(0.04):
            out.append("extra")
        return out

    def xclaim(self) -> list[str]:
        key, group = self.group_target()
        out = ["XCLAIM", key, group, self.consumer(), self.idle_threshold()]
        out += [self.any_id(0.08, key) for _ in range(self.pick([1, 1, 2, 3]))]
        for _ in range(self.pick([0, 0, 1, 2, 3])):
            opt = self.pick(["IDLE", "TIME", "RETRYCOUNT", "FORCE", "JUSTID", "LASTID", "BOGUS"])
            if opt == "IDLE":
                out += ["IDLE", self.pick(["0", "3", "1000000000000", "-5"])
                        if self.chance(0.85) else self.pick(BAD_NUMBERS)]
            elif opt == "TIME":
                out += ["TIME", self.pick(["0", "1", "100000000000000", "-3"])
                        if self.chance(0.85) else self.pick(BAD_NUMBERS)]
            elif opt == "RETRYCOUNT":
                out += ["RETRYCOUNT", self.count()]
            elif opt == "LASTID":
                out += ["LASTID", self.any_id(0.15)]
            else:
                out.append(opt)
        return out

    def xautoclaim(self) -> list[str]:
        out = ["XAUTOCLAIM", *self.group_target(), self.consumer(), self.idle_threshold(),
               self.range_bound(True) if self.chance(0.85) else self.pick(ODD_IDS)]
        if self.chance(0.4):
            out += ["COUNT", self.count()]
        if self.chance(0.3):
            out.append("JUSTID")
        if self.chance(0.04):
            out.append(self.pick(["COUNT", "BOGUS"]))
        return out

    def xinfo(self) -> list[str]:
        sub = self.pick(["STREAM"] * 4 + ["GROUPS"] * 2 + ["CONSUMERS"] * 2 + ["HELP"])
        if sub == "HELP":
            return ["XINFO", "HELP"]
        if sub == "STREAM":
            out = ["XINFO", "STREAM", self.key()]
            if self.chance(0.45):
                out.append("FULL")
                if self.chance(0.4):
                    out += ["COUNT", self.count()]
            if self.chance(0.05):
                out.append(self.pick(["FOO", "COUNT"]))
            return out
        if sub == "CONSUMERS":
            return ["XINFO", sub, *self.group_target()]
        return ["XINFO", sub, self.key()]

    def xsetid(self) -> list[str]:
        out = ["XSETID", self.key(), self.any_id(0.2)]
        if self.chance(0.35):
            out += ["ENTRIESADDED", self.pick(["0", "1", "3", "10", "100", "-1"])
                    if self.chance(0.85) else self.pick(BAD_NUMBERS)]
        if self.chance(0.35):
            out += ["MAXDELETEDID", self.any_id(0.2)]
        return out

    def keyspace(self) -> list[str]:
        op = self.pick(["DEL", "EXISTS", "TYPE", "SET", "SET"])
        if op == "SET":
            return ["SET", self.pick([STRING_KEY, STRING_KEY, STRING_KEY, "s3"]), "v"]
        if op == "DEL":
            return ["DEL", self.pick(STREAMS + [STRING_KEY, MISSING])]
        return [op] + [self.key() for _ in range(1 if op == "TYPE" else self.pick([1, 2]))]

    WEIGHTS = [("xadd", 24), ("xtrim", 4), ("xdel", 5), ("xlen", 2), ("xrange", 7), ("xread", 5),
               ("xreadgroup", 9), ("xgroup", 10), ("xack", 5), ("xpending", 6), ("xclaim", 6),
               ("xautoclaim", 4), ("xinfo", 7), ("xsetid", 3), ("keyspace", 3)]

    def command(self) -> list[bytes]:
        names, weights = zip(*self.WEIGHTS)
        argv = getattr(self, self.r.choices(names, weights)[0])()
        if self.chance(0.02) and len(argv) > 1:
            argv = argv[: self.r.randint(1, len(argv) - 1)]  # truncated: arity errors
        return [a.encode("latin-1") for a in argv]

    def setup(self) -> list[list[str]]:
        """A valid start (entries, then groups on them) so that most sequences exercise the
        group commands on groups that exist, not only their NOGROUP errors."""
        out = []
        for key in self.r.sample(STREAMS[:2], self.r.randint(1, 2)):
            out += [["XADD", key, self.next_id(key)] + self.fields()[:2]
                    for _ in range(self.r.randint(1, 4))]
            for group in self.r.sample(GROUPS, self.r.randint(0, 2)):
                out.append(["XGROUP", "CREATE", key, group, self.pick(["0", "0", "$", "-"])])
                self.groups.append((key, group))
        return out

    def sequence(self, n: int) -> list[list[bytes]]:
        head = self.setup() if self.chance(0.85) else []
        head = [[a.encode("latin-1") for a in argv] for argv in head[:n]]
        return head + [self.command() for _ in range(n - len(head))]
