#!/bin/sh
# Does tuning ever make a call slower? (issues 15, 32)
#
#   sh bench/tune_never_slower.sh path/to/clforge [--tuning-file PATH] [--budget S] [--ops LIST]
#                                 [--background-load N]
#
# Without --tuning-file it first runs `clforge tune --budget S` (default 120,
# README command 1's tune) into a temporary HOME. Then it times every row of
# `bench conv --batch 8 --algo auto`, `bench gemm --sizes 1024,2048 --dtype f32`
# and `bench attention` (one shape per attention shape class) with the tuning
# file and with CLFORGE_TUNING_FILE=off, one bench process per case, the two
# runs of a case back to back in alternating order so that the machine's load
# drifts hit both alike, and prints per row the ratio tuned / untuned. A row
# below 0.95x whose call runs the same kernels with the parameters either
# way (`clforge explain` with and without the file) is reported as `same`:
# the file cannot have slowed it. The others are measured REPEATS (7) times
# more, each time with and without the file, and judged by the ratio of the
# medians of those rates: FAIL below 0.9x, SLOWER from 0.9x to 0.95x
# (reported, not failing), noise otherwise. Why medians of several
# processes: beside a busy process the rate of one bench process depends on
# where the scheduler placed its driver's threads (PoCL, r50_3x3_28 with the
# same parameters: mostly 145-175 GFLOP/s, one process in six or seven at
# 200-230), so one pair's ratio ranges from 0.65 to 1.5 with nothing
# changed, and the median of three pairs' ratios failed about one row in
# thirty on that noise alone (docs/tuning.md).
# --background-load N keeps N busy processes (`while :; do :; done`, one core
# each) spinning for the whole run, tune included, as another user's job on
# a shared machine would; they are killed when the script ends, however it
# ends.
# Exit status: 1 when a row FAILs (the rows are named), a bench or the tune
# fails or a row has no pair; 2 on a usage error; else 0. The benches' JSON
# lines are kept in the work directory it names.
set -u

usage() {
  echo "usage: sh $0 path/to/clforge [--tuning-file PATH] [--budget SECONDS] [--ops conv,gemm,attention]" \
    "[--background-load N]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
BIN=$1
shift
[ -x "$BIN" ] || { echo "tune_never_slower: $BIN is not an executable" >&2; exit 2; }
FILE="" BUDGET=120 OPS="conv,gemm,attention" LOAD=0
REPEATS=7 # re-runs of a row below 0.95x at first
while [ $# -gt 0 ]; do
  case $1 in
    --tuning-file) [ $# -ge 2 ] || usage; FILE=$2; shift 2 ;;
    --budget) [ $# -ge 2 ] || usage; BUDGET=$2; shift 2 ;;
    --ops) [ $# -ge 2 ] || usage; OPS=$2; shift 2 ;;
    --background-load) [ $# -ge 2 ] || usage; LOAD=$2; shift 2 ;;
    *) usage ;;
  esac
done
case $LOAD in '' | *[!0-9]*) usage ;; esac
if [ -n "$FILE" ] && [ ! -r "$FILE" ]; then
  echo "tune_never_slower: cannot read the tuning file $FILE" >&2
  exit 2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tune-never-slower.XXXXXX") || exit 1
# The benches and the tune get a home of their own: the user's tuning file
# and kernel cache are never read or written; the system file is off, so
# "off" means no tuning file at all.
export HOME="$WORK/home" XDG_CACHE_HOME="$WORK/home/.cache" CLFORGE_SYSTEM_TUNING_FILE=off
unset CLFORGE_PARAMS CLFORGE_GEMM_PATH CLFORGE_CONV_ALGO CLFORGE_ATTENTION_ALGO
mkdir -p "$HOME"
failed=0
start=$(date +%s)

# The background load, killed on every way out: the EXIT trap runs at the
# end and, through the signal traps, on Ctrl-C and kill.
spinners=""
# shellcheck disable=SC2317 # called by the traps
stop_load() {
  for p in $spinners; do kill "$p" 2>/dev/null; done
  spinners=""
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT
trap 'stop_load; exit 143' TERM
i=0
while [ "$i" -lt "$LOAD" ]; do
  sh -c 'while :; do :; done' &
  spinners="$spinners $!"
  i=$((i + 1))
done
[ "$LOAD" -eq 0 ] || echo "tune_never_slower: background load: $LOAD busy process(es):$spinners"

if [ -z "$FILE" ]; then
  FILE="$XDG_CACHE_HOME/clforge/tuning.json"
  echo "tune_never_slower: clforge tune --budget $BUDGET into $HOME"
  t0=$(date +%s)
  if ! "$BIN" tune --budget "$BUDGET" >"$WORK/tune.log" 2>&1; then
    echo "tune_never_slower: the tune failed:" >&2
    tail -n 20 "$WORK/tune.log" >&2
    exit 1
  fi
  echo "tune_never_slower: tuned in $(($(date +%s) - t0)) s; the end of its summary:"
  tail -n 12 "$WORK/tune.log"
fi
echo "tune_never_slower: tuning file $FILE; work directory $WORK"

# The cases: "op|name|bench arguments" (one bench process per case and mode).
cases() {
  case ",$OPS," in *,conv,*)
    for l in r50_3x3_56 r50_7x7s2 r50_1x1_56 r50_3x3_28 mbv2_dw_112 mbv2_1x1_112 alex_11x11s4; do
      echo "conv|$l|conv --layer $l --batch 8 --algo auto --no-peers --no-peak"
    done ;;
  esac
  case ",$OPS," in *,gemm,*)
    for s in 1024 2048; do echo "gemm|$s|gemm --sizes $s --dtype f32 --no-peers --no-peak"; done ;;
  esac
  # one shape per attention class (src/families/attention_classes.h); decode
  # shapes give a row per KV storage type (f32 and f16)
  case ",$OPS," in *,attention,*)
    for s in 1,8,8,512,512,64 1,8,8,2048,2048,64 1,8,8,512,512,128 1,32,8,2048,2048,128,causal \
      1,32,8,1,1024,128 1,32,8,1,8192,128 1,32,8,8,4096,128; do
      echo "attention|$s|attention --shapes $s --peers none --no-peak"
    done ;;
  esac
}

# run_case ID ARGS MODE PASS: one bench process; its JSON lines in
# $WORK/ID.MODE.PASS.json. MODE "on" reads the tuning file, "off" none.
run_case() {
  id=$1 args=$2 mode=$3 pass=$4
  out="$WORK/$id.$mode.$pass.json"
  tf=$FILE
  [ "$mode" = off ] && tf=off
  # shellcheck disable=SC2086 # args is a list of words
  if ! CLFORGE_TUNING_FILE=$tf "$BIN" bench $args --json >"$out" 2>"$out.err"; then
    echo "tune_never_slower: bench $args ($mode) failed:" >&2
    tail -n 5 "$out.err" >&2
    failed=1
  fi
}

# measure PASS IDS...: every listed case with and without the file, in
# alternating order.
measure() {
  pass=$1
  shift
  i=0
  cases >"$WORK/cases"
  while IFS='|' read -r op name args; do
    id=$(echo "$op.$name" | tr ',' '_')
    want=0
    for w in "$@"; do [ "$w" = all ] || [ "$w" = "$id" ] && want=1; done
    [ $want -eq 1 ] || continue
    i=$((i + 1))
    if [ $(((i + pass) % 2)) -eq 0 ]; then
      run_case "$id" "$args" on "$pass"
      run_case "$id" "$args" off "$pass"
    else
      run_case "$id" "$args" off "$pass"
      run_case "$id" "$args" on "$pass"
    fi
  done <"$WORK/cases"
}

# rows PASS: one line per bench row of the pass: "case id|row|mode|GFLOP/s|choice|status|explain
# arguments" (what `clforge explain` takes for the row's call).
# The benches' JSON lines are flat objects; jget reads one field of one.
rows() {
  for f in "$WORK"/*."$1".json; do
    [ -e "$f" ] || continue
    base=${f##*/}
    id=${base%.*.*.json}
    mode=${base#"$id".}
    mode=${mode%%.*}
    awk -v id="$id" -v mode="$mode" '
      function jget(s, k,   v) {
        if (!match(s, "\"" k "\":(\"[^\"]*\"|[^,}]*)")) return ""
        v = substr(s, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
        gsub(/^"|"$/, "", v)
        return v
      }
      /^\{/ {
        op = jget($0, "op"); st = jget($0, "status"); if (st == "") st = "ok"
        if (op == "conv") {
          row = "conv " jget($0, "layer") " n=" jget($0, "n") " " jget($0, "layout") " " jget($0, "dtype")
          choice = jget($0, "algo_chosen") " (" jget($0, "algo_source") ")"
          ex = "conv --shape n=" jget($0, "n") ",c=" jget($0, "c") ",h=" jget($0, "h") ",w=" jget($0, "w") \
               ",k=" jget($0, "k") ",r=" jget($0, "r") ",s=" jget($0, "s") ",stride=" jget($0, "stride") \
               ",pad=" jget($0, "pad") ",dil=" jget($0, "dilation") ",groups=" jget($0, "groups") \
               " --layout " jget($0, "layout") " --dtype " jget($0, "dtype")
        } else if (op == "gemm") {
          row = "gemm " jget($0, "m") "x" jget($0, "n") "x" jget($0, "k") " " jget($0, "dtype") " " jget($0, "trans")
          choice = jget($0, "provider") " (" jget($0, "params") ")"
          ex = "gemm " jget($0, "m") " " jget($0, "n") " " jget($0, "k") " --dtype " jget($0, "dtype") \
               " --trans " jget($0, "trans") " --batch " jget($0, "batch")
        } else if (op == "attention") {
          if (jget($0, "provider") !~ /^clforge/) next
          row = "attention " jget($0, "kind") " hq=" jget($0, "hq") "/" jget($0, "hkv") " sq=" jget($0, "sq") \
                " sk=" jget($0, "sk") " d=" jget($0, "d") (jget($0, "causal") == "true" ? " causal" : "") \
                " " jget($0, "q_dtype") "/" jget($0, "kv_dtype")
          choice = jget($0, "provider")
          ex = "attention --shape " jget($0, "b") "," jget($0, "hq") "," jget($0, "hkv") "," jget($0, "sq") "," \
               jget($0, "sk") "," jget($0, "d") (jget($0, "causal") == "true" ? ",causal" : "") \
               " --dtype " jget($0, "q_dtype") " --kv-dtype " jget($0, "kv_dtype")
        } else next
        g = jget($0, "gflops"); if (g == "null" || g == "") { g = 0; if (st == "ok") st = "no number" }
        print id "|" row "|" mode "|" g "|" choice "|" st "|" ex
      }' "$f"
  done
}

# pair PASS: "case id|row|off|on|ratio|off choice|on choice|explain arguments"
# per row; a row without its pair or with a failed status is reported and
# counted.
pair() {
  rows "$1" | sort -t'|' -k2,2 -k3,3 | awk -F'|' '
    { key = $2; ids[key] = $1; n[key]++
      ex[key] = $7
      if ($3 == "on") { on[key] = $4; onc[key] = $5; ons[key] = $6 } else { off[key] = $4; offc[key] = $5; offs[key] = $6 } }
    END {
      for (k in n) {
        if (!(k in on) || !(k in off) || ons[k] != "ok" || offs[k] != "ok") {
          print "ERROR|" ids[k] "|" k "|" ((k in off) ? offs[k] : "missing") "|" ((k in on) ? ons[k] : "missing")
          continue
        }
        r = off[k] > 0 ? on[k] / off[k] : 0
        printf "%s|%s|%.1f|%.1f|%.3f|%s|%s|%s\n", ids[k], k, off[k], on[k], r, offc[k], onc[k], ex[k]
      }
    }' | sort -t'|' -k2,2
}

# explain_as MODE ARGS: what `clforge explain ARGS` says with the file (on) or
# without (off), less where the choice comes from: the kernels, their
# parameters and the algorithm remain.
explain_as() {
  tf=$FILE
  [ "$1" = off ] && tf=off
  # shellcheck disable=SC2086 # ARGS is a list of words
  CLFORGE_TUNING_FILE=$tf "$BIN" explain $2 2>&1 | sed -e '/route:/d' -e 's/ *parameters from.*//' \
    -e 's/^\(  algorithm: [a-z0-9_]*\).*/\1/'
}

measure 1 all
pair 1 >"$WORK/pass1"
# Below 0.95x: the same kernels either way (the file cannot have slowed it),
# or a case to measure REPEATS times more: noise or real?
: >"$WORK/same"
: >"$WORK/flagged"
while IFS='|' read -r id key _ _ ratio _ _ ex; do
  [ "$id" = ERROR ] && continue
  awk -v r="$ratio" 'BEGIN { exit !(r < 0.95) }' || continue
  if [ "$(explain_as on "$ex")" = "$(explain_as off "$ex")" ]; then
    echo "$key" >>"$WORK/same"
  else
    echo "$id" >>"$WORK/flagged"
  fi
done <"$WORK/pass1"
flagged=$(sort -u "$WORK/flagged")
: >"$WORK/again"
pass=1
while [ "$pass" -le "$REPEATS" ]; do
  pass=$((pass + 1))
  [ -n "$flagged" ] || break
  # shellcheck disable=SC2086 # one word per case
  measure $pass $flagged
  pair "$pass" >>"$WORK/again"
done

echo
awk -F'|' -v repeats="$REPEATS" -v againf="$WORK/again" -v samef="$WORK/same" -v failf="$WORK/failed_rows" '
  # the median of the n values v[k, 1..n] (sorted in place)
  function median(v, k, n,   i, j, t) {
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j)
      if (v[k, j] < v[k, i]) { t = v[k, i]; v[k, i] = v[k, j]; v[k, j] = t }
    return n % 2 ? v[k, (n + 1) / 2] : (v[k, n / 2] + v[k, n / 2 + 1]) / 2
  }
  # each row of the later passes: the median of its tuned rates over the
  # median of its untuned ones
  BEGIN {
    while ((getline l < samef) > 0) same[l] = 1
    while ((getline l < againf) > 0) {
      split(l, f, "|"); if (f[1] == "ERROR") continue
      ++n[f[2]]; off[f[2], n[f[2]]] = f[3] + 0; on[f[2], n[f[2]]] = f[4] + 0
    }
    for (k in n) {
      moff = median(off, k, n[k])
      second[k] = moff > 0 ? median(on, k, n[k]) / moff : 0
    }
  }
  BEGIN { printf "%-52s %9s %9s %6s %6s  %-8s %s\n", "row (GFLOP/s)", "untuned", "tuned", "ratio", "again", "verdict", "choice: untuned -> tuned" }
  $1 == "ERROR" { printf "%-52s %s (untuned: %s, tuned: %s)\n", $3, "ERROR", $4, $5; errors++; next }
  {
    again = "-"; verdict = "ok"
    if ($5 < 0.95 && ($2 in same)) verdict = "same"
    else if ($5 < 0.95) {
      if ($2 in second) {
        again = sprintf("%.2f", second[$2])
        verdict = second[$2] < 0.9 ? "FAIL" : second[$2] < 0.95 ? "SLOWER" : "noise"
      } else verdict = "SLOWER?"
    }
    rows++; if (verdict == "SLOWER") slower++; if (verdict == "same") alike++; if ($5 < 0.95) flagged++
    if (verdict == "FAIL") { fails++; print $2 " (" again "x)" > failf }
    printf "%-52s %9.1f %9.1f %6.2f %6s  %-8s %s -> %s\n", $2, $3, $4, $5, again, verdict, $6, $7
  }
  END {
    printf "\n%d rows: %d below 0.95x at first (%d running the same kernels either way); over %d more runs " \
           "(median tuned / median untuned) %d below 0.9x (FAIL), %d from 0.9x to 0.95x (SLOWER)%s\n", rows, flagged, alike, repeats, fails + 0,
           slower + 0, errors ? sprintf("; %d rows failed", errors) : ""
    if (errors) exit 1
  }' "$WORK/pass1" || failed=1
if [ -s "$WORK/failed_rows" ]; then
  echo "tune_never_slower: FAILED: tuned below 0.9x of untuned over $REPEATS more runs (median tuned / median untuned):"
  sed 's/^/  /' "$WORK/failed_rows"
  failed=1
fi
echo "tune_never_slower: $(($(date +%s) - start)) s in all; JSON lines in $WORK"
exit $failed
