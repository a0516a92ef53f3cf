#!/usr/bin/python3
"""RDB costs (issue 14's measurements), streamd against redis-server in one run.

Dataset (run.pending_stream, as bench/replication.py's full sync): one stream "bench:stream" of
1M entries with IDs 1-1 .. 1000000-1 and one field each (temperature 23.5), written by pipelined
XADD; a group "g" created at 0 whose consumer "c" read the first 100k entries with one
XREADGROUP COUNT 100000 and acknowledged none (100k records in the group PEL and in c's PEL).

For each repeat, on each server (alternating which goes first):
  save     --saves × SAVE, timed from the client (request sent to +OK read), and the size of the
           dump.rdb it wrote; beside it the server's CPU time during each SAVE, the sum over its
           threads of /proc/PID/task/*/schedstat (less noisy than the client's clock, which also
           counts the wait for the disk).
  bgsave   BGSAVE while one connection sends PING back to back: the longest round trip between
           the BGSAVE request and the end of the save (the fork's pause and whatever the parent
           does meanwhile), the longest in the second before (the baseline), INFO stats'
           latest_fork_usec. The server runs on both cores here, so that the child does not
           share (under --rt: queue behind) the parent's core.
  load     --loads × a fresh server started on a copy of that dump.rdb: the server's own log
           line "DB loaded from disk: X seconds" (both servers write it, timed around the
           file's parse), and the time from starting the process to the first PING answered
           PONG (redis-server answers -LOADING meanwhile, streamd does not answer until loaded),
           minus the same for an empty directory (the process start itself). Each load is
           checked: XLEN 1000000 and 100000 pending.
streamd runs with `rdb-version 10` (RDB 10, stream type 19: what redis-server 7.0.15 writes and
reads), so both write the same format; the size of streamd's default (RDB 12, type 21) file is
reported beside it. Both run with rdbcompression yes and rdbchecksum yes (the defaults).

Usage: bench/rdb.py [--build build] [--repeat 3] [--saves 3] [--loads 3] [--rt PRIO]
       [--entries 1000000 --pending 100000]
Nothing here is a test: numbers are measured and printed, never asserted.
"""
import argparse
import os
import re
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: Server, pending_stream, PauseProbe, RT_PREFIX)

NO_SAVE_RULES = ["--save", ""]
EXTRA = {"streamd": NO_SAVE_RULES + ["--rdb-version", "10"], "redis": NO_SAVE_RULES}
BOTH_CORES = "0,1"


class Conn:
    """One RESP2 connection (replies parsed just enough for what is asked here)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def close(self):
        self.sock.close()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b":"):
            return rest.decode()
        if kind == b"-":
            return RuntimeError(rest.decode())
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.sock.recv(65536)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v.decode()
        if kind == b"*":
            return [self._reply() for _ in range(int(rest))]
        raise OSError(f"bad reply {line!r}")

    def command(self, *args):
        out = [f"*{len(args)}\r\n".encode()]
        for a in args:
            a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return self._reply()


def info(conn, section):
    return run.parse_info(conn.command("INFO", section))


class LoadingServer(run.Server):
    """A server started on `dir` (with a dump.rdb or empty), timed from the process start to
    its first PONG, polled every millisecond over one socket."""

    def __init__(self, kind, binary, dir, extra):
        self.t0 = time.perf_counter()
        self.ready_s = None
        super().__init__(kind, binary, list(extra) + ["--logfile", "server.log"],
                         start_timeout=120, core=run.SERVER_CORE, dir=dir)

    def wait_ready(self, deadline):
        while time.time() < deadline:
            try:
                c = Conn(self.port)
            except OSError:
                time.sleep(0.001)
                continue
            try:
                while time.time() < deadline:
                    if c.command("PING") == "PONG":
                        self.ready_s = time.perf_counter() - self.t0
                        return
                    time.sleep(0.001)  # -LOADING
            finally:
                c.close()
        raise RuntimeError(f"{self.kind} did not start")

    def logged_load_s(self):
        with open(os.path.join(self.dir, "server.log"), errors="replace") as f:
            m = re.findall(r"DB loaded from disk: ([0-9.]+) seconds", f.read())
        if not m:
            raise RuntimeError(f"{self.kind} logged no load time")
        return float(m[-1])


def cpu_ns(pid):
    """CPU time (ns) of all the process's threads so far, from the scheduler's own accounting
    (/proc/PID/task/*/schedstat): the tick-based counters of /proc/PID/stat are too coarse for
    a 0.1 s SAVE."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total


def save_and_bgsave(args, kind, binary, saves):
    srv = run.Server(kind, binary, EXTRA[kind], core=BOTH_CORES)
    try:
        run.pending_stream(args.build, srv, args.entries, args.pending)
        c = Conn(srv.port)
        save_s, save_cpu_s = [], []
        for _ in range(saves):
            cpu = cpu_ns(srv.proc.pid)
            t = time.perf_counter()
            r = c.command("SAVE")
            save_s.append(time.perf_counter() - t)
            save_cpu_s.append((cpu_ns(srv.proc.pid) - cpu) / 1e9)
            if r != "OK":
                raise RuntimeError(f"{kind} SAVE: {r}")
        path = os.path.join(srv.dir, "dump.rdb")
        size = os.path.getsize(path)
        keep = tempfile.mkdtemp(prefix=f"bench-rdb-{kind}-")
        shutil.copy(path, os.path.join(keep, "dump.rdb"))
        default_size = None
        if kind == "streamd":
            c.command("CONFIG", "SET", "rdb-version", "12")
            c.command("SAVE")
            default_size = os.path.getsize(path)
            c.command("CONFIG", "SET", "rdb-version", "10")
        probe = run.PauseProbe(srv.port)
        t = threading.Thread(target=probe.run)
        t.start()
        time.sleep(1.0)
        start = time.perf_counter()
        r = c.command("BGSAVE")
        if isinstance(r, Exception):
            raise RuntimeError(f"{kind} BGSAVE: {r}")
        while info(c, "persistence").get("rdb_bgsave_in_progress") != "0":
            time.sleep(0.005)
        end = time.perf_counter()
        time.sleep(0.2)
        probe.stop = True
        t.join()
        pi = info(c, "persistence")
        if pi.get("rdb_last_bgsave_status") != "ok":
            raise RuntimeError(f"{kind} BGSAVE failed")
        fork_usec = int(info(c, "stats")["latest_fork_usec"])
        c.close()
        return keep, {"save_s": save_s, "save_cpu_s": save_cpu_s, "bytes": size,
                      "default_bytes": default_size,
                      "pause_ms": probe.worst(start, end) * 1000,
                      "baseline_ms": probe.worst(0, start) * 1000,
                      "fork_usec": fork_usec, "bgsave_s": end - start}
    finally:
        srv.stop()


def load(args, kind, binary, rdb_dir, loads):
    logged, ready = [], []
    for _ in range(loads):
        empty = tempfile.mkdtemp(prefix=f"bench-rdb-{kind}-")
        base = LoadingServer(kind, binary, empty, EXTRA[kind])
        base.stop()
        d = tempfile.mkdtemp(prefix=f"bench-rdb-{kind}-")
        shutil.copy(os.path.join(rdb_dir, "dump.rdb"), os.path.join(d, "dump.rdb"))
        srv = LoadingServer(kind, binary, d, EXTRA[kind])
        try:
            logged.append(srv.logged_load_s())
            ready.append(srv.ready_s - base.ready_s)
            n = srv.command("XLEN", "bench:stream")
            pending = srv.command("XPENDING", "bench:stream", "g").splitlines()[0]
            if n != str(args.entries) or pending != str(args.pending):
                raise RuntimeError(f"{kind} loaded XLEN {n}, {pending} pending")
        finally:
            srv.stop()
    return {"load_s": logged, "ready_s": ready}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(run.ROOT, "build"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--saves", type=int, default=3, help="SAVEs per repeat")
    ap.add_argument("--loads", type=int, default=3, help="loads at startup per repeat")
    ap.add_argument("--entries", type=int, default=1000000)
    ap.add_argument("--pending", type=int, default=100000)
    ap.add_argument("--rt", type=int, default=0, metavar="PRIO")
    args = ap.parse_args()
    if args.rt:
        run.RT_PREFIX[:] = ["chrt", "-f", str(args.rt)]
        # This process too: the PING probe and the startup poll must not wait for the
        # real-time servers to sleep.
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.rt))
    servers = {"streamd": os.path.join(args.build, "streamd"), "redis": args.redis}
    res = {k: {} for k in servers}
    for rep in range(args.repeat):
        order = list(servers) if rep % 2 == 0 else list(reversed(list(servers)))
        for kind in order:
            rdb_dir, r = save_and_bgsave(args, kind, servers[kind], args.saves)
            try:
                r.update(load(args, kind, servers[kind], rdb_dir, args.loads))
            finally:
                shutil.rmtree(rdb_dir, ignore_errors=True)
            print(f"rep{rep} {kind}: {r}", file=sys.stderr)
            for k, v in r.items():
                res[kind].setdefault(k, []).extend(v if isinstance(v, list) else [v])

    def med(kind, field):
        return statistics.median(res[kind][field])

    rows = [("SAVE, client-side (s)", "save_s", ".3f"),
            ("SAVE, server CPU time (s)", "save_cpu_s", ".3f"),
            ("dump.rdb (bytes)", "bytes", ",.0f"),
            ("load at startup, logged \"DB loaded from disk\" (s)", "load_s", ".3f"),
            ("load at startup, process start to first PONG minus an empty start (s)",
             "ready_s", ".3f"),
            ("BGSAVE: longest PING during it (ms)", "pause_ms", ".1f"),
            ("BGSAVE: longest PING in the second before (ms)", "baseline_ms", ".1f"),
            ("BGSAVE: latest_fork_usec", "fork_usec", ",.0f"),
            ("BGSAVE: request to rdb_bgsave_in_progress:0 (s)", "bgsave_s", ".3f")]
    lines = [f"| {args.entries:,} entries + {args.pending:,} pending (medians; {args.repeat} "
             f"repeats) | streamd (rdb-version 10) | redis-server | ratio |", "|---|---|---|---|"]
    for label, field, fmt in rows:
        s, r = med("streamd", field), med("redis", field)
        ratio = f"**{s / r:.2f}×**" if r else ""
        lines.append(f"| {label} | {s:{fmt}} | {r:{fmt}} | {ratio} |")
    lines.append(f"| streamd's default rdb-version 12 dump.rdb (bytes) | "
                 f"{med('streamd', 'default_bytes'):,.0f} | | |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
