"""RESP2/RESP3 wire helpers: an incremental reply reader, encoders and a readable decoder.

The reader never interprets more than it must: it finds where one complete reply ends and
returns its exact bytes, so tests can compare servers byte for byte. `parse_reply` turns those
bytes into a small tree (`Reply`) that masks and the side-by-side printer work on; `encode`
turns a tree back into bytes, reproducing the input exactly when nothing was changed
(scalars keep their textual form).

Types handled: + - : $ * _ , # ! = ( % ~ > | and the streamed forms ($? with ; chunks, and
*? %? ~? >? closed by a '.' line).
"""

from __future__ import annotations

from dataclasses import dataclass, field

CRLF = b"\r\n"

# Types whose payload is one line after the type byte.
LINE_TYPES = frozenset(b"+-:_,#(")
# Types whose header is a length followed by that many bytes and CRLF.
BLOB_TYPES = frozenset(b"$!=")
# Aggregate types; for '%' and '|' the count is of pairs.
AGGREGATE_TYPES = frozenset(b"*%~>|")
PAIR_TYPES = frozenset(b"%|")

# Hard upper bounds so a garbage header cannot make the reader wait for gigabytes.
MAX_BLOB = 1 << 30
MAX_AGGREGATE = 1 << 28


class ProtocolError(Exception):
    """The peer sent bytes that are not a valid RESP reply."""


@dataclass
class Reply:
    """One decoded reply.

    kind: the type byte as a 1-char str ('+', '$', '*', ...).
    text: for line types, the raw line after the type byte (bytes); for blobs the payload;
          None for aggregates and for RESP2 nulls ($-1 / *-1), where `null` is set.
    items: children of aggregates (for maps and attributes: k1, v1, k2, v2 ...).
    attrs: a RESP3 attribute ('|') that preceded this reply, if any.
    streamed: the reply used the streamed form ($? / *?) - kept so encode() round-trips.
    """

    kind: str
    text: bytes | None = None
    items: list["Reply"] | None = None
    attrs: "Reply | None" = None
    null: bool = False
    streamed: bool = False
    chunks: list[bytes] | None = field(default=None, repr=False)

    @property
    def is_error(self) -> bool:
        return self.kind in ("-", "!")

    @property
    def is_aggregate(self) -> bool:
        return self.items is not None

    def error_text(self) -> str | None:
        if not self.is_error or self.text is None:
            return None
        return self.text.decode("utf-8", "replace")


class _Frame:
    __slots__ = ("kind", "remaining", "items", "streamed", "attrs")

    def __init__(self, kind: str, remaining: int | None, streamed: bool):
        self.kind = kind
        self.remaining = remaining  # None when streamed (ends at '.')
        self.items: list[Reply] = []
        self.streamed = streamed
        self.attrs: Reply | None = None


class ReplyReader:
    """Incremental RESP reply reader.

    feed() bytes as they arrive; get_reply() returns the exact bytes of the next complete reply
    (an attribute together with the reply it annotates) or None if more bytes are needed.
    Parsing resumes where it stopped, so a large reply is not re-scanned on every recv().
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._pos = 0  # parse position inside _buf
        self._start = 0  # start of the reply being parsed
        self._stack: list[_Frame] = []
        self._pending_attrs: Reply | None = None
        self._blob: tuple[str, int] | None = None  # (kind, length) awaiting payload
        self._chunks: list[bytes] | None = None  # streamed string in progress
        self._done: list[tuple[bytes, Reply]] = []

    def feed(self, data: bytes) -> None:
        self._buf += data

    @property
    def buffered(self) -> int:
        return len(self._buf) - self._start

    def get_reply(self) -> bytes | None:
        item = self.get()
        return None if item is None else item[0]

    def get(self) -> tuple[bytes, Reply] | None:
        """Next complete reply as (raw bytes, decoded tree), or None."""
        if not self._done:
            self._parse()
        if not self._done:
            return None
        return self._done.pop(0)

    # -- internals -------------------------------------------------------------------------

    def _line(self) -> bytes | None:
        end = self._buf.find(CRLF, self._pos)
        if end < 0:
            return None
        line = bytes(self._buf[self._pos : end])
        self._pos = end + 2
        return line

    @staticmethod
    def _int(text: bytes, what: str) -> int:
        try:
            if not text or text.strip() != text:
                raise ValueError
            return int(text)
        except ValueError:
            raise ProtocolError(f"bad {what}: {text!r}") from None

    def _parse(self) -> None:
        while True:
            node = self._parse_one()
            if node is None:
                return
            top = self._complete(node)
            if top is not None:
                raw = bytes(self._buf[self._start : self._pos])
                del self._buf[: self._pos]
                self._pos = 0
                self._start = 0
                self._done.append((raw, top))
                return

    def _parse_one(self) -> Reply | None | bool:
        """Parse the next token. Returns a finished Reply, True when progress was made without
        finishing a value (a header), or None when more input is needed."""
        if self._blob is not None:
            kind, length = self._blob
            if len(self._buf) - self._pos < length + 2:
                return None
            payload = bytes(self._buf[self._pos : self._pos + length])
            if self._buf[self._pos + length : self._pos + length + 2] != CRLF:
                raise ProtocolError(f"blob of type {kind!r} not terminated by CRLF")
            self._pos += length + 2
            self._blob = None
            if kind == ";":
                assert self._chunks is not None
                self._chunks.append(payload)
                return True
            return Reply(kind, payload)
        if self._pos >= len(self._buf):
            return None
        save = self._pos
        line = self._line()
        if line is None:
            return None
        if not line:
            raise ProtocolError("empty line where a reply type was expected")
        kind = chr(line[0])
        rest = line[1:]
        if self._chunks is not None:
            if kind != ";":
                raise ProtocolError(f"expected ';' chunk in streamed string, got {kind!r}")
            length = self._int(rest, "chunk length")
            if length < 0 or length > MAX_BLOB:
                raise ProtocolError(f"bad chunk length {length}")
            if length == 0:  # ";0" ends the string and has no payload line
                chunks, self._chunks = self._chunks, None
                return Reply("$", b"".join(chunks), streamed=True, chunks=chunks)
            self._blob = (";", length)
            return True
        if kind == ".":
            if rest or not self._stack or not self._stack[-1].streamed:
                raise ProtocolError("unexpected '.' end marker")
            frame = self._stack.pop()
            return self._finish_frame(frame)
        code = line[0]
        if code in LINE_TYPES:
            return self._line_reply(kind, rest)
        if code in BLOB_TYPES:
            if rest == b"?" and kind == "$":
                self._chunks = []
                return True
            length = self._int(rest, "length")
            if length == -1 and kind == "$":
                return Reply("$", None, null=True)
            if length < 0 or length > MAX_BLOB:
                raise ProtocolError(f"bad length {length} for type {kind!r}")
            self._blob = (kind, length)
            return True
        if code in AGGREGATE_TYPES:
            if rest == b"?" and kind != "|":
                self._stack.append(_Frame(kind, None, True))
                return True
            count = self._int(rest, "count")
            if count == -1 and kind == "*":
                return Reply("*", None, null=True)
            if count < 0 or count > MAX_AGGREGATE:
                raise ProtocolError(f"bad count {count} for type {kind!r}")
            if kind in ("%", "|"):
                count *= 2
            frame = _Frame(kind, count, False)
            if count == 0:
                return self._finish_frame(frame)
            self._stack.append(frame)
            return True
        self._pos = save
        raise ProtocolError(f"unknown reply type byte {line[:1]!r} in line {line[:60]!r}")

    def _line_reply(self, kind: str, rest: bytes) -> Reply:
        if kind == ":":
            self._int(rest, "integer")
        elif kind == "(":
            if not rest or not rest.lstrip(b"-").isdigit():
                raise ProtocolError(f"bad big number {rest!r}")
        elif kind == "#":
            if rest not in (b"t", b"f"):
                raise ProtocolError(f"bad boolean {rest!r}")
        elif kind == "_":
            if rest:
                raise ProtocolError(f"bad null {rest!r}")
        elif kind == ",":
            try:
                float(rest)
            except ValueError:
                raise ProtocolError(f"bad double {rest!r}") from None
        return Reply(kind, rest)

    def _finish_frame(self, frame: _Frame) -> Reply:
        if frame.streamed and frame.kind in PAIR_TYPES and len(frame.items) % 2:
            raise ProtocolError("streamed map with an odd number of elements")
        return Reply(frame.kind, None, items=frame.items, streamed=frame.streamed)

    def _complete(self, node: Reply | bool) -> Reply | None:
        """Attach a finished value to its parent; return the reply when a top-level one ended."""
        while True:
            if node is True:
                return None
            assert isinstance(node, Reply)
            if node.kind == "|":
                # An attribute annotates the value that follows it.
                self._pending_attrs = node
                return None
            if self._pending_attrs is not None:
                node.attrs, self._pending_attrs = self._pending_attrs, None
            if not self._stack:
                return node
            frame = self._stack[-1]
            frame.items.append(node)
            if frame.remaining is None:
                return None
            frame.remaining -= 1
            if frame.remaining:
                return None
            self._stack.pop()
            node = self._finish_frame(frame)


def parse_reply(raw: bytes) -> Reply:
    """Decode exactly one complete reply; raise ProtocolError on garbage or trailing bytes."""
    reader = ReplyReader()
    reader.feed(raw)
    got = reader.get()
    if got is None:
        raise ProtocolError(f"incomplete reply: {raw[:80]!r}")
    if reader.buffered:
        raise ProtocolError("trailing bytes after one reply")
    return got[1]


def encode(node: Reply) -> bytes:
    """Serialise a Reply tree; the exact inverse of parsing for unmodified trees."""
    out = bytearray()
    _encode_into(node, out)
    return bytes(out)


def _encode_into(node: Reply, out: bytearray) -> None:
    if node.attrs is not None:
        _encode_into(node.attrs, out)
    kind = node.kind
    if node.null:
        out += kind.encode() + b"-1\r\n"
        return
    if node.items is not None:
        if node.streamed:
            out += kind.encode() + b"?\r\n"
            for item in node.items:
                _encode_into(item, out)
            out += b".\r\n"
            return
        count = len(node.items) // 2 if kind in ("%", "|") else len(node.items)
        out += kind.encode() + str(count).encode() + CRLF
        for item in node.items:
            _encode_into(item, out)
        return
    assert node.text is not None
    if ord(kind) in BLOB_TYPES:
        if node.streamed and node.chunks is not None and b"".join(node.chunks) == node.text:
            out += b"$?\r\n"
            for chunk in node.chunks:
                out += b";" + str(len(chunk)).encode() + CRLF + chunk + CRLF
            out += b";0\r\n"
            return
        out += kind.encode() + str(len(node.text)).encode() + CRLF + node.text + CRLF
        return
    out += kind.encode() + node.text + CRLF


# -- request encoding ----------------------------------------------------------------------


def _as_bytes(arg) -> bytes:
    if isinstance(arg, bytes):
        return arg
    if isinstance(arg, (bytearray, memoryview)):
        return bytes(arg)
    if isinstance(arg, str):
        return arg.encode("utf-8")
    if isinstance(arg, (int, float)):
        return str(arg).encode()
    raise TypeError(f"cannot encode argument of type {type(arg).__name__}")


def encode_command(*args) -> bytes:
    """Encode an argv as a RESP multibulk request."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        b = _as_bytes(arg)
        parts.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(parts)


def encode_inline(line) -> bytes:
    """Encode an inline command (what telnet or `echo PING | nc` would send)."""
    b = _as_bytes(line)
    if b"\n" in b:
        raise ValueError("an inline command is one line")
    return b + CRLF


# -- readable rendering ----------------------------------------------------------------------

_TYPE_NAMES = {
    "+": "simple",
    "-": "error",
    ":": "integer",
    "$": "bulk",
    "*": "array",
    "_": "null",
    ",": "double",
    "#": "boolean",
    "!": "blob-error",
    "=": "verbatim",
    "(": "bignum",
    "%": "map",
    "~": "set",
    ">": "push",
    "|": "attribute",
}


def _quote(b: bytes) -> str:
    out = ['"']
    for c in b:
        if c == 0x22:
            out.append('\\"')
        elif c == 0x5C:
            out.append("\\\\")
        elif c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append(f"\\x{c:02x}")
    out.append('"')
    return "".join(out)


def describe(node: Reply, indent: int = 0, max_items: int = 50) -> list[str]:
    """Render a reply as lines; every line names the RESP type, so `$-1` and `_` differ."""
    pad = "  " * indent
    lines: list[str] = []
    if node.attrs is not None:
        lines.append(f"{pad}|attribute")
        lines.extend(describe(node.attrs, indent + 1, max_items)[1:])
    kind = node.kind
    name = _TYPE_NAMES.get(kind, kind)
    if node.null:
        lines.append(f"{pad}({name} null {kind}-1)")
        return lines
    if node.items is not None:
        n = len(node.items)
        count = n // 2 if kind in ("%", "|") else n
        lines.append(f"{pad}{kind}{count} ({name}{', streamed' if node.streamed else ''})")
        shown = node.items[: max_items * (2 if kind in ("%", "|") else 1)]
        for i, item in enumerate(shown):
            if kind in ("%", "|"):
                marker = "k " if i % 2 == 0 else "v "
            else:
                marker = f"{i + 1}) "
            sub = describe(item, 0, max_items)
            lines.append(f"{pad}  {marker}{sub[0]}")
            lines.extend(f"{pad}  {' ' * len(marker)}{s}" for s in sub[1:])
        if len(shown) < n:
            lines.append(f"{pad}  ... {n - len(shown)} more")
        return lines
    assert node.text is not None
    if kind in ("$", "!", "="):
        text = node.text
        if len(text) > 400:
            lines.append(f"{pad}{kind}{len(text)} {_quote(text[:400])}... ({name})")
        else:
            lines.append(f"{pad}{kind}{len(text)} {_quote(text)} ({name})")
    else:
        lines.append(f"{pad}{kind}{_quote(node.text)[1:-1]} ({name})")
    return lines


def to_python(node: Reply):
    """Convert to plain Python values (bytes, int, float, bool, None, list, dict, set)."""
    kind = node.kind
    if node.null or kind == "_":
        return None
    if node.items is not None:
        vals = [to_python(i) for i in node.items]
        if kind in ("%", "|"):
            return {_hashable(vals[i]): vals[i + 1] for i in range(0, len(vals), 2)}
        if kind == "~":
            return {_hashable(v) for v in vals}
        return vals
    assert node.text is not None
    if kind in (":", "("):
        return int(node.text)
    if kind == ",":
        return float(node.text)
    if kind == "#":
        return node.text == b"t"
    if kind == "=":
        return node.text[4:]
    return node.text


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((_hashable(k), _hashable(x)) for k, x in v.items()))
    if isinstance(v, set):
        return frozenset(v)
    return v
