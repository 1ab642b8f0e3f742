#!/bin/sh
# tests/suite_report.sh BUILD_DIR [N]
# What the last ctest run in BUILD_DIR cost, from ctest's own log
# (Testing/Temporary/LastTest.log): the N slowest tests (default 10) with
# their wall times and the checks each made ("N passed" lines of the C
# tests), so every change to the suite shows what its tests cost.
# With CHECKS=1 it prints every test's time and checks (name, seconds,
# checks passed), one per line, sorted by name: the before/after table of
# a suite change.
set -eu
build=${1:?usage: suite_report.sh BUILD_DIR [N]}
n=${2:-10}
log="$build/Testing/Temporary/LastTest.log"
[ -f "$log" ] || { echo "suite_report: no $log (run ctest first)" >&2; exit 1; }
# One block per test: "k/N Testing: name", its output, "Test time = s sec".
awk '
  /^[0-9]+\/[0-9]+ Testing: / { name = $3; checks = 0; next }
  /^[0-9]+ passed, [0-9]+ failed/ { checks += $1 }
  /^Test time = / { if (name != "") printf "%s %s %d\n", name, $4, checks; name = "" }
' "$log" > "$build/Testing/Temporary/suite_report.txt"
if [ "${CHECKS:-0}" = 1 ]; then
  sort "$build/Testing/Temporary/suite_report.txt"
  exit 0
fi
total=$(awk '{ s += $2 } END { printf "%.0f", s }' "$build/Testing/Temporary/suite_report.txt")
echo "The $n slowest tests of the last run (seconds; all tests together: $total s of test time):"
sort -k2,2 -rn "$build/Testing/Temporary/suite_report.txt" | head -n "$n" |
  awk '{ printf "  %8.1f  %-36s %s\n", $2, $1, ($3 ? $3 " checks" : "") }'
