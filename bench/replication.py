#!/usr/bin/python3
"""Replication costs (issue 13's measurements), streamd against redis-server in one run.

  xadd   pipelined XADD on a master with 0 and with 2 replicas attached (streamd replicas of a
         streamd master, redis-server replicas of a redis-server master). The master runs on
         core 0 as in bench/run.py; the replicas share core 1 with the load generator, the same
         for both servers. Reports ops/s, medians of --repeat runs.
  sync   full sync of a master holding 1M entries with 100k of them pending in a group: a fresh
         replica sends REPLICAOF; reports the time until the replica's link is up with the data
         loaded, and the longest PING round trip a client of the master sees meanwhile (and
         before, for comparison).
Both masters run with `repl-diskless-sync-delay 0` (Redis's default waits 5 s for more replicas).

Usage: bench/replication.py [--build build] [--repeat 3] [--rt PRIO] [--only xadd,sync]
Nothing here is a test: numbers are measured and printed, never asserted.
"""
import argparse
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: Server, loadgen, PauseProbe, RT_PREFIX)

REPLICA_CORE = run.LOAD_CORE
MASTER_ARGS = ["--repl-diskless-sync-delay", "0"]


def replica_of(kind, binary, master):
    """A fresh server (on the load generator's core) following `master`, once its link is up."""
    r = run.Server(kind, binary, MASTER_ARGS, core=REPLICA_CORE)
    r.command("REPLICAOF", "127.0.0.1", str(master.port))
    wait_synced(r)
    return r


def wait_synced(replica, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        info = replica.info("replication")
        if info.get("master_link_status") == "up" and info.get("master_sync_in_progress") == "0":
            return
        time.sleep(0.01)
    raise RuntimeError(f"{replica.kind} replica did not sync")


def xadd_with_replicas(build, kind, binary, replicas):
    master = run.Server(kind, binary, MASTER_ARGS)
    followers = []
    try:
        followers = [replica_of(kind, binary, master) for _ in range(replicas)]
        cpu0 = master.cpu_seconds()
        r = run.loadgen(build, master.port, "--clients", 50, "--pipeline", 32, "--requests",
                        1000000, "--", "XADD", "bench:s", "*", "temperature", "23.5")
        cpu = master.cpu_seconds() - cpu0
        if followers:
            # Every replica must have the whole stream: a master that drops its replicas' stream
            # would look fast.
            want = master.command("XLEN", "bench:s")
            deadline = time.time() + 60
            while any(f.command("XLEN", "bench:s") != want for f in followers):
                if time.time() > deadline:
                    raise RuntimeError(f"{kind} replicas did not catch up")
                time.sleep(0.05)
        # XADDs per second of the master's own CPU: what feeding the replicas costs the master,
        # apart from the replicas taking the load generator's core.
        return r["ops_per_sec"], r["ops_per_sec"] * r["seconds"] / cpu
    finally:
        for f in followers:
            f.stop()
        master.stop()


def full_sync(build, kind, binary, entries=1000000, pending=100000):
    master = run.Server(kind, binary, MASTER_ARGS)
    replica = None
    try:
        run.pending_stream(build, master, entries, pending)
        replica = run.Server(kind, binary, MASTER_ARGS, core=REPLICA_CORE)
        probe = run.PauseProbe(master.port)
        t = threading.Thread(target=probe.run)
        t.start()
        time.sleep(1.0)
        start = time.perf_counter()
        replica.command("REPLICAOF", "127.0.0.1", str(master.port))
        wait_synced(replica)
        end = time.perf_counter()
        time.sleep(0.3)
        probe.stop = True
        t.join()
        if replica.command("XLEN", "bench:stream") != str(entries):
            raise RuntimeError(f"{kind} replica has the wrong stream after the sync")
        return {"sync_s": end - start, "pause_ms": probe.worst(start, end) * 1000,
                "baseline_ms": probe.worst(0, start) * 1000}
    finally:
        if replica:
            replica.stop()
        master.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(run.ROOT, "build"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rt", type=int, default=0, metavar="PRIO")
    ap.add_argument("--only", default="xadd,sync")
    args = ap.parse_args()
    if args.rt:
        run.RT_PREFIX[:] = ["chrt", "-f", str(args.rt)]
        # This process too (and the redis-cli it starts): the PING probe must not wait for the
        # real-time servers to sleep, or it would measure the scheduler instead of the server.
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.rt))
    servers = {"streamd": os.path.join(args.build, "streamd"), "redis": args.redis}
    only = set(args.only.split(","))
    lines = []
    if "xadd" in only:
        res = {(k, n): [] for k in servers for n in (0, 2)}
        core = {(k, n): [] for k in servers for n in (0, 2)}
        for rep in range(args.repeat):
            order = list(servers) if rep % 2 == 0 else list(reversed(list(servers)))
            for kind in order:
                for n in (0, 2):
                    v, c = xadd_with_replicas(args.build, kind, servers[kind], n)
                    print(f"xadd rep{rep} {kind} replicas={n}: {v:,.0f} ops/s, {c:,.0f} per "
                          "master core-second", file=sys.stderr)
                    res[(kind, n)].append(v)
                    core[(kind, n)].append(c)
        med = {k: statistics.median(v) for k, v in res.items()}
        cmed = {k: statistics.median(v) for k, v in core.items()}
        lines += ["| XADD, 50 conns, pipeline 32 | streamd | redis-server | ratio |",
                  "|---|---|---|---|"]
        for n in (0, 2):
            s, r = med[("streamd", n)], med[("redis", n)]
            lines.append(f"| {n} replicas (ops/s) | {s:,.0f} | {r:,.0f} | **{s / r:.2f}×** |")
            s, r = cmed[("streamd", n)], cmed[("redis", n)]
            lines.append(f"| {n} replicas (per master core-second) | {s:,.0f} | {r:,.0f} | "
                         f"**{s / r:.2f}×** |")
        for label, m in (("ops/s", med), ("per master core-second", cmed)):
            lines.append(f"| 2 replicas / 0 replicas ({label}) | "
                         f"{m[('streamd', 2)] / m[('streamd', 0)]:.2f}× | "
                         f"{m[('redis', 2)] / m[('redis', 0)]:.2f}× | |")
    if "sync" in only:
        res = {k: [] for k in servers}
        for rep in range(args.repeat):
            order = list(servers) if rep % 2 == 0 else list(reversed(list(servers)))
            for kind in order:
                r = full_sync(args.build, kind, servers[kind])
                print(f"sync rep{rep} {kind}: {r}", file=sys.stderr)
                res[kind].append(r)

        def med(kind, field):
            return statistics.median(r[field] for r in res[kind])

        st, rt = med("streamd", "sync_s"), med("redis", "sync_s")
        lines += ["", "| full sync, 1M entries + 100k pending (medians) | streamd | redis-server "
                  "| ratio |", "|---|---|---|---|",
                  f"| time to a synced replica (s) | {st:.2f} | {rt:.2f} | **{st / rt:.2f}×** |"]
        for field, label in (("pause_ms", "longest PING on the master during the sync (ms)"),
                             ("baseline_ms", "longest PING in the second before it (ms)")):
            lines.append(f"| {label} | {med('streamd', field):.1f} | {med('redis', field):.1f} "
                         "| |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
