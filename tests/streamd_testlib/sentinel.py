"""Start Debian's redis-sentinel processes that monitor a streamd (or redis-server) master.

Each sentinel runs in a temporary directory of its own with its own `sentinel.conf` (Sentinel
rewrites that file as it learns about peers and replicas, so it must be private and writable);
its log goes to stdout, captured in `server.log` there like every server of `servers.py`, so a
failing test prints it (runner.py). Ports come from `servers.free_port()`; a start that loses a
port race is retried on a new port.

Typical use:

    master = servers.start_streamd()
    group = SentinelGroup(master.host, master.port)      # three sentinels, quorum 2
    self.addCleanup(group.cleanup)
    group.wait_discovered()                                # each knows the two others
    r = group.redis_py_sentinel().master_for("mymaster")  # redis-py's Sentinel client
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import servers

REDIS_SENTINEL = os.environ.get("REDIS_SENTINEL_BIN", "/usr/bin/redis-sentinel")


def sentinel_available() -> bool:
    return os.access(REDIS_SENTINEL, os.X_OK)


def missing_reason() -> str | None:
    """Why a Sentinel test cannot run here (a skip reason), or None."""
    if not sentinel_available():
        return (f"redis-sentinel not found at {REDIS_SENTINEL} "
                "(scripts/install_deps.sh installs Debian's redis-sentinel)")
    if not servers.streamd_available():
        return f"streamd binary not found at {servers.streamd_bin()} (build it or set STREAMD_BIN)"
    return None


def wait_until(pred, timeout: float, what: str, interval: float = 0.05):
    """Polls `pred` until it returns a true value (which is returned) or `timeout` seconds pass.
    Sentinel's own periods are seconds long (hello every 2 s, INFO every 10 s), and the suite
    runs on a loaded 2-core machine: callers pass generous timeouts, never fixed sleeps."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            last = pred()
        except Exception as e:  # a connection refused while a process restarts is not final
            last = e
        else:
            if last:
                return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")
        time.sleep(interval)


@dataclass
class SentinelSettings:
    """What every sentinel of a group is told about the master it monitors."""

    master_name: str = "mymaster"
    quorum: int = 2
    # Small enough that a failover test is bounded, large enough that a loaded machine's stall
    # does not look like a dead master.
    down_after_ms: int = 1000
    failover_timeout_ms: int = 10000
    parallel_syncs: int = 1
    auth_pass: str | None = None
    auth_user: str | None = None
    # Commands renamed on the monitored instances (`sentinel rename-command`), e.g. CONFIG.
    rename_commands: dict[str, str] = field(default_factory=dict)
    extra_lines: list[str] = field(default_factory=list)


def sentinel_config(port: int, workdir: Path, master_host: str, master_port: int,
                    s: SentinelSettings) -> str:
    name = s.master_name
    lines = [
        f"port {port}",
        "bind 127.0.0.1",
        "daemonize no",
        f"dir {workdir}",
        # Hostnames in `sentinel monitor` (e.g. localhost) are resolved; announced as IPs.
        "sentinel resolve-hostnames yes",
        f"sentinel monitor {name} {master_host} {master_port} {s.quorum}",
        f"sentinel down-after-milliseconds {name} {s.down_after_ms}",
        f"sentinel failover-timeout {name} {s.failover_timeout_ms}",
        f"sentinel parallel-syncs {name} {s.parallel_syncs}",
    ]
    if s.auth_pass is not None:
        lines.append(f"sentinel auth-pass {name} {s.auth_pass}")
    if s.auth_user is not None:
        lines.append(f"sentinel auth-user {name} {s.auth_user}")
    for cmd, renamed in s.rename_commands.items():
        lines.append(f"sentinel rename-command {name} {cmd} {renamed}")
    lines += s.extra_lines
    return "\n".join(lines) + "\n"


def start_sentinel(master_host: str, master_port: int, settings: SentinelSettings | None = None,
                   ready_timeout: float = 15.0) -> servers.Server:
    """One redis-sentinel on a free port in a temporary directory, answering PING."""
    if not sentinel_available():
        raise servers.ServerStartError(f"redis-sentinel not found at {REDIS_SENTINEL}")
    s = settings or SentinelSettings()

    def argv(p: int, wd: Path) -> list[str]:
        # Written again for each attempt: a retry after a port race uses a new port.
        conf = wd / "sentinel.conf"
        conf.write_text(sentinel_config(p, wd, master_host, master_port, s))
        return [REDIS_SENTINEL, str(conf)]

    return servers._start("sentinel", argv, [], None, ready_timeout, None)


class SentinelGroup:
    """N sentinels monitoring one master, with the queries the tests make of them."""

    def __init__(self, master_host: str, master_port: int, n: int = 3,
                 settings: SentinelSettings | None = None):
        self.settings = settings or SentinelSettings()
        self.sentinels: list[servers.Server] = []
        try:
            for _ in range(n):
                self.sentinels.append(start_sentinel(master_host, master_port, self.settings))
        except BaseException:
            self.cleanup()
            raise

    @property
    def name(self) -> str:
        return self.settings.master_name

    def addrs(self) -> list[tuple[str, int]]:
        return [(s.host, s.port) for s in self.sentinels]

    def client(self, i: int):
        """A redis-py connection to sentinel i, answering str."""
        import redis

        s = self.sentinels[i]
        return redis.Redis(host=s.host, port=s.port, decode_responses=True, socket_timeout=10)

    def command(self, i: int, *args):
        with self.client(i) as r:
            return r.execute_command(*args)

    def master_info(self, i: int) -> dict[str, str]:
        """SENTINEL MASTER name as a dict (field -> value)."""
        flat = self.command(i, "SENTINEL", "MASTER", self.name)
        if isinstance(flat, dict):
            return flat
        return dict(zip(flat[::2], flat[1::2]))

    def peers(self, i: int) -> list[dict[str, str]]:
        """SENTINEL SENTINELS name: the other sentinels sentinel i knows."""
        rows = self.command(i, "SENTINEL", "SENTINELS", self.name)
        return [r if isinstance(r, dict) else dict(zip(r[::2], r[1::2])) for r in rows]

    def master_addr(self, i: int = 0) -> tuple[str, int] | None:
        reply = self.command(i, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.name)
        if not reply:
            return None
        return reply[0], int(reply[1])

    def wait_discovered(self, timeout: float = 60.0) -> None:
        """Until every sentinel lists all the others (they find each other through the
        master's __sentinel__:hello channel, one hello every 2 s)."""
        want = len(self.sentinels) - 1
        for i in range(len(self.sentinels)):
            wait_until(lambda: len(self.peers(i)) == want, timeout,
                       f"sentinel {i} to know {want} other sentinels")

    def wait_master_addr(self, addr: tuple[str, int], timeout: float = 60.0) -> None:
        """Until every sentinel names `addr` as the master."""
        for i in range(len(self.sentinels)):
            wait_until(lambda: self.master_addr(i) == addr, timeout,
                       f"sentinel {i} to name {addr} as the master")

    def redis_py_sentinel(self, **kwargs):
        """redis-py's Sentinel client over this group."""
        from redis.sentinel import Sentinel

        kwargs.setdefault("socket_timeout", 10)
        return Sentinel(self.addrs(), **kwargs)

    def cleanup(self) -> None:
        for s in self.sentinels:
            s.cleanup()
        self.sentinels = []
