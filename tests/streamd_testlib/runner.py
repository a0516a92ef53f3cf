"""unittest entry point shared by every Python test file.

`main()` runs the module's tests verbosely, prints the logs of the servers a failing test used,
ends with a plain 'N passed, N failed, N skipped' line and exits 0 only when nothing failed.
"""

from __future__ import annotations

import shlex
import sys
import time
import unittest

from . import servers


class LogDumpingResult(unittest.TextTestResult):
    """Prints the tail of every server log relevant to a failing test, right under it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._test_started = time.time()
        self.passed = 0

    def startTest(self, test):
        self._test_started = time.time()
        super().startTest(test)

    def addSuccess(self, test):
        self.passed += 1
        super().addSuccess(test)

    def _dump_logs(self, test) -> None:
        relevant = [
            s for s in servers.started_servers()
            if s.stopped_at is None or s.stopped_at >= self._test_started - 1
        ]
        for s in relevant:
            # The reference redis-server's log only matters when it died.
            if s.name == "redis" and s.alive() and any(o.name != "redis" for o in relevant):
                continue
            state = "running" if s.alive() else f"exited with code {s.returncode}"
            self.stream.write(
                f"\n----- log of {s.name} on port {s.port} ({state}) for {test} -----\n"
                f"command: {shlex.join(s.argv)}\n{s.log_since_last_dump(120)}\n"
                "----- end of log -----\n"
            )
        self.stream.flush()

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._dump_logs(test)

    def addError(self, test, err):
        super().addError(test, err)
        self._dump_logs(test)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._dump_logs(subtest)


def main(module: str = "__main__", argv: list[str] | None = None) -> None:
    runner = unittest.TextTestRunner(resultclass=LogDumpingResult, verbosity=2, stream=sys.stdout)
    prog = unittest.main(module=module, argv=argv, testRunner=runner, exit=False)
    r = prog.result
    failed = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    skipped = len(r.skipped)
    passed = getattr(r, "passed", r.testsRun - failed - skipped)
    if skipped and not passed and not failed:
        reasons = sorted({reason for _, reason in r.skipped})
        for reason in reasons:
            print(f"SKIPPED: {reason}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.stdout.flush()
    sys.exit(0 if r.wasSuccessful() else 1)
