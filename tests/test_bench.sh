#!/bin/sh
# Tests of `clforge bench`.  Usage: sh test_bench.sh path/to/clforge
# Prints one line per check and a last line "N passed, N failed"; exits
# non-zero when any check fails.  Needs an OpenCL device (PoCL on CI).
# The benchmark runs are tiny (64^3 and smaller, 3 runs; the peak takes well
# under a second): they test the harness, never the speed.
# shellcheck disable=SC2016 # checks are single-quoted on purpose: check() evals them
NAME=test_bench
# shellcheck source=tests/sh_harness.sh
. "$(dirname "$0")/sh_harness.sh"

# ------------------------------------------------------------ usage, errors
run "$BIN" bench --help
check "bench --help exits 0 and lists gemm" '[ $rc -eq 0 ] && grep -q "gemm" "$OUT"'
run "$BIN" help bench
check "help bench exits 0" '[ $rc -eq 0 ] && grep -q "gemm" "$OUT"'
run "$BIN" --help
check "--help lists bench" '[ $rc -eq 0 ] && grep -q "bench" "$OUT"'
run "$BIN" bench gemm --help
check "bench gemm --help exits 0" '[ $rc -eq 0 ] && grep -q -- "--sizes" "$OUT" && grep -q -- "--path" "$OUT"'
run "$BIN" bench peak --help
check "bench peak --help exits 0" '[ $rc -eq 0 ] && grep -q -- "--json" "$OUT"'
run "$BIN" bench --help
check "bench --help lists peak" '[ $rc -eq 0 ] && grep -q "peak" "$OUT"'
run "$BIN" bench gemm --help
check "bench gemm --help has --no-peak" '[ $rc -eq 0 ] && grep -q -- "--no-peak" "$OUT"'
run "$BIN" bench
check "bench without an op exits 2 with usage" '[ $rc -eq 2 ] && [ ! -s "$OUT" ] && grep -q "usage" "$ERR"'

# bad_option NAME ARGS...: exits 2, nothing on stdout, a message on stderr
bad_option() {
  name=$1
  shift
  run "$BIN" "$@"
  check "$name exits 2" '[ $rc -eq 2 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'
}
bad_option "unknown op" bench no-such-op
bad_option "unknown gemm option" bench gemm --no-such-option
bad_option "stray argument" bench gemm 1024
bad_option "--runs 2 (below the minimum)" bench gemm --runs 2
bad_option "--runs without a value" bench gemm --runs
bad_option "--runs x" bench gemm --runs x
bad_option "--warmup 0" bench gemm --warmup 0
bad_option "--sizes 0" bench gemm --sizes 0
bad_option "--sizes 64,,128" bench gemm --sizes 64,,128
bad_option "--sizes -64" bench gemm --sizes -64
bad_option "--shape 1,2" bench gemm --shape 1,2
bad_option "--shape 1,2,3,4" bench gemm --shape 1,2,3,4
bad_option "--dtype f64" bench gemm --dtype f64
bad_option "--trans XY" bench gemm --trans XY
bad_option "--trans NNN" bench gemm --trans NNN
bad_option "--path fast" bench gemm --path fast
bad_option "bench peak --bogus" bench peak --bogus
bad_option "bench peak stray argument" bench peak 1

# ------------------------------------------------------------ --json
JSON=$TMP/bench.json
"$BIN" bench gemm --sizes 64 --dtype f32,bf16 --runs 3 --json >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench gemm --json exits 0" '[ $rc -eq 0 ]'
check "bench gemm --json: one line per dtype" '[ "$(wc -l <"$JSON")" -eq 2 ]'
check "bench gemm --json: every line is an object" '[ "$(grep -c "^{.*}$" "$JSON")" -eq 2 ]'

# The fields every line has; checked with python3 (awk cannot parse JSON).
if command -v python3 >/dev/null 2>&1; then
  cat >"$TMP/check.py" <<'EOF'
import json, sys

required = ["op", "m", "n", "k", "batch", "dtype", "trans", "provider", "median_ms", "p95_ms", "gflops",
            "gbps", "runs", "timer", "device", "clblast_gflops", "vs_clblast", "openblas_gflops",
            "vs_openblas", "peak_gflops", "peak_gbps", "frac_peak_flops", "frac_peak_bw"]
want_dtypes, want_trans = sys.argv[2].split(","), sys.argv[3]
want_peers = {"f32": ("number", "number"), "bf16": ("null", None), "f16": (None, "null")}
number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
problems, dtypes = [], []
for no, line in enumerate(open(sys.argv[1]), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        problems.append("line %d is not JSON: %s" % (no, e))
        continue
    if not isinstance(o, dict):
        problems.append("line %d is not an object" % no)
        continue
    missing = [f for f in required if f not in o]
    if missing:
        problems.append("line %d lacks %s" % (no, ", ".join(missing)))
        continue
    dtypes.append(o["dtype"])
    where = "line %d (%s)" % (no, o["dtype"])
    if o["op"] != "gemm" or o["provider"] != "clforge" or o["trans"] != want_trans:
        problems.append("%s: op/provider/trans are %s/%s/%s" % (where, o["op"], o["provider"], o["trans"]))
    if o["batch"] != 1 or o["runs"] != 3 or o["timer"] not in ("events", "wall"):
        problems.append("%s: batch/runs/timer are %r/%r/%r" % (where, o["batch"], o["runs"], o["timer"]))
    for f in ("gflops", "gbps", "median_ms", "p95_ms"):
        if not number(o[f]) or o[f] <= 0:
            problems.append("%s: %s is %r, not a positive number" % (where, f, o[f]))
    # The roofline's denominators: positive, and each fraction is its rate over
    # its peak (all three rounded to six significant digits).
    for frac, rate, peak in (("frac_peak_flops", "gflops", "peak_gflops"), ("frac_peak_bw", "gbps", "peak_gbps")):
        if not (number(o[peak]) and o[peak] > 0 and number(o[frac]) and number(o[rate])):
            problems.append("%s: %s/%s are %r/%r, want numbers" % (where, peak, frac, o[peak], o[frac]))
        elif abs(o[frac] - o[rate] / o[peak]) > 1e-4 * o[frac]:
            problems.append("%s: %s = %r, but %s / %s = %r" % (where, frac, o[frac], rate, peak, o[rate] / o[peak]))
    if number(o["median_ms"]) and number(o["p95_ms"]) and o["p95_ms"] < o["median_ms"]:
        problems.append("%s: p95_ms < median_ms" % where)
    if not isinstance(o["device"], str) or not o["device"]:
        problems.append("%s: no device name" % where)
    for peer, want in zip(("clblast", "openblas"), want_peers.get(o["dtype"], (None, None))):
        v, ratio = o[peer + "_gflops"], o["vs_" + peer]
        if want == "number" and not (number(v) and v > 0 and number(ratio) and ratio > 0):
            problems.append("%s: %s_gflops/vs_%s are %r/%r, want numbers (note: %s)"
                            % (where, peer, peer, v, ratio, o.get(peer + "_note")))
        if want == "null" and (v is not None or ratio is not None or not o.get(peer + "_note")):
            problems.append("%s: %s_gflops is %r, want null with a %s_note" % (where, peer, v, peer))
if sorted(dtypes) != sorted(want_dtypes):
    problems.append("dtypes are %s, want one line each of %s" % (dtypes, want_dtypes))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
  run python3 "$TMP/check.py" "$JSON" f32,bf16 NN
  check "bench gemm --json: fields, positive gflops, clblast/openblas numbers for f32, clblast null for bf16" \
    '[ $rc -eq 0 ]'
else
  echo "skip bench gemm --json field checks (python3 not installed)"
fi
: >"$ERR"
cp "$JSON" "$OUT"
check "bench gemm --json: f32 clblast_gflops is a number (grep)" \
  'grep "\"dtype\":\"f32\"" "$JSON" | grep -q "\"clblast_gflops\":[0-9]"'
check "bench gemm --json: bf16 clblast_gflops is null (grep)" \
  'grep "\"dtype\":\"bf16\"" "$JSON" | grep -q "\"clblast_gflops\":null"'

# Transposed operands, odd sizes: clforge's spot check and both peers'
# comparisons with clforge must pass (a wrong result would null a number).
"$BIN" bench gemm --shape 33,47,29 --dtype f32 --runs 3 --trans TN --json >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench gemm --trans TN --shape 33,47,29 exits 0 with one line" '[ $rc -eq 0 ] && [ "$(wc -l <"$JSON")" -eq 1 ]'
if command -v python3 >/dev/null 2>&1; then
  run python3 "$TMP/check.py" "$JSON" f32 TN
  check "bench gemm --trans TN: clforge and both peers agree" '[ $rc -eq 0 ]'
fi

run "$BIN" bench gemm --sizes 48 --dtype f16 --runs 3 --no-peers --no-peak --json
check "bench gemm --no-peers: peers null with a note" \
  '[ $rc -eq 0 ] && grep -q "\"clblast_gflops\":null" "$OUT" && grep -q "\"openblas_note\":\"not run" "$OUT"'
check "bench gemm --no-peak: peak fields null" \
  'grep -q "\"peak_gflops\":null,\"peak_gbps\":null,\"frac_peak_flops\":null,\"frac_peak_bw\":null" "$OUT"'

# ------------------------------------------------------------ peak
run "$BIN" bench peak --json
cp "$OUT" "$TMP/peak.json"
check "bench peak --json exits 0 with one object" '[ $rc -eq 0 ] && [ "$(grep -c "^{.*}$" "$OUT")" -eq 1 ]'
if command -v python3 >/dev/null 2>&1; then
  cat >"$TMP/check_peak.py" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
problems = []
for f in ("f32_gflops", "read_gbps", "copy_gbps", "peak_gflops", "peak_gbps", "bytes", "runs", "chains"):
    if not (number(o.get(f)) and o[f] > 0):
        problems.append("%s is %r, not a positive number" % (f, o.get(f)))
if not problems:
    if o["peak_gflops"] != o["f32_gflops"]:
        problems.append("peak_gflops %r is not f32_gflops %r" % (o["peak_gflops"], o["f32_gflops"]))
    if o["peak_gbps"] != max(o["read_gbps"], o["copy_gbps"]):
        problems.append("peak_gbps %r is not the best of read and copy" % o["peak_gbps"])
if not (number(o.get("f16_gflops")) and o["f16_gflops"] > 0) and not o.get("f16_note"):
    problems.append("f16_gflops is %r without an f16_note" % o.get("f16_gflops"))
if o.get("op") != "peak" or not o.get("device") or o.get("timer") not in ("events", "wall") or "error" in o:
    problems.append("op/device/timer/error: %r/%r/%r/%r"
                    % (o.get("op"), o.get("device"), o.get("timer"), o.get("error")))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
  run python3 "$TMP/check_peak.py" "$TMP/peak.json"
  check "bench peak --json: positive throughput and bandwidth, denominators as documented" '[ $rc -eq 0 ]'
fi
run "$BIN" bench peak
check "bench peak (table) exits 0 with both denominators" \
  '[ $rc -eq 0 ] && grep -q "f32 FMA .*GFLOP/s" "$OUT" && grep -q "copy .*GB/s" "$OUT" &&
   grep -q "roofline denominators" "$OUT"'

# ------------------------------------------------------------ table
run "$BIN" bench gemm --sizes 64 --runs 3 --path all
check "bench gemm --path all (table) exits 0" '[ $rc -eq 0 ]'
check "table has the header" 'grep -q "median ms" "$OUT" && grep -q "vs clblast" "$OUT" && grep -q "openblas GFLOP/s" "$OUT"'
check "table has % peak and % bw, and the peak it divides by" \
  'grep -q "% peak  *% bw" "$OUT" && grep -q "^peak (clforge bench peak): [0-9.]* GFLOP/s" "$OUT" &&
   grep "^gemm " "$OUT" | grep -q "[0-9]%"'
check "table has 12 rows (3 dtypes x 4 paths)" '[ "$(grep -c "^gemm " "$OUT")" -eq 12 ]'
check "table has clforge, clforge-tiled, clforge-direct and clforge-packed rows" \
  'grep -q "  clforge  " "$OUT" && grep -q "clforge-tiled" "$OUT" && grep -q "clforge-direct" "$OUT" && grep -q "clforge-packed" "$OUT"'
check "table explains empty cells" 'grep -q "^\[1\] " "$OUT"'

# ------------------------------------------------------------ no device
run no_icd bench gemm --sizes 8 --runs 3 --json
check "no device: exits 1, nothing on stdout, a message on stderr" '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'
run no_icd bench peak --json
check "no device: bench peak exits 1, nothing on stdout, a message on stderr" \
  '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'

summary
