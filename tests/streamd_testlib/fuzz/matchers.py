"""Fuzzer matchers of versions rows: the only differences the fuzzer may skip.

A row (tests/differential/versions/NAME.txt) explains fuzzer differences with `!fuzz` header
lines; each `!fuzz command` starts a new matcher, the lines after it refine it:

  !fuzz command REGEX     the step's command line (arguments joined by single spaces, the
                          command name upper-cased) must contain a match (re.search)
  !fuzz old REGEX         redis-server 7.0.15's raw reply must match it completely
  !fuzz new REGEX         streamd's raw reply must match it completely
  !fuzz drop-field NAME   streamd's reply without field NAME (maps, flat key/value arrays, any
                          depth; repeatable) must equal 7.0.15's after normalisation
  !fuzz mask-field NAME   the value of field NAME is ignored on both sides, type included (a
                          nil and a number compare equal; repeatable), the
                          rest must be equal after normalisation (a count that differs because
                          of state, e.g. `consumers` in XINFO GROUPS)
  !fuzz subset [FIELD]    7.0.15's reply must be streamd's array with some elements left out
                          (the others equal after normalisation): streamd knows things
                          7.0.15 does not create, e.g. consumers; with FIELD (repeatable) the
                          same for the array value of that field, the rest equal
  !fuzz after-command REGEX
                          the matcher applies only once a command matching REGEX has been
                          answered without an error by both servers earlier in the sequence
                          (the cause of a state difference that shows later, e.g. XREADGROUP
                          creating a consumer that only a later XINFO CONSUMERS shows)
  !fuzz after stop|continue
                          stop (the default): the two servers may now hold different state,
                          nothing after this step is compared; continue: the step changed
                          nothing (a read), the sequence goes on being compared

Raw replies are matched as latin-1 text with re.DOTALL, so `\\r\\n` in a pattern is CRLF.
drop-field and mask-field apply first, then subset or equality. A matcher needs `old` and
`new`, or at least one of drop-field, mask-field, subset. test_versions.py checks that a
row's matchers explain the row's own `!differs` steps.

Independent differences compose: when no single matcher explains a step, the transforming
matchers (those without old/new) whose command matches are applied together (all their
drop-fields, mask-fields and subsets); if that explains the step, every one of them is
counted, and the sequence stops if any of them says `after stop`. So a reply that carries both
an 8.8 field and a 7.2 consumer needs no row of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..resp import Reply, encode
from ..script import Script, ScriptError
from .normalise import drop_fields, ignore_fields, normalise


@dataclass
class Matcher:
    row: str
    command: re.Pattern
    old: re.Pattern | None = None
    new: re.Pattern | None = None
    drop: set[bytes] = field(default_factory=set)
    mask: set[bytes] = field(default_factory=set)
    subset: bool = False  # the whole reply
    subset_in: set[bytes] = field(default_factory=set)  # only inside these fields' values
    cause: re.Pattern | None = None  # after-command: applies only once this has succeeded
    after: str = "stop"

    @property
    def transforms(self) -> bool:
        return bool(self.drop or self.mask or self.subset or self.subset_in)

    def explains(self, argv: list[bytes], old: Reply, new: Reply, gen: bool = False) -> bool:
        """Does this matcher explain 7.0.15 answering `old` and streamd `new` to `argv`?
        gen: the sequence has generated IDs (normalise.py)."""
        if not self.command.search(command_line(argv)):
            return False
        if self.old is not None and not self.old.fullmatch(encode(old).decode("latin-1")):
            return False
        if self.new is not None and not self.new.fullmatch(encode(new).decode("latin-1")):
            return False
        if not self.transforms:
            return True
        return transformed_equal(argv, old, new, gen, self.drop, self.mask, self.subset,
                                 self.subset_in)


def transformed_equal(argv, old: Reply, new: Reply, gen: bool, drop: set[bytes],
                      mask: set[bytes], subset: bool, subset_in: set[bytes]) -> bool:
    o = normalise(argv, mask_fields(old, mask), gen)
    n = normalise(argv, mask_fields(drop_fields(new, drop), mask), gen)
    if subset:
        return is_subset(o, n)
    if subset_in:
        return subset_in_fields(o, n, subset_in)
    return encode(o) == encode(n)


def subset_in_fields(old: Reply, new: Reply, names: set[bytes]) -> bool:
    """Equal, except that the values of fields `names` may have array elements left out."""
    if old.items is None or new.items is None:
        return encode(old) == encode(new)
    if old.kind != new.kind or len(old.items) != len(new.items):
        return False
    pairs = old.kind in ("%", "|") or (old.kind == "*" and len(old.items) % 2 == 0)
    for i, (a, b) in enumerate(zip(old.items, new.items)):
        key = old.items[i - 1] if i % 2 else None
        if pairs and key is not None and key.kind in ("+", "$") and key.text in names:
            if not is_subset(a, b):
                return False
        elif not subset_in_fields(a, b, names):
            return False
    return True


def mask_fields(reply: Reply, names: set[bytes]) -> Reply:
    return ignore_fields(reply, names) if names else reply


def is_subset(old: Reply, new: Reply) -> bool:
    """old is the array new with some elements left out (in order; each kept one equal)."""
    if old.items is None or new.items is None or old.kind != new.kind:
        return encode(old) == encode(new)
    rest = iter(encode(x) for x in new.items)
    return all(any(encode(a) == b for b in rest) for a in old.items)


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
            pattern = re.compile(value, re.DOTALL) if key in (
                "command", "old", "new", "after-command") else None
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
        elif key == "after-command":
            m.cause = pattern
        elif key == "drop-field" and value:
            m.drop.add(value.encode())
        elif key == "mask-field" and value:
            m.mask.add(value.encode())
        elif key == "subset":
            if value:
                m.subset_in.add(value.encode())
            else:
                m.subset = True
        elif key == "after" and value in ("stop", "continue"):
            m.after = value
        else:
            raise ScriptError(f"{where}: unknown !fuzz line {line!r} (command, old, new, "
                              "drop-field, mask-field, subset, after-command, after)")
    for m in out:
        if not m.transforms and (m.old is None or m.new is None):
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


def explain_all(matchers: list[Matcher], argv: list[bytes], old: Reply, new: Reply,
                gen: bool = False) -> list[Matcher] | None:
    """The matcher that explains the step, else the composition of the transforming ones
    (see the module comment); None when nothing explains it."""
    one = explain(matchers, argv, old, new, gen)
    if one is not None:
        return [one]
    line = command_line(argv)
    used = [m for m in matchers if m.transforms and m.old is None and m.new is None
            and m.command.search(line)]
    if len(used) < 2:
        return None
    drop = set().union(*(m.drop for m in used))
    mask = set().union(*(m.mask for m in used))
    subset_in = set().union(*(m.subset_in for m in used))
    if transformed_equal(argv, old, new, gen, drop, mask, any(m.subset for m in used),
                         subset_in):
        return used
    return None
