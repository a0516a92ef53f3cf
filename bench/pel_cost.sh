#!/bin/sh
# Instruction counts of the PEL commands (issue 16 item 1), from the DISABLED_PelCost workloads
# in tests/unit/commands/pel_cost_test.cc, under callgrind, counting only Measured() (the
# commands; the setup that fills the PEL is not counted). Instructions are what can be compared
# on a loaded machine; wall time cannot.
#   bench/pel_cost.sh BUILD_DIR [workload...]     (default: every workload)
# prints "workload instructions" per line. Run it for two builds to compare them.
set -e
build=${1:?usage: bench/pel_cost.sh BUILD_DIR [workload...]}
shift
workloads=${*:-"Xack XpendingRange XpendingConsumer XautoclaimWalk XreadgroupClaim XreadgroupNewAndAck Xclaim10"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$build"
for w in $workloads; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$w.out" --toggle-collect='*Measured*' \
    ./unit_tests --gtest_also_run_disabled_tests --gtest_filter="DISABLED_PelCost.$w" \
    >"$out/$w.log" 2>&1 || { cat "$out/$w.log"; exit 1; }
  grep -q "\[  PASSED  \] 1 test" "$out/$w.log" || { cat "$out/$w.log"; exit 1; }
  printf '%s %s\n' "$w" "$(sed -n 's/^summary: //p' "$out/$w.out")"
done
