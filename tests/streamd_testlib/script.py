"""Parser for differential test scripts (tests/differential/scripts/*.txt).

The format is documented in tests/differential/README.md. In short: one command per line in
redis-cli quoting, `@N` in front sends it on connection N, lines starting with `#` are comments,
lines starting with `!` are directives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .resp import encode_command, encode_inline


class ScriptError(Exception):
    pass


def split_args(line: str) -> list[bytes]:
    """Split a line into arguments the way redis-cli does.

    Unquoted tokens end at whitespace. "double quotes" understand \\n \\r \\t \\b \\a \\\\ \\"
    and \\xHH; 'single quotes' understand only \\'. A closing quote must be followed by
    whitespace or the end of the line. "" is an empty argument.
    """
    args: list[bytes] = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i].isspace():
            i += 1
        if i >= n:
            return args
        out = bytearray()
        c = line[i]
        if c == '"':
            i += 1
            while True:
                if i >= n:
                    raise ScriptError(f"unterminated double quote in: {line}")
                c = line[i]
                if c == "\\" and i + 1 < n:
                    e = line[i + 1]
                    if e == "x" and i + 3 < n and _is_hex(line[i + 2 : i + 4]):
                        out.append(int(line[i + 2 : i + 4], 16))
                        i += 4
                        continue
                    out += {"n": b"\n", "r": b"\r", "t": b"\t", "b": b"\b", "a": b"\a"}.get(
                        e, e.encode("utf-8")
                    )
                    i += 2
                    continue
                if c == '"':
                    i += 1
                    break
                out += c.encode("utf-8")
                i += 1
        elif c == "'":
            i += 1
            while True:
                if i >= n:
                    raise ScriptError(f"unterminated single quote in: {line}")
                c = line[i]
                if c == "\\" and i + 1 < n and line[i + 1] == "'":
                    out += b"'"
                    i += 2
                    continue
                if c == "'":
                    i += 1
                    break
                out += c.encode("utf-8")
                i += 1
        else:
            while i < n and not line[i].isspace():
                out += line[i].encode("utf-8")
                i += 1
            args.append(bytes(out))
            continue
        if i < n and not line[i].isspace():
            raise ScriptError(f"closing quote must be followed by a space in: {line}")
        args.append(bytes(out))


def _is_hex(s: str) -> bool:
    return len(s) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in s)


# -- steps ---------------------------------------------------------------------------------


@dataclass
class Step:
    lineno: int
    text: str  # the source line, for messages
    conn: int = 1


@dataclass
class Send(Step):
    """Send bytes (a command, an inline line or raw bytes) and read `replies` replies."""

    payload: bytes = b""
    replies: int = 1  # replies the payload produces (!replies N)
    read_now: bool = True  # False with !send: the replies are read later with !read
    exact_count: bool = True  # False for !raw: we cannot know how many replies it produces
    masks: list[str] = field(default_factory=list)
    compare: bool = True
    differs: bool = False  # !differs: a versions row's step where 7.0.15 answers otherwise


@dataclass
class Read(Step):
    masks: list[str] = field(default_factory=list)
    compare: bool = True
    differs: bool = False


@dataclass
class NoReply(Step):
    ms: int = 100


@dataclass
class Sleep(Step):
    ms: int = 0


@dataclass
class Closed(Step):
    pass


@dataclass
class Reconnect(Step):
    pass


@dataclass
class Script:
    path: Path
    name: str
    steps: list[Step]
    protocols: tuple[int, ...] = (2, 3)
    fresh: bool = False
    server_args: list[str] = field(default_factory=list)
    description: str = ""
    # Only in versions rows (tests/differential/versions/*.txt): the Redis version that
    # changed the behaviour, where that is documented, and the row's fuzzer matchers
    # (header lines kept verbatim, interpreted by versions.py).
    since: str = ""
    source: str = ""
    fuzz: list[str] = field(default_factory=list)


KNOWN_MASKS = ("ids", "ints", "strings", "numbers", "shape", "sort")
PARAM_MASKS = ("range:", "fields:", "drop:", "regex:", "column:")


def check_mask(name: str, where: str) -> None:
    if name in KNOWN_MASKS:
        return
    if name.startswith("range:"):
        parts = name.split(":")
        if len(parts) != 3:
            raise ScriptError(f"{where}: range mask is range:LO:HI, got {name!r}")
        try:
            int(parts[1]), int(parts[2])
        except ValueError:
            raise ScriptError(f"{where}: bad range mask {name!r}") from None
        return
    if name.startswith("fields:") and len(name) > 7:
        return
    if name.startswith("column:"):
        if not name[7:].isdigit():
            raise ScriptError(f"{where}: column mask is column:N (0-based), got {name!r}")
        return
    if name.startswith("drop:") and len(name) > 5:
        return
    if name.startswith("regex:") and len(name) > 6:
        import re

        try:
            re.compile(name[6:])
        except re.error as e:
            raise ScriptError(f"{where}: bad regex in mask {name!r}: {e}") from None
        return
    raise ScriptError(
        f"{where}: unknown mask {name!r} (known: {', '.join(KNOWN_MASKS)}, "
        "range:LO:HI, fields:a,b, drop:a,b, regex:PATTERN, column:N)"
    )


def _conn_number(tok: str, where: str) -> int:
    try:
        n = int(tok)
    except ValueError:
        raise ScriptError(f"{where}: connection must be a number 1-9, got {tok!r}") from None
    if not 1 <= n <= 9:
        raise ScriptError(f"{where}: connection must be 1-9, got {n}")
    return n


def parse_script(path: Path) -> Script:
    return parse_script_text(path.read_text(encoding="utf-8"), path)


def parse_script_text(text: str, path: Path = Path("<string>")) -> Script:
    steps: list[Step] = []
    sticky_masks: list[str] = []
    next_masks: list[str] = []
    next_compare = True
    next_send_only = False
    next_replies = 1
    next_differs = False
    since = source = ""
    fuzz: list[str] = []
    protocols: tuple[int, ...] = (2, 3)
    fresh = False
    server_args: list[str] = []
    description_lines: list[str] = []
    seen_command = False

    def where(lineno: int) -> str:
        return f"{path.name}:{lineno}"

    def take_modifiers(lineno: int, for_read: bool) -> tuple[list[str], bool, bool, int, bool]:
        nonlocal next_masks, next_compare, next_send_only, next_replies, next_differs
        if for_read and (next_send_only or next_replies != 1):
            raise ScriptError(f"{where(lineno)}: !send and !replies apply to commands, not !read")
        if next_differs and (next_send_only or not next_compare):
            raise ScriptError(f"{where(lineno)}: !differs needs a reply that is read and compared")
        result = (sticky_masks + next_masks, next_compare, next_send_only, next_replies,
                  next_differs)
        next_masks, next_compare, next_send_only, next_replies = [], True, False, 1
        next_differs = False
        return result

    def pending_modifiers() -> bool:
        return (bool(next_masks) or not next_compare or next_send_only or next_replies != 1
                or next_differs)

    for lineno, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line:
            continue
        if line.startswith("#"):
            if not seen_command and not steps:
                description_lines.append(line.lstrip("#").strip())
            continue
        conn = 1
        if line.startswith("@"):
            head, _, rest = line.partition(" ")
            conn = _conn_number(head[1:], where(lineno))
            line = rest.strip()
            if not line:
                raise ScriptError(f"{where(lineno)}: nothing after {head}")
        if line.startswith("!"):
            name, _, rest = line.partition(" ")
            name = name[1:]
            rest = rest.strip()
            # Free text (a URL, a quoted title, a regex): not split into arguments.
            if name in ("since", "source", "fuzz"):
                if seen_command:
                    raise ScriptError(f"{where(lineno)}: !{name} must come before any command")
                if not rest:
                    raise ScriptError(f"{where(lineno)}: !{name} needs a value")
                if name == "since":
                    since = rest
                elif name == "source":
                    source = rest
                else:
                    fuzz.append(rest)
                continue
            try:
                args = split_args(rest)
            except ScriptError as e:
                raise ScriptError(f"{where(lineno)}: {e}") from None
            sargs = [a.decode("utf-8") for a in args]
            if name in ("protocols", "fresh", "server-args"):
                if seen_command:
                    raise ScriptError(f"{where(lineno)}: !{name} must come before any command")
                if name == "protocols":
                    if not sargs or any(a not in ("2", "3") for a in sargs):
                        raise ScriptError(f"{where(lineno)}: !protocols takes 2 and/or 3")
                    protocols = tuple(sorted({int(a) for a in sargs}))
                elif name == "fresh":
                    fresh = True
                else:
                    server_args += sargs
                    fresh = True
                continue
            if name == "masks":
                for m in sargs:
                    check_mask(m, where(lineno))
                sticky_masks = list(sargs)
                continue
            if name == "mask":
                if not sargs:
                    raise ScriptError(f"{where(lineno)}: !mask needs at least one mask name")
                for m in sargs:
                    check_mask(m, where(lineno))
                next_masks += sargs
                continue
            if name == "nocompare":
                next_compare = False
                continue
            if name == "differs":
                next_differs = True
                continue
            if name == "send":
                next_send_only = True
                continue
            if name == "replies":
                if len(sargs) != 1 or not sargs[0].isdigit() or int(sargs[0]) < 1:
                    raise ScriptError(f"{where(lineno)}: !replies takes a count >= 1")
                next_replies = int(sargs[0])
                continue
            if name == "sleep":
                if len(sargs) != 1 or not sargs[0].isdigit():
                    raise ScriptError(f"{where(lineno)}: !sleep takes milliseconds")
                steps.append(Sleep(lineno, raw_line.strip(), ms=int(sargs[0])))
                continue
            seen_command = True
            if name in ("read", "noreply", "closed", "reconnect"):
                if name == "noreply":
                    if len(sargs) > 2:
                        raise ScriptError(f"{where(lineno)}: !noreply [CONN] [MS]")
                    if len(sargs) >= 1:
                        conn = _conn_number(sargs[0], where(lineno))
                    ms = int(sargs[1]) if len(sargs) == 2 else 100
                    if pending_modifiers():
                        raise ScriptError(f"{where(lineno)}: modifiers before !noreply")
                    steps.append(NoReply(lineno, raw_line.strip(), conn, ms=ms))
                    continue
                if len(sargs) > 1:
                    raise ScriptError(f"{where(lineno)}: !{name} [CONN]")
                if sargs:
                    conn = _conn_number(sargs[0], where(lineno))
                if name == "read":
                    masks, compare, _, _, differs = take_modifiers(lineno, True)
                    steps.append(Read(lineno, raw_line.strip(), conn, masks=masks, compare=compare,
                                      differs=differs))
                else:
                    if pending_modifiers():
                        raise ScriptError(f"{where(lineno)}: modifiers before !{name}")
                    cls = Closed if name == "closed" else Reconnect
                    steps.append(cls(lineno, raw_line.strip(), conn))
                continue
            if name in ("inline", "raw"):
                if name == "inline":
                    if not rest:
                        raise ScriptError(f"{where(lineno)}: !inline needs a line")
                    payload = encode_inline(rest)
                else:
                    if not args:
                        raise ScriptError(f"{where(lineno)}: !raw needs quoted bytes")
                    payload = b"".join(args)
                masks, compare, send_only, replies, differs = take_modifiers(lineno, False)
                steps.append(
                    Send(lineno, raw_line.strip(), conn, payload=payload,
                         replies=replies, read_now=not send_only, exact_count=(name == "inline"),
                         masks=masks, compare=compare, differs=differs)
                )
                continue
            raise ScriptError(f"{where(lineno)}: unknown directive !{name}")
        # A command.
        try:
            argv = split_args(line)
        except ScriptError as e:
            raise ScriptError(f"{where(lineno)}: {e}") from None
        if not argv:
            raise ScriptError(f"{where(lineno)}: empty command")
        seen_command = True
        masks, compare, send_only, replies, differs = take_modifiers(lineno, False)
        steps.append(
            Send(lineno, raw_line.strip(), conn, payload=encode_command(argv),
                 replies=replies, read_now=not send_only, masks=masks, compare=compare,
                 differs=differs)
        )
    if pending_modifiers():
        raise ScriptError(f"{path.name}: modifiers at the end of the script apply to nothing")
    return Script(
        path=path,
        name=path.stem,
        steps=steps,
        protocols=protocols,
        fresh=fresh,
        server_args=server_args,
        description=next((d for d in description_lines if d), ""),
        since=since,
        source=source,
        fuzz=fuzz,
    )
