#!/usr/bin/python3
"""Instructions per command of the pipelined workloads (issue 16 item 3), the server's own code
path end to end (socket reads, parsing, dispatch, the engine, the reply writer, writes), under
`valgrind --tool=callgrind`. Instruction counts do not depend on the machine's load; wall time
on a shared machine does.

Each workload is one of bench/run.py's WORKLOADS with fewer requests: the server starts under
callgrind with instrumentation off, the workload's setup runs (not counted), instrumentation
goes on (`callgrind_control -i on`), the load generator runs, the counters are dumped
(`callgrind_control -d`) and the count is divided by the commands (or consume cycles) answered.

Usage:
  bench/pipeline_cost.py [--build build] [--server streamd|redis] [--binary PATH]
                         [--scale 0.05] [--keep DIR] [--cache-sim [--ll SIZE,ASSOC,LINE]]
                         [--replicas N] [workload ...]
Prints "workload instructions_per_op ops" per line. --keep DIR keeps each callgrind output
(DIR/<workload>.out) for callgrind_annotate --inclusive=yes. --replicas N attaches N replicas of
the same server (not under callgrind) before the run: what feeding them costs the master in its
own instructions (the kernel's sends are not counted). Nothing here is a test.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: WORKLOADS, Server, loadgen)

CACHE_SIM = False  # --cache-sim
LL = ""  # --ll SIZE,ASSOC,LINE: the simulated last level (the VM reports a 256 MB one)

DEFAULT = ["xadd_p32", "xadd_keys_p32", "xpending_summary_p32", "xreadgroup_block_p32",
           "consume_p32", "xadd5_p32"]


def scaled(args, scale):
    out = list(args)
    if "--requests" in out:
        i = out.index("--requests") + 1
        out[i] = max(1000, int(int(out[i]) * scale))
    return out


def measure(build, kind, binary, name, scale, keep, replicas=0):
    desc, setup, lg_args, metric, higher, *rest = run.WORKLOADS[name]
    extra = rest[0].get(kind, ()) if rest else ()
    out_dir = tempfile.mkdtemp(prefix="pipeline-cost-")
    out_file = os.path.join(out_dir, "cg.out")
    prefix = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
              f"--callgrind-out-file={out_file}"]
    if CACHE_SIM:
        prefix += ["--cache-sim=yes"] + ([f"--LL={LL}"] if LL else [])
    if replicas:
        import replication  # noqa: E402  (bench/replication.py: MASTER_ARGS, replica_of)
        extra = list(extra) + replication.MASTER_ARGS
    srv = run.Server(kind, binary, extra, prefix=prefix, start_timeout=120)
    followers = []
    try:
        followers = [replication.replica_of(kind, binary, srv) for _ in range(replicas)]
        if setup:
            setup(build, srv)
        pid = str(srv.proc.pid)
        subprocess.run(["callgrind_control", "-i", "on", pid], check=True, capture_output=True)
        r = run.loadgen(build, srv.port, *scaled(lg_args, scale))
        subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
    finally:
        for f in followers:
            f.stop()
        srv.stop()
    # The dump made by -d is <out>.1 (the final one at exit is <out> itself).
    dumps = sorted(glob.glob(out_file + ".*"))
    if not dumps:
        raise RuntimeError(f"no callgrind dump in {out_dir}")
    total = None
    with open(dumps[0]) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
    ops = r.get("requests", r.get("cycles"))
    if keep:
        os.makedirs(keep, exist_ok=True)
        os.replace(dumps[0], os.path.join(keep, f"{kind}-{name}.out"))
    return total / ops, ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(run.ROOT, "build"))
    ap.add_argument("--server", default="streamd", choices=["streamd", "redis"])
    ap.add_argument("--binary", default="")
    ap.add_argument("--scale", type=float, default=0.05,
                    help="fraction of run.py's request count to run")
    ap.add_argument("--keep", default="")
    ap.add_argument("--cache-sim", action="store_true",
                    help="simulate the caches too (callgrind_annotate then shows D1/LL misses)")
    ap.add_argument("--ll", default="",
                    help="with --cache-sim: the last level as SIZE,ASSOC,LINE (1048576,16,64 for "
                         "this machine's per-core L2: LL misses are then L2 misses)")
    ap.add_argument("--replicas", type=int, default=0,
                    help="replicas attached to the measured server during the run")
    ap.add_argument("workloads", nargs="*")
    a = ap.parse_args()
    global CACHE_SIM, LL
    CACHE_SIM = a.cache_sim
    LL = a.ll
    binary = a.binary or (os.path.join(a.build, "streamd") if a.server == "streamd"
                          else "/usr/bin/redis-server")
    for name in a.workloads or DEFAULT:
        per_op, ops = measure(a.build, a.server, binary, name, a.scale, a.keep, a.replicas)
        print(f"{name} {per_op:.0f} {ops}", flush=True)


if __name__ == "__main__":
    main()
