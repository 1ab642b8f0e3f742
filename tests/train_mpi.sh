#!/bin/sh
# The moonshot of issue 34, checked: a training example on 3 MPI processes
# (TCP on loopback, tests/mpirun.sh) ends with the weights that one process
# gets by running each step's 3 micro-batches one after the other and
# averaging their gradients in the collectives' order (--accumulate 3), bit
# for bit, in each dtype given; the ranks' gradients in several buckets,
# one step's timeline written as a Chrome trace and checked for every
# bucket's all-reduce and a backward kernel. Both runs under the same
# environment (one PoCL thread each), so that they compile the same kernels.
# Usage: train_mpi.sh MPIEXEC EXAMPLE "DTYPES" BUCKETS KERNEL [EXAMPLE'S ARGS...]
#   BUCKETS: the all-reduces the trace must hold (the buckets the example's
#   --bucket-bytes makes); KERNEL: a backward kernel's name it must hold.
set -eu
mpiexec=$1 exe=$2 dtypes=$3 buckets=$4 kernel=$5
shift 5
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for dt in $dtypes; do
  sh "$here/mpirun.sh" "$mpiexec" 3 "$exe" --mpi --dtype "$dt" "$@" --weights-out "$dir/ranks" --trace "$dir/trace.json"
  sh "$here/mpirun.sh" "$mpiexec" 1 "$exe" --accumulate 3 --dtype "$dt" "$@" --weights-out "$dir/one"
  if ! cmp "$dir/ranks.$dt" "$dir/one.$dt"; then
    echo "FAIL: $dt: 3 MPI ranks and one process accumulating 3 micro-batches end with different weights"
    exit 1
  fi
  echo "$dt: 3 MPI ranks and one process accumulating 3 micro-batches: the same weights, bit for bit ($(wc -c < "$dir/one.$dt") bytes)"
  n=$(grep -c '"cat":"collective"' "$dir/trace.json" || true)
  if [ "$n" -ne "$buckets" ] || ! grep -q "\"name\":\"$kernel\"" "$dir/trace.json"; then
    echo "FAIL: $dt: the trace lacks the $buckets buckets' all-reduces ($n) or the backward kernel $kernel"
    cat "$dir/trace.json"
    exit 1
  fi
done
