#!/bin/sh
# A rank's process that dies in the middle of a job (test_comm_mpi --dies:
# the last rank exits while the others wait in an all-reduce whose timeout
# is 120 s) ends the whole job within seconds, and mpirun's report names
# the rank: Open MPI 4.1 cannot let the survivors go on (no ULFM before
# 5.0), so ending at once, naming it, is the contract (docs/collectives.md).
# Usage: comm_mpi_dies.sh MPIEXEC TEST_COMM_MPI
mpiexec=$1 exe=$2
here=$(dirname "$0")
start=$(date +%s)
out=$(sh "$here/mpirun.sh" "$mpiexec" 3 "$exe" --dies 2>&1)
rc=$?
took=$(( $(date +%s) - start ))
echo "$out" | tail -12
if [ "$rc" -eq 0 ]; then
  echo "FAIL: the job went on after a rank died (exit status 0)"
  exit 1
fi
if echo "$out" | grep -q "instead of the job"; then
  echo "FAIL: a surviving rank's all-reduce ended instead of the job"
  exit 1
fi
# mpirun names the process: "Process name: [[jobid,1],2]" and its exit code
if ! echo "$out" | grep -q ",1\],2\]" || ! echo "$out" | grep -qi "exit code: *3"; then
  echo "FAIL: mpirun's report does not name rank 2 and its exit code 3"
  exit 1
fi
if [ "$took" -gt 60 ]; then
  echo "FAIL: the job took $took s to end after the rank died"
  exit 1
fi
echo "a dead rank ended the job in $took s (mpirun exit status $rc), naming rank 2"
