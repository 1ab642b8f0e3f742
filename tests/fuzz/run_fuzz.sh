#!/bin/sh
# Usage: tests/fuzz/run_fuzz.sh BUILD_DIR SECONDS
# Fuzzes the tuning-file loader for SECONDS with the fuzzer built in BUILD_DIR
# (see tests/fuzz/CMakeLists.txt). Exits non-zero on any crash, leak, timeout
# or sanitizer report; the reproducing input is then left in the artifacts
# directory it names. The seed corpus is copied first: libFuzzer adds what it
# finds to its corpus directory, and the repository's seeds stay as written.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$1/bin/fuzz_tuning_file
SECONDS_=$2
if [ ! -x "$BIN" ]; then
  echo "$0: no fuzzer at $BIN (build the target fuzz_tuning_file with -DCLFORGE_FUZZ=ON)" >&2
  exit 2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/clforge-fuzz.XXXXXX")
# Kept on failure: the crash input is the point of the report.
keep=0
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$WORK/corpus" "$WORK/artifacts"
cp "$HERE"/corpus/* "$WORK/corpus/"

# The fuzzer drives no OpenCL, so no suppressions are needed: every leak is
# clforge's or cJSON's. These come last so that they win over the caller's.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1

rc=0
"$BIN" -max_total_time="$SECONDS_" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -dict="$HERE/tuning.dict" -artifact_prefix="$WORK/artifacts/" "$WORK/corpus" || rc=$?

if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$WORK/artifacts")" ]; then
  keep=1
  echo "$0: the fuzzer failed (exit $rc); reproducing inputs in $WORK/artifacts:" >&2
  ls -l "$WORK/artifacts" >&2
  echo "rerun one with: $BIN FILE" >&2
  [ "$rc" -ne 0 ] || rc=1
  exit "$rc"
fi
echo "$0: clean after $SECONDS_ s"
