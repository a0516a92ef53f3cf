"""A replicated set-up under Sentinel, and a stream workload that records what was made durable.

`Cluster` starts one master and N replicas (`--replicaof`), each in a directory of its own that
survives a restart on the same port, and a `SentinelGroup` monitoring the master. `Workload`
runs, through redis-py's Sentinel client, a producer (XADD, then `WAIT 1` on the same
connection) and a consumer (XREADGROUP, then XACK + `WAIT 1`), and remembers which IDs a
replica acknowledged: those are the writes a failover must not lose.

The nodes are streamd by default; `node_kind="redis"` runs the same set-up on redis-server (how
the harness itself is checked against Redis's own replication).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path

from . import servers
from .sentinel import SentinelGroup, SentinelSettings, wait_until

STREAM = "jobs"
GROUP = "workers"


def info(server: servers.Server, section: str = "replication") -> dict:
    return server.redis_py(decode_responses=True, socket_timeout=5).info(section)


class Cluster:
    """A master, `replicas` replicas of it and `sentinels` sentinels, all on free ports."""

    def __init__(self, replicas: int = 2, sentinels: int = 3,
                 settings: SentinelSettings | None = None, node_kind: str = "streamd",
                 node_args: tuple[str, ...] = ()):
        self.node_kind = node_kind
        self.node_args = tuple(node_args)
        self.dirs: list[Path] = []
        self.nodes: list[servers.Server] = []
        self.group: SentinelGroup | None = None
        try:
            self.nodes.append(self._start_node())
            m = self.nodes[0]
            for _ in range(replicas):
                self.nodes.append(self._start_node("--replicaof", m.host, str(m.port)))
            for r in self.nodes[1:]:
                wait_until(lambda: info(r).get("master_link_status") == "up", 60,
                           f"replica on port {r.port} to sync")
            self.group = SentinelGroup(m.host, m.port, sentinels, settings)
        except BaseException:
            self.cleanup()
            raise

    def _start_node(self, *args: str, port: int | None = None,
                    workdir: Path | None = None) -> servers.Server:
        if workdir is None:
            workdir = Path(tempfile.mkdtemp(prefix=f"{self.node_kind}-node-"))
            self.dirs.append(workdir)
        all_args = self.node_args + args
        if self.node_kind == "redis":
            return servers.start_redis(*all_args, port=port, workdir=workdir)
        return servers.start_streamd(*all_args, port=port, workdir=workdir)

    def restart(self, node: servers.Server, *args: str) -> servers.Server:
        """Starts a stopped node again on its port and directory (its data files kept)."""
        again = self._start_node(*args, port=node.port, workdir=node.workdir)
        self.nodes[self.nodes.index(node)] = again
        return again

    def node_at(self, addr: tuple[str, int]) -> servers.Server:
        return next(n for n in self.nodes if (n.host, n.port) == addr)

    def settled_master(self, exclude=()) -> servers.Server | None:
        """The master, if the set-up has settled: every sentinel names the same node, it says it
        is a master, and every other node (but those in `exclude`, e.g. a stopped one) is its
        replica with the link up."""
        addrs = {self.group.master_addr(i) for i in range(len(self.group.sentinels))}
        if len(addrs) != 1 or None in addrs:
            return None
        master = self.node_at(addrs.pop())
        if master in exclude or info(master)["role"] != "master":
            return None
        for n in self.nodes:
            if n is master or n in exclude:
                continue
            i = info(n)
            if (i["role"] != "slave" or int(i["master_port"]) != master.port or
                    i["master_link_status"] != "up"):
                return None
        return master

    def wait_settled(self, exclude=(), timeout: float = 120.0, hold: float = 3.0):
        """Until the set-up has settled on one master and stays so for `hold` seconds. With
        down-after-milliseconds this small, a loaded machine can make Sentinel fail over twice
        (a just-promoted replica that answers late looks down too), so the master is whatever
        Sentinel settles on, not the first one promoted."""
        deadline = time.monotonic() + timeout
        while True:
            left = max(deadline - time.monotonic(), 0.1)
            master = wait_until(lambda: self.settled_master(exclude), left,
                                "the set-up to settle on one master", interval=0.1)
            time.sleep(hold)
            if self.settled_master(exclude) is master:
                return master
            if time.monotonic() >= deadline:
                raise AssertionError(f"the set-up did not stay settled within {timeout}s")

    def cleanup(self) -> None:
        if self.group is not None:
            self.group.cleanup()
        for n in self.nodes:
            n.cleanup()
        if not servers.KEEP_TMP:
            for d in self.dirs:
                shutil.rmtree(d, ignore_errors=True)


class Workload:
    """Producer and consumer threads on the master that Sentinel names, until stop().

    Errors while the master changes (refused connections, READONLY from a demoted master,
    "no master found") are expected: the thread waits a little and goes on with a fresh
    connection. Every outcome is recorded with its time."""

    def __init__(self, group: SentinelGroup, wait_timeout_ms: int = 1000):
        self.sentinel = group.redis_py_sentinel(socket_timeout=2)
        self.name = group.name
        self.wait_timeout_ms = wait_timeout_ms
        self.lock = threading.Lock()
        # (time sent, time answered, id, replicas that WAIT counted)
        self.added: list[tuple[float, float, str, int]] = []
        self.confirmed: list[str] = []                   # IDs WAIT saw on >= 1 replica
        self.acked_confirmed: set[str] = set()           # XACKs WAIT saw on >= 1 replica
        self.errors: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._produce, daemon=True),
                         threading.Thread(target=self._consume, daemon=True)]

    def _client(self):
        return self.sentinel.master_for(self.name, decode_responses=True, socket_timeout=2,
                                        retry_on_timeout=False)

    def start(self) -> None:
        r = self._client()
        r.xgroup_create(STREAM, GROUP, id="$", mkstream=True)
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)

    def _error(self, e: Exception) -> None:
        with self.lock:
            self.errors.append((time.time(), f"{type(e).__name__}: {e}"))
        time.sleep(0.05)

    def _produce(self) -> None:
        r = self._client()
        n = 0
        while not self._stop.is_set():
            sent = time.time()
            try:
                # One pipeline: WAIT counts the replicas that have this connection's last write.
                p = r.pipeline(transaction=False)
                p.xadd(STREAM, {"n": str(n)})
                p.execute_command("WAIT", 1, self.wait_timeout_ms)
                id_, acks = p.execute()
            except Exception as e:  # noqa: BLE001 - every failure is recorded and retried
                self._error(e)
                continue
            n += 1
            with self.lock:
                self.added.append((sent, time.time(), id_, acks))
                if acks >= 1:
                    self.confirmed.append(id_)

    def _consume(self) -> None:
        r = self._client()
        while not self._stop.is_set():
            try:
                got = r.xreadgroup(GROUP, "c1", {STREAM: ">"}, count=20, block=200)
                ids = [e[0] for _, entries in got for e in entries] if got else []
                if not ids:
                    continue
                p = r.pipeline(transaction=False)
                p.xack(STREAM, GROUP, *ids)
                p.execute_command("WAIT", 1, self.wait_timeout_ms)
                _, acks = p.execute()
            except Exception as e:  # noqa: BLE001
                self._error(e)
                continue
            if acks >= 1:
                with self.lock:
                    self.acked_confirmed.update(ids)

    def added_since(self, t: float) -> list[tuple[float, float, str, int]]:
        """The XADDs sent at `t` or later (a master killed at `t` cannot have answered them)."""
        with self.lock:
            return [a for a in self.added if a[0] >= t]

    def wait_progress(self, after: float, count: int, timeout: float, confirmed: bool) -> None:
        """Until `count` XADDs (WAIT-confirmed ones if `confirmed`) sent after time `after`
        succeeded."""
        def enough():
            got = [a for a in self.added_since(after) if a[3] >= 1 or not confirmed]
            return len(got) >= count
        wait_until(enough, timeout, f"{count} successful XADDs after the event")
