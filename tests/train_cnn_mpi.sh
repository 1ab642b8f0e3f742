#!/bin/sh
# The moonshot of issue 34, checked: train_cnn on 3 MPI processes (TCP on
# loopback, tests/mpirun.sh) ends with the weights that one process gets by
# running each step's 3 micro-batches one after the other and averaging
# their gradients in the collectives' order (--accumulate 3), bit for bit,
# in f32 and in f16 with dynamic loss scaling; the ranks' gradients in two
# buckets (--bucket-bytes 8192), one step's timeline written as a Chrome
# trace and checked for both all-reduces. Both runs under the same
# environment (one PoCL thread each), so that they compile the same kernels.
# Usage: train_cnn_mpi.sh MPIEXEC TRAIN_CNN
set -eu
mpiexec=$1 exe=$2
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for dt in f32 f16; do
  sh "$here/mpirun.sh" "$mpiexec" 3 "$exe" --mpi --dtype $dt --steps 40 --batch 48 --weights-out "$dir/ranks" \
    --bucket-bytes 8192 --trace "$dir/trace.json"
  sh "$here/mpirun.sh" "$mpiexec" 1 "$exe" --accumulate 3 --dtype $dt --steps 40 --batch 48 --weights-out "$dir/one"
  if ! cmp "$dir/ranks.$dt" "$dir/one.$dt"; then
    echo "FAIL: $dt: 3 MPI ranks and one process accumulating 3 micro-batches end with different weights"
    exit 1
  fi
  echo "$dt: 3 MPI ranks and one process accumulating 3 micro-batches: the same weights, bit for bit ($(wc -c < "$dir/one.$dt") bytes)"
  # the step's timeline: every backward kernel and both buckets' all-reduces, as Chrome trace events
  n=$(grep -c '"cat":"collective"' "$dir/trace.json" || true)
  if [ "$n" -ne 2 ] || ! grep -q '"name":"conv2 dW"' "$dir/trace.json"; then
    echo "FAIL: $dt: the trace lacks the two buckets' all-reduces or the backward kernels"; cat "$dir/trace.json"; exit 1
  fi
done
