"""A real client: ioredis (npm) drives streamd's Redis 8.x stream commands (XADD IDMP/IDMPAUTO,
XCFGSET, XDELEX, XACKDEL, XTRIM ACKED, XREAD MAXCOUNT) through its own command API, and its
pub/sub subscriber mode (channels, patterns, shard channels).

The client lives in tests/clients/node (package.json and package-lock.json are committed;
scripts/install_deps.sh runs `npm ci` there). Skips with a clear message when node or
tests/clients/node/node_modules is missing, or when the streamd binary does not exist.
"""

import shutil
import subprocess
import unittest
from pathlib import Path

from streamd_testlib import runner, servers

CLIENT_DIR = Path(__file__).resolve().parents[1] / "clients" / "node"
NODE = shutil.which("node")


def skip_reason():
    if not servers.streamd_available():
        return f"streamd binary not found at {servers.streamd_bin()}"
    if NODE is None:
        return "node is not installed (scripts/install_deps.sh installs nodejs and npm)"
    if not (CLIENT_DIR / "node_modules" / "ioredis").is_dir():
        return (f"{CLIENT_DIR}/node_modules is missing: run `npm ci` in {CLIENT_DIR} "
                "(scripts/install_deps.sh does)")
    return None


@unittest.skipIf(skip_reason() is not None, skip_reason() or "")
class NodeClientTest(unittest.TestCase):
    def test_ioredis_streams8(self):
        server = servers.start_streamd()
        self.addCleanup(server.cleanup)
        proc = subprocess.run([NODE, str(CLIENT_DIR / "streams8.test.js"), str(server.port)],
                              cwd=CLIENT_DIR, capture_output=True, text=True, timeout=120)
        print(proc.stdout, end="")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("ok xackdel acknowledges and deletes", proc.stdout)

    def test_ioredis_pubsub(self):
        server = servers.start_streamd()
        self.addCleanup(server.cleanup)
        proc = subprocess.run([NODE, str(CLIENT_DIR / "pubsub.test.js"), str(server.port)],
                              cwd=CLIENT_DIR, capture_output=True, text=True, timeout=120)
        print(proc.stdout, end="")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("ok unsubscribe everything and use the connection normally", proc.stdout)


if __name__ == "__main__":
    runner.main()
