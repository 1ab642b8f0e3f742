#!/bin/sh
# `mpirun -np 2 clforge tune --op allreduce`: the sweep's table and the
# crossover printed, rank 0's entry saved to --file (class ranks_2, the
# crossover's parameter); --dry-run saves nothing; options of the kernel
# tuner are refused (exit 2).
# Usage: cli_tune_allreduce.sh MPIEXEC CLFORGE
set -u
mpiexec=$1 cli=$2
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sh "$here/mpirun.sh" "$mpiexec" 2 "$cli" tune --op allreduce --dry-run --file "$dir/dry.json" >"$dir/dry.out" 2>&1 ||
  { cat "$dir/dry.out"; fail "the dry run failed"; }
[ ! -e "$dir/dry.json" ] || fail "--dry-run wrote $dir/dry.json"
grep -q "dry run, nothing saved" "$dir/dry.out" || { cat "$dir/dry.out"; fail "the dry run's verdict"; }
sh "$here/mpirun.sh" "$mpiexec" 2 "$cli" tune --op allreduce --file "$dir/t.json" >"$dir/t.out" 2>&1 ||
  { cat "$dir/t.out"; fail "the tune failed"; }
cat "$dir/t.out"
kb=$(sed -n 's/^2 ranks: all-reduce gathers below \([0-9]*\) bytes.*/\1/p' "$dir/t.out")
[ -n "$kb" ] || fail "no crossover printed"
[ "$(grep -c ' owner$\| gather$' "$dir/t.out")" -eq 13 ] || fail "the table has not 13 sizes"
grep -q '"shape_class":[[:space:]]*"ranks_2"' "$dir/t.json" || fail "no ranks_2 entry in the file"
grep -q "\"GATHER_BELOW_KB\":[[:space:]]*$((kb / 1024))\$" "$dir/t.json" || fail "the file's crossover is not the printed $kb"
"$cli" tune --op allreduce --budget 5 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--budget with --op allreduce is not a usage error"
echo "ok: crossover $kb bytes saved as ranks_2's entry"
