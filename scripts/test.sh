#!/usr/bin/env bash
# streamd's test command (README and .ci/run both call this):
#   1. install missing Debian packages (skipped when all are present)
#   2. configure + build (RelWithDebInfo) and run every ctest test: GoogleTest unit tests,
#      tests/integration and tests/differential against the built binary
#   3. check the differential scripts themselves: redis-server vs redis-server
#   4. ASan+UBSan build in build-asan, with asserts (no NDEBUG): the whole ctest suite again
#      (unit, integration, differential) against the sanitizer binary
#   5. the libFuzzer targets (tests/fuzz: request parser, command layer, AOF loader, RESTORE
#      payloads), built with clang in build-fuzz, each run briefly from its committed corpus
#
# Tests run JOBS at a time (ctest -j): each starts its servers on free ports in directories of
# its own, and most of their time is spent waiting on servers, not computing.
#
# Usage: scripts/test.sh [--no-asan] [--no-fuzz] [--no-install]
# Environment: BUILD_DIR (build), ASAN_BUILD_DIR (build-asan), FUZZ_OUT (build-fuzz), JOBS (2),
#   STREAMD_TEST_CXX_FLAGS (compiler flags of the test build, default "-O2 -g0 -DNDEBUG");
#   (fuzz targets run with a fixed seed and run count, see below).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
ASAN_BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
JOBS=${JOBS:-2}
run_asan=1
run_fuzz=1
install=1
for arg in "$@"; do
  case "$arg" in
    --no-asan) run_asan=0 ;;
    --no-fuzz) run_fuzz=0 ;;
    --no-install) install=0 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done

start=$SECONDS
step() { echo; echo "== [$((SECONDS - start))s] $*"; }

if ((install)); then
  step "dependencies"
  scripts/install_deps.sh
fi

step "configure and build ($BUILD_DIR)"
# Optimised as shipped (-O2) but without debug info: -g makes the build about a third slower, and
# CI's 2 cores build everything twice (this and the sanitizer build). Both are unity builds
# (batches of files compiled as one; CMakeLists.txt says what that asks of the code).
# The unit tests' own files at -O1 (CMakeLists.txt: STREAMD_UNIT_TEST_FLAGS).
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${STREAMD_TEST_CXX_FLAGS:--O2 -g0 -DNDEBUG}" \
  -DSTREAMD_UNIT_TEST_FLAGS=-O1
cmake --build "$BUILD_DIR" -j"$JOBS"

step "differential scripts self-test (redis-server vs redis-server)"
STREAMD_DIFF_SELFTEST=1 PYTHONPATH=tests /usr/bin/python3 tests/differential/test_differential.py

step "ctest ($BUILD_DIR)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS"

if ((run_asan)); then
  step "configure and build with ASan+UBSan ($ASAN_BUILD_DIR)"
  # -O0 -g1: sanitizer reports keep file:line, and the build takes a third less of CI's time
  # than -O1 (measured: 13 s against 20 s for src/rest/rest_server.cc), more than -O1 would
  # save in the tests, which run beside each other and mostly wait. No NDEBUG: this is the
  # build whose asserts run (STREAMD_SANITIZE adds -UNDEBUG as well). Only the server and the
  # unit tests: the load generator is not under test.
  cmake -S . -B "$ASAN_BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTREAMD_SANITIZE=ON \
    -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1"
  cmake --build "$ASAN_BUILD_DIR" -j"$JOBS" --target streamd unit_tests
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  step "ctest under sanitizers: unit, integration and differential ($ASAN_BUILD_DIR)"
  ctest --test-dir "$ASAN_BUILD_DIR" --output-on-failure -j"$JOBS"
fi

if ((run_fuzz)); then
  step "build the fuzz targets with clang (${FUZZ_OUT:-build-fuzz})"
  JOBS=$JOBS tests/fuzz/build_and_run.sh --build-only
  # A crash, a sanitizer report or a broken check stops the run with a reproducer in FUZZ_OUT.
  # A fixed seed and run count, from the committed corpus into an empty output corpus, make each
  # run the same: a finding fails every run, never one in ten by chance. The counts keep each
  # run to a few seconds on 2 cores (the command target runs up to 256 commands twice per input,
  # ~40 inputs/s; the AOF loader writes and loads files, ~300/s). Random, longer campaigns run
  # locally (tests/fuzz/build_and_run.sh TARGET SECONDS).
  for spec in request_parser:300000 commands:300 aof_loader:3000 restore_payload:200000; do
    target=${spec%%:*} runs=${spec#*:}
    step "fuzz $target (seed 1, $runs mutations after the corpus)"
    rm -rf "${FUZZ_OUT:-build-fuzz}/ci-corpus-$target"
    FUZZ_CORPUS=ci-corpus-$target tests/fuzz/build_and_run.sh "$target" 600 -seed=1 \
      -runs="$runs" 2>&1 | tail -n 25
  done
fi

step "all tests passed"
