#!/bin/sh
# Builds the libFuzzer targets (CMake with STREAMD_FUZZ=ON and clang: coverage, ASan, UBSan and
# asserts) and runs one of them.
#   tests/fuzz/build_and_run.sh TARGET [seconds=60] [extra libFuzzer flags...]
#   tests/fuzz/build_and_run.sh --build-only
# TARGET: request_parser, commands, aof_loader or restore_payload (tests/fuzz/TARGET_fuzz.cc).
# The run starts from the committed corpus tests/fuzz/corpus/TARGET/ (read only; the commands
# target also reads the differential scripts) and keeps what it finds in $FUZZ_OUT/corpus-TARGET/. Output goes to
# $FUZZ_OUT (default build-fuzz/): the binaries, the growing corpus (FUZZ_CORPUS, default
# corpus-TARGET, inside FUZZ_OUT), any crash reproducer (crash-*), which replays with:
# build-fuzz/fuzz_TARGET build-fuzz/crash-...
# Parallel: tests/fuzz/build_and_run.sh commands 300 -jobs=2 -workers=2 (logs in build-fuzz/fuzz-N.log).
# Needs clang++ and the libFuzzer runtime (Debian: apt-get install -y clang libclang-rt-14-dev).
set -eu
cd "$(dirname "$0")/../.."
out=${FUZZ_OUT:-build-fuzz}
cxx=${CXX_FUZZ:-clang++}
if [ $# -lt 1 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
target=$1
shift
case "$target" in
  request_parser|commands|aof_loader|restore_payload|--build-only) ;;
  *) echo "unknown fuzz target: $target (request_parser, commands, aof_loader, restore_payload)" >&2
     exit 2 ;;
esac

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "$cxx not found: the fuzz targets need clang" >&2
  exit 2
fi
# -O1 -gline-tables-only: fast enough to run many inputs a second, and reports keep file:line.
# Long local campaigns: FUZZ_SANITIZERS=undefined (no ASan: several times the inputs per second)
# and FUZZ_CXXFLAGS="-O2 -gline-tables-only", in a FUZZ_OUT of their own (CI keeps the defaults).
# A FUZZ_OUT remembers what it was configured with: later runs without these variables keep it.
san_opt=""
flags_opt=""
if [ -n "${FUZZ_SANITIZERS:-}" ] || [ ! -f "$out/CMakeCache.txt" ]; then
  san_opt="-DSTREAMD_FUZZ_SANITIZERS=${FUZZ_SANITIZERS:-address,undefined}"
fi
if [ -n "${FUZZ_CXXFLAGS:-}" ] || [ ! -f "$out/CMakeCache.txt" ]; then
  flags_opt="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${FUZZ_CXXFLAGS:--O1 -gline-tables-only}"
fi
# A unity build, as scripts/test.sh's (CMakeLists.txt says why): about half the compile time.
cmake -S . -B "$out" -DCMAKE_CXX_COMPILER="$cxx" -DSTREAMD_FUZZ=ON -DSTREAMD_TESTS=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo ${san_opt:+"$san_opt"} ${flags_opt:+"$flags_opt"} >/dev/null
cmake --build "$out" -j"${JOBS:-2}" --target fuzz_request_parser fuzz_commands fuzz_aof_loader \
  fuzz_restore_payload
[ "$target" = --build-only ] && exit 0

seconds=${1:-60}
[ $# -gt 0 ] && shift
root=$(pwd)
seeds="$root/tests/fuzz/corpus/$target"
set --  -max_total_time="$seconds" -print_final_stats=1 "$@"
case "$target" in
  request_parser) set -- "$@" -max_len=4096 -dict="$root/tests/fuzz/request_parser.dict" ;;
  commands) set -- "$@" -max_len=8192 -dict="$root/tests/fuzz/commands.dict" ;;
  aof_loader) set -- "$@" -max_len=8192 ;;
  # A payload may claim any length: -malloc_limit_mb makes an allocation it did not earn a
  # finding instead of an OOM much later.
  restore_payload) set -- "$@" -max_len=16384 -malloc_limit_mb=256 -timeout=10 ;;
esac
corpus=${FUZZ_CORPUS:-corpus-$target}
mkdir -p "$out/$corpus"
extra=""
[ "$target" = commands ] && extra="$root/tests/differential/scripts"
# Run inside $out so that crash reproducers and -jobs logs (fuzz-N.log) land there too.
cd "$out"
exec "./fuzz_$target" "$@" "$corpus" "$seeds" $extra
