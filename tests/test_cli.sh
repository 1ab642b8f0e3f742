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

# ------------------------------------------------------------ tune, explain
run "$BIN" tune --bogus
check "tune: an unknown option is a usage error" '[ $rc -eq 2 ] && grep -q "bogus" "$ERR"'
run "$BIN" tune --shapes gigantic --dry-run
check "tune: an unknown shape class fails before measuring" '[ $rc -eq 1 ] && grep -q "gigantic" "$ERR"'
run env CLFORGE_TUNING_FILE=off "$BIN" tune --shapes small --dtypes f32 --max-evals 1
check "tune: no file to write fails up front" '[ $rc -eq 1 ] && grep -q "no tuning file" "$ERR"'
run no_icd tune --dry-run
check "tune: no device exits 1 and says so" '[ $rc -eq 1 ] && grep -q "no device" "$ERR"'
# Ctrl-C: stops after the current candidate, exits 0, keeps what was measured.
# The first problem (tiled medium) has two candidates and ends soon; the
# second (direct small) has most of a long budget, so the interrupt lands
# inside it (the third, packed medium, is never reached).
"$BIN" tune --shapes small,medium --dtypes f32 --budget 900 --no-peers --file "$TMP/int.json" \
  --space "gemm:MWG=64|128,NWG=64,MWI=8,NWI=32,KWG=128,VW=16,SA=0,SB=0,KU=1,KSYNC=1" >"$OUT" 2>"$ERR" &
pid=$!
i=0 # up to 5 minutes: kernel builds are slow under the sanitizers
while [ $i -lt 3000 ] && ! grep -q "tune \[2/3\]" "$OUT"; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
check "tune: Ctrl-C exits 0 and says so" '[ $rc -eq 0 ] && grep -q "stopped by Ctrl-C" "$OUT"'
check "tune: Ctrl-C keeps the finished problem" 'grep -q "\"shape_class\":[[:space:]]*\"medium\"" "$TMP/int.json"'
run env CLFORGE_TUNING_FILE="$TMP/int.json" CLFORGE_SYSTEM_TUNING_FILE=off "$BIN" explain gemm 500 500 500
check "explain: the tuned entry is used" '[ $rc -eq 0 ] && grep -q "parameters from tuned" "$OUT"'
run env CLFORGE_TUNING_FILE=off CLFORGE_SYSTEM_TUNING_FILE=off "$BIN" explain gemm 1000 1000 1000 --trans NT
check "explain: defaults, with the shape class" '[ $rc -eq 0 ] && grep -q "large" "$OUT" && grep -q "device-default" "$OUT"'
run "$BIN" explain gemm 10 x 10
check "explain: a bad size is a usage error" '[ $rc -eq 2 ]'
run env CLFORGE_TUNING_FILE=off CLFORGE_SYSTEM_TUNING_FILE=off "$BIN" explain attention --shape 1,32,8,1,8192,128,causal --kv-dtype f16
check "explain attention: decode runs split_kv, with its splits and both kernels" \
  '[ $rc -eq 0 ] && grep -q "algorithm: split_kv" "$OUT" && grep -q "decode_sk8192" "$OUT" && grep -q "splits:" "$OUT" && grep -q "attention_split_kv" "$OUT" && grep -q "f32,f16,f32" "$OUT"'
run env CLFORGE_TUNING_FILE=off CLFORGE_SYSTEM_TUNING_FILE=off "$BIN" explain attention --shape 1,8,8,2048,2048,64
check "explain attention: prefill runs fused without scratch" \
  '[ $rc -eq 0 ] && grep -q "algorithm: fused" "$OUT" && grep -q "workspace: 0 bytes" "$OUT"'
run "$BIN" explain attention --shape 1,6,4,1,8,64
check "explain attention: Hq not a multiple of Hkv is a usage error" '[ $rc -eq 2 ]'
run env CLFORGE_TUNING_FILE=off CLFORGE_SYSTEM_TUNING_FILE=off "$BIN" explain softmax 8192 2048 --dtype bf16 --pass bwd
check "explain softmax --pass bwd: the backward family, its three dtypes and class" \
  '[ $rc -eq 0 ] && grep -q "softmax backward" "$OUT" && grep -q "bf16,bf16,bf16 rows" "$OUT" && grep -q "class attn_2048" "$OUT" && grep -q "softmax_backward .*parameters from" "$OUT"'
run "$BIN" explain softmax 8 --pass bwd
check "explain softmax: without N a usage error" '[ $rc -eq 2 ]'
run "$BIN" explain conv --shape n=1,c=8,h=10,k=8,r=3,pad=1
check "explain conv: the algorithm and its source" '[ $rc -eq 0 ] && grep -q "algorithm:" "$OUT"'

summary
