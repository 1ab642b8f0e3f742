# Shared by the shell tests of the clforge command (test_cli.sh, test_bench.sh):
# sourced after setting NAME; takes the clforge binary as $1 of the test.
# Provides BIN, TMP, OUT, ERR, run, check, ok, fail and summary; the test ends
# with `summary`, which prints "N passed, N failed" and sets the exit status.
# shellcheck shell=sh
BIN=$1
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "usage: sh $NAME.sh path/to/clforge (got '$BIN')" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

passed=0
failed=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/clforge-$NAME.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
OUT=$TMP/out
ERR=$TMP/err

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL $1"
  if [ -s "$OUT" ]; then echo "  --- stdout:"; sed -n '1,40s/^/  /p' "$OUT"; fi
  if [ -s "$ERR" ]; then echo "  --- stderr:"; sed -n '1,20s/^/  /p' "$ERR"; fi
}
# run CMD...: runs it with stdout in $OUT, stderr in $ERR, exit status in $rc
run() { "$@" >"$OUT" 2>"$ERR"; rc=$?; }
# check NAME CONDITION...: CONDITION is a shell command list evaluated after run
check() { name=$1; shift; if eval "$*"; then ok "$name"; else fail "$name (exit $rc)"; fi; }
# no_icd ARGS...: clforge with an ICD loader that finds no driver
NOICD=$TMP/no-icd
mkdir "$NOICD"
no_icd() (
  unset OCL_ICD_FILENAMES
  OCL_ICD_VENDORS=$NOICD
  export OCL_ICD_VENDORS
  exec "$BIN" "$@"
)
summary() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
