"""Start and stop streamd and Debian's redis-server on free loopback ports.

Each server runs in its own temporary directory (its --dir), with stdout and stderr captured in
`server.log` there. A server that fails to come up raises ServerStartError with its log.
Every server started is remembered (`started_servers()`), so a failing test can print the logs
of the servers it used (see runner.py).
"""

from __future__ import annotations

import os
import random
import shutil
import shlex
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REDIS_SERVER = os.environ.get("REDIS_SERVER_BIN", "/usr/bin/redis-server")
REDIS_CLI = os.environ.get("REDIS_CLI_BIN", "/usr/bin/redis-cli")
DEFAULT_STREAMD_BIN = Path(__file__).resolve().parents[2] / "build" / "streamd"

# Outside Linux's default ephemeral range (32768-60999), so outgoing connections made while the
# suite runs cannot take a port between our check and the server's bind.
_PORT_RANGE = (20000, 32000)
_used_ports: set[int] = set()
_lock = threading.Lock()
_registry: list["Server"] = []
KEEP_TMP = os.environ.get("STREAMD_KEEP_TMP") == "1"


class ServerStartError(Exception):
    pass


def streamd_bin() -> Path:
    """The streamd binary under test: $STREAMD_BIN, else build/streamd."""
    env = os.environ.get("STREAMD_BIN")
    return Path(env) if env else DEFAULT_STREAMD_BIN


def sanitized() -> bool:
    """Whether the streamd under test is the ASan+UBSan build (ctest says so in
    STREAMD_SANITIZED): its memory and speed are not the server's, so tests skip their resource
    bounds there and keep every functional check."""
    return os.environ.get("STREAMD_SANITIZED") == "1"


def streamd_available() -> bool:
    p = streamd_bin()
    return p.is_file() and os.access(p, os.X_OK)


def redis_available() -> bool:
    return os.access(REDIS_SERVER, os.X_OK)


def missing_reason() -> str | None:
    """Why a streamd-versus-redis test cannot run here (a skip reason), or None."""
    if not redis_available():
        return f"redis-server not found at {REDIS_SERVER} (apt-get install redis-server)"
    if not streamd_available():
        return f"streamd binary not found at {streamd_bin()} (build it or set STREAMD_BIN)"
    return None


def _port_is_free(port: int) -> bool:
    for family, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET, "0.0.0.0")):
        s = socket.socket(family, socket.SOCK_STREAM)
        try:
            s.bind((addr, port))
        except OSError:
            return False
        finally:
            s.close()
    # Something may listen on another address of the port (e.g. [::]); a connect finds it.
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return False
    except OSError:
        return True


def free_port() -> int:
    """A TCP port that nothing listens on and that this process has not handed out before."""
    rng = random.Random(os.getpid() ^ time.monotonic_ns())
    with _lock:
        for _ in range(500):
            port = rng.randint(*_PORT_RANGE)
            if port in _used_ports:
                continue
            if _port_is_free(port):
                _used_ports.add(port)
                return port
    raise RuntimeError("no free TCP port found")


def _read_line(s: socket.socket) -> bytes:
    """One simple reply (+OK, +PONG, -ERR ...), read byte by byte so nothing after it is lost."""
    data = b""
    while not data.endswith(b"\r\n"):
        chunk = s.recv(1)
        if not chunk:
            break
        data += chunk
    return data


def started_servers() -> list["Server"]:
    return list(_registry)


class Server:
    """One server process (streamd or redis-server) listening on 127.0.0.1:port."""

    def __init__(self, name: str, argv: list[str], port: int, workdir: Path, owns_workdir: bool):
        self.name = name
        self.argv = argv
        self.port = port
        self.host = "127.0.0.1"
        self.workdir = workdir
        self.owns_workdir = owns_workdir
        self.log_path = workdir / "server.log"
        self.proc: subprocess.Popen | None = None
        self.returncode: int | None = None
        self.started_at = 0.0
        self.stopped_at: float | None = None
        # A server started with --requirepass answers -NOAUTH until AUTH: wait_ready sends it.
        self.password: str | None = None
        if "--requirepass" in argv[:-1]:
            self.password = argv[argv.index("--requirepass") + 1]

    def __repr__(self) -> str:
        return f"<{self.name} port={self.port} pid={self.proc.pid if self.proc else None}>"

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        self._log = open(self.log_path, "ab")
        self.started_at = time.time()
        self.proc = subprocess.Popen(
            self.argv,
            cwd=self.workdir,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # our signals only; a ctrl-C of the test does not race
        )
        _registry.append(self)

    def wait_ready(self, timeout: float = 15.0) -> None:
        """Wait until the server answers PING with +PONG."""
        deadline = time.monotonic() + timeout
        last_error = "no answer"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.returncode = self.proc.returncode
                raise ServerStartError(
                    f"{self.name} exited with code {self.returncode} during startup\n"
                    f"command: {shlex.join(self.argv)}\n--- log ---\n{self.log_tail()}"
                )
            try:
                with socket.create_connection((self.host, self.port), timeout=1.0) as s:
                    s.settimeout(2.0)
                    if self.password is not None:
                        pw = self.password.encode()
                        s.sendall(b"*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n" % (len(pw), pw))
                        # A foreign server refuses the password: PING's NOAUTH reports it.
                        _read_line(s)
                    s.sendall(b"*1\r\n$4\r\nPING\r\n")
                    data = _read_line(s)
                    if data == b"+PONG\r\n":
                        if self._answers_as_us(s):
                            return
                        # Another process took the port between free_port()'s check and our
                        # bind (other test processes run at the same time): ours fails to bind
                        # and exits, and _start retries on a new port.
                        last_error = "another server answers on this port"
                    else:
                        last_error = f"PING answered {data!r}"
            except OSError as e:
                last_error = str(e)
            time.sleep(0.02)
        self.kill()
        raise ServerStartError(
            f"{self.name} did not answer PING within {timeout}s ({last_error})\n"
            f"command: {shlex.join(self.argv)}\n--- log ---\n{self.log_tail()}"
        )

    def _answers_as_us(self, s: socket.socket) -> bool:
        """Whether the server on the other end of `s` is this process (INFO's process_id)."""
        s.sendall(b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return False
            data += chunk
            head, _, rest = data.partition(b"\r\n")
            if head.startswith(b"$") and len(rest) >= int(head[1:]) + 2:
                break
            if head.startswith(b"-"):
                return False
        return f"process_id:{self.proc.pid}\r\n".encode() in rest

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive():
            os.kill(self.proc.pid, sig)

    def wait(self, timeout: float) -> int | None:
        """Wait for exit; return the exit code (negative signal number) or None on timeout."""
        if self.proc is None:
            return self.returncode
        try:
            self.returncode = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        self._closed()
        return self.returncode

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL if it has not exited within `timeout`. Returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self.returncode = self.proc.wait()
        self._closed()
        return self.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        if self.proc is not None:
            self.returncode = self.proc.returncode
        self._closed()

    def _closed(self) -> None:
        if self.stopped_at is None:
            self.stopped_at = time.time()
        log = getattr(self, "_log", None)
        if log is not None and not log.closed:
            log.close()

    def cleanup(self) -> None:
        """Stop (if running) and remove the temporary directory."""
        self.stop()
        if self in _registry:
            _registry.remove(self)
        if self.owns_workdir and not KEEP_TMP:
            shutil.rmtree(self.workdir, ignore_errors=True)

    # -- logs -------------------------------------------------------------------------------

    def log_text(self) -> str:
        try:
            return self.log_path.read_bytes().decode("utf-8", "replace")
        except OSError:
            return ""

    def log_since_last_dump(self, lines: int = 120) -> str:
        """The log lines not shown by an earlier call (at most `lines` of them), so a server
        shared by many failing tests has each part of its log printed once."""
        text = self.log_text()
        start = getattr(self, "_dumped_upto", 0)
        self._dumped_upto = len(text)
        new = text[start:].splitlines()
        if not new:
            return "(no new log lines since the last dump)"
        if len(new) > lines:
            return "\n".join([f"... ({len(new) - lines} lines not shown)"] + new[-lines:])
        return "\n".join(new)

    def log_tail(self, lines: int = 80) -> str:
        text = self.log_text().splitlines()
        if len(text) > lines:
            return "\n".join([f"... ({len(text) - lines} earlier lines)"] + text[-lines:])
        return "\n".join(text)

    # -- clients ----------------------------------------------------------------------------

    def client(self, timeout: float = 10.0):
        from .client import RawClient

        return RawClient(self.host, self.port, timeout)

    def redis_py(self, **kwargs):
        import redis

        return redis.Redis(host=self.host, port=self.port, **kwargs)

    def cli(self, *args: str, input: bytes | None = None, timeout: float = 30.0,
            resp3: bool = False) -> subprocess.CompletedProcess:
        """Run Debian's redis-cli against this server (output captured as bytes)."""
        argv = [REDIS_CLI, "-h", self.host, "-p", str(self.port)]
        if resp3:
            argv.append("-3")
        argv += list(args)
        if input is None:
            return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=timeout)
        return subprocess.run(argv, input=input, capture_output=True, timeout=timeout)


def _start(name: str, base_argv: list[str], extra_args, workdir: str | Path | None,
           ready_timeout: float, port: int | None, retries: int = 3) -> Server:
    owns = workdir is None
    wd = Path(tempfile.mkdtemp(prefix=f"{name}-")) if owns else Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    last: Exception | None = None
    for _ in range(retries if port is None else 1):
        p = port if port is not None else free_port()
        argv = base_argv(p, wd) + [str(a) for a in (extra_args or [])]
        server = Server(name, argv, p, wd, owns)
        server.start()
        try:
            server.wait_ready(ready_timeout)
            return server
        except ServerStartError as e:
            server.kill()
            last = e
            if "in use" not in server.log_text().lower():
                break  # a real startup failure, not a port race: do not hide it
    if owns and not KEEP_TMP:
        shutil.rmtree(wd, ignore_errors=True)
    assert last is not None
    raise last


def start_streamd(*args, workdir=None, ready_timeout: float = 15.0, port: int | None = None,
                  config_file: str | Path | None = None) -> Server:
    """Start streamd (STREAMD_BIN) as `streamd [config] --port P --dir TMP args...`."""
    binary = streamd_bin()
    if not streamd_available():
        raise ServerStartError(f"streamd binary not found or not executable: {binary}")

    def argv(p: int, wd: Path) -> list[str]:
        head = [str(binary)] + ([str(config_file)] if config_file else [])
        return head + ["--port", str(p), "--dir", str(wd)]

    return _start("streamd", argv, args, workdir, ready_timeout, port)


def start_redis(*args, workdir=None, ready_timeout: float = 15.0, port: int | None = None,
                binary: str | Path | None = None) -> Server:
    """Start Debian's redis-server (or `binary`, e.g. a newer Redis built from source) without
    persistence in a temporary directory."""

    def argv(p: int, wd: Path) -> list[str]:
        return [str(binary or REDIS_SERVER), "--port", str(p), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(wd)]

    return _start("redis", argv, args, workdir, ready_timeout, port)


class SharedStreamdTest:
    """Mixin for a unittest.TestCase whose tests share one streamd (started once per class with
    `server_args`) and start from an empty keyspace (FLUSHALL before each test)."""

    server_args: tuple[str, ...] = ()
    server: Server

    @classmethod
    def setUpClass(cls):
        cls.server = start_streamd(*cls.server_args)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def setUp(self):
        with self.server.client() as c:
            reply = c.call_raw("FLUSHALL")
        if reply != b"+OK\r\n":
            raise AssertionError(f"FLUSHALL answered {reply!r}")
