"""Every script in scripts/*.txt, run against streamd and redis-server, in RESP2 and RESP3.

One test per (script, protocol): test_<script>_resp2 / test_<script>_resp3. Servers are shared
across scripts (FLUSHALL between them) unless a script says !fresh or !server-args.

Environment:
  STREAMD_BIN            the streamd binary (set by ctest)
  STREAMD_DIFF_SELFTEST=1  compare redis-server with redis-server instead (harness self-test)
  STREAMD_DIFF_SCRIPTS   comma-separated script stems or globs to run (default: all)
  STREAMD_DIFF_PROTO     2 or 3 to run one protocol only
  STREAMD_DIFF_TIMEOUT   seconds to wait for one reply (default 5)

xfail.txt lists scripts streamd is known to fail (expected failures); one that starts passing
fails the run until it is removed from the list. Ignored in self-test mode.
"""

import unittest
from pathlib import Path

from streamd_testlib import runner, servers
from streamd_testlib.differential import (
    ServerPair,
    discover_scripts,
    env_patterns,
    env_protocols,
    run_script,
    selftest_enabled,
)
from streamd_testlib.script import parse_script

SELFTEST = selftest_enabled()
XFAIL_FILE = Path(__file__).with_name("xfail.txt")


def load_xfail() -> dict[str, str]:
    """Known failures of streamd: `name` or `name:2` / `name:3`, then an optional reason.
    A listed test that passes fails the run (unexpected success), so the list only shrinks."""
    entries = {}
    if XFAIL_FILE.exists():
        for line in XFAIL_FILE.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                key, _, reason = line.partition(" ")
                entries[key] = reason.strip()
    return entries


def _skip_reason():
    if not servers.redis_available():
        return f"redis-server not found at {servers.REDIS_SERVER} (apt-get install redis-server)"
    if not SELFTEST and not servers.streamd_available():
        return (f"streamd binary not found at {servers.streamd_bin()} (build it or set "
                "STREAMD_BIN; STREAMD_DIFF_SELFTEST=1 checks the scripts redis-vs-redis)")
    return None


class DifferentialTest(unittest.TestCase):
    maxDiff = None
    pair = None

    @classmethod
    def setUpClass(cls):
        reason = _skip_reason()
        if reason:
            raise unittest.SkipTest(reason)
        cls.pair = ServerPair(SELFTEST)

    @classmethod
    def tearDownClass(cls):
        if cls.pair is not None:
            cls.pair.stop()

    def run_one(self, script, proto):
        problems = run_script(script, proto, self.pair)
        if problems:
            self.fail(f"{len(problems)} problem(s) in {script.path.name} RESP{proto}:\n\n"
                      + "\n\n".join(problems))


def _add_tests():
    protos = env_protocols()
    xfail = {} if SELFTEST else load_xfail()
    for path in discover_scripts(env_patterns()):
        script = parse_script(path)  # a malformed script fails the whole file loudly
        for proto in (2, 3):
            name = f"test_{script.name}_resp{proto}"

            def test(self, script=script, proto=proto):
                if proto not in script.protocols:
                    self.skipTest(f"{script.path.name} runs only in RESP"
                                  + "/".join(map(str, script.protocols)))
                if proto not in protos:
                    self.skipTest(f"STREAMD_DIFF_PROTO selects RESP{protos[0]}")
                self.run_one(script, proto)

            test.__doc__ = f"{script.path.name} in RESP{proto}" + (
                f": {script.description}" if script.description else "")
            if (script.name in xfail or f"{script.name}:{proto}" in xfail) and \
                    proto in script.protocols and proto in protos:
                test = unittest.expectedFailure(test)
            setattr(DifferentialTest, name, test)


_add_tests()

if __name__ == "__main__":
    runner.main()
