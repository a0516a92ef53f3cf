#!/usr/bin/python3
"""Differential check of streamd's RequestParser against redis-server.

Generates byte streams of RPUSH commands (multibulk and inline, with quoting), damages some of
them (bytes replaced, inserted, dropped), sends each stream to a fresh redis-server connection
and feeds it to parse_stdin (the parser on stdin). Compared: the protocol error text (or its
absence, i.e. Redis keeps waiting) and the values that reached list `k`, which tells which
arguments Redis parsed. Each stream is sent in one write and stays far below 16KB, so Redis reads
it in one piece, as parse_stdin does.

  tests/fuzz/parser_vs_redis.py [--cases N] [--seed S] [--driver PATH]

Without --driver, parse_stdin is compiled with g++ into a temporary folder. Starts its own
redis-server instances (one with requirepass, for the unauthenticated limits) on free ports.
"""
import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(extra):
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", *extra],
        stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


def mb(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def exchange(port, data, idle=0.15):
    """Sends data, reads replies until the server closes or stays quiet; returns (bytes, closed)."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(idle)
    s.sendall(data)
    out, closed = b"", False
    while True:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        out += chunk
    s.close()
    return out, closed


def read_array(port, command):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(5)
    s.sendall(command)
    buf = b""

    def need(n):
        nonlocal buf
        while len(buf) < n:
            buf += s.recv(65536)

    def line():
        nonlocal buf
        while b"\r\n" not in buf:
            buf += s.recv(65536)
        head, buf = buf.split(b"\r\n", 1)
        return head

    head = line()
    if head.startswith(b"+") or head.startswith(b":"):
        head = line()
    assert head.startswith(b"*"), head
    values = []
    for _ in range(int(head[1:])):
        n = int(line()[1:])
        need(n + 2)
        values.append(buf[:n])
        buf = buf[n + 2:]
    s.close()
    return values


def run_driver(driver, data, unauth):
    out = subprocess.run([driver] + (["--unauth"] if unauth else []), input=data,
                         stdout=subprocess.PIPE, check=True).stdout
    commands, error = [], None
    for ln in out.split(b"\n"):
        if ln.startswith(b"C"):
            commands.append([bytes.fromhex(h.decode()) for h in ln.split(b" ")[1:]])
        elif ln.startswith(b"E "):
            error = ln[2:]
    return commands, error


def pushed_values(commands):
    values = []
    for c in commands:
        if len(c) >= 3 and c[0].lower() == b"rpush" and c[1] == b"k":
            values.extend(c[2:])
    return values


INTERESTING = [b"\r", b"\n", b"\0", b"$", b"*", b"\"", b"'", b"\\", b" ", b"\t", b"\x0b",
               b"-", b"0", b"1", b"9", b"x", b"a", b"\xff"]


def random_value(rng):
    kind = rng.randrange(4)
    if kind == 0:
        return b""
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))
    return bytes(rng.choice(b"abcXYZ019 \t'\"\\") for _ in range(rng.randrange(1, 12)))


def inline_quote(rng, value):
    if rng.randrange(4) == 0:  # raw: whatever Redis makes of it, the parser must make too
        return value
    if value and all(c in b"abcXYZ019" for c in value) and rng.randrange(2):
        return value
    if rng.randrange(3) == 0 and b"'" not in value and b"\\" not in value:
        return b"'" + value + b"'"
    out = b"\""
    for c in value:
        ch = bytes([c])
        if ch in (b"\"", b"\\"):
            out += b"\\" + ch
        elif 32 < c < 127 and rng.randrange(3):
            out += ch
        else:
            out += b"\\x%02x" % c
    return out + b"\""


def random_stream(rng):
    data = b""
    for _ in range(rng.randrange(1, 6)):
        values = [random_value(rng) for _ in range(rng.randrange(1, 4))]
        kind = rng.randrange(10)
        if kind < 5:
            data += mb(b"RPUSH", b"k", *values)
        elif kind < 9:
            sep = lambda: rng.choice([b" ", b"  ", b"\t", b" \x0b ", b"\x0b", b"\x0c", b"\r"])
            line = b"RPUSH" + sep() + b"k"
            for v in values:
                line += sep() + inline_quote(rng, v)
            data += line + rng.choice([b"\r\n", b"\n", b"\r\r\n"])
        else:
            data += rng.choice([b"\r\n", b"*0\r\n", b"*-1\r\n", b"\n"])
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        pos = rng.randrange(len(data) + 1)
        op = rng.randrange(3)
        byte = rng.choice(INTERESTING)
        if op == 0 and pos < len(data):
            data = data[:pos] + byte + data[pos + 1:]
        elif op == 1:
            data = data[:pos] + byte + data[pos:]
        elif pos < len(data):
            data = data[:pos] + data[pos + 1:]
    return data


FIXED = [
    b"*abc\r\n", b"*\r\n", b"*01\r\n", b"*+1\r\n", b"*-0\r\n", b"* 1\r\n", b"*1 \r\n", b"*1a\r\n",
    b"*--1\r\n", b"*-\r\n", b"*2147483648\r\n", b"*-9223372036854775809\r\n",
    b"*99999999999999999999999\r\n", b"*1\n$4\r\nPING\r\n", b"*1\r\n$ 1\r\n", b"*1\r\n$1 \r\n",
    b"*1\r\n$4\nPING\r\n", b"*1\r\n$9223372036854775808\r\n", b"*2\r\n$1\r\na\r\n:1\r\n",
    b"*1\r\n*1\r\n", b"*1\r\n\n\r\n", b"*1\r\n\r\n", b"\x0b\x0c\nPING\r\n",
    b" *1\r\n$4\r\nPING\r\n", b"RPUSH k \"\r\n", b"RPUSH k '\r\n", b"RPUSH k \"a\" \"b\r\n",
    b"RPUSH k x 'y' z'\r\n", b"RPUSH k '' \"\" x\r\n", b"*1\r\n$1\0" + b"1" * 65530,
    b"*" + b"1" * 65535, b"*" + b"1" * 65536, b"a" * 65536, b"a" * 65537,
    b"*1\r\n$" + b"1" * 65535, b"*1\r\n$" + b"1" * 65536,
]


STATS = {"errors": 0, "no error": 0, "values pushed": 0}


def check(driver, port, data, unauth):
    if not unauth:
        exchange(port, mb(b"DEL", b"k"))
    reply, closed = exchange(port, data)
    commands, error = run_driver(driver, data, unauth)
    problems = []
    STATS["errors" if error else "no error"] += 1
    redis_error = None
    if closed:
        last = reply.rstrip(b"\r\n").split(b"\r\n")[-1]
        redis_error = last[1:] if last.startswith(b"-") else b"<closed without error>"
    if redis_error != error:
        problems.append("error: redis %r, parser %r" % (redis_error, error))
    if not unauth:
        got = read_array(port, mb(b"LRANGE", b"k", b"0", b"-1"))
        want = pushed_values(commands)
        STATS["values pushed"] += len(want)
        if got != want:
            problems.append("list k: redis %r, parser %r" % (got[:8], want[:8]))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--driver")
    opts = ap.parse_args()

    tmp = tempfile.mkdtemp()
    driver = opts.driver
    if not driver:
        driver = os.path.join(tmp, "parse_stdin")
        subprocess.run(["g++", "-std=c++20", "-O2", "-I" + os.path.join(ROOT, "include"),
                        os.path.join(ROOT, "tests/fuzz/parse_stdin.cc"),
                        os.path.join(ROOT, "src/resp/request_parser.cc"), "-o", driver],
                       check=True)
    plain, plain_port = start_redis([])
    auth, auth_port = start_redis(["--requirepass", "secret"])
    failures = 0
    try:
        rng = random.Random(opts.seed)
        cases = [(d, False) for d in FIXED] + [(d, True) for d in FIXED]
        cases += [(random_stream(rng), rng.randrange(8) == 0) for _ in range(opts.cases)]
        for data, unauth in cases:
            problems = check(driver, auth_port if unauth else plain_port, data, unauth)
            if problems:
                failures += 1
                print("MISMATCH%s %r" % (" (unauthenticated)" if unauth else "", data[:200]))
                for p in problems:
                    print("   ", p)
        print("%d cases (%s), %d mismatches" % (
            len(cases), ", ".join("%s: %d" % kv for kv in STATS.items()), failures))
    finally:
        for proc in (plain, auth):
            proc.terminate()
            proc.wait()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
