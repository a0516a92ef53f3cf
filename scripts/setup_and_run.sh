#!/usr/bin/env bash
# Installs what streamd needs, builds it (RelWithDebInfo, in build/) and runs it in the
# foreground on 127.0.0.1:6379, with its data (the append-only file, appendonlydir/) in data/ of
# this checkout (DATA_DIR; ignored by git). Extra arguments go to streamd and win over these, e.g.
#   scripts/setup_and_run.sh --dir /var/lib/streamd
# Try it: redis-cli -p 6379 PING
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
DATA_DIR=${DATA_DIR:-data}
scripts/install_deps.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD_DIR" -j"${JOBS:-2}" --target streamd

if ss -ltn 2>/dev/null | grep -q '[:.]6379 '; then
  echo "port 6379 is already in use (a redis-server service?); stop it first" >&2
  exit 1
fi
mkdir -p "$DATA_DIR"
echo "== starting streamd on 127.0.0.1:6379, data in $DATA_DIR/ (Ctrl-C to stop)"
exec "$BUILD_DIR/streamd" --bind 127.0.0.1 --port 6379 --dir "$DATA_DIR" "$@"
