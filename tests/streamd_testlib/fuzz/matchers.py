"""Fuzzer matchers of versions rows: the only differences the fuzzer may skip.

A row (tests/differential/versions/NAME.txt) explains fuzzer differences with `!fuzz` header
lines; each `!fuzz command` starts a new matcher, the lines after it refine it:

  !fuzz command REGEX     the step's command line (arguments joined by single spaces, the
                          command name upper-cased) must contain a match (re.search)
  !fuzz old REGEX         redis-server 7.0.15's raw reply must match it completely
  !fuzz new REGEX         streamd's raw reply must match it completely
  !fuzz drop-field NAME   streamd's reply without field NAME (maps, flat key/value arrays, any
                          depth; repeatable) must equal 7.0.15's after normalisation
  !fuzz mask-field NAME   the value of field NAME is ignored on both sides (repeatable), the
                          rest must be equal after normalisation (a count that differs because
                          of state, e.g. `consumers` in XINFO GROUPS)
  !fuzz subset            7.0.15's reply must be streamd's with some elements of its arrays
                          left out (any depth; scalars equal after normalisation): streamd
                          knows things 7.0.15 does not create, e.g. consumers
  !fuzz after stop|continue
                          stop (the default): the two servers may now hold different state,
                          nothing after this step is compared; continue: the step changed
                          nothing (a read), the sequence goes on being compared

Raw replies are matched as latin-1 text with re.DOTALL, so `\\r\\n` in a pattern is CRLF.
drop-field and mask-field apply first, then subset or equality. A matcher needs `old` and
`new`, or at least one of drop-field, mask-field, subset. test_versions.py checks that a
row's matchers explain the row's own `!differs` steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..resp import Reply, encode
from ..script import Script, ScriptError
from .normalise import drop_fields, normalise


@dataclass
class Matcher:
    row: str
    command: re.Pattern
    old: re.Pattern | None = None
    new: re.Pattern | None = None
    drop: set[bytes] = field(default_factory=set)
    mask: set[bytes] = field(default_factory=set)
    subset: bool = False
    after: str = "stop"

    def explains(self, argv: list[bytes], old: Reply, new: Reply, gen: bool = False) -> bool:
        """Does this matcher explain 7.0.15 answering `old` and streamd `new` to `argv`?
        gen: the sequence has generated IDs (normalise.py)."""
        if not self.command.search(command_line(argv)):
            return False
        if self.old is not None and not self.old.fullmatch(encode(old).decode("latin-1")):
            return False
        if self.new is not None and not self.new.fullmatch(encode(new).decode("latin-1")):
            return False
        if not (self.drop or self.mask or self.subset):
            return True
        o = normalise(argv, mask_fields(old, self.mask), gen)
        n = normalise(argv, mask_fields(drop_fields(new, self.drop), self.mask), gen)
        return is_subset(o, n) if self.subset else encode(o) == encode(n)


def mask_fields(reply: Reply, names: set[bytes]) -> Reply:
    if not names:
        return reply
    from ..masks import apply_masks

    return apply_masks(reply, ["fields:" + ",".join(sorted(n.decode("latin-1") for n in names))])


def is_subset(old: Reply, new: Reply) -> bool:
    """old is new with array elements left out (greedy, in order, at any depth)."""
    if old.items is None or new.items is None or old.kind != new.kind:
        return encode(old) == encode(new)
    if old.kind in ("%", "|", "~") or (old.kind == "*" and len(old.items) == len(new.items)):
        # maps and same-length arrays: element by element
        return len(old.items) == len(new.items) and all(
            is_subset(a, b) for a, b in zip(old.items, new.items))
    j = 0
    for a in old.items:
        while j < len(new.items) and not is_subset(a, new.items[j]):
            j += 1
        if j == len(new.items):
            return False
        j += 1
    return True


def command_line(argv: list[bytes]) -> str:
    words = [a.decode("latin-1") for a in argv]
    if words:
        words[0] = words[0].upper()
    return " ".join(words)


def parse_matchers(script: Script) -> list[Matcher]:
    return parse_lines(script.fuzz, script.name, script.path.name)


def parse_lines(lines: list[str], name: str, where: str) -> list[Matcher]:
    """Matchers from `!fuzz` lines without their `!fuzz ` prefix."""
    out: list[Matcher] = []
    for line in lines:
        key, _, value = line.partition(" ")
        value = value.strip()
        try:
            pattern = re.compile(value, re.DOTALL) if key in ("command", "old", "new") else None
        except re.error as e:
            raise ScriptError(f"{where}: bad regex in !fuzz {key}: {e}") from None
        if key == "command":
            out.append(Matcher(name, pattern))
            continue
        if not out:
            raise ScriptError(f"{where}: !fuzz {key} before any !fuzz command")
        m = out[-1]
        if key in ("old", "new"):
            setattr(m, key, pattern)
        elif key == "drop-field" and value:
            m.drop.add(value.encode())
        elif key == "mask-field" and value:
            m.mask.add(value.encode())
        elif key == "subset" and not value:
            m.subset = True
        elif key == "after" and value in ("stop", "continue"):
            m.after = value
        else:
            raise ScriptError(f"{where}: unknown !fuzz line {line!r} (command, old, new, "
                              "drop-field, mask-field, subset, after stop|continue)")
    for m in out:
        if not (m.drop or m.mask or m.subset) and (m.old is None or m.new is None):
            raise ScriptError(f"{where}: a !fuzz matcher needs old and new, or drop-field, "
                              "mask-field or subset")
    return out


def load_all() -> list[Matcher]:
    """Every versions row's matchers."""
    from ..versions import load_row, row_paths

    return [m for p in row_paths() for m in parse_matchers(load_row(p))]


XFAIL_PATH = Path(__file__).resolve().parents[2] / "differential" / "fuzz_xfail.txt"


@dataclass
class XfailEntry:
    name: str
    reason: str
    matchers: list[Matcher]


def load_xfail(path: Path = XFAIL_PATH) -> list[XfailEntry]:
    """Known differences without a versions row (fuzz_xfail.txt): blocks of `NAME: reason`
    followed by `!fuzz` lines, separated by blank lines; `#` lines are comments. Their
    matchers are named `xfail:NAME`."""
    entries: list[XfailEntry] = []
    if not path.exists():
        return entries
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if not block:
            return
        n, head = block[0]
        name, sep, reason = head.partition(":")
        if not sep or not name.strip() or " " in name.strip() or not reason.strip():
            raise ScriptError(f"{path.name}:{n}: an entry starts with 'NAME: reason'")
        lines = []
        for ln, text in block[1:]:
            if not text.startswith("!fuzz "):
                raise ScriptError(f"{path.name}:{ln}: expected a !fuzz line")
            lines.append(text[len("!fuzz "):].strip())
        ms = parse_lines(lines, f"xfail:{name.strip()}", f"{path.name}:{n}")
        if not ms:
            raise ScriptError(f"{path.name}:{n}: entry {name.strip()} has no matcher")
        entries.append(XfailEntry(name.strip(), reason.strip(), ms))
        block.clear()

    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("#"):
            continue
        if not line.strip():
            flush()
        else:
            block.append((n, line.strip()))
    flush()
    return entries


def explain(matchers: list[Matcher], argv: list[bytes], old: Reply, new: Reply,
            gen: bool = False) -> Matcher | None:
    return next((m for m in matchers if m.explains(argv, old, new, gen)), None)
