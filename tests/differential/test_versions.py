"""Intended version differences (versions/*.txt, see streamd_testlib/versions.py): per row and
protocol, streamd answers what the newer Redis answered when the golden file was recorded, and
Debian's redis-server 7.0.15 differs from that exactly on the `!differs` steps, where the row's
`!fuzz` matchers (if any) explain the difference. Also checks that
every row has golden data and that VERSIONS.md is the table generated from the rows.
"""

import unittest

from streamd_testlib import runner, servers
from streamd_testlib.versions import (
    TABLE_PATH, check_matchers, check_old, check_streamd, golden_path, load_row, read_golden, render_table,
    row_paths, run_row,
)

ROWS = [load_row(p) for p in row_paths()]  # a malformed row fails the whole file loudly


class VersionsTest(unittest.TestCase):
    maxDiff = None
    streamd = redis = None

    @classmethod
    def setUpClass(cls):
        reason = servers.missing_reason()
        if reason:
            raise unittest.SkipTest(reason)

    @classmethod
    def tearDownClass(cls):
        for s in (cls.streamd, cls.redis):
            if s is not None:
                s.cleanup()

    @classmethod
    def pair(cls, script):
        """Shared servers, except for rows that need their own arguments."""
        if script.server_args:
            return (servers.start_streamd("--appendonly", "no", *script.server_args),
                    servers.start_redis(*script.server_args), True)
        if cls.streamd is None:
            cls.streamd = servers.start_streamd("--appendonly", "no")
            cls.redis = servers.start_redis()
        return cls.streamd, cls.redis, False

    def test_table_is_generated(self):
        self.assertEqual(TABLE_PATH.read_text(encoding="utf-8"), render_table(ROWS),
                         "VERSIONS.md is stale: run tests/differential/record_golden.py --table")

    def test_every_row_has_golden_data(self):
        missing = [s.path.name for s in ROWS if not golden_path(s).exists()]
        self.assertEqual(missing, [], "record them with record_golden.py --redis-bin ...")


def _add_tests():
    for script in ROWS:
        for proto in script.protocols:
            def test(self, script=script, proto=proto):
                gp = golden_path(script)
                if not gp.exists():
                    self.fail(f"{gp.name} missing")
                golden = read_golden(gp)
                streamd, redis, own = self.pair(script)
                try:
                    got = run_row(script, streamd, proto)
                    problems = check_streamd(script, golden, proto, got)
                    problems += check_matchers(script, golden, proto, got)
                    problems += check_old(script, golden, proto, run_row(script, redis, proto))
                finally:
                    if own:
                        streamd.cleanup()
                        redis.cleanup()
                if problems:
                    self.fail("\n\n".join(problems))

            test.__doc__ = f"versions/{script.path.name} RESP{proto}: {script.description}"
            setattr(VersionsTest, f"test_{script.name}_resp{proto}", test)


_add_tests()

if __name__ == "__main__":
    runner.main()
