#!/usr/bin/python3
"""Record the golden replies of intended-version-difference rows (versions/NAME.txt).

    PYTHONPATH=tests /usr/bin/python3 tests/differential/record_golden.py \\
        --redis-bin /work/ref/redis-main/src/redis-server NAME...   # NAME: stem or glob
    PYTHONPATH=tests /usr/bin/python3 tests/differential/record_golden.py --table

Each row runs on a fresh newer Redis (--redis-bin, built from source; the build is never part of
the project, only the recorded replies are) in RESP2 and RESP3, and on Debian's redis-server
7.0.15; versions/NAME.golden gets the newer replies of every step and 7.0.15's replies of the
`!differs` steps. A row whose `!differs` step 7.0.15 answers alike is refused (it is no
difference). Recording also regenerates VERSIONS.md; `--table` only regenerates it.
"""

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamd_testlib import servers  # noqa: E402
from streamd_testlib.versions import (  # noqa: E402
    TABLE_PATH, check_old, golden_path, load_row, read_golden, render_table, row_paths, run_row,
    write_golden,
)


def server_version(server) -> str:
    with server.client() as c:
        info = c.call_raw("INFO", "server").decode("utf-8", "replace")
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return f"redis_version {fields.get('redis_version', '?').strip()}"


def build_note(binary: Path) -> str:
    """Where the newer Redis came from: its source tree's git commit when it has one."""
    tree = binary.resolve().parent.parent
    try:
        sha = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
    except OSError:
        sha = ""
    return f"{tree.name}" + (f" at commit {sha}" if sha else "")


def record(paths: list[Path], binary: Path) -> int:
    failed = 0
    for path in paths:
        script = load_row(path)
        new = servers.start_redis(*script.server_args, binary=binary)
        old = servers.start_redis(*script.server_args)
        try:
            header = [f"golden replies of versions/{path.name}, recorded by record_golden.py",
                      f"new: {server_version(new)} ({build_note(binary)}); "
                      f"old: {server_version(old)} ({servers.REDIS_SERVER})"]
            runs = {}
            for proto in script.protocols:
                runs[proto] = (run_row(script, new, proto), run_row(script, old, proto))
            gp = golden_path(script)
            write_golden(gp, header, runs)
            golden = read_golden(gp)
            problems = [p for proto in runs for p in check_old(script, golden, proto,
                                                               runs[proto][1])]
        finally:
            new.cleanup()
            old.cleanup()
        if problems:
            gp.unlink()
            failed += 1
            print(f"REFUSED {path.name}:\n  " + "\n  ".join(problems))
        else:
            print(f"recorded {gp.name}")
    return failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("names", nargs="*", help="row stems or globs")
    ap.add_argument("--redis-bin", type=Path, help="the newer redis-server built from source")
    ap.add_argument("--table", action="store_true", help="only regenerate VERSIONS.md")
    opts = ap.parse_args()
    failed = 0
    if not opts.table:
        if not opts.redis_bin or not opts.names:
            ap.error("--redis-bin PATH and at least one NAME are needed (or --table)")
        paths = row_paths(opts.names)
        if not paths:
            ap.error("no row matches")
        failed = record(paths, opts.redis_bin)
    TABLE_PATH.write_text(render_table([load_row(p) for p in row_paths()]), encoding="utf-8")
    print(f"wrote {TABLE_PATH.name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
