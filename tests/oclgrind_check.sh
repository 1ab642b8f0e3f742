#!/bin/sh
# Run a test program under Oclgrind with its memory, race and uninitialized-
# value checks. Oclgrind reports errors but still exits 0, so this script
# fails the test when its log is not empty.
#   oclgrind_check.sh OCLGRIND PROGRAM [ARGS...]
#   oclgrind_check.sh --expect-errors OCLGRIND PROGRAM [ARGS...]
#     (passes only when Oclgrind reports an invalid access: proves the check)
expect=0
if [ "$1" = "--expect-errors" ]; then expect=1; shift; fi
oclgrind=$1; shift
log=$(mktemp "${TMPDIR:-/tmp}/oclgrind-log.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
"$oclgrind" --check-api --data-races --uninitialized --log "$log" "$@"
rc=$?
if [ "$expect" = 1 ]; then
  if grep -q "Invalid write" "$log"; then
    echo "Oclgrind reported the deliberate out-of-bounds write, as it must:"
    head -n 6 "$log"
    exit 0
  fi
  echo "Oclgrind did not report the deliberate out-of-bounds write (log follows)"
  cat "$log"
  exit 1
fi
if [ -s "$log" ]; then
  echo "Oclgrind reported errors:"
  cat "$log"
  echo "(\"source not available\": a kernel from the binary cache; CLFORGE_CACHE_DIR=off shows its source lines)"
  exit 1
fi
if [ "$rc" -ne 0 ]; then echo "program failed under Oclgrind (exit $rc)"; exit "$rc"; fi
echo "Oclgrind: no errors"
