"""Shrinking a failing sequence to a minimal reproducer, printed as a differential script.

`shrink()` is delta debugging (ddmin) over the command list: the sequence is first cut after
the differing step, then chunks and single commands are removed while the run still shows an
unexplained difference at the same command (same name and subcommand). Every attempt runs on
a new connection to each server after FLUSHALL (the fuzzer touches nothing FLUSHALL leaves
behind); the result is confirmed on freshly started servers by the differential runner itself,
as the script it prints, so the script is ready to paste into tests/differential/scripts/.
"""

from __future__ import annotations

from pathlib import Path

from ..resp import _quote
from ..script import parse_script_text
from .matchers import Matcher
from .run import run_sequence

MAX_ATTEMPTS = 400


def _signature(argv: list[bytes]) -> tuple[bytes, ...]:
    if argv and argv[0].upper() in (b"XINFO", b"XGROUP") and len(argv) > 1:
        return (argv[0].upper(), argv[1].upper())
    return (argv[0].upper(),) if argv else ()


def shrink(cmds: list[list[bytes]], index: int, streamd, redis, proto: int,
           matchers: list[Matcher]) -> list[list[bytes]]:
    want = _signature(cmds[index])
    attempts = 0

    def fails(candidate: list[list[bytes]]) -> bool:
        nonlocal attempts
        attempts += 1
        if not candidate:
            return False
        d = run_sequence(candidate, streamd, redis, proto, matchers).difference
        return d is not None and _signature(d.argv) == want

    items = cmds[: index + 1]
    n = 2
    while len(items) >= 2 and attempts < MAX_ATTEMPTS:
        chunk = -(-len(items) // n)
        parts = [items[i:i + chunk] for i in range(0, len(items), chunk)]
        for k in range(len(parts)):
            complement = [c for j, p in enumerate(parts) if j != k for c in p]
            if fails(complement):
                items, n = complement, max(n - 1, 2)
                break
        else:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    # What still fails may have trailing commands after the differing one.
    d = run_sequence(items, streamd, redis, proto, matchers).difference
    if d is not None:
        items = items[: d.index + 1]
    return items


def _keys_and_groups(cmds: list[list[bytes]]) -> tuple[list[bytes], list[tuple[bytes, bytes]]]:
    keys, groups = [], []
    for argv in cmds:
        name = argv[0].upper()
        if name in (b"XADD", b"XTRIM", b"XDEL", b"XSETID") and len(argv) > 1:
            keys.append(argv[1])
        elif name == b"XGROUP" and len(argv) > 3 and argv[1].upper() in (b"CREATE", b"SETID"):
            keys.append(argv[2])
            groups.append((argv[2], argv[3]))
        elif name in (b"XCLAIM", b"XAUTOCLAIM", b"XACK", b"XPENDING") and len(argv) > 2:
            groups.append((argv[1], argv[2]))
        elif name == b"XREADGROUP" and len(argv) > 2 and b"STREAMS" in argv:
            for k in argv[argv.index(b"STREAMS") + 1:][:1]:
                groups.append((k, argv[2]))
    return list(dict.fromkeys(keys)), list(dict.fromkeys(groups))


def clean_probe(cmds: list[list[bytes]], streamd, redis, proto: int,
                matchers: list[Matcher]) -> list[list[bytes]]:
    """A reproducer whose last reply also carries intended differences (it is explained in
    part by a row, e.g. XINFO STREAM FULL's 8.8 fields) cannot pass against 7.0.15 even once the
    bug is fixed. Try plain reads in its place (XPENDING, XRANGE, XINFO CONSUMERS/GROUPS) that
    no matcher covers and that still show a difference; keep the original if none does."""
    from .matchers import command_line

    last = command_line(cmds[-1])
    if not any(m.command.search(last) for m in matchers):
        return cmds
    keys, groups = _keys_and_groups(cmds[:-1])
    probes = [[b"XPENDING", k, g, b"-", b"+", b"100"] for k, g in groups]
    probes += [[b"XPENDING", k, g] for k, g in groups]
    probes += [[b"XRANGE", k, b"-", b"+"] for k in keys]
    probes += [[b"XINFO", b"CONSUMERS", k, g] for k, g in groups]
    probes += [[b"XINFO", b"GROUPS", k] for k in keys]
    probes += [[b"XLEN", k] for k in keys]
    for probe in probes:
        if any(m.command.search(command_line(probe)) for m in matchers):
            continue
        candidate = cmds[:-1] + [probe]
        if run_sequence(candidate, streamd, redis, proto, matchers).difference is not None:
            return candidate
    return cmds


def quote_arg(a: bytes) -> str:
    """redis-cli quoting (script.split_args reads it back)."""
    plain = a and all(0x21 <= c < 0x7F and c not in b"\"'\\" for c in a)
    return a.decode("ascii") if plain else _quote(a)


def script_masks(argv: list[bytes]) -> list[str]:
    """The masks a differential script needs for what is volatile in this command's reply
    (the fuzzer's normalisation, as close as the script masks can say it)."""
    cmd = argv[0].upper()
    sub = argv[1].upper() if len(argv) > 1 else b""
    if cmd == b"XINFO" and sub == b"CONSUMERS":
        return ["fields:idle,inactive"]
    if cmd == b"XINFO" and sub == b"STREAM":
        if any(a.upper() == b"FULL" for a in argv[3:4]):
            # seen/active/delivery times are Unix ms; a time-ordered script keeps counts exact
            return ["fields:radix-tree-nodes,seen-time,active-time",
                    "range:1000000000000:99999999999999"]
        return ["fields:radix-tree-nodes"]
    if cmd == b"XPENDING" and len(argv) > 3:
        return ["column:2"]  # the idle time of each entry
    return []


def render_script(cmds: list[list[bytes]], title: str, protocols: tuple[int, ...],
                  server_args: list[str] = ()) -> str:
    lines = [f"# {title}"]
    if protocols != (2, 3):
        lines.append("!protocols " + " ".join(map(str, protocols)))
    if server_args:
        lines.append("!server-args " + " ".join(server_args))
    generated = False
    for argv in cmds:
        if not generated and argv[0].upper() == b"XADD" and b"*" in argv[2:]:
            lines.append("!masks ids")  # generated IDs from here on
            generated = True
        masks = script_masks(argv)
        if masks:
            lines.append("!mask " + " ".join(masks))
        lines.append(" ".join(quote_arg(a) for a in argv))
    return "\n".join(lines) + "\n"


def confirm_script(text: str, protocols: tuple[int, ...], self_test: bool = False) -> list[str]:
    """Run the script with the differential runner on fresh servers; its problems."""
    from ..differential import ServerPair, run_script

    script = parse_script_text("!fresh\n" + text, Path("fuzz_reproducer.txt"))
    pair = ServerPair(selftest=self_test)
    try:
        return [p for proto in protocols for p in run_script(script, proto, pair)]
    finally:
        pair.stop()
