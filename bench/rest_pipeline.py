#!/usr/bin/python3
"""REST pipeline benchmark: POST /pipeline with 100 XADDs per request against streamd's REST
port, from several client processes on keep-alive connections; reports requests/s and
entries/s, beside the same workload sent over RESP (a redis-py pipeline of 100 XADDs per round
trip) from the same kind of client, so the two numbers differ by the protocol and not by the
load generator.

The server is pinned to one core (taskset -c 0), the clients to the other, as bench/run.py does.
Python clients are slow; with few cores the client side may be the limit: compare the two
protocols' numbers with each other, not with bench/run.py's C++ load generator.

Usage: bench/rest_pipeline.py [--build build] [--seconds 10] [--clients 4] [--batch 100]
Nothing here is a test: numbers are measured and printed, never asserted.
"""
import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import socket
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOKEN = "bench-token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(binary):
    port, rest_port = free_port(), free_port()
    wd = tempfile.mkdtemp(prefix="bench-rest-")
    taskset = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    proc = subprocess.Popen(taskset + [binary, "--port", str(port), "--rest-port", str(rest_port),
                                       "--rest-token", TOKEN, "--dir", wd, "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", rest_port), timeout=0.2).close()
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port, rest_port, wd
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("streamd did not start")


def pin_client():
    if hasattr(os, "sched_setaffinity") and os.cpu_count() and os.cpu_count() > 1:
        os.sched_setaffinity(0, {1})


def rest_worker(args):
    rest_port, seconds, batch, idx = args
    pin_client()
    body = json.dumps([["XADD", f"bench-rest-{idx}", "*", "field", "value-0123456789"]] * batch)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    c = http.client.HTTPConnection("127.0.0.1", rest_port)
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        c.request("POST", "/pipeline", body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        if r.status != 200 or b'"error"' in data:
            raise RuntimeError(data[:200])
        n += 1
    c.close()
    return n


def resp_worker(args):
    port, seconds, batch, idx = args
    pin_client()
    import redis

    r = redis.Redis(port=port)
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        p = r.pipeline(transaction=False)
        for _ in range(batch):
            p.xadd(f"bench-resp-{idx}", {"field": "value-0123456789"})
        p.execute()
        n += 1
    return n


def measure(worker, port, opts):
    with multiprocessing.Pool(opts.clients) as pool:
        t0 = time.monotonic()
        counts = pool.map(worker, [(port, opts.seconds, opts.batch, i)
                                   for i in range(opts.clients)])
        elapsed = time.monotonic() - t0
    reqs = sum(counts)
    return reqs / elapsed, reqs * opts.batch / elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--batch", type=int, default=100)
    opts = ap.parse_args()
    binary = os.path.join(opts.build, "streamd")
    proc, port, rest_port, wd = start_server(binary)
    try:
        rest_rps, rest_eps = measure(rest_worker, rest_port, opts)
        resp_rps, resp_eps = measure(resp_worker, port, opts)
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(wd, ignore_errors=True)
    print(f"workload: {opts.batch} XADDs per request, {opts.clients} clients, "
          f"{opts.seconds:g} s each")
    print(f"| protocol | requests/s | entries/s |")
    print(f"|---|---:|---:|")
    print(f"| REST POST /pipeline | {rest_rps:,.0f} | {rest_eps:,.0f} |")
    print(f"| RESP pipeline (redis-py) | {resp_rps:,.0f} | {resp_eps:,.0f} |")


if __name__ == "__main__":
    main()
