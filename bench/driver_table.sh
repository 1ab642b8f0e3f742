#!/bin/sh
# The per-driver table of docs/performance.md ("Drivers side by side"): the
# same benchmarks on each OpenCL driver of this machine, one driver after
# the other in one run, with each driver's peers (CLBlast on the same
# driver; OpenBLAS and oneDNN on the host) beside it. Raw JSON lines go to
# OUT_DIR/<driver>-<bench>.jsonl; the table (markdown) to stdout.
#
# usage: bench/driver_table.sh CLFORGE_CLI EXAMPLES_BIN_DIR OUT_DIR [DRIVER...]
#   (default drivers: pocl intel; EXAMPLES_BIN_DIR holds example_train_cnn
#   and example_train_transformer, e.g. build/bin)
# Minutes per driver on 2 cores; run it on an idle machine. A result file
# already in OUT_DIR is kept (a run cut short resumes where it stopped).
set -eu
cli=$1
bin=$2
out=$3
shift 3
[ $# -gt 0 ] || set -- pocl intel
mkdir -p "$out"
# The examples are plain programs: they see the checkout's drivers (README,
# "Quick start") as the command does by itself.
drivers_dir=$(cd "$(dirname "$0")/.." && pwd)/_drivers/vendors
if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -d "$drivers_dir" ]; then
  export OCL_ICD_VENDORS="$drivers_dir"
fi

for drv in "$@"; do
  echo "driver_table: $drv" >&2
  export CLFORGE_DEVICE="$drv"
  # run NAME COMMAND...: COMMAND's stdout into OUT_DIR/DRIVER-NAME unless there
  run() {
    f="$out/$drv-$1"
    shift
    [ -s "$f" ] || { "$@" > "$f.part" && mv "$f.part" "$f"; }
  }
  run peak.jsonl "$cli" bench peak --json
  run gemm.jsonl "$cli" bench gemm --sizes 2048 --dtype f32 --int8 --runs 5 --json
  run conv.jsonl "$cli" bench conv --network resnet50,mobilenetv2 --batch 8 --layout nhwc --algo auto --reps 3 --json
  run prefill.jsonl "$cli" bench attention --shapes 1,8,8,2048,2048,64,causal --reps 3 --peers clforge --json
  run decode.jsonl "$cli" bench attention --shapes 4,32,8,1,8192,128 --kv-dtype f16 --reps 5 --peers none --json
  run softmax.jsonl "$cli" bench softmax --shapes 16384x2048 --dtype f32 --inplace no --reps 5 --json
  run train_cnn.txt "$bin/example_train_cnn" --dtype f32 --steps 40
  run train_transformer.txt "$bin/example_train_transformer" --dtype f32 --steps 40
done
unset CLFORGE_DEVICE

/usr/bin/python3 - "$out" "$@" << 'EOF'
import json, re, sys
out, drivers = sys.argv[1], sys.argv[2:]

def rows(drv, name):
    try:
        with open(f"{out}/{drv}-{name}.jsonl") as f:
            return [json.loads(l) for l in f if l.startswith("{")]
    except OSError:
        return []

def first(rs, **want):
    for r in rs:
        if all(r.get(k) == v for k, v in want.items()):
            return r
    return {}

def num(x, fmt="{:.1f}"):
    return fmt.format(x) if isinstance(x, (int, float)) else "–"

def ms_step(drv, name):
    try:
        text = open(f"{out}/{drv}-{name}.txt").read()
    except OSError:
        return "–"
    m = re.search(r"([0-9.]+) ms/step", text)
    return m.group(1) if m else "–"

lines = {}
def add(what, drv, value):
    lines.setdefault(what, {})[drv] = value

for d in drivers:
    peak = first(rows(d, "peak"))
    add("peak f32 GFLOP/s (host FMA loop)", d, f"{num(peak.get('peak_gflops'))} ({num(peak.get('host_gflops'))})")
    g = rows(d, "gemm")
    f32 = first(g, dtype="f32", provider="clforge")
    add("GEMM f32 2048³ GFLOP/s", d, num(f32.get("gflops")))
    add("  vs OpenBLAS (host)", d, num(f32.get("vs_openblas"), "{:.2f}×"))
    add("  vs CLBlast (same driver)", d, num(f32.get("vs_clblast"), "{:.1f}×"))
    i8 = next((r for r in g if r.get("dtype") not in ("f32", "f16", "bf16")), {})
    add("int8 GEMM 2048³ GOP/s", d, num(i8.get("gflops")))
    add("  vs clforge f32", d, num(i8.get("vs_clforge_f32"), "{:.2f}×"))
    for net in ("resnet50", "mobilenetv2"):
        n = first(rows(d, "conv"), op="conv_network", network_key=net)
        auto = n.get("auto") or {}
        add(f"conv {net} N=8 NHWC, ms (vs oneDNN)", d,
            f"{num(auto.get('ms'), '{:.0f}')} ({num(n.get('auto_vs_onednn'), '{:.2f}×')})")
    pre = rows(d, "prefill")
    p = next((r for r in pre if str(r.get("provider", "")).startswith("clforge")), {})
    pc = first(pre, provider="unfused-clforge")
    ratio = p["gflops"] / pc["gflops"] if p.get("gflops") and pc.get("gflops") else None
    add("attention prefill f32 8×2048², D 64: GFLOP/s (vs unfused clforge)", d,
        f"{num(p.get('gflops'))} ({num(ratio, '{:.2f}×')})")
    dc = next((r for r in rows(d, "decode") if str(r.get("provider", "")).startswith("clforge")), {})
    add("attention decode f16 KV 8192, K/V read GB/s", d, num(dc.get("kv_read_gbps")))
    s = next(iter(rows(d, "softmax")), {})
    add("softmax f32 16384×2048, GB/s (vs oneDNN)", d, f"{num(s.get('gbps'))} ({num(s.get('vs_onednn'), '{:.2f}×')})")
    add("train_cnn f32 ms/step", d, ms_step(d, "train_cnn"))
    add("train_transformer f32 ms/step", d, ms_step(d, "train_transformer"))

print("| | " + " | ".join(drivers) + " |")
print("|---|" + "---|" * len(drivers))
for what, per in lines.items():
    print(f"| {what} | " + " | ".join(per.get(d, "–") for d in drivers) + " |")
EOF
