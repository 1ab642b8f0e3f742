#!/bin/sh
# Tests of the clforge command.  Usage: sh test_cli.sh path/to/clforge
# Prints one line per check and a last line "N passed, N failed"; exits
# non-zero when any check fails.  Needs an OpenCL device (PoCL on CI).
# shellcheck disable=SC2016 # checks are single-quoted on purpose: check() evals them
NAME=test_cli
# shellcheck source=tests/sh_harness.sh
. "$(dirname "$0")/sh_harness.sh"

# ------------------------------------------------------------ usage, errors
run "$BIN" --help
check "--help exits 0 and lists info" '[ $rc -eq 0 ] && grep -q "info" "$OUT"'
run "$BIN" -h
check "-h exits 0" '[ $rc -eq 0 ] && grep -q "usage" "$OUT"'
run "$BIN" help
check "help exits 0" '[ $rc -eq 0 ] && grep -q "info" "$OUT"'
run "$BIN" --version
check "--version exits 0" '[ $rc -eq 0 ] && [ -s "$OUT" ]'
run "$BIN" info --help
check "info --help exits 0" '[ $rc -eq 0 ] && grep -q -- "--json" "$OUT"'
run "$BIN" help info
check "help info exits 0" '[ $rc -eq 0 ] && grep -q -- "--no-bandwidth" "$OUT"'
run "$BIN" no-such-command
check "unknown command exits 2" '[ $rc -eq 2 ] && [ ! -s "$OUT" ] && grep -q "no-such-command" "$ERR"'
run "$BIN" --no-such-option
check "unknown option exits 2" '[ $rc -eq 2 ] && [ -s "$ERR" ]'
run "$BIN" info --no-such-option
check "unknown info option exits 2" '[ $rc -eq 2 ] && [ -s "$ERR" ]'
run "$BIN" info --bytes 0
check "info --bytes 0 exits 2" '[ $rc -eq 2 ] && [ -s "$ERR" ]'

# ------------------------------------------------------------ info --json
JSON=$TMP/info.json
"$BIN" info --json --no-bandwidth >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "info --json --no-bandwidth exits 0" '[ $rc -eq 0 ] && [ -s "$JSON" ]'
if command -v python3 >/dev/null 2>&1; then
  run python3 -m json.tool "$JSON"
  check "info --json is valid JSON" '[ $rc -eq 0 ]'
else
  echo "skip info --json is valid JSON (python3 not installed)"
fi
: >"$ERR"
cp "$JSON" "$OUT"
check "info --json has compute_units" 'grep -q "\"compute_units\"" "$JSON"'

# The device names to look for: what clinfo -l reports, else the JSON's own.
NAMES=$TMP/names
: >"$NAMES"
if command -v clinfo >/dev/null 2>&1; then
  clinfo -l 2>/dev/null | sed -n 's/^.*Device #[0-9]*: *//p' | sed 's/[[:space:]]*$//' >"$NAMES"
  names_from="clinfo -l"
fi
if [ ! -s "$NAMES" ] && command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["platforms"]:
    for d in p["devices"]:
        print(d.get("name", "").strip())' "$JSON" >"$NAMES" 2>/dev/null
  names_from="the JSON (python3)"
fi
if [ ! -s "$NAMES" ]; then # the first "name" inside "devices" of each platform
  awk '/"devices":/ { d = 1 } d && /"name":/ { sub(/^[^:]*:[[:space:]]*"/, ""); sub(/",?[[:space:]]*$/, ""); print; d = 0 }' \
    "$JSON" >"$NAMES"
  names_from="the JSON (awk)"
fi
if [ -s "$NAMES" ]; then
  ok "found device names with $names_from: $(tr '\n' ';' <"$NAMES")"
else
  : >"$OUT"; : >"$ERR"
  fail "no device name found (clinfo -l and the JSON list none)"
fi

missing=""
while IFS= read -r name; do
  [ -n "$name" ] || continue
  grep -qF -- "$name" "$JSON" || missing="$missing [$name]"
done <"$NAMES"
: >"$ERR"
cp "$JSON" "$OUT"
check "info --json names every device" '[ -z "$missing" ]'

# ------------------------------------------------------------ info (human)
run "$BIN" info --no-bandwidth
missing=""
while IFS= read -r name; do
  [ -n "$name" ] || continue
  grep -qF -- "$name" "$OUT" || missing="$missing [$name]"
done <"$NAMES"
check "info --no-bandwidth exits 0 and names every device" '[ $rc -eq 0 ] && [ -z "$missing" ] && grep -q "Compute units" "$OUT"'
check "info --no-bandwidth measures nothing" '! grep -q "GB/s" "$OUT"'
check "info marks the default device" 'grep -q "\[default\]" "$OUT"'

run "$BIN" info --bytes 4194304
check "info --bytes 4194304 reports GB/s" '[ $rc -eq 0 ] && grep -q "GB/s" "$OUT"'

run "$BIN" info --json --bytes 1M
check "info --json bandwidth numbers" '[ $rc -eq 0 ] && grep -q "\"pinned_host_to_device_gbps\":[[:space:]]*[0-9]" "$OUT"'

# ------------------------------------------------------------ no platform
run no_icd info
check "no platform: exits non-zero and names pocl-opencl-icd" '[ $rc -ne 0 ] && grep -q "pocl-opencl-icd" "$ERR"'
run no_icd info --json
cp "$OUT" "$TMP/noicd.json"
check "no platform: --json exits non-zero with an error field" \
  '[ $rc -ne 0 ] && grep -q "\"error\"" "$OUT" && grep -q "pocl-opencl-icd" "$ERR"'
if command -v python3 >/dev/null 2>&1; then
  run python3 -m json.tool "$TMP/noicd.json"
  check "no platform: --json is valid JSON" '[ $rc -eq 0 ]'
fi

summary
