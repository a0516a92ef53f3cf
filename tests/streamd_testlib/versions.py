"""Intended version differences: rows in tests/differential/versions/NAME.txt.

streamd follows the newest Redis, the differential suite compares it with Debian's
redis-server 7.0.15. Every reply where the two are meant to differ is one *row*: a script in
the differential format (tests/differential/README.md) with the header lines

    # description (the first comment)
    !since 7.4.0                 the Redis version that changed the reply
    !source <url / commit / test name where the change is documented>

and `!differs` in front of the step(s) whose reply changed. Beside it, NAME.golden holds the
replies of a newer Redis built from source (recorded by tests/differential/record_golden.py),
and, for the `!differs` steps, the replies of 7.0.15 at recording time (they feed the table in
tests/differential/VERSIONS.md). test_versions.py checks, in both protocols:

  - streamd's reply to every step equals the golden one (after the step's masks);
  - 7.0.15's reply differs from the golden one on every `!differs` step, and equals it on every
    other step, so a row pins down exactly where the versions part (it can never go stale);
  - 7.0.15 still answers what was recorded for it (so the table is true).

Golden file format: text lines; `#` comments; `proto 2` / `proto 3` start a section; then one
line per reply: `STEP new|old REPLY`, where STEP is `LINENO.N` (the N-th reply read at script
line LINENO) and REPLY is the raw reply bytes in double quotes (\\r \\n \\t \\\\ \\" \\xHH
escapes, parsed back with script.split_args) or `<event>` (closed, timeout).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .differential import Outcome, Side
from .resp import _quote, parse_reply
from .script import (Closed, NoReply, Read, Reconnect, Script, ScriptError, Send, Sleep,
                     parse_script, split_args)

VERSIONS_DIR = Path(__file__).resolve().parents[1] / "differential" / "versions"
TABLE_PATH = VERSIONS_DIR.parent / "VERSIONS.md"


@dataclass
class Reply1:
    """One reply read while running a row on one server: where, and what arrived."""

    key: str  # "LINENO.N"
    step: Send | Read
    outcome: Outcome


@dataclass
class Golden:
    header: list[str] = field(default_factory=list)
    # proto -> step key -> {"new": Outcome, "old": Outcome}
    replies: dict[int, dict[str, dict[str, Outcome]]] = field(default_factory=dict)


def row_paths(names: list[str] | None = None) -> list[Path]:
    import fnmatch

    paths = sorted(VERSIONS_DIR.glob("*.txt"))
    if names:
        paths = [p for p in paths if any(fnmatch.fnmatch(p.stem, n) for n in names)]
    return paths


def load_row(path: Path) -> Script:
    """Parse a row and check what makes it a row (description, !since, !source, !differs)."""
    script = parse_script(path)
    missing = [what for what, ok in (("a description comment", script.description),
                                     ("!since", script.since), ("!source", script.source),
                                     ("a !differs step", any(getattr(s, "differs", False)
                                                             for s in script.steps)))
               if not ok]
    if missing:
        raise ScriptError(f"{path.name}: a versions row needs {', '.join(missing)}")
    for step in script.steps:
        if isinstance(step, (NoReply, Closed)):
            raise ScriptError(f"{path.name}:{step.lineno}: rows record replies only "
                              "(no !noreply / !closed)")
    return script


# -- running a row on one server ----------------------------------------------------------


def run_row(script: Script, server, proto: int, timeout: float = 5.0) -> list[Reply1]:
    """Every reply `server` gives to the row's steps, in order. The keyspace is flushed first."""
    side = Side(server.name, server, proto)
    out: list[Reply1] = []
    try:
        c = side.conn(9)  # a connection the rows do not use, only for the flush
        if c.call_raw("FLUSHALL") != b"+OK\r\n":
            raise ScriptError(f"{server.name}: FLUSHALL failed before {script.name}")
        side.drop(9)
        for step in script.steps:
            if isinstance(step, Sleep):
                time.sleep(step.ms / 1000)
            elif isinstance(step, Reconnect):
                side.drop(step.conn)
            elif isinstance(step, Send):
                err = side.send(step.conn, step.payload, step.replies)
                if err:
                    raise ScriptError(f"{server.name}: {err}")
                if step.read_now:
                    for i in range(step.replies):
                        out.append(Reply1(f"{step.lineno}.{i + 1}", step, side.read(step.conn)))
            elif isinstance(step, Read):
                out.append(Reply1(f"{step.lineno}.1", step, side.read(step.conn)))
    finally:
        side.close_all()
    return out


# -- golden files ---------------------------------------------------------------------------


def golden_path(script: Script) -> Path:
    return script.path.with_suffix(".golden")


def outcome_text(o: Outcome) -> str:
    return f"<{o.event}>" if o.event is not None else _quote(o.raw)


def outcome_from_text(text: str) -> Outcome:
    if text.startswith("<") and text.endswith(">"):
        return Outcome(event=text[1:-1])
    (raw,) = split_args(text)
    return Outcome(raw=raw, reply=parse_reply(raw))


def write_golden(path: Path, header: list[str], runs: dict[int, tuple[list[Reply1], list[Reply1]]]):
    """runs: proto -> (replies of the newer Redis, replies of 7.0.15)."""
    lines = [f"# {h}" for h in header]
    for proto, (new, old) in sorted(runs.items()):
        lines.append(f"proto {proto}")
        old_by_key = {r.key: r for r in old}
        for r in new:
            lines.append(f"{r.key} new {outcome_text(r.outcome)}")
            if r.step.differs and r.key in old_by_key:
                lines.append(f"{r.key} old {outcome_text(old_by_key[r.key].outcome)}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_golden(path: Path) -> Golden:
    g = Golden()
    proto = None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            g.header.append(line[1:].strip())
            continue
        head, _, rest = line.partition(" ")
        if head == "proto":
            proto = int(rest)
            g.replies[proto] = {}
            continue
        which, _, text = rest.partition(" ")
        if proto is None or which not in ("new", "old") or not text:
            raise ScriptError(f"{path.name}:{n}: expected 'LINENO.N new|old REPLY'")
        g.replies[proto].setdefault(head, {})[which] = outcome_from_text(text)
    return g


# -- checking -------------------------------------------------------------------------------


def check_streamd(script: Script, golden: Golden, proto: int, got: list[Reply1]) -> list[str]:
    """streamd must give the golden (newer Redis) reply at every step."""
    want = golden.replies.get(proto)
    if want is None:
        return [f"{golden_path(script).name} has no RESP{proto} section (record it again)"]
    problems = []
    if [r.key for r in got] != [k for k in want]:
        problems.append(f"steps read {[r.key for r in got]} but {golden_path(script).name} "
                        f"has {list(want)} (record it again)")
    for r in got:
        g = want.get(r.key, {}).get("new")
        if g is not None and r.outcome.key(r.step.masks) != g.key(r.step.masks):
            problems.append(_mismatch(script, r, proto, "streamd", r.outcome, "golden", g))
    return problems


def check_old(script: Script, golden: Golden, proto: int, got: list[Reply1]) -> list[str]:
    """7.0.15 must differ from the golden reply exactly on the !differs steps, and still give
    the reply recorded for it there."""
    want = golden.replies.get(proto, {})
    problems = []
    for r in got:
        g = want.get(r.key, {})
        if "new" not in g:
            continue
        same = r.outcome.key(r.step.masks) == g["new"].key(r.step.masks)
        if r.step.differs and same:
            problems.append(f"{script.path.name}:{r.step.lineno} (RESP{proto}) {r.step.text}: "
                            "redis-server 7.0.15 answers what the newer Redis answers: the row "
                            "is stale or the !differs mark is on the wrong step")
        elif not r.step.differs and not same:
            problems.append(_mismatch(script, r, proto, "7.0.15", r.outcome, "golden", g["new"])
                            + "\n  (a step without !differs must be answered alike by both)")
        elif r.step.differs and "old" in g and \
                r.outcome.key(r.step.masks) != g["old"].key(r.step.masks):
            problems.append(_mismatch(script, r, proto, "7.0.15", r.outcome, "recorded 7.0.15",
                                      g["old"]))
    return problems


def check_matchers(script: Script, golden: Golden, proto: int, got: list[Reply1]) -> list[str]:
    """A row's `!fuzz` matchers (fuzz/matchers.py) must explain its own `!differs` steps: the
    recorded 7.0.15 reply against streamd's reply."""
    from .fuzz.matchers import explain, parse_matchers
    from .script import split_args as _split

    matchers = parse_matchers(script)
    if not matchers:
        return []
    problems = []
    for r in got:
        old = golden.replies.get(proto, {}).get(r.key, {}).get("old")
        if not r.step.differs or old is None or old.reply is None or r.outcome.reply is None:
            continue
        argv = _split(r.step.text.split(" ", 1)[1] if r.step.text.startswith("@") else r.step.text)
        if explain(matchers, argv, old.reply, r.outcome.reply) is None:
            problems.append(_mismatch(script, r, proto, "streamd", r.outcome, "recorded 7.0.15",
                                      old) + "\n  (no !fuzz matcher of the row explains this step)")
    return problems


def _mismatch(script, r: Reply1, proto: int, la: str, a: Outcome, lb: str, b: Outcome) -> str:
    m = r.step.masks
    return (f"{script.path.name}:{r.step.lineno} (RESP{proto}) {r.step.text}\n"
            f"  {la}: {' '.join(x.strip() for x in a.lines(m))}\n"
            f"  {lb}: {' '.join(x.strip() for x in b.lines(m))}")


# -- the table ------------------------------------------------------------------------------


def one_line(o: Outcome | None) -> str:
    """A reply as a compact one-liner for the table (redis-cli-like)."""
    if o is None:
        return "(not recorded)"
    if o.event is not None:
        return f"<{o.event}>"
    return _compact(o.reply)


def _compact(node) -> str:
    if node.null or node.kind == "_":
        return "(nil)"
    if node.items is not None:
        inner = [_compact(i) for i in node.items]
        if node.kind in ("%", "|"):
            return "{" + ", ".join(f"{inner[i]}: {inner[i + 1]}"
                                   for i in range(0, len(inner), 2)) + "}"
        return "[" + ", ".join(inner) + "]"
    text = node.text.decode("utf-8", "replace")
    if node.kind in ("-", "!"):
        return f"(error) {text}"
    if node.kind == ":":
        return f"(integer) {text}"
    if node.kind == "+":
        return text
    return _quote(node.text)


def render_table(rows: list[Script]) -> str:
    out = [
        "# Intended differences from redis-server 7.0.15",
        "",
        "Generated by `tests/differential/record_golden.py --table` from `versions/*.txt` and",
        "`versions/*.golden`: do not edit by hand. streamd follows the newest Redis; the",
        "differential suite compares it with Debian's redis-server 7.0.15. Each row below is",
        "tested by `test_versions.py` (streamd = the recorded newer Redis, byte for byte after",
        "the row's masks; 7.0.15 differs exactly on the marked step). The fuzzer",
        "(`fuzz_streams.py`) may skip only the differences these rows explain. Replies are RESP2.",
        "",
        "| row | command | 7.0.15 reply | newer reply | since | source |",
        "|---|---|---|---|---|---|",
    ]

    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("`", "'")

    for script in rows:
        gp = golden_path(script)
        golden = read_golden(gp) if gp.exists() else Golden()
        # RESP2, or RESP3 for a row that runs only there (a RESP3 push has no RESP2 form).
        proto = 2 if 2 in golden.replies else 3
        section = golden.replies.get(proto, {})
        for step in script.steps:
            if not getattr(step, "differs", False):
                continue
            # Every reply of the step (`!replies N`), in order.
            gs = [section[k] for k in sorted((k for k in section
                                              if k.split(".")[0] == str(step.lineno)),
                                             key=lambda k: int(k.split(".")[1]))] or [{}]
            old = " then ".join(one_line(g.get("old")) for g in gs)
            new = " then ".join(one_line(g.get("new")) for g in gs)
            resp = "" if proto == 2 else " (RESP3)"
            out.append(
                f"| [{script.name}](versions/{script.path.name}) | `{cell(step.text)}`{resp} | "
                f"`{cell(old)}` | `{cell(new)}` | "
                f"{script.since} | {cell(script.source)} |")
    out += ["", "Descriptions:", ""]
    out += [f"- **{s.name}**: {s.description}" for s in rows]
    return "\n".join(out) + "\n"

