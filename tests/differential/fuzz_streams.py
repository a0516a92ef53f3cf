#!/usr/bin/python3
"""The stream fuzzer: seeded random command sequences against streamd and Debian's
redis-server 7.0.15 (both started fresh), compared reply by reply, failures shrunk to a
differential script. See tests/streamd_testlib/fuzz/ and tests/differential/README.md.

    STREAMD_BIN=build/streamd PYTHONPATH=tests /usr/bin/python3 tests/differential/fuzz_streams.py \\
        [--seed S] [--sequences N] [--length L] [--proto 2|3] [--time-limit SECONDS]
        [--shrink N] [--replay K]

Exit status 0 when no unexplained difference was found, 1 otherwise.
"""

import argparse
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamd_testlib import servers  # noqa: E402
from streamd_testlib.fuzz.campaign import Campaign, sequence_seed  # noqa: E402
from streamd_testlib.fuzz.gen import Generator  # noqa: E402
from streamd_testlib.fuzz.shrink import quote_arg  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sequences", type=int, default=200)
    ap.add_argument("--length", type=int, default=60, help="commands per sequence")
    ap.add_argument("--first", type=int, default=0, metavar="K",
                    help="start at sequence K of the seed (rerun one found by a long run)")
    ap.add_argument("--proto", choices=("2", "3"), help="one protocol only (default both)")
    ap.add_argument("--time-limit", type=float, help="stop starting sequences after this")
    ap.add_argument("--shrink", type=int, default=10, metavar="N",
                    help="shrink at most N distinct differences (default 10)")
    ap.add_argument("--extra-xfail", type=Path, action="append", default=[], metavar="FILE",
                    help="more fuzz_xfail-format entries to skip (e.g. open items being fixed, "
                         "to look past them); never for CI")
    ap.add_argument("--node-entries", type=int, metavar="N",
                    help="start both servers with --stream-node-max-entries N (small nodes)")
    ap.add_argument("--self-test", action="store_true",
                    help="redis-server against redis-server: must find nothing (checks that "
                         "the generator and normalisation leave nothing nondeterministic)")
    ap.add_argument("--replay", type=int, metavar="K",
                    help="print sequence K of the seed as a script and exit")
    opts = ap.parse_args()
    if opts.replay is not None:
        for argv in Generator(sequence_seed(opts.seed, opts.replay)).sequence(opts.length):
            print(" ".join(quote_arg(a) for a in argv))
        return 0
    if not opts.self_test and not servers.streamd_available():
        print(f"streamd binary not found at {servers.streamd_bin()} (set STREAMD_BIN)")
        return 2
    # SIGTERM ends the run like ctrl-C: the servers are stopped and the summary printed.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    protos = (int(opts.proto),) if opts.proto else (2, 3)
    c = Campaign(opts.seed, opts.sequences, opts.length, protos, opts.shrink, opts.time_limit,
                 log=lambda s: print(s, flush=True), extra_xfail=opts.extra_xfail,
                 server_args=(["--stream-node-max-entries", str(opts.node_entries)]
                              if opts.node_entries else []), self_test=opts.self_test, first=opts.first)
    st = c.run()
    print(c.summary_line(st.seconds))
    for row, n in sorted(st.skipped.items()):
        print(f"  skipped {n} step(s) explained by {row}"
              + (f", {st.stopped[row]} sequence(s) stopped there" if st.stopped[row] else ""))
    return 1 if st.failures else 0


if __name__ == "__main__":
    sys.exit(main())
