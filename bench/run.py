#!/usr/bin/python3
"""Benchmarks streamd against redis-server in one run and reports ratios.

Each workload runs against both servers, alternating which goes first, REPEAT times; every
run starts a fresh server pinned to one core (taskset -c SERVER_CORE) while the load generator
(build/streamd-loadgen) runs pinned to the other core. The table shows medians and the ratio
streamd / redis-server (for throughput: higher is better; for latency and bytes: lower is better).

Usage:
  bench/run.py [--build build] [--repeat 3] [--rt PRIO] [--only xadd,memory,rewrite,idmp] [--markdown out.md]
  bench/run.py --only claim [--claim-pel 100000 --claim-idle 100 --claim-rounds 30]
    (XREADGROUP CLAIM vs XAUTOCLAIM + XREADGROUP on streamd alone: redis-server 7.0.15 has no
    CLAIM; reports the latency ratio)
Nothing here is a test: numbers are measured and printed, never asserted.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SERVER_CORE = "0"
LOAD_CORE = "1"
# --rt PRIO: both servers and the load generator run under SCHED_FIFO at PRIO (chrt -f), so the
# builds and tests other people run on these two cores cannot take the CPU from them in the
# middle of a measurement (the kernel's RT throttling still leaves others 5% of each second).
RT_PREFIX = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_info(text):
    """INFO's reply as a dict of its `field:value` lines."""
    fields = {}
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            fields[k] = v.strip()
    return fields


class Server:
    # prefix: a command the server runs under (bench/pipeline_cost.py: valgrind), which then
    # starts more slowly.
    # core: where it runs (bench/replication.py puts replicas on the load generator's core).
    # dir: the data directory (bench/rdb.py starts servers on a saved dump.rdb); a fresh
    # temporary one by default. Either way stop() removes it.
    def __init__(self, kind, binary, extra=(), prefix=(), start_timeout=10, core=SERVER_CORE,
                 dir=None):
        self.kind = kind
        self.port = free_port()
        self.dir = dir or tempfile.mkdtemp(prefix=f"bench-{kind}-")
        args = [binary, "--port", str(self.port), "--dir", self.dir, "--appendonly", "no"]
        if kind == "redis":
            args += ["--save", ""]
        args += list(extra)
        self.proc = subprocess.Popen(RT_PREFIX + ["taskset", "-c", core] + list(prefix)
                                     + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_ready(time.time() + start_timeout)

    def wait_ready(self, deadline):
        """Returns once the server answers PING with PONG (bench/rdb.py times this closer)."""
        while time.time() < deadline:
            try:
                if self.command("PING") == "PONG":
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{self.kind} did not start")

    def command(self, *args):
        out = subprocess.run(["redis-cli", "-p", str(self.port)] + list(args),
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise OSError(out.stderr)
        return out.stdout.strip()

    def info(self, section="memory"):
        return parse_info(self.command("INFO", section))

    def cpu_seconds(self):
        """User + system CPU time the server has used so far."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss(self):
        # The server is the taskset child: its pid is the Popen pid (taskset execs).
        with open(f"/proc/{self.proc.pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def stop(self):
        try:
            self.command("SHUTDOWN", "NOSAVE")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def loadgen(build, port, *args):
    cmd = RT_PREFIX + ["taskset", "-c", LOAD_CORE, os.path.join(build, "streamd-loadgen"),
           "--port", str(port)] + [str(a) for a in args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode not in (0,):
        raise RuntimeError(f"loadgen failed: {' '.join(cmd)}\n{out.stdout}{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


FIELDS5 = []
for i in range(5):
    FIELDS5 += [f"field{i}", "v" * 16]


def preload(build, srv, n, key="bench:stream"):
    loadgen(build, srv.port, "--clients", 1, "--pipeline", 256, "--requests", n,
            "--", "XADD", key, "__seq__-1", "temperature", "23.5")


def pel(build, srv, n, key="bench:stream"):
    """A stream of n entries (IDs 1-1 .. n-1) all pending for consumer "c" of group "g"."""
    preload(build, srv, n, key)
    srv.command("XGROUP", "CREATE", key, "g", "0")
    loadgen(build, srv.port, "--clients", 1, "--pipeline", 100, "--requests", (n + 999) // 1000,
            "--", "XREADGROUP", "GROUP", "g", "c", "COUNT", 1000, "STREAMS", key, ">")


def pending_stream(build, srv, entries=1000000, pending=100000, key="bench:stream"):
    """bench/replication.py's full-sync and bench/rdb.py's dataset: `entries` entries with IDs
    1-1 .. entries-1 and one field (temperature 23.5), a group "g" created at 0 whose consumer
    "c" read the first `pending` of them (one XREADGROUP COUNT pending, never acknowledged)."""
    preload(build, srv, entries, key)
    srv.command("XGROUP", "CREATE", key, "g", "0")
    subprocess.run(["redis-cli", "-p", str(srv.port), "XREADGROUP", "GROUP", "g", "c", "COUNT",
                    str(pending), "STREAMS", key, ">"], stdout=subprocess.DEVNULL, check=True,
                   timeout=120)


def group_on_1m(build, srv, n=1000000):
    preload(build, srv, n)
    srv.command("XGROUP", "CREATE", "bench:stream", "g", "0")


def pel_consumers(build, srv, n, consumers, key="bench:stream"):
    """A stream of n entries all pending in group "g", read COUNT 100 by `consumers` consumers
    (c0, c1, ...) side by side."""
    preload(build, srv, n, key)
    srv.command("XGROUP", "CREATE", key, "g", "0")
    loadgen(build, srv.port, "--clients", consumers, "--requests", (n + 99) // 100, "--",
            "XREADGROUP", "GROUP", "g", "c__client__", "COUNT", 100, "STREAMS", key, ">")


XCLAIM10 = ["XCLAIM", "bench:stream", "g", "claimer__client__", "0"] + ["__rand__-1"] * 10

# The AOF with the same settings on both servers (Redis writes RESP only, as streamd does).
def aof_args(policy):
    return {"streamd": ["--appendonly", "yes", "--appendfsync", policy],
            "redis": ["--appendonly", "yes", "--appendfsync", policy,
                      "--aof-use-rdb-preamble", "no"]}


# name → (description, setup(build, srv) or None, loadgen args, metric, higher_is_better
#         [, {server kind: extra server arguments}])
WORKLOADS = {
    "xadd": ("XADD 1 field, 50 conns, unpipelined", None,
             ["--clients", 50, "--requests", 300000, "--", "XADD", "bench:s", "*", "temperature",
              "23.5"], "ops_per_sec", True),
    "xadd5": ("XADD 5×16B fields, 50 conns, unpipelined", None,
              ["--clients", 50, "--requests", 300000, "--", "XADD", "bench:s", "*"] + FIELDS5,
              "ops_per_sec", True),
    "xadd_p32": ("XADD 1 field, 50 conns, pipeline 32", None,
                 ["--clients", 50, "--pipeline", 32, "--requests", 2000000, "--", "XADD",
                  "bench:s", "*", "temperature", "23.5"], "ops_per_sec", True),
    "xadd5_p32": ("XADD 5×16B fields, 50 conns, pipeline 32", None,
                  ["--clients", 50, "--pipeline", 32, "--requests", 1000000, "--", "XADD",
                   "bench:s", "*"] + FIELDS5, "ops_per_sec", True),
    # Issue 16 item 3's pipelined workloads (with xadd_p32 above): the command's own cost is most
    # of the server's work here, so these are the rows user-space speed shows in.
    "xadd_keys_p32": ("XADD 1 field to 10,000 keys at random, 50 conns, pipeline 32", None,
                      ["--clients", 50, "--pipeline", 32, "--requests", 2000000, "--keyspace",
                       10000, "--", "XADD", "bench:s:__rand__", "*", "temperature", "23.5"],
                      "ops_per_sec", True),
    "xpending_summary_p32": ("XPENDING g (summary), 100k-entry PEL of 10 consumers, 50 conns, "
                             "pipeline 32", lambda b, s: pel_consumers(b, s, 100000, 10),
                             ["--clients", 50, "--pipeline", 32, "--requests", 2000000, "--",
                              "XPENDING", "bench:stream", "g"], "ops_per_sec", True),
    "xreadgroup_block_p32": ("XREADGROUP COUNT 1 BLOCK 1000 on a 1M-entry stream (served at "
                             "once), 200 conns, pipeline 32", group_on_1m,
                             ["--clients", 200, "--pipeline", 32, "--requests", 900000, "--",
                              "XREADGROUP", "GROUP", "g", "c__client__", "COUNT", 1, "BLOCK",
                              1000, "STREAMS", "bench:stream", ">"], "ops_per_sec", True),
    "consume_p32": ("consume cycle pipelined: 32 × XREADGROUP COUNT 10, then their 32 XACKs, "
                    "1M-entry stream, 50 consumers (cycles/s)", group_on_1m,
                    ["--mode", "consume", "--clients", 50, "--pipeline", 32, "--requests",
                     96000, "--count", 10], "ops_per_sec", True),
    "xrange100": ("XRANGE COUNT 100 from random starts, 1M-entry stream, 50 conns",
                  lambda b, s: preload(b, s, 1000000),
                  ["--clients", 50, "--requests", 100000, "--keyspace", 999900, "--", "XRANGE",
                   "bench:stream", "__rand__", "+", "COUNT", "100"], "ops_per_sec", True),
    "fanout": ("XREAD BLOCK fan-out: 200 readers, 1 producer (deliveries/s)", None,
               ["--mode", "fanout", "--readers", 200, "--seconds", 5, "--rate", 2000],
               "deliveries_per_sec", True),
    # Issue 16's fan-out tail: a harness that alternates 250 ms slices between servers sees a
    # delivery late by a whole pause when the server acknowledges an XADD before the readers it
    # woke have their entry.
    "fanout_tail": ("XREAD COUNT 100 BLOCK 0 fan-out: 200 readers, one XADD always in flight, "
                    "250 ms slices and 250 ms pauses (p99.9 latency µs)", None,
                    ["--mode", "fanout", "--readers", 200, "--seconds", 5, "--rate", 0,
                     "--read-count", 100, "--slice-ms", 250, "--pause-ms", 250],
                    "p999_us", False),
    "fanout100": ("XREAD COUNT 100 BLOCK 0 fan-out: 200 readers, 100 XADD/s (p50 latency µs)",
                  None, ["--mode", "fanout", "--readers", 200, "--seconds", 5, "--rate", 100,
                         "--read-count", 100], "p50_us", False),
    # The same, with each delivery timed when it reached the reader's socket (the kernel's
    # receive timestamp) rather than when the load generator, one thread serving 200 readers in
    # turn, got to it: the server's own delivery latency.
    "fanout100_arrival": ("XREAD COUNT 100 BLOCK 0 fan-out: 200 readers, 100 XADD/s (p50 latency "
                          "µs at the reader's socket)",
                          None, ["--mode", "fanout", "--readers", 200, "--seconds", 5, "--rate",
                                 100, "--read-count", 100], "sock_p50_us", False),
    "pubsub1000": ("PUBLISH 64 B to 1,000 subscribers of one channel, 1 publisher, pipeline 32 "
                   "(deliveries/s)", None,
                   ["--mode", "pubsub", "--readers", 1000, "--channels", 1, "--clients", 1,
                    "--pipeline", 32, "--seconds", 5], "deliveries_per_sec", True),
    # The same at saturation: one publisher with 32 in flight waits, with 1,000 subscribers, for
    # the load generator to read every socket before it sends more (neither server is busy all
    # the time); 256 in flight keep the server's core full.
    "pubsub1000_p256": ("PUBLISH 64 B to 1,000 subscribers of one channel, 1 publisher, "
                        "pipeline 256 (deliveries/s)", None,
                        ["--mode", "pubsub", "--readers", 1000, "--channels", 1, "--clients", 1,
                         "--pipeline", 256, "--seconds", 5], "deliveries_per_sec", True),
    "pubsub50x50": ("PUBLISH 64 B: 50 publishers round-robin over 50 channels, 4 subscribers "
                    "each, unpipelined (deliveries/s)", None,
                    ["--mode", "pubsub", "--readers", 200, "--channels", 50, "--clients", 50,
                     "--seconds", 5], "deliveries_per_sec", True),
    "pubsub50x50_p16": ("PUBLISH 64 B: 50 publishers round-robin over 50 channels, 4 "
                        "subscribers each, pipeline 16 (deliveries/s)", None,
                        ["--mode", "pubsub", "--readers", 200, "--channels", 50, "--clients",
                         50, "--pipeline", 16, "--seconds", 5], "deliveries_per_sec", True),
    "consume": ("consume cycle: XREADGROUP COUNT 10 + XACK of those IDs, 1M-entry stream, "
                "50 consumers (cycles/s)", group_on_1m,
                ["--mode", "consume", "--clients", 50, "--requests", 60000, "--count", 10],
                "ops_per_sec", True),
    "xpending100": ("XPENDING g - + 100 from random starts, 100k-entry PEL, 50 conns",
                    lambda b, s: pel(b, s, 100000),
                    ["--clients", 50, "--requests", 100000, "--keyspace", 99900, "--",
                     "XPENDING", "bench:stream", "g", "__rand__", "+", "100"],
                    "ops_per_sec", True),
    "xautoclaim_walk": ("XAUTOCLAIM COUNT 100 walking a 100k-entry PEL by cursor, 10 conns",
                        lambda b, s: pel(b, s, 100000),
                        ["--clients", 10, "--requests", 50000, "--", "XAUTOCLAIM",
                         "bench:stream", "g", "walker__client__", "0", "__cursor__", "COUNT",
                         "100"], "ops_per_sec", True),
    "xclaim10": ("XCLAIM of 10 random IDs of a 100k-entry PEL, 50 conns",
                 lambda b, s: pel(b, s, 100000),
                 ["--clients", 50, "--requests", 200000, "--keyspace", 100000, "--"] + XCLAIM10,
                 "ops_per_sec", True),
    "xadd_always": ("XADD 1 field, 50 conns, unpipelined, appendfsync always", None,
                    ["--clients", 50, "--requests", 100000, "--", "XADD", "bench:s", "*",
                     "temperature", "23.5"], "ops_per_sec", True, aof_args("always")),
    "xadd_everysec": ("XADD 1 field, 50 conns, unpipelined, appendfsync everysec", None,
                      ["--clients", 50, "--requests", 300000, "--", "XADD", "bench:s", "*",
                       "temperature", "23.5"], "ops_per_sec", True, aof_args("everysec")),
    "xadd_p32_always": ("XADD 1 field, 50 conns, pipeline 32, appendfsync always", None,
                        ["--clients", 50, "--pipeline", 32, "--requests", 1000000, "--", "XADD",
                         "bench:s", "*", "temperature", "23.5"], "ops_per_sec", True,
                        aof_args("always")),
}


# Redis 8.6 idempotent production, on streamd only (redis-server 7.0.15 has no IDMP): the same
# XADD with and without IDMPAUTO / IDMP, every entry distinct (so nothing is a duplicate), 10
# producers. Redis reports a 2-5% throughput cost for IDMP.
IDMP_VARIANTS = {
    "plain": ["XADD", "bench:s", "*", "n", "__seq__", "temperature", "23.5"],
    "idmpauto": ["XADD", "bench:s", "IDMPAUTO", "producer-__rand__", "*", "n", "__seq__",
                 "temperature", "23.5"],
    "idmp": ["XADD", "bench:s", "IDMP", "producer-__rand__", "__seq__", "*", "n", "__seq__",
             "temperature", "23.5"],
}


def idmp_cost(build, binary, repeat, requests=300000, pipeline=1):
    """Median ops/s of each IDMP_VARIANTS entry on streamd, variants interleaved per repeat."""
    runs = {k: [] for k in IDMP_VARIANTS}
    for rep in range(repeat):
        names = list(IDMP_VARIANTS) if rep % 2 == 0 else list(reversed(IDMP_VARIANTS))
        for name in names:
            srv = Server("streamd", binary)
            try:
                r = loadgen(build, srv.port, "--clients", 50, "--pipeline", pipeline,
                            "--requests", requests, "--keyspace", 10, "--",
                            *IDMP_VARIANTS[name])
            finally:
                srv.stop()
            print(f"idmp {name} rep{rep} p{pipeline}: {r}", file=sys.stderr)
            runs[name].append(r["ops_per_sec"])
    return {k: statistics.median(v) for k, v in runs.items()}


def memory_per_entry(build, kind, binary, n=1000000):
    srv = Server(kind, binary)
    try:
        base_used = int(srv.info()["used_memory"])
        base_rss = srv.rss()
        loadgen(build, srv.port, "--clients", 1, "--pipeline", 256, "--requests", n,
                "--", "XADD", "mem:stream", "*", "temperature", "23.5")
        time.sleep(0.5)
        used = int(srv.info()["used_memory"])
        rss = srv.rss()
        return (used - base_used) / n, (rss - base_rss) / n
    finally:
        srv.stop()


def memory_per_subscription(kind, binary, clients=100, channels=1000, per_command=100):
    """Bytes per subscription: `clients` connections (connected before the baseline, so their
    own buffers do not count) each SUBSCRIBE to the same `channels` channels, `per_command`
    names per SUBSCRIBE; used_memory and RSS before and after."""
    srv = Server(kind, binary)
    socks = []
    try:
        for _ in range(clients):
            s = socket.create_connection(("127.0.0.1", srv.port))
            s.sendall(b"PING\r\n")
            assert s.recv(64) == b"+PONG\r\n"
            socks.append(s)
        time.sleep(0.2)
        base_used = int(srv.info()["used_memory"])
        base_rss = srv.rss()
        names = [f"mem:channel:{i}" for i in range(channels)]
        for s in socks:
            for at in range(0, channels, per_command):
                chunk = names[at:at + per_command]
                s.sendall(f"*{len(chunk) + 1}\r\n$9\r\nSUBSCRIBE\r\n".encode() + b"".join(
                    f"${len(n)}\r\n{n}\r\n".encode() for n in chunk))
                got = b""
                while got.count(b"subscribe") < len(chunk):
                    got += s.recv(1 << 16)
        time.sleep(0.5)
        used = int(srv.info()["used_memory"])
        rss = srv.rss()
        n = clients * channels
        return (used - base_used) / n, (rss - base_rss) / n
    finally:
        for s in socks:
            s.close()
        srv.stop()


# The ID patterns of the pending-entry measurements: one entry per millisecond (XADD at ordinary
# rates) and every entry in one millisecond (a burst: IDs that differ only in seq).
PENDING_IDS = {"spread": "__seq__-1", "one_ms": "1-__seq__"}


def memory_per_pending(build, kind, binary, n=1000000, consumers=1, ids="spread"):
    """Bytes per pending entry: used_memory after n entries are read into the PELs of
    `consumers` consumers (COUNT 1000 each read, the consumers reading side by side), minus
    used_memory with the same n entries and an empty group."""
    srv = Server(kind, binary)
    try:
        loadgen(build, srv.port, "--clients", 1, "--pipeline", 256, "--requests", n,
                "--", "XADD", "bench:stream", PENDING_IDS[ids], "temperature", "23.5")
        srv.command("XGROUP", "CREATE", "bench:stream", "g", "0")
        time.sleep(0.2)
        before = int(srv.info()["used_memory"])
        rss_before = srv.rss()
        consumer = "c" if consumers == 1 else "c__client__"
        loadgen(build, srv.port, "--clients", consumers, "--pipeline", 100 if consumers == 1 else 1,
                "--requests", n // 1000, "--", "XREADGROUP", "GROUP", "g", consumer, "COUNT", 1000,
                "STREAMS", "bench:stream", ">")
        time.sleep(0.5)
        pending = int(srv.command("XPENDING", "bench:stream", "g").split()[0])
        if pending != n:
            raise RuntimeError(f"{kind}: {pending} pending, expected {n}")
        return ((int(srv.info()["used_memory"]) - before) / n, (srv.rss() - rss_before) / n)
    finally:
        srv.stop()


class PauseProbe:
    """One connection sending PING back to back, remembering the slowest round trip (and when it
    happened): the longest pause a client sees."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.samples = []  # (start time, round trip seconds)
        self.stop = False

    def run(self):
        buf = b""
        while not self.stop:
            t0 = time.perf_counter()
            self.sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            while not buf.endswith(b"\r\n"):
                buf += self.sock.recv(64)
            self.samples.append((t0, time.perf_counter() - t0))
            buf = b""

    def worst(self, since=0.0, until=float("inf")):
        return max((rtt for t, rtt in self.samples if since <= t <= until), default=0.0)


def rewrite_pause(build, kind, binary, entries=1000000, pending=100000):
    """Longest PING round trip while BGREWRITEAOF compacts `entries` stream entries with
    `pending` of them pending in a group (and before it, for comparison)."""
    import threading
    srv = Server(kind, binary, aof_args("everysec")[kind] + ["--auto-aof-rewrite-percentage", "0"])
    try:
        loadgen(build, srv.port, "--clients", 1, "--pipeline", 256, "--requests", entries,
                "--", "XADD", "bench:stream", "*", "temperature", "23.5")
        srv.command("XGROUP", "CREATE", "bench:stream", "g", "0")
        subprocess.run(["redis-cli", "-p", str(srv.port), "XREADGROUP", "GROUP", "g", "c",
                        "COUNT", str(pending), "STREAMS", "bench:stream", ">"],
                       stdout=subprocess.DEVNULL, check=True, timeout=120)
        probe = PauseProbe(srv.port)
        t = threading.Thread(target=probe.run)
        t.start()
        time.sleep(1.0)
        start = time.perf_counter()
        srv.command("BGREWRITEAOF")
        while True:
            info = srv.info("persistence")
            if info.get("aof_rewrite_in_progress") == "0" and info.get("aof_rewrite_scheduled") == "0":
                break
            time.sleep(0.01)
        end = time.perf_counter()
        time.sleep(0.5)
        probe.stop = True
        t.join()
        base = sum(os.path.getsize(os.path.join(srv.dir, "appendonlydir", f))
                   for f in os.listdir(os.path.join(srv.dir, "appendonlydir")) if ".base." in f)
        return {"pause_ms": probe.worst(start, end + 0.1) * 1000,
                "baseline_ms": probe.worst(0, start) * 1000,
                "rewrite_s": end - start, "base_mb": base / 1e6,
                "fork_us": int(srv.info("stats").get("latest_fork_usec", "0") or 0)}
    finally:
        srv.stop()


def claim_vs_autoclaim(build, binary, pel_size=100000, idle=100, rounds=30):
    """Worker recovery loop on streamd only (redis-server 7.0.15 has no CLAIM): a `pel_size`-entry
    PEL where `idle` random entries are idle (delivered two minutes ago, the rest just now). Each
    round ages `idle` random entries (not timed), then times one worker pass that recovers them
    and reads new entries:
      CLAIM:      XREADGROUP GROUP g w COUNT idle CLAIM 60000 STREAMS s >        (one call)
      XAUTOCLAIM: XAUTOCLAIM s g w 60000 <cursor> COUNT idle until the cursor is 0-0 (COUNT×10
                  entries examined per call), then XREADGROUP GROUP g w COUNT idle STREAMS s >
    Returns the median pass latency of each (ms) and entries recovered per pass."""
    import random
    import redis
    srv = Server("streamd", binary)
    try:
        pel(build, srv, pel_size)
        conn = redis.Connection(port=srv.port)  # raw replies: redis-py's parsers predate CLAIM

        class Raw:
            def execute_command(self, *args):
                conn.send_command(*args)
                return conn.read_response()

            def pipeline(self, transaction=False):
                cmds = []

                class P:
                    def execute_command(self, *args):
                        cmds.append(args)

                    def execute(self):
                        conn.send_packed_command(conn.pack_commands(cmds))
                        return [conn.read_response() for _ in cmds]
                return P()

        r = Raw()
        rng = random.Random(1)
        key = "bench:stream"

        def age():
            old = int(time.time() * 1000) - 120000
            p = r.pipeline(transaction=False)
            for i in rng.sample(range(1, pel_size + 1), idle):
                p.execute_command("XCLAIM", key, "g", "c", 0, f"{i}-1", "TIME", old, "JUSTID")
            p.execute()

        def claim_pass():
            got = r.execute_command("XREADGROUP", "GROUP", "g", "w", "COUNT", idle, "CLAIM",
                                    60000, "STREAMS", key, ">")
            return sum(len(e) for _, e in got) if got else 0

        def autoclaim_pass():
            cursor, n = "0-0", 0
            while True:
                cursor, claimed, _ = r.execute_command("XAUTOCLAIM", key, "g", "w", 60000, cursor,
                                                       "COUNT", idle)
                n += len(claimed)
                if cursor in (b"0-0", "0-0"):
                    break
            got = r.execute_command("XREADGROUP", "GROUP", "g", "w", "COUNT", idle, "STREAMS",
                                    key, ">")
            return n + (sum(len(e) for _, e in got) if got else 0)

        times = {"claim": [], "autoclaim": []}
        got = {"claim": [], "autoclaim": []}
        for i in range(rounds):
            order = ["claim", "autoclaim"] if i % 2 == 0 else ["autoclaim", "claim"]
            for kind in order:
                age()
                t0 = time.perf_counter()
                n = claim_pass() if kind == "claim" else autoclaim_pass()
                times[kind].append((time.perf_counter() - t0) * 1000)
                got[kind].append(n)
        return {k: (statistics.median(v), statistics.median(got[k])) for k, v in times.items()}
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--markdown", default="")
    ap.add_argument("--idmp-requests", type=int, default=300000,
                    help="commands per IDMP run (the `idmp` section)")
    ap.add_argument("--claim-pel", type=int, default=100000, help="PEL size of the claim workload")
    ap.add_argument("--claim-idle", type=int, default=100, help="idle entries of the claim workload")
    ap.add_argument("--claim-rounds", type=int, default=30)
    ap.add_argument("--rt", type=int, default=0, metavar="PRIO",
                    help="run servers and load generator under SCHED_FIFO PRIO (chrt -f)")
    args = ap.parse_args()
    if args.rt:
        RT_PREFIX[:] = ["chrt", "-f", str(args.rt)]
    streamd = os.path.join(args.build, "streamd")
    servers = {"streamd": streamd, "redis": args.redis}
    only = set(filter(None, args.only.split(",")))

    rows = []
    for name, (desc, setup, lg_args, metric, higher, *rest) in WORKLOADS.items():
        if only and name not in only:
            continue
        server_args = rest[0] if rest else {}
        results = {"streamd": [], "redis": []}
        p50 = {"streamd": [], "redis": []}
        p99 = {"streamd": [], "redis": []}
        # Work per second of the server's own CPU time: throughput per core, and less at the
        # mercy of the load generator and of neighbours on a shared machine than ops/s.
        per_core = {"streamd": [], "redis": []}
        for rep in range(args.repeat):
            order = ["streamd", "redis"] if rep % 2 == 0 else ["redis", "streamd"]
            for kind in order:
                srv = Server(kind, servers[kind], server_args.get(kind, ()))
                try:
                    if setup:
                        setup(args.build, srv)
                    cpu0 = srv.cpu_seconds()
                    r = loadgen(args.build, srv.port, *lg_args)
                    cpu = srv.cpu_seconds() - cpu0
                finally:
                    srv.stop()
                results[kind].append(r[metric])
                if cpu > 0 and higher:  # work per CPU-second: only for throughput metrics
                    per_core[kind].append(r[metric] * r["seconds"] / cpu)
                p50[kind].append(r["p50_us"])
                p99[kind].append(r["p99_us"])
                print(f"{name} rep{rep} {kind}: {r}", file=sys.stderr)
        med = {k: statistics.median(v) for k, v in results.items()}
        core = {k: statistics.median(v) if v else float("nan") for k, v in per_core.items()}
        rows.append((desc, metric, med["streamd"], med["redis"], med["streamd"] / med["redis"],
                     core["streamd"] / core["redis"],
                     statistics.median(p50["streamd"]), statistics.median(p50["redis"]),
                     statistics.median(p99["streamd"]), statistics.median(p99["redis"])))

    mem_rows = []
    if not only or "memory" in only:
        per = {k: memory_per_entry(args.build, k, b) for k, b in servers.items()}
        mem_rows.append(("bytes/entry after 1M XADD `temperature 23.5` (used_memory)",
                         per["streamd"][0], per["redis"][0]))
        mem_rows.append(("bytes/entry after 1M XADD `temperature 23.5` (RSS)",
                         per["streamd"][1], per["redis"][1]))
    if not only or "subscriptions" in only:
        per = {k: memory_per_subscription(k, b) for k, b in servers.items()}
        mem_rows.append(("bytes/subscription, 100 clients × 1,000 shared channels, "
                         "100 per SUBSCRIBE (used_memory)",
                         per["streamd"][0], per["redis"][0]))
        mem_rows.append(("bytes/subscription, 100 clients × 1,000 shared channels, "
                         "100 per SUBSCRIBE (RSS)",
                         per["streamd"][1], per["redis"][1]))
    if not only or "pending" in only:
        for consumers, ids, what in ((1, "spread", "one consumer, one ID per ms"),
                                     (1, "one_ms", "one consumer, all IDs in one ms"),
                                     (100, "spread", "100 consumers, one ID per ms"),
                                     (100, "one_ms", "100 consumers, all IDs in one ms")):
            per = {k: memory_per_pending(args.build, k, b, consumers=consumers, ids=ids)
                   for k, b in servers.items()}
            print(f"pending {what}: {per}", file=sys.stderr)
            mem_rows.append((f"bytes/pending entry, 1M entries read by {what} (used_memory)",
                             per["streamd"][0], per["redis"][0]))
            mem_rows.append((f"bytes/pending entry, 1M entries read by {what} (RSS)",
                             per["streamd"][1], per["redis"][1]))

    pause_rows = []
    if not only or "rewrite" in only:
        for kind, b in servers.items():
            r = rewrite_pause(args.build, kind, b)
            print(f"rewrite {kind}: {r}", file=sys.stderr)
            pause_rows.append((kind, r))

    idmp_rows = []
    if not only or "idmp" in only:
        for pipeline in (1, 32):
            med = idmp_cost(args.build, streamd, args.repeat, args.idmp_requests, pipeline)
            idmp_rows.append((pipeline, med))
    claim_rows = []
    if not only or "claim" in only:
        r = claim_vs_autoclaim(args.build, streamd, args.claim_pel, args.claim_idle,
                               args.claim_rounds)
        print(f"claim: {r}", file=sys.stderr)
        claim_rows.append((args.claim_pel, args.claim_idle, r))

    lines = ["| workload | metric | streamd | redis-server | ratio | per core-second | "
             "p50 µs s/r | p99 µs s/r |",
             "|---|---|---|---|---|---|---|---|"]
    for d, m, s, r, ratio, core_ratio, s50, r50, s99, r99 in rows:
        core = "–" if core_ratio != core_ratio else f"{core_ratio:.2f}×"  # NaN: a latency row
        lines.append(f"| {d} | {m} | {s:,.0f} | {r:,.0f} | **{ratio:.2f}×** | "
                     f"{core} | {s50:.0f} / {r50:.0f} | {s99:.0f} / {r99:.0f} |")
    if mem_rows:
        lines += ["", "| memory | streamd | redis-server | ratio |", "|---|---|---|---|"]
        for d, s, r in mem_rows:
            lines.append(f"| {d} | {s:.1f} | {r:.1f} | **{s / r:.2f}×** |")
    if pause_rows:
        lines += ["", "BGREWRITEAOF of 1M entries with 100k pending (a PING loop measures pauses)",
                  "", "| server | longest pause ms | longest before ms | rewrite s | base MB |",
                  "|---|---|---|---|---|"]
        for kind, r in pause_rows:
            lines.append(f"| {kind} | {r['pause_ms']:.1f} | {r['baseline_ms']:.1f} | "
                         f"{r['rewrite_s']:.2f} | {r['base_mb']:.0f} |")
    if idmp_rows:
        lines += ["", "XADD with IDMP on streamd (50 conns, 10 producers, distinct entries)", "",
                  "| pipeline | plain ops/s | IDMPAUTO ops/s | IDMPAUTO / plain | IDMP ops/s | "
                  "IDMP / plain |", "|---|---|---|---|---|---|"]
        for pipeline, med in idmp_rows:
            p = med["plain"]
            lines.append(f"| {pipeline} | {p:,.0f} | {med['idmpauto']:,.0f} | "
                         f"**{med['idmpauto'] / p:.3f}×** | {med['idmp']:,.0f} | "
                         f"**{med['idmp'] / p:.3f}×** |")
    if claim_rows:
        lines += ["", "Worker recovery pass on streamd: XREADGROUP CLAIM vs XAUTOCLAIM (cursor walk) "
                  "+ XREADGROUP (median of rounds)", "",
                  "| PEL | idle | CLAIM ms | XAUTOCLAIM+XREADGROUP ms | latency ratio | "
                  "entries/pass c/a |", "|---|---|---|---|---|---|"]
        for n, k, r in claim_rows:
            (c_ms, c_n), (a_ms, a_n) = r["claim"], r["autoclaim"]
            lines.append(f"| {n:,} | {k} | {c_ms:.2f} | {a_ms:.2f} | **{a_ms / c_ms:.1f}×** | "
                         f"{c_n:.0f} / {a_n:.0f} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
