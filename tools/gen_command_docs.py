#!/usr/bin/python3
"""Generate the command documentation data streamd serves, from a real redis-server 7.0.15.

Two outputs, both checked in and reproducible (run again to refresh them):

* src/commands/docs/command_docs_data_1.cc ... _4.cc (one table in four files, to keep each under
  800 lines): for every command and subcommand name in streamd's command table, the RESP3 bytes Redis sends for it in COMMAND DOCS (the doc map's pairs, without
  "subcommands": streamd adds those from its own table) and the tail of its COMMAND INFO entry
  (the tips and key specs, which the table does not carry). Entries are sorted by name, each
  command followed by its subcommands: redis-server lists commands in the order of a hash table
  with a random per-process seed, so there is no stable Redis order to copy, and a sorted file
  regenerates byte for byte.
* tests/data/redis_command_list.txt: one line per command and subcommand Redis 7.0.15 knows, with
  its arity, flags, key positions and ACL categories; tests/unit/commands/command_table_test.cc
  checks every row of streamd's table against it.

The names come from tools/command_docs_names.txt (one full name per line: "get",
"client|list"): every command and subcommand streamd's table has or is about to have. When you add
a row to the table, add its name there and run this script again
(tests/unit/commands/command_table_test.cc fails for an undocumented row). redis-server is
started on a free port in a temporary directory (or reached with --redis-port).

    /usr/bin/python3 tools/gen_command_docs.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REDIS_SERVER = os.environ.get("REDIS_SERVER_BIN", "/usr/bin/redis-server")
EXPECTED_VERSION = "7.0.15"


# --- a minimal RESP3 reader that keeps the raw bytes of every value ---------------------------


class Value:
    """A decoded RESP3 value with the byte range it occupies in the reply."""

    def __init__(self, kind: str, data, start: int, end: int):
        self.kind = kind  # one of + - : $ * % ~ _ # , = ( >
        self.data = data  # bytes, int, or a list of Values (maps: flat key/value list)
        self.start = start
        self.end = end

    def text(self) -> str:
        assert self.kind in "+$=", self.kind
        return self.data.decode()

    def pairs(self):
        assert self.kind == "%"
        items = self.data
        return [(items[i], items[i + 1]) for i in range(0, len(items), 2)]


def parse(buf: bytes, pos: int = 0) -> Value:
    """Parses one value at pos; raises IndexError when the buffer is incomplete."""
    start = pos
    kind = chr(buf[pos])
    eol = buf.index(b"\r\n", pos)
    head = buf[pos + 1 : eol]
    pos = eol + 2
    if kind in "+-":
        return Value(kind, head, start, pos)
    if kind in ":(":
        return Value(kind, int(head), start, pos)
    if kind in ",#_":
        return Value(kind, head, start, pos)
    if kind in "$=":
        n = int(head)
        if n < 0:
            return Value("_", b"", start, pos)
        if len(buf) < pos + n + 2:
            raise IndexError("incomplete")
        return Value(kind, buf[pos : pos + n], start, pos + n + 2)
    if kind in "*%~>":
        n = int(head)
        count = n * 2 if kind == "%" else n
        items = []
        for _ in range(max(count, 0)):
            v = parse(buf, pos)
            items.append(v)
            pos = v.end
        return Value(kind, items, start, pos)
    raise ValueError(f"unexpected RESP type {kind!r}")


class Conn:
    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)

    def call(self, *args: str) -> tuple[Value, bytes]:
        out = b"*%d\r\n" % len(args)
        for a in args:
            b = a.encode()
            out += b"$%d\r\n%s\r\n" % (len(b), b)
        self.sock.sendall(out)
        buf = b""
        while True:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            buf += chunk
            try:
                v = parse(buf)
            except (IndexError, ValueError):
                continue
            if v.end == len(buf):
                return v, buf


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{what} exited with status {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"{what} did not start listening on port {port}")


def start(argv: list[str], port: int, workdir: str, what: str) -> subprocess.Popen:
    log = open(os.path.join(workdir, what + ".log"), "wb")
    proc = subprocess.Popen(argv, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
    wait_port(port, proc, what)
    return proc


# --- collecting ---------------------------------------------------------------------------------


class Entry:
    def __init__(self, name: str):
        self.name = name
        self.info_tail = b""  # RESP3: tips, key specs
        self.doc_pairs = 0
        self.doc_body = b""  # RESP3: doc map pairs without "subcommands"
        self.list_line = ""  # the redis_command_list.txt line


def collect(conn: Conn) -> list[Entry]:
    info, raw = conn.call("COMMAND")
    docs, draw = conn.call("COMMAND", "DOCS")
    doc_by_name: dict[str, tuple[int, bytes]] = {}

    def add_docs(name: str, m: Value) -> None:
        body = b""
        n = 0
        for k, v in m.pairs():
            if k.text() == "subcommands":
                for sk, sv in v.pairs():
                    add_docs(sk.text(), sv)
                continue
            body += draw[k.start : v.end]
            n += 1
        doc_by_name[name] = (n, body)

    for k, v in docs.pairs():
        add_docs(k.text(), v)

    entries: list[Entry] = []

    def add_info(item: Value) -> None:
        f = item.data
        name = f[0].text()
        e = Entry(name)
        e.info_tail = raw[f[7].start : f[8].end]
        e.doc_pairs, e.doc_body = doc_by_name.get(name, (0, b""))
        flags = ",".join(x.text() for x in f[2].data) or "-"
        acl = ",".join(x.text() for x in f[6].data) or "-"
        e.list_line = f"{name} {f[1].data} {flags} {f[3].data} {f[4].data} {f[5].data} {acl}"
        entries.append(e)
        if f[9].kind in "*~":
            for sub in f[9].data:
                add_info(sub)

    for item in info.data:
        add_info(item)
    return entries


# --- writing ------------------------------------------------------------------------------------


def cxx_literal(data: bytes, indent: str) -> str:
    """Adjacent C++ string literals (split into lines) with an sv suffix; octal escapes are always
    three digits so they never swallow a following digit."""
    pieces = []
    cur = ""
    for b in data:
        c = chr(b)
        if c == "\\":
            s = "\\\\"
        elif c == '"':
            s = '\\"'
        elif c == "\r":
            s = "\\r"
        elif c == "\n":
            s = "\\n"
        elif 32 <= b < 127:
            s = c
        else:
            s = "\\%03o" % b
        cur += s
        if c == "\n" and len(cur) > 60:
            pieces.append(cur)
            cur = ""
    if cur or not pieces:
        pieces.append(cur)
    return ("\n" + indent).join(f'"{p}"' for p in pieces) + "sv"


# The table is split over this many files (command_docs_internal.h declares one span per part).
DATA_PARTS = 4
MAX_FILE_LINES = 800


def entry_lines(e: Entry) -> list[str]:
    ind = " " * 4
    return [f'  {{"{e.name}"sv,',
            ind + cxx_literal(e.info_tail, ind) + ",",
            f"    {e.doc_pairs},",
            ind + cxx_literal(e.doc_body, ind) + "},"]


def write_data(out_dir: Path, entries: list[Entry], version: str) -> None:
    blocks = [entry_lines(e) for e in entries]
    total = sum(len("\n".join(b).splitlines()) for b in blocks)
    parts: list[list[list[str]]] = [[] for _ in range(DATA_PARTS)]
    done = 0
    for b in blocks:  # in order, each part about a third of the lines
        lines = len("\n".join(b).splitlines())
        parts[min(DATA_PARTS - 1, done * DATA_PARTS // total)].append(b)
        done += lines
    for n, part in enumerate(parts, start=1):
        out = [
            f"// GENERATED by tools/gen_command_docs.py from redis-server {version}: do not edit.",
            f"// Part {n} of {DATA_PARTS} of the table: for each command and subcommand in streamd's",
            "// table, sorted by name, the tail of its COMMAND INFO entry (tips, key specs) and its",
            "// COMMAND DOCS map without \"subcommands\", both as the RESP3 bytes Redis sends",
            "// (transcoded at reply time, so RESP2 degrades).",
            "// clang-format off",
            '#include "command_docs_internal.h"',
            "",
            "namespace streamd::cmd::docs {",
            "",
            "using namespace std::string_view_literals;",
            "",
            "namespace {",
            "",
            "const RawDoc kPart[] = {",
        ]
        for b in part:
            out += b
        out += [
            "};",
            "",
            "}  // namespace",
            "",
            f"const std::span<const RawDoc> kGeneratedDocs{n}(kPart);",
            "",
            "}  // namespace streamd::cmd::docs",
            "",
        ]
        text = "\n".join(out)
        lines = len(text.splitlines())
        if lines > MAX_FILE_LINES:
            sys.exit(f"part {n} has {lines} lines: raise DATA_PARTS (and the spans in "
                     "command_docs_internal.h and command_docs.cc)")
        (out_dir / f"command_docs_data_{n}.cc").write_text(text)


def write_list(path: Path, entries: list[Entry], version: str) -> None:
    lines = [
        f"# GENERATED by tools/gen_command_docs.py from redis-server {version}'s COMMAND: do not edit.",
        "# name arity flags first-key last-key step acl-categories (comma separated, '-' if none)",
    ]
    lines += sorted(e.list_line for e in entries)
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--names-file", default=str(ROOT / "tools/command_docs_names.txt"),
                    help="names to document, one per line (default tools/command_docs_names.txt)")
    ap.add_argument("--redis-port", type=int, help="use a redis-server already listening here")
    ap.add_argument("--data-dir", default=str(ROOT / "src/commands/docs"),
                    help="where command_docs_data_<n>.cc go (default src/commands/docs)")
    ap.add_argument("--list-out", default=str(ROOT / "tests/data/redis_command_list.txt"))
    args = ap.parse_args()

    names_set = set()
    for line in Path(args.names_file).read_text().splitlines():
        line = line.split("#", 1)[0].strip().lower()
        if line:
            names_set.add(line)

    tmp = None
    proc = None
    port = args.redis_port
    if port is None:
        tmp = tempfile.mkdtemp(prefix="gen-docs-redis-")
        port = free_port()
        proc = start([REDIS_SERVER, "--port", str(port), "--save", "", "--appendonly", "no",
                      "--dir", tmp], port, tmp, "redis-server")
    try:
        conn = Conn(port)
        hello, _ = conn.call("HELLO", "3")
        version = dict((k.text(), v) for k, v in hello.pairs())["version"].text()
        if version != EXPECTED_VERSION:
            sys.exit(f"redis-server is {version}, expected {EXPECTED_VERSION}")
        entries = collect(conn)
    finally:
        if proc:
            proc.terminate()
            proc.wait(10)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    known = {e.name for e in entries}
    unknown = sorted(names_set - known)
    if unknown:
        print("not in redis-server " + version + " (they need hand-written entries in "
              "src/commands/docs/command_docs_extra.cc): " + " ".join(unknown), file=sys.stderr)
    def sort_key(e: Entry):
        top, _, sub = e.name.partition("|")
        return (top, sub)

    chosen = sorted((e for e in entries if e.name in names_set), key=sort_key)
    write_data(Path(args.data_dir), chosen, version)
    write_list(Path(args.list_out), entries, version)
    print(f"{args.data_dir}/command_docs_data_*.cc: {len(chosen)} entries; {args.list_out}: "
          f"{len(entries)} commands")


if __name__ == "__main__":
    main()
