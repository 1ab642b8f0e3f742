#!/bin/sh
# The native half-arithmetic kernels (HALF 1 and 2 with
# CLFORGE_HALF_NATIVE=1) of the GEMM families and the fused attention
# compile as OpenCL C 1.2 with cl_khr_fp16, and their IR does its
# arithmetic in half. No CI device has f16 arithmetic (PoCL 3.1 and
# Oclgrind 21.10 lack it; test_gemm_compute_type and
# test_attention_compute_type run the emulated form): clang's OpenCL front
# end for SPIR checks the native source instead.
#   half_kernels_compile.sh CL_DIR
cl=$1
clang=$(command -v clang || command -v clang-15 || command -v clang-14)
if [ -z "$clang" ]; then
  echo "skipped: no clang to compile the native half kernels with (Debian package clang)"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clforge-half.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat "$cl/common.cl" "$cl/gemm_base.cl" "$cl/gemm_operands.cl" "$cl/gemm_common.cl" "$cl/gemm_direct.cl" > "$tmp/direct.cl"
cat "$cl/common.cl" "$cl/gemm_base.cl" "$cl/gemm_operands.cl" "$cl/gemm_common.cl" "$cl/gemm.cl" > "$tmp/tiled.cl"
fail=0
# check LABEL SOURCE OPTIONS...: compiles, and its IR has half arithmetic
check() {
  label=$1 src=$2
  shift 2
  if ! "$clang" -x cl -cl-std=CL1.2 -target spir64 -Xclang -finclude-default-header -O1 -emit-llvm -S \
      -o "$tmp/out.ll" "$src" "$@" 2> "$tmp/err"; then
    echo "FAIL $label:"; cat "$tmp/err"; fail=1
  elif ! grep -q "fmul half\|fmul <[0-9]* x half>\|@llvm.fma.v[0-9]*f16\|@llvm.fma.f16\|fma.*half" "$tmp/out.ll"; then
    echo "FAIL $label: no half arithmetic in the IR"; fail=1
  else
    echo "ok $label"
  fi
}
for types in "1 1 1" "2 2 2" "3 2 1"; do
  set -- $types
  prob="-DA_T=$1 -DB_T=$2 -DC_T=$3 -DBIAS=0 -DBIAS_T=1 -DACT=0 -DTA=0 -DTB=0 -DIDX64=0 -DCLFORGE_F32_DENORMS=1 -DCLFORGE_HALF_NATIVE=1"
  for half in 1 2; do
    for vw in 1 4; do
      for k in direct tiled; do
        if [ $k = direct ]; then
          fam="-DMWID=2 -DNWID=2 -DMDIMD=8 -DNDIMD=8 -DKUD=1 -DVW=$vw"
        else
          fam="-DMWG=32 -DNWG=32 -DMWI=4 -DNWI=4 -DKWG=16 -DVW=$vw -DSA=1 -DSB=1 -DKU=2 -DKSYNC=0"
        fi
        # shellcheck disable=SC2086
        check "$k HALF=$half VW=$vw types $types" "$tmp/$k.cl" $prob $fam -DHALF=$half
      done
    done
  done
done
# The fused attention: f16 and q8_0 K/V, staged privately and in local
# memory, D with and without a tail past the f16 flush interval.
cat "$cl/common.cl" "$cl/attention_common.cl" "$cl/attention_fused.cl" > "$tmp/attention.cl"
for kv in "2 72 40" "7 64 32"; do
  set -- $kv
  prob="-DQ_T=2 -DKV_T=$1 -DO_T=1 -DMASK_T=1 -DHEAD_D=$2 -DHEAD_DV=$3 -DHAS_MASK=0 -DSOFTCAP=0 -DCAUSAL=2 -DIDX64=0"
  prob="$prob -DPAGED=0 -DK_UNIT=1 -DV_UNIT=1 -DKV_DIRECT=0 -DHCVT=0 -DCLFORGE_F32_DENORMS=1 -DCLFORGE_HALF_NATIVE=1"
  for half in 1 2; do
    for fam in "-DVW=16 -DQW=2 -DWGQ=1 -DTK=8 -DDCH=4 -DKU=2 -DSTAGE=0" "-DVW=1 -DQW=1 -DWGQ=64 -DTK=16 -DDCH=4 -DKU=4 -DSTAGE=1"; do
      # shellcheck disable=SC2086
      check "attention_fused HALF=$half KV_T=$1 $fam" "$tmp/attention.cl" $prob $fam -DHALF=$half
    done
  done
done
exit $fail
