#!/bin/sh
# Weak scaling of a training example over MPI (issue 34): one rank's share
# alone (one process, one PoCL thread, a batch of B) against N ranks of one
# core each under mpirun (a batch of N*B, TCP on loopback as tests/mpirun.sh
# sets it up, bound to cores, more ranks than cores allowed; the one rank
# bound to one core too, where taskset is), run after run alternating,
# REPS times each;
# per run the example's ms/step, samples/s and its optimizer's wait on the
# all-reduces, then the medians and the scaling efficiency t(1) / t(N)
# (1.0 is perfect weak scaling). Extra arguments go to both runs (e.g.
# --bucket-bytes 65536, --dtype bf16).
#
#   sh bench/train_scaling.sh build/bin/example_train_transformer [--ranks N] [--batch-per-rank B]
#                             [--steps S] [--reps R] [-- EXAMPLE ARGS...]
#
# Needs mpiexec on PATH (Open MPI) and an example built with MPI. Timings on
# a shared machine are noisy: read the medians, and the range.
set -u
usage() {
  echo "usage: sh $0 EXAMPLE [--ranks N] [--batch-per-rank B] [--steps S] [--reps R] [-- ARGS...]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
exe=$1
shift
ranks=2 per=32 steps=200 reps=5
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) [ $# -ge 2 ] || usage; ranks=$2; shift 2 ;;
    --batch-per-rank) [ $# -ge 2 ] || usage; per=$2; shift 2 ;;
    --steps) [ $# -ge 2 ] || usage; steps=$2; shift 2 ;;
    --reps) [ $# -ge 2 ] || usage; reps=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
for v in "$ranks" "$per" "$steps" "$reps"; do case $v in '' | 0* | *[!0-9]*) usage ;; esac; done
[ -x "$exe" ] || { echo "train_scaling: $exe is not an executable" >&2; exit 2; }
mpiexec=$(command -v mpiexec) || { echo "train_scaling: no mpiexec on PATH" >&2; exit 2; }
here=$(dirname "$0")
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
ms() { sed -n 's/^[a-z0-9]*: \([0-9.]*\) ms\/step.*/\1/p' "$1" | head -1; }
wait_ms() { sed -n 's/.*waited \([0-9.]*\) ms\/step.*/\1/p' "$1" | head -1; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR == 0) print "?"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
printf "%-4s %12s %12s %14s\n" run "1 rank ms" "$ranks ranks ms" "comm wait ms"
i=1
while [ "$i" -le "$reps" ]; do
  POCL_MAX_PTHREAD_COUNT=1 $pin "$exe" --steps "$steps" --batch "$per" "$@" >"$work/one.$i" 2>&1 ||
    { cat "$work/one.$i"; echo "train_scaling: the one-rank run failed" >&2; exit 1; }
  CLFORGE_MPIRUN_BIND=core:overload-allowed sh "$here/../tests/mpirun.sh" "$mpiexec" "$ranks" "$exe" --mpi --steps "$steps" \
    --batch $((per * ranks)) "$@" >"$work/many.$i" 2>&1 ||
    { cat "$work/many.$i"; echo "train_scaling: the $ranks-rank run failed" >&2; exit 1; }
  printf "%-4s %12s %12s %14s\n" "$i" "$(ms "$work/one.$i")" "$(ms "$work/many.$i")" "$(wait_ms "$work/many.$i")"
  i=$((i + 1))
done
one=$(for f in "$work"/one.*; do ms "$f"; done | median)
many=$(for f in "$work"/many.*; do ms "$f"; done | median)
wt=$(for f in "$work"/many.*; do wait_ms "$f"; done | median)
case "$one$many" in *'?'*) echo "train_scaling: no ms/step in the examples' output" >&2; exit 1 ;; esac
awk -v one="$one" -v many="$many" -v wt="$wt" -v n="$ranks" -v b="$per" 'BEGIN {
  printf "medians: one rank %.2f ms/step (%.0f samples/s), %d ranks %.2f ms/step (%.0f samples/s), waiting %.2f ms/step on communication\n", one, 1000 * b / one, n, many, 1000 * n * b / many, wt
  printf "weak-scaling efficiency at %d ranks: %.2f\n", n, one / many }'
