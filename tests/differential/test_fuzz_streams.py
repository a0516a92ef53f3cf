"""The stream fuzzer in CI: a fixed seed, both protocols, against streamd and Debian's
redis-server 7.0.15 (fresh servers). Passes only when every difference is explained by a
versions row or a fuzz_xfail.txt entry, and every fuzz_xfail.txt entry is still needed.

Environment: STREAMD_BIN (set by ctest); STREAMD_FUZZ_SEED / STREAMD_FUZZ_SEQUENCES to run
another seed or more sequences locally (tests/differential/fuzz_streams.py is the full tool).
"""

import os
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.fuzz.campaign import Campaign

SEED = int(os.environ.get("STREAMD_FUZZ_SEED", "20261201"))
SEQUENCES = int(os.environ.get("STREAMD_FUZZ_SEQUENCES", "500"))
LENGTH = 60
SELF_TEST = os.environ.get("STREAMD_DIFF_SELFTEST", "") not in ("", "0")
# A second, shorter run with many small stream nodes (node splits, deletes and trims across
# nodes), seed and size fixed.
SMALL_NODES = (20261202, 250, ["--stream-node-max-entries", "4"])


class FuzzStreamsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        reason = (None if SELF_TEST and servers.redis_available() else
                  servers.missing_reason())
        if reason:
            raise unittest.SkipTest(reason)
        log: list[str] = []
        cls.campaigns = [
            Campaign(SEED, SEQUENCES, LENGTH, (2, 3), shrink_failures=3, log=log.append,
                     self_test=SELF_TEST),
            Campaign(SMALL_NODES[0], SMALL_NODES[1], LENGTH, (2, 3), shrink_failures=3,
                     log=log.append, server_args=SMALL_NODES[2], self_test=SELF_TEST),
        ]
        cls.failures, cls.skipped, cls.steps = [], set(), 0
        for c in cls.campaigns:
            st = c.run()
            print(f"seed {c.seed}{' ' + ' '.join(c.server_args) if c.server_args else ''}: "
                  + c.summary_line(st.seconds))
            for row, n in sorted(st.skipped.items()):
                print(f"  skipped {n} step(s) explained by {row}")
            cls.failures += st.failures
            cls.skipped |= set(st.skipped)
            cls.steps += st.steps
        cls.log = log

    def test_no_unexplained_difference(self):
        if self.failures:
            self.fail(f"{len(self.failures)} unexplained difference(s); reproducers below are "
                      "differential scripts for tests/differential/scripts/:\n\n"
                      + "\n".join(self.log))

    def test_every_xfail_entry_is_still_needed(self):
        if SELF_TEST:
            self.skipTest("redis against redis needs no entry")
        stale = [e.name for e in self.campaigns[0].xfail if f"xfail:{e.name}" not in self.skipped]
        self.assertEqual(stale, [], "fuzz_xfail.txt entries this run never needed: remove them "
                                    "(or, if the seed merely misses them, say so in the entry)")

    def test_the_run_compared_something(self):
        # A generator or harness bug that stops every sequence at once must not pass quietly.
        self.assertGreater(self.steps, (SEQUENCES + SMALL_NODES[1]) * LENGTH)


if __name__ == "__main__":
    runner.main()
