#!/bin/sh
# The test suite again on another OpenCL driver: the same tests (one copy),
# with CLFORGE_DEVICE naming the driver, which hermetic.cmake passes through
# to every test. The Oclgrind runs are left out (they run on Oclgrind's own
# device whatever CLFORGE_DEVICE says), and so is anything the caller's
# -LE/-E adds.
#
# usage: tests/run_on_driver.sh BUILD_DIR DRIVER [ctest options]
#   DRIVER: what CLFORGE_DEVICE takes ("intel": Intel's OpenCL CPU runtime)
# Fails, before any test, when the driver is not there: a run that silently
# fell back to the default device would prove nothing.
set -eu
build=$1
driver=$2
shift 2

# The device the driver name selects, as the tests will see it (the
# command sees the checkout's drivers as the tests do).
line=$(CLFORGE_DEVICE="$driver" "$build/bin/clforge" info 2>&1 | grep '^Default device' || true)
if [ -z "$line" ]; then
  echo "run_on_driver: no device for CLFORGE_DEVICE=$driver:" >&2
  CLFORGE_DEVICE="$driver" "$build/bin/clforge" info 2>&1 | tail -5 >&2
  exit 1
fi
echo "run_on_driver: CLFORGE_DEVICE=$driver -> ${line#Default device}"
CLFORGE_DEVICE="$driver" exec ctest --test-dir "$build" --output-on-failure -LE oclgrind "$@"
