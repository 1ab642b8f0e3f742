#!/bin/sh
# Tests of `clforge bench`.  Usage: sh test_bench.sh path/to/clforge
# Prints one line per check and a last line "N passed, N failed"; exits
# non-zero when any check fails.  Needs an OpenCL device (PoCL on CI).
# The benchmark runs are tiny (64^3 and smaller, convolutions of a few
# thousand outputs, 3 runs; the peak takes well under a second): they test the harness, never the speed.
# shellcheck disable=SC2016 # checks are single-quoted on purpose: check() evals them
NAME=test_bench
# shellcheck source=tests/sh_harness.sh
. "$(dirname "$0")/sh_harness.sh"

# Kernel parameters for the runs on a device: each family's smallest register
# blocks and vectors, every parameter named (so a family's variants share one
# program and PoCL's cache serves the next run). The subject here is the
# harness (options, rows, JSON fields, the peers' agreement), not the kernels'
# production parameters (each family's own test has those), and the CPU
# defaults' register blocks are PoCL's costliest compiles. gemm and
# gemm_packed are both named so that clforge_gemm's route stays the
# heuristic's.
CHEAP_PARAMS="gemm:MWG=16,NWG=16,MWI=2,NWI=2,KWG=16,VW=1,SA=0,SB=0,KU=1,KSYNC=1"
CHEAP_PARAMS="$CHEAP_PARAMS;gemm_packed:MR=2,NR=8,VW=4,MC=8,NC=16,KC=32,KU=1,ORD=0"
CHEAP_PARAMS="$CHEAP_PARAMS;gemm_direct:MWID=1,NWID=1,MDIMD=4,NDIMD=4,KUD=1,VW=1"
CHEAP_PARAMS="$CHEAP_PARAMS;conv_direct:TQ=1,TK=1,WGQ=1,WGK=1,VW=1;conv_im2col:VW=1,WG=16,CHUNK=1,PATH=0"
CHEAP_PARAMS="$CHEAP_PARAMS;conv_depthwise:VW=1,TP=1,NV=1,WG0=1,WG1=1"
CHEAP_PARAMS="$CHEAP_PARAMS;conv_implicit_gemm:MR=2,NR=8,VW=8,MC=4,NC=8,KC=8,KU=1,DMR=1,DNR=1,DVW=4"
CHEAP_PARAMS="$CHEAP_PARAMS;attention_fused:VW=1,QW=1,WGQ=1,TK=1,DCH=1,KU=1,STAGE=0"
CHEAP_PARAMS="$CHEAP_PARAMS;attention_split_kv:SPLITS=0,KB=4,ROWS=1,WG=1,VW=1,HCVT=1"
CHEAP_PARAMS="$CHEAP_PARAMS;attention_backward:WG=1,VW=1,RW=1,TB=4"
# cheap ARGS...: clforge with those parameters
cheap() { CLFORGE_PARAMS="$CHEAP_PARAMS" "$BIN" "$@"; }

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
cheap bench gemm --sizes 64 --dtype f32,bf16 --runs 3 --json >"$JSON" 2>"$ERR"
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
cheap bench gemm --shape 33,47,29 --dtype f32 --runs 3 --trans TN --json >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench gemm --trans TN --shape 33,47,29 exits 0 with one line" '[ $rc -eq 0 ] && [ "$(wc -l <"$JSON")" -eq 1 ]'
if command -v python3 >/dev/null 2>&1; then
  run python3 "$TMP/check.py" "$JSON" f32 TN
  check "bench gemm --trans TN: clforge and both peers agree" '[ $rc -eq 0 ]'
fi

# int8 rows: clforge's s32 C spot-checked exactly, oneDNN's (when built in)
# equal to it, clforge's f32 GEMM timed on the same shape.
run env CLFORGE_PARAMS="$CHEAP_PARAMS;gemm_int8:MWI=2,NWI=1,VW=8,MDIM=4,NDIM=4" \
  "$BIN" bench gemm --shape 40,56,300 --dtype f32 --int8 --runs 3 --no-peak --json
check "bench gemm --int8: an f32 line and a u8s8 line, clforge's int8 numbers" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$OUT")" -eq 2 ] && grep -q "\"dtype\":\"u8s8\".*\"provider\":\"clforge-int8\".*\"gflops\":[0-9]" "$OUT"'
check "bench gemm --int8: no peer differs" '! grep -q "differs" "$OUT" "$ERR"'
# q8_0 rows: clforge's y spot-checked against the decoded blocks, its f32 and f16 weights beside it
run env CLFORGE_PARAMS="$CHEAP_PARAMS;gemm_q8_0:MR=1,NC=1,KS=1,NG=8,VK=8" \
  "$BIN" bench gemm --shape 2,24,64 --dtype f32 --q8_0 --runs 3 --no-peak --json
check "bench gemm --q8_0: an f32 line and a q8_0 line with its numbers and both peers'" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$OUT")" -eq 2 ] && grep -q "\"dtype\":\"f32,q8_0\".*\"provider\":\"clforge-q8_0\".*\"gflops\":[0-9]" "$OUT" && grep -q "clforge_f16_weights" "$OUT"'
run "$BIN" bench gemm --q8_0 --shape 2,24,48
check "bench gemm --q8_0 with k not a multiple of 32 is a usage error" '[ $rc -eq 2 ] && grep -q "multiple of 32" "$ERR"'
run "$BIN" bench gemm --int8 --trans NT --sizes 8
check "bench gemm --int8 --trans NT is a usage error" '[ $rc -eq 2 ] && grep -q "NN only" "$ERR"'

run cheap bench gemm --sizes 48 --dtype f16 --runs 3 --no-peers --no-peak --json
check "bench gemm --no-peers: peers null with a note" \
  '[ $rc -eq 0 ] && grep -q "\"clblast_gflops\":null" "$OUT" && grep -q "\"openblas_note\":\"not run" "$OUT"'
check "bench gemm --no-peak: peak fields null" \
  'grep -q "\"peak_gflops\":null,\"peak_gbps\":null,\"frac_peak_flops\":null,\"frac_peak_bw\":null" "$OUT"'

# ------------------------------------------------------------ peak
run "$BIN" bench peak --json
cp "$OUT" "$TMP/peak.json"
cat "$ERR" >"$TMP/peak_runs.err"
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
if o.get("fma_op") not in ("fma", "mad"):
    problems.append("fma_op is %r" % o.get("fma_op"))
# The host's FMA loop (CPU devices): a rate with its ratio, or a note why not.
if number(o.get("host_gflops")):
    if not (o["host_gflops"] > 0 and o.get("host_threads", 0) >= 1 and number(o.get("frac_host"))):
        problems.append("host_gflops %r with host_threads/frac_host %r/%r"
                        % (o["host_gflops"], o.get("host_threads"), o.get("frac_host")))
    elif abs(o["frac_host"] - o["f32_gflops"] / o["host_gflops"]) > 1e-4 * o["frac_host"]:
        problems.append("frac_host %r is not f32_gflops / host_gflops" % o["frac_host"])
    if not (o.get("host_isa") and o.get("host_vector_width", 0) >= 4 and o.get("host_chains", 0) >= 8):
        problems.append("host_isa/vector_width/chains: %r/%r/%r"
                        % (o.get("host_isa"), o.get("host_vector_width"), o.get("host_chains")))
elif o.get("host_gflops", 0) is not None or not o.get("host_note"):
    problems.append("host_gflops is %r without a host_note" % o.get("host_gflops"))
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
cat "$ERR" >>"$TMP/peak_runs.err"
check "bench peak (table) exits 0 with both denominators and the host loop" \
  '[ $rc -eq 0 ] && grep -q "f32 FMA .*GFLOP/s" "$OUT" && grep -q "copy .*GB/s" "$OUT" &&
   grep -q "roofline denominators" "$OUT" && grep -q "^  host FMA " "$OUT"'

# ------------------------------------------------------------ table
# One dtype (bf16: no peer has it, so the empty cells are explained): every
# path at production parameters is a build per dtype (the
# packed micro-kernel's is the costliest); the JSON runs cover the dtypes.
peak_dir="${CLFORGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/clforge/kernels}"
kept_before=$(ls "$peak_dir"/peak-*.json 2>/dev/null | wc -l)
run cheap bench gemm --sizes 64 --dtype bf16 --runs 3 --path all
check "bench gemm --path all (table) exits 0" '[ $rc -eq 0 ]'
check "table has the header" 'grep -q "median ms" "$OUT" && grep -q "vs clblast" "$OUT" && grep -q "openblas GFLOP/s" "$OUT"'
check "table has % peak and % bw, and the peak it divides by" \
  'grep -q "% peak  *% bw" "$OUT" && grep -q "^peak (clforge bench peak[^)]*): [0-9.]* GFLOP/s" "$OUT" &&
   grep "^gemm " "$OUT" | grep -q "[0-9]%"'
# The peak measured by the runs above is kept (bench/peak_store.h): this
# table divides by it, and says so, instead of measuring it again. Only a
# clean measurement is kept: where every run above fell short of the host's
# FMA loop (a busy machine; `bench peak` then warns), nothing was kept, and
# the table must have measured the peak itself.
if [ "$kept_before" -eq 0 ]; then
  check "table measured the peak itself (nothing kept: the bench peak runs above fell short)" \
    'grep -q "fell short of the machine" "$TMP/peak_runs.err" && grep -q "^peak (clforge bench peak): [0-9.]* GFLOP/s" "$OUT"'
else
  check "table divides by the kept peak, and one peak file is kept" \
    'grep -q "^peak (clforge bench peak, kept from [0-9.]* h ago): [0-9.]* GFLOP/s" "$OUT" &&
     [ "$(ls "$peak_dir"/peak-*.json | wc -l)" -eq 1 ]'
fi
check "table has 4 rows (4 paths)" '[ "$(grep -c "^gemm " "$OUT")" -eq 4 ]'
check "table has clforge, clforge-tiled, clforge-direct and clforge-packed rows" \
  'grep -q "  clforge  " "$OUT" && grep -q "clforge-tiled" "$OUT" && grep -q "clforge-direct" "$OUT" && grep -q "clforge-packed" "$OUT"'
check "table explains empty cells" 'grep -q "^\[1\] " "$OUT"'

# ------------------------------------------------------------ conv
# Tiny shapes: the harness (rows, fields, peers' checks), never speed. Every
# algorithm is a row: measured ("ok") or "unsupported" with clforge's
# reason; both pass here, so the checks hold whichever algorithms exist.
run "$BIN" bench --help
check "bench --help lists conv" '[ $rc -eq 0 ] && grep -q "^  conv " "$OUT"'
run "$BIN" bench conv --help
check "bench conv --help exits 0 with its options" \
  '[ $rc -eq 0 ] && grep -q -- "--layer" "$OUT" && grep -q -- "--shape" "$OUT" && grep -q -- "--algo" "$OUT" &&
   grep -q "r50_3x3_56" "$OUT" && grep -q "alex_11x11s4" "$OUT" && grep -q -- "--no-peak" "$OUT"'
bad_option "conv: unknown option" bench conv --no-such-option
bad_option "conv: --layer nope" bench conv --layer nope
bad_option "conv: --shape without h" bench conv --shape c=3,k=4,r=3
bad_option "conv: --shape unknown key" bench conv --shape c=3,h=8,k=4,r=3,x=1
bad_option "conv: --shape filter above the input" bench conv --shape c=4,h=2,k=4,r=5
bad_option "conv: --shape groups not dividing c" bench conv --shape c=4,h=8,k=6,r=3,groups=3
bad_option "conv: --shape stride=0" bench conv --shape c=4,h=8,k=4,r=3,stride=0
bad_option "conv: --algo fast" bench conv --algo fast
bad_option "conv: --layout nhcw" bench conv --layout nhcw
bad_option "conv: --dtype f64" bench conv --dtype f64
bad_option "conv: --reps 2" bench conv --reps 2
bad_option "conv: --min-time x" bench conv --min-time x
bad_option "conv: --batch 0" bench conv --batch 0

CONV_SHAPE=n=2,c=8,h=10,k=16,r=3,pad=1
cheap bench conv --shape "$CONV_SHAPE" --algo all --reps 3 --no-peak --json >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench conv --algo all --json exits 0 with one line per algorithm (auto + 8)" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$JSON")" -eq 9 ] && [ "$(grep -c "^{.*}$" "$JSON")" -eq 9 ]'
if command -v python3 >/dev/null 2>&1; then
  cat >"$TMP/check_conv.py" <<'EOF'
import json, sys

path, want_lines, clblast_expected = sys.argv[1], int(sys.argv[2]), sys.argv[3]
required = ["op", "layer", "n", "c", "h", "w", "k", "r", "s", "stride", "pad", "groups", "dilation", "p", "q",
            "dtype", "layout", "filter_layout", "algo", "algo_chosen", "provider", "status", "median_ms", "p95_ms",
            "gflops", "gbps", "peak_gflops", "peak_gbps", "frac_peak_flops", "frac_peak_bw", "workspace_bytes",
            "runs", "warmup", "timer", "device", "clblast_gflops", "vs_clblast", "onednn_gflops", "vs_onednn"]
number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
problems, algos = [], []
lines = open(path).read().splitlines()
if len(lines) != want_lines:
    problems.append("%d lines, want %d" % (len(lines), want_lines))
for no, line in enumerate(lines, 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        problems.append("line %d is not JSON: %s" % (no, e))
        continue
    missing = [f for f in required if f not in o]
    if missing:
        problems.append("line %d lacks %s" % (no, ", ".join(missing)))
        continue
    where = "line %d (%s %s %s)" % (no, o["algo"], o["dtype"], o["layout"])
    algos.append(o["algo"])
    if o["op"] != "conv" or o["provider"] != "clforge" or not o["device"] or o["runs"] != 3:
        problems.append("%s: op/provider/device/runs are %r/%r/%r/%r" % (where, o["op"], o["provider"], o["device"], o["runs"]))
    if o["peak_gflops"] is not None or o["frac_peak_flops"] is not None:
        problems.append("%s: --no-peak, but peak fields are set" % where)
    if o["status"] == "ok":
        for f in ("median_ms", "p95_ms", "gflops", "gbps", "workspace_bytes"):
            if not number(o[f]) or o[f] < 0 or (f != "workspace_bytes" and o[f] == 0):
                problems.append("%s: %s is %r" % (where, f, o[f]))
        if o["timer"] not in ("events", "wall") or o["algo_chosen"] in (None, "auto"):
            problems.append("%s: timer/algo_chosen are %r/%r" % (where, o["timer"], o["algo_chosen"]))
        if number(o["median_ms"]) and number(o["p95_ms"]) and o["p95_ms"] < o["median_ms"]:
            problems.append("%s: p95_ms < median_ms" % where)
        # GFLOP/s is the direct convolution's count over the median.
        flops = 2.0 * o["n"] * o["k"] * (o["c"] // o["groups"]) * o["r"] * o["s"] * o["p"] * o["q"]
        if number(o["gflops"]) and abs(o["gflops"] - flops / (o["median_ms"] * 1e-3) * 1e-9) > 1e-3 * o["gflops"]:
            problems.append("%s: gflops %r is not 2NK(C/G)RSPQ / median" % (where, o["gflops"]))
    elif o["status"] == "unsupported":
        if o["median_ms"] is not None or o["gflops"] is not None or not o.get("error"):
            problems.append("%s: unsupported, but median/gflops/error are %r/%r/%r"
                            % (where, o["median_ms"], o["gflops"], o.get("error")))
    else:
        problems.append("%s: status %r (error: %s)" % (where, o["status"], o.get("error")))
    if o["algo"] == "auto" and o["status"] == "ok" and o["algo_chosen"] == "auto":
        problems.append("%s: auto does not say what it chose" % where)
    # Peers: a number only with a checked result; otherwise null with a note.
    for peer in ("clblast", "onednn"):
        v, ratio, note = o[peer + "_gflops"], o["vs_" + peer], o.get(peer + "_note", "")
        if v is None and not note:
            problems.append("%s: %s_gflops is null without a note" % (where, peer))
        if v is not None and not (number(v) and v > 0):
            problems.append("%s: %s_gflops is %r" % (where, peer, v))
        if (ratio is not None) != (v is not None and o["status"] == "ok"):
            problems.append("%s: vs_%s is %r with %s_gflops %r and status %s" % (where, peer, ratio, peer, v, o["status"]))
        if "not reported" in note:
            problems.append("%s: %s's result was wrong: %s" % (where, peer, note))
    if clblast_expected == "number" and o["clblast_gflops"] is None:
        problems.append("%s: clblast_gflops is null (%s)" % (where, o.get("clblast_note")))
    if clblast_expected == "null" and o["clblast_gflops"] is not None:
        problems.append("%s: clblast_gflops is %r, want null" % (where, o["clblast_gflops"]))
    if o["onednn_gflops"] is None and "not built in" not in o.get("onednn_note", "") and o["dtype"] == "f32" \
            and "not run" not in o.get("onednn_note", ""):
        problems.append("%s: onednn_gflops is null: %s" % (where, o.get("onednn_note")))
if want_lines == 9 and sorted(algos) != sorted(["auto", "direct", "implicit_gemm", "gemm_1x1", "im2col",
                                                "winograd_2x2", "winograd_4x4", "fft", "depthwise"]):
    problems.append("algos are %s" % algos)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
  run python3 "$TMP/check_conv.py" "$JSON" 9 number
  check "bench conv --json: fields, ok or unsupported rows, both peers checked (f32 nchw)" '[ $rc -eq 0 ]'
fi
check "bench conv --json: every row says its status" \
  '[ "$(grep -c "\"status\":\"\(ok\|unsupported\)\"" "$JSON")" -eq 9 ]'

# The backward passes: a strided shape (dx by GEMM + col2im or the gather,
# dw by im2col or the direct split), every row checked and said, oneDNN's
# backward as the peer where it is built in, CLBlast n/a.
bad_option "conv: --pass back" bench conv --pass back
for pass in bwd_data bwd_filter; do
  cheap bench conv --pass $pass --shape n=2,c=8,h=10,k=16,r=3,pad=1,stride=2 --algo auto,direct,im2col --reps 3 \
    --no-peak --json >"$JSON" 2>"$ERR"
  rc=$?
  cp "$JSON" "$OUT"
  check "bench conv --pass $pass --json: three rows, each ok or unsupported, the pass named, CLBlast n/a" \
    '[ $rc -eq 0 ] && [ "$(grep -c "\"pass\":\"$pass\"" "$JSON")" -eq 3 ] &&
     [ "$(grep -c "\"status\":\"\(ok\|unsupported\)\"" "$JSON")" -eq 3 ] &&
     [ "$(grep -c "\"status\":\"ok\"" "$JSON")" -ge 2 ] && ! grep -q "\"clblast_gflops\":[0-9]" "$JSON"'
done

# Whole networks: MobileNetV2's 30 distinct layers at N = 1 (about 6 s cold):
# each layer row says where it is in the network and how often, was run
# with prepared weights, and the network line sums them with their counts.
bad_option "conv: --network nope" bench conv --network nope
bad_option "conv: --network with --layer" bench conv --network resnet50 --layer r50_3x3_56
cheap bench conv --network mobilenetv2 --batch 1 --layout nhwc --reps 3 --warmup 1 --no-peak --no-peers --json \
  >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench conv --network mobilenetv2 --json exits 0 with 30 layer lines and one network line" \
  '[ $rc -eq 0 ] && [ "$(grep -c "\"op\":\"conv\"" "$JSON")" -eq 30 ] && [ "$(grep -c "\"op\":\"conv_network\"" "$JSON")" -eq 1 ]'
if command -v python3 >/dev/null 2>&1; then
  cat >"$TMP/check_network.py" <<'EOF'
import json, sys

rows, nets, problems = [], [], []
for line in open(sys.argv[1]).read().splitlines():
    o = json.loads(line)
    (nets if o["op"] == "conv_network" else rows).append(o)
total, layers, kinds = 0.0, 0, {}
for o in rows:
    where = o["layer"]
    if o["status"] != "ok" or o["algo"] != "auto" or o["network"] != "MobileNetV2" or o["prepared_weights"] is not True:
        problems.append("%s: status/algo/network/prepared are %r/%r/%r/%r" % (where, o["status"], o["algo"], o["network"],
                                                                               o["prepared_weights"]))
        continue
    if not (isinstance(o["weights_ms"], (int, float)) and o["weights_ms"] > 0) or o["count"] < 1:
        problems.append("%s: weights_ms/count are %r/%r" % (where, o["weights_ms"], o["count"]))
    total += o["count"] * o["median_ms"]
    layers += o["count"]
    kinds[o["kind"]] = kinds.get(o["kind"], 0) + o["count"] * o["median_ms"]
if len(nets) == 1:
    n = nets[0]
    a = n["auto"] or {}
    if n["layers"] != 52 or n["distinct_layers"] != 30 or layers != 52:
        problems.append("network: %r layers (%r distinct), the rows count %d" % (n["layers"], n["distinct_layers"], layers))
    # JSON numbers have 6 significant digits: the sums agree to about 1e-6.
    if abs(a.get("ms", 0) - total) > 2e-5 * total or abs(a.get("ms_per_image", 0) - total) > 2e-5 * total:
        problems.append("network: auto ms %r, the rows' counted sum %r" % (a.get("ms"), total))
    if sum(a.get("algorithms", {}).values()) != 52 or n["onednn"] is not None or n["best"] is not None:
        problems.append("network: algorithms %r, onednn %r, best %r" % (a.get("algorithms"), n["onednn"], n["best"]))
    got = {k["kind"]: k["auto_ms"] for k in n["kinds"]}
    if set(got) != {"stem", "1x1", "depthwise"} or any(abs(got[k] - kinds.get(k, 0)) > 2e-5 * total for k in got):
        problems.append("network: kinds %r, the rows give %r" % (got, kinds))
else:
    problems.append("%d network lines" % len(nets))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
  run python3 "$TMP/check_network.py" "$JSON"
  check "bench conv --network: rows with count, kind and prepared weights; the total is their counted sum" '[ $rc -eq 0 ]'
fi

# NHWC, f16 and bf16, stride, groups: CLBlast cannot (NCHW, groups 1 only):
# null with a note; oneDNN runs f32 only.
cheap bench conv --shape n=1,c=4,h=7,w=6,k=8,r=3,stride=2,pad=1,groups=2 --dtype f16,bf16 --layout nhwc \
  --algo auto,direct --reps 3 --no-peak --json >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench conv nhwc f16,bf16 grouped exits 0 with 4 lines" '[ $rc -eq 0 ] && [ "$(wc -l <"$JSON")" -eq 4 ]'
if command -v python3 >/dev/null 2>&1; then
  run python3 "$TMP/check_conv.py" "$JSON" 4 null
  check "bench conv nhwc f16,bf16 grouped: fields, clblast null with a note" '[ $rc -eq 0 ]'
fi
check "bench conv nhwc: filter layout krsc, clblast says NCHW only" \
  'grep -q "\"filter_layout\":\"krsc\"" "$JSON" && grep -q "\"clblast_note\":\"n/a: CLBlast convgemm takes NCHW" "$JSON"'

run cheap bench conv --shape n=1,c=3,h=9,k=4,r=3 --algo auto --reps 3 --no-peers --no-peak --json
check "bench conv --no-peers: peers null with a note" \
  '[ $rc -eq 0 ] && grep -q "\"clblast_gflops\":null" "$OUT" && grep -q "\"onednn_note\":\"not run" "$OUT"'

run cheap bench conv --shape "$CONV_SHAPE" --algo auto,direct,winograd_4x4 --reps 3 --no-peak
check "bench conv (table) exits 0 with the header and 3 rows" \
  '[ $rc -eq 0 ] && grep -q "median ms" "$OUT" && grep -q "workspace" "$OUT" && grep -q "vs clblast" "$OUT" &&
   grep -q "vs onednn" "$OUT" && [ "$(grep -c "^c8x10x10_k16_3x3p1 " "$OUT")" -eq 3 ]'
check "bench conv table: auto names its choice; each row measured or unsupported with a note" \
  'grep -q " auto:[a-z]" "$OUT" &&
   [ "$(grep "^c8x10x10_k16_3x3p1 " "$OUT" | grep -c -E "unsupported \[[0-9]+\]|[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ ")" -eq 3 ] &&
   grep -q "^\[1\] " "$OUT"'

run no_icd bench conv --shape n=1,c=3,h=9,k=4,r=3 --reps 3 --json
check "no device: bench conv exits 1, nothing on stdout, a message on stderr" \
  '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'

# ------------------------------------------------------------ attention
# --quick: three tiny shapes (MHA prefill, causal GQA prefill, GQA decode with
# f32 and f16 KV: four cases of four rows), the harness in a few seconds.
run "$BIN" bench --help
check "bench --help lists attention and softmax" '[ $rc -eq 0 ] && grep -q "^  attention " "$OUT" && grep -q "^  softmax " "$OUT"'
run "$BIN" bench attention --help
check "bench attention --help exits 0 with its options" \
  '[ $rc -eq 0 ] && grep -q -- "--shapes" "$OUT" && grep -q -- "--kv-dtype" "$OUT" && grep -q -- "--peers" "$OUT" &&
   grep -q -- "--quick" "$OUT" && grep -q -- "--reps" "$OUT"'
bad_option "attention: unknown option" bench attention --no-such-option
bad_option "attention: --shapes 1,2,3" bench attention --shapes 1,2,3
bad_option "attention: --shapes Hq not a multiple of Hkv" bench attention --shapes 1,3,2,4,4,8
bad_option "attention: --shapes D 300" bench attention --shapes 1,2,2,4,4,300
bad_option "attention: --shapes bad mask word" bench attention --shapes 1,2,2,4,4,8,sideways
bad_option "attention: --shapes nope" bench attention --shapes nope
bad_option "attention: --dtype f64" bench attention --dtype f64
bad_option "attention: --kv-dtype x" bench attention --kv-dtype x
bad_option "attention: --kv-dtype s8" bench attention --kv-dtype s8
bad_option "attention: --dtype q8_0 (K/V only)" bench attention --dtype q8_0
bad_option "attention: --paged 0" bench attention --paged 0
bad_option "attention: --paged x" bench attention --paged x
bad_option "attention: --peers some" bench attention --peers some
bad_option "attention: --reps 2" bench attention --reps 2
bad_option "attention: --max-run x" bench attention --max-run x

cheap bench attention --quick --json >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench attention --quick --json exits 0 with 16 lines (4 cases x 4 rows)" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$JSON")" -eq 16 ] && [ "$(grep -c "^{.*}$" "$JSON")" -eq 16 ]'
if command -v python3 >/dev/null 2>&1; then
  cat >"$TMP/check_attn.py" <<'EOF'
import json, sys

required = ["op", "kind", "b", "hq", "hkv", "sq", "sk", "d", "causal", "q_dtype", "kv_dtype", "o_dtype", "provider",
            "status", "median_ms", "p95_ms", "gflops", "gbps", "flops", "bytes", "extra_bytes", "peak_gflops",
            "peak_gbps", "frac_peak_flops", "frac_peak_bw", "kv_read_gbps", "frac_kv_read", "vs_clforge", "runs",
            "timer", "device"]
number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
close = lambda a, b: abs(a - b) <= 1e-4 * max(abs(a), abs(b))
sizes = {"f32": 4, "f16": 2, "bf16": 2}
problems, cases = [], {}
for no, line in enumerate(open(sys.argv[1]), 1):
    o = json.loads(line)
    missing = [f for f in required if f not in o]
    if missing:
        problems.append("line %d lacks %s" % (no, ", ".join(missing)))
        continue
    key = (o["b"], o["hq"], o["hkv"], o["sq"], o["sk"], o["d"], o["causal"], o["q_dtype"], o["kv_dtype"])
    cases.setdefault(key, []).append(o)
    where = "line %d (%s %s)" % (no, o["provider"], key)
    if o["op"] != "attention" or not o["device"]:
        problems.append("%s: op/device %r/%r" % (where, o["op"], o["device"]))
    if o["status"] == "error":
        problems.append("%s: error: %s" % (where, o.get("error")))
    if o["status"] == "n/a" and not o.get("note"):
        problems.append("%s: n/a without a note" % where)
    if o["status"] == "ok":
        for f in ("median_ms", "p95_ms", "gbps"):
            if not (number(o[f]) and o[f] > 0):
                problems.append("%s: %s is %r" % (where, f, o[f]))
        if o["p95_ms"] < o["median_ms"] or o["runs"] < 3 or o["timer"] not in ("events", "wall"):
            problems.append("%s: p95/median/runs/timer %r/%r/%r/%r"
                            % (where, o["p95_ms"], o["median_ms"], o["runs"], o["timer"]))
        if o["flops"] > 0 and not close(o["gflops"], o["flops"] / (o["median_ms"] * 1e-3) * 1e-9):
            problems.append("%s: gflops %r is not flops / median" % (where, o["gflops"]))
        # the plain read's GB/s is from its fastest run (at least the median's rate)
        ms = o["median_ms"] if o["provider"] != "read K+V" else o["bytes"] / (o["gbps"] * 1e9) * 1e3
        if not close(o["gbps"], o["bytes"] / (ms * 1e-3) * 1e-9) or ms > o["median_ms"] * (1 + 1e-4):
            problems.append("%s: gbps %r is not bytes / median (best, for read K+V)" % (where, o["gbps"]))
        if o["provider"] == "read K+V" and o["runs"] < 20:
            problems.append("%s: %r runs, want at least 20" % (where, o["runs"]))
for key, rows in cases.items():
    b, hq, hkv, sq, sk, d, causal, qt, kvt = key
    by = {r["provider"].split(":")[0]: r for r in rows}
    yard = "read K+V" if sq <= 16 else "gemm QK^T"
    if sorted(by) != sorted(["clforge", "unfused-clforge", "unfused-clblast", yard]):
        problems.append("%s: rows %s" % (key, sorted(by)))
        continue
    c = by["clforge"]
    flops = 4.0 * b * hq * sq * sk * d / (2 if causal else 1)
    if c["status"] != "ok" or c["flops"] != flops or c.get("algo") not in ("fused", "split_kv"):
        problems.append("%s: clforge status/flops/algo %r/%r/%r" % (key, c["status"], c["flops"], c.get("algo")))
    if c["vs_clforge"] is not None or not number(c["extra_bytes"]):
        problems.append("%s: clforge vs_clforge/extra_bytes %r/%r" % (key, c["vs_clforge"], c["extra_bytes"]))
    s_bytes = b * hq * sq * sk * sizes[qt] + (sq * sk * 4 if causal else 0)
    for p in ("unfused-clforge", "unfused-clblast"):
        r = by[p]
        if r["extra_bytes"] != s_bytes:
            problems.append("%s: %s extra_bytes %r, want the S buffer %r" % (key, p, r["extra_bytes"], s_bytes))
        want_ok = p == "unfused-clforge" or (qt, kvt) == ("f32", "f32")
        if want_ok and r["status"] != "ok":
            problems.append("%s: %s is %s: %s" % (key, p, r["status"], r.get("note") or r.get("error")))
        if not want_ok and r["status"] != "n/a":
            problems.append("%s: %s is %s, want n/a (f32 only)" % (key, p, r["status"]))
        if r["status"] == "ok" and c["status"] == "ok" and not close(r["vs_clforge"], c["gflops"] / r["gflops"]):
            problems.append("%s: %s vs_clforge %r is not clforge's GFLOP/s over its" % (key, p, r["vs_clforge"]))
    y = by[yard]
    if y["status"] != "ok":
        problems.append("%s: %s is %s: %s" % (key, yard, y["status"], y.get("note") or y.get("error")))
    elif sq <= 16:
        if not (number(c["kv_read_gbps"]) and close(c["kv_read_gbps"], y["gbps"]) and
                close(c["frac_kv_read"], c["gbps"] / y["gbps"])):
            problems.append("%s: kv_read_gbps/frac_kv_read %r/%r, read K+V at %r"
                            % (key, c["kv_read_gbps"], c["frac_kv_read"], y["gbps"]))
        if y["bytes"] > 2 * b * hkv * sk * d * sizes[kvt]:
            problems.append("%s: read K+V reads %r bytes, more than K and V" % (key, y["bytes"]))
    elif y["flops"] != 2.0 * b * hq * sq * sk * d:
        problems.append("%s: gemm QK^T flops %r" % (key, y["flops"]))
if len(cases) != int(sys.argv[2]):
    problems.append("%d cases, want %s" % (len(cases), sys.argv[2]))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
  run python3 "$TMP/check_attn.py" "$JSON" 4
  check "bench attention --quick --json: fields, every row checked, the composites' S bytes, yardsticks" '[ $rc -eq 0 ]'
fi

run cheap bench attention --quick --no-peak
check "bench attention --quick (table) exits 0 with the header and 16 rows, none an error" \
  '[ $rc -eq 0 ] && grep -q "median ms" "$OUT" && grep -q "extra MiB" "$OUT" && grep -q "% read" "$OUT" &&
   [ "$(grep -c "^ *1  " "$OUT")" -eq 16 ] && grep -q " clforge:" "$OUT" && grep -q " unfused-clblast " "$OUT" &&
   grep -q " gemm QK^T " "$OUT" && grep -q " read K+V " "$OUT" && ! grep -q " error" "$OUT"'

run cheap bench attention --shapes 1,2,1,24,32,16,causal --peers none --no-peak --json
check "bench attention --peers none: the clforge row only" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$OUT")" -eq 1 ] && grep -q "\"provider\":\"clforge:" "$OUT" &&
   grep -q "\"status\":\"ok\"" "$OUT"'

# KV caches: a q8_0 row after its f16-KV base, and the paged row of each,
# whose O must equal the contiguous one's bit for bit
run cheap bench attention --shapes 2,4,2,1,100,32 --dtype f16 --kv-dtype f16,q8_0 --paged 16 --peers none --no-peak --json
check "bench attention --kv-dtype f16,q8_0 --paged 16: clforge, paged and read rows, all ok, q8_0 against f16-KV, paged against contiguous" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$OUT")" -eq 6 ] && [ "$(grep -c "\"status\":\"ok\"" "$OUT")" -eq 6 ] &&
   grep -q "\"kv_dtype\":\"q8_0\".*\"provider\":\"clforge:fused" "$OUT" && grep -q "\"base\":\"f16-KV\"" "$OUT" &&
   [ "$(grep -c "\"provider\":\"clforge:paged/16\".*\"base\":\"contiguous" "$OUT")" -eq 2 ]'

# conv --int8: the int8 row after the f32 one, its y checked, oneDNN's (when built in) equal to it
run cheap bench conv --shape n=1,c=16,h=9,k=24,r=3,pad=1 --layout nhwc --algo auto --int8 --no-peak --json
check "bench conv --int8: an f32 row and an ok u8 int8 row with its vs_clforge_f32" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$OUT")" -eq 2 ] && grep -q "\"dtype\":\"u8\".*\"status\":\"ok\"" "$OUT" &&
   grep -q "\"vs_clforge_f32\":[0-9]" "$OUT" && ! grep -q "\"status\":\"error\"" "$OUT"'

# ------------------------------------------------------------ softmax
run "$BIN" bench softmax --help
check "bench softmax --help exits 0 with its options" \
  '[ $rc -eq 0 ] && grep -q -- "--shapes" "$OUT" && grep -q -- "--inplace" "$OUT" && grep -q -- "--quick" "$OUT"'
bad_option "softmax: unknown option" bench softmax --no-such-option
bad_option "softmax: --shapes 10" bench softmax --shapes 10
bad_option "softmax: --shapes 0x5" bench softmax --shapes 0x5
bad_option "softmax: --shapes 4x8," bench softmax --shapes 4x8,
bad_option "softmax: --dtype f64" bench softmax --dtype f64
bad_option "softmax: --inplace maybe" bench softmax --inplace maybe
bad_option "softmax: --reps 1" bench softmax --reps 1
bad_option "softmax: --pass sideways" bench softmax --pass sideways

"$BIN" bench softmax --quick --json >"$JSON" 2>"$ERR"
rc=$?
cp "$JSON" "$OUT"
check "bench softmax --quick --json exits 0 with 12 lines (2 shapes x 3 dtypes x in place or not)" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$JSON")" -eq 12 ] && [ "$(grep -c "^{.*}$" "$JSON")" -eq 12 ]'
if command -v python3 >/dev/null 2>&1; then
  cat >"$TMP/check_softmax.py" <<'EOF'
import json, sys
number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
fields = ("op", "rows", "n", "dtype", "inplace", "kernel", "status", "median_ms", "p95_ms", "gbps", "bytes",
          "peak_gbps", "frac_peak_bw", "runs", "timer", "device")
problems, seen = [], set()
for no, line in enumerate(open(sys.argv[1]), 1):
    o = json.loads(line)
    where = "line %d" % no
    missing = [f for f in fields if f not in o]
    if missing:
        problems.append("%s lacks %s" % (where, ", ".join(missing)))
        continue
    seen.add((o["rows"], o["n"], o["dtype"], o["inplace"]))
    es = {"f32": 4, "f16": 2, "bf16": 2}[o["dtype"]]
    if o["op"] != "softmax" or o["status"] != "ok" or o["bytes"] != 2 * o["rows"] * o["n"] * es:
        problems.append("%s: op/status/bytes %r/%r/%r (%s)" % (where, o["op"], o["status"], o["bytes"], o.get("error")))
    elif not (number(o["gbps"]) and o["gbps"] > 0 and o["p95_ms"] >= o["median_ms"] > 0 and number(o["frac_peak_bw"])):
        problems.append("%s: gbps/p95/median/frac %r/%r/%r/%r"
                        % (where, o["gbps"], o["p95_ms"], o["median_ms"], o["frac_peak_bw"]))
    elif abs(o["gbps"] - o["bytes"] / (o["median_ms"] * 1e-3) * 1e-9) > 1e-4 * o["gbps"]:
        problems.append("%s: gbps is not bytes / median" % where)
if len(seen) != 12:
    problems.append("%d distinct rows, want 12" % len(seen))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
  run python3 "$TMP/check_softmax.py" "$JSON"
  check "bench softmax --quick --json: fields, every row checked against the reference, GB/s = bytes / median" \
    '[ $rc -eq 0 ]'
fi
run "$BIN" bench softmax --shapes 5x300 --dtype f16 --inplace yes --log --reps 3 --no-peak
check "bench softmax --log (table) exits 0 with the header and 1 row" \
  '[ $rc -eq 0 ] && grep -q "median ms" "$OUT" && [ "$(grep -c "^       5     300  f16 " "$OUT")" -eq 1 ] &&
   ! grep -q "error" "$OUT"'
# ------------------------------------------------------------ train
bad_option "train: --op sgd" bench train --op sgd
run cheap bench train --quick --json --dtype f32,f16 --no-peak
check "bench train --quick: 10 rows (2 cross-entropy + 1 optimizer + 2 attention backward per dtype), each checked, the fused call against the unfused" \
  '[ $rc -eq 0 ] && [ "$(grep -c "\"status\":\"ok\"" "$OUT")" -eq 10 ] &&
   [ "$(grep -c "\"op\":\"cross_entropy\".*\"speedup_vs_unfused\":[0-9]" "$OUT")" -eq 4 ] &&
   [ "$(grep -c "\"op\":\"optimizer\".*\"kernel\":\"optimizer " "$OUT")" -eq 2 ] &&
   [ "$(grep -c "\"op\":\"attention_bwd\".*\"speedup_vs_unfused\":[0-9]" "$OUT")" -eq 4 ]'
run "$BIN" bench softmax --pass bwd --shapes 7x300,2x1000 --dtype f32,bf16 --inplace both --reps 3 --no-peak --json
check "bench softmax --pass bwd: 8 rows checked against the reference, the backward family, 3 tensors' bytes" \
  '[ $rc -eq 0 ] && [ "$(grep -c "\"pass\":\"bwd\".*\"status\":\"ok\"" "$OUT")" -eq 8 ] &&
   grep -q "\"kernel\":\"softmax_backward " "$OUT" && grep -q "\"bytes\":25200[,}]" "$OUT"'
check "bench softmax --pass bwd: oneDNN's backward beside each f32 row (timed, or why not)" \
  '[ "$(grep "\"dtype\":\"f32\"" "$OUT" | grep -c "\"vs_onednn\":[0-9]\|\"onednn_note\":\"n/a")" -eq 4 ] &&
   [ "$(grep "\"dtype\":\"bf16\"" "$OUT" | grep -c "\"vs_onednn\":[0-9]")" -eq 0 ]'

# ------------------------------------------------------------ allreduce
run "$BIN" bench allreduce --help
check "bench allreduce --help exits 0 with its options" '[ $rc -eq 0 ] && grep -q -- "--ranks" "$OUT" && grep -q -- "--on" "$OUT"'
bad_option "allreduce: --ranks 1" bench allreduce --ranks 1
bad_option "allreduce: --on moon" bench allreduce --on moon
bad_option "allreduce: --reduce avg" bench allreduce --reduce avg
bad_option "allreduce: --sizes 0" bench allreduce --sizes 0
run "$BIN" bench allreduce --sizes 8,65536,1000000 --runs 3 --warmup 1 --json
# each line's numbers: algbw = bytes / median, busbw = algbw * 2(N-1)/N (= algbw for 2 ranks)
cat >"$TMP/check_allreduce.awk" <<'EOF'
function num(k) { if (!match($0, "\"" k "\":[-0-9.e+]+")) return -1; return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0 }
{ b = num("bytes"); m = num("median_ms"); a = num("algbw_gbps"); u = num("busbw_gbps")
  if (m <= 0 || a <= 0 || (a - b / m / 1e6) ^ 2 > (1e-3 * a) ^ 2 || (u - a) ^ 2 > (1e-3 * a) ^ 2) bad = 1 }
END { exit bad }
EOF
check "bench allreduce --json: 3 rows, each checked bit for bit on every rank, algbw = bytes / median, busbw = algbw (2 ranks)" \
  '[ $rc -eq 0 ] && [ "$(grep -c "\"op\":\"allreduce\",\"ranks\":2,.*\"status\":\"ok\"" "$OUT")" -eq 3 ] &&
   awk -f "$TMP/check_allreduce.awk" "$OUT"'
run "$BIN" bench allreduce --ranks 3 --on contexts --dtype bf16 --reduce mean --sizes 1000 --runs 3
check "bench allreduce --ranks 3 --on contexts (table): the header and 1 row" \
  '[ $rc -eq 0 ] && grep -q "3 ranks on contexts" "$OUT" && grep -q "busbw GB/s" "$OUT" && [ "$(grep -c "^ *1000 " "$OUT")" -eq 1 ]'
run no_icd bench allreduce --sizes 8 --runs 3
check "no device: bench allreduce exits 1, nothing on stdout, a message on stderr" \
  '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'

run no_icd bench attention --quick --json
check "no device: bench attention exits 1, nothing on stdout, a message on stderr" \
  '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'
run no_icd bench softmax --quick --json
check "no device: bench softmax exits 1, nothing on stdout, a message on stderr" \
  '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'

# ------------------------------------------------------------ no device
run no_icd bench gemm --sizes 8 --runs 3 --json
check "no device: exits 1, nothing on stdout, a message on stderr" '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'
run no_icd bench peak --json
check "no device: bench peak exits 1, nothing on stdout, a message on stderr" \
  '[ $rc -eq 1 ] && [ ! -s "$OUT" ] && [ -s "$ERR" ]'

summary
