#!/bin/sh
# Builds the RequestParser libFuzzer target with clang (ASan + UBSan) and runs it.
#   tests/fuzz/build_and_run.sh [seconds=60] [extra libFuzzer flags...]
# Output goes to $FUZZ_OUT (default build-fuzz/): the binary, the growing corpus, and any crash
# reproducer (crash-*), which can be replayed with: build-fuzz/request_parser_fuzz build-fuzz/crash-...
# Parallel: tests/fuzz/build_and_run.sh 300 -jobs=2 -workers=2 (logs in build-fuzz/fuzz-N.log).
# Needs clang++ and the libFuzzer runtime (Debian: apt-get install -y libclang-rt-14-dev).
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
out=${FUZZ_OUT:-build-fuzz}
cxx=${CXX_FUZZ:-clang++}

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "$cxx not found: the fuzz target needs clang" >&2
  exit 2
fi
mkdir -p "$out/corpus" "$out/seeds"
"$cxx" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1 \
  -std=c++20 -Wall -Wextra -Iinclude tests/fuzz/request_parser_fuzz.cc src/resp/*.cc \
  -o "$out/request_parser_fuzz"

# Seeds: byte 0 picks the limits, byte 1 the read sizes, then the client's bytes.
seed() { printf "$2" > "$out/seeds/$1"; }
seed multibulk '\000\001*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*1\r\n$4\r\nPING\r\n'
seed inline '\000\002SET k "a\\x41\\n b" '"'"'c\\'"'"'d'"'"'\r\nPING\n\r\n'
seed empty '\000\003*0\r\n*-1\r\n\r\n\n'
seed small_limits '\052\004PING 123456789\r\n*2\r\n$3\r\nabc\r\n$1\r\nx\r\n'
seed unauth '\001\005*11\r\n*1\r\n$16385\r\n'
seed errors '\000\006*1\r\nX\r\n'
seed nul '\002\007*1\000\r\n$4\r\nPING\r\n'

# Run inside $out so that crash reproducers and -jobs logs (fuzz-N.log) land there too.
root=$(pwd)
cd "$out"
exec ./request_parser_fuzz -max_total_time="$seconds" -max_len=4096 \
  -dict="$root/tests/fuzz/request_parser.dict" -print_final_stats=1 "$@" corpus seeds
