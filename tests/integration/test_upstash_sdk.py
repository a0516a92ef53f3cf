"""The @upstash/redis SDK (npm, locked in tests/clients/upstash) against streamd's REST port:
tests/clients/upstash/streams.mjs runs the SDK documentation's stream examples and a producer /
consumer / janitor loop. Skipped, with the reason, when node or the SDK's node_modules is missing
(scripts/install_deps.sh runs `npm ci` there).
"""

import os
import shutil
import subprocess
import unittest
from pathlib import Path

from streamd_testlib import runner, servers

CLIENT_DIR = Path(__file__).resolve().parents[1] / "clients" / "upstash"
NODE = shutil.which("node")
SDK = CLIENT_DIR / "node_modules" / "@upstash" / "redis"
TOKEN = "sdk-test-token"


@unittest.skipUnless(servers.streamd_available(), "streamd binary not found")
@unittest.skipUnless(NODE, "node not found: the @upstash/redis SDK test needs Node.js")
@unittest.skipUnless(SDK.is_dir(), f"{SDK} missing: run `npm ci` in {CLIENT_DIR} "
                                   "(scripts/install_deps.sh does)")
class UpstashSdkTest(unittest.TestCase):
    def run_script(self, *server_args):
        rest_port = servers.free_port()
        server = servers.start_streamd("--rest-port", rest_port, "--rest-token", TOKEN,
                                       *server_args)
        self.addCleanup(server.cleanup)
        env = dict(os.environ, UPSTASH_REDIS_REST_URL=f"http://127.0.0.1:{rest_port}",
                   UPSTASH_REDIS_REST_TOKEN=TOKEN)
        r = subprocess.run([NODE, "streams.mjs"], cwd=CLIENT_DIR, env=env, capture_output=True,
                           text=True, timeout=120)
        print(r.stdout, r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("0 failed", r.stdout)
        return server

    def test_stream_examples_and_worker_loop(self):
        self.run_script("--appendonly", "no")

    def test_with_the_aof_and_fsync_always(self):
        server = self.run_script("--appendonly", "yes", "--appendfsync", "always")
        self.assertEqual(server.redis_py().xlen("loop"), 200)


if __name__ == "__main__":
    runner.main()
