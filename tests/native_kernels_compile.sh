#!/bin/sh
# The kernels' native forms for extensions no CI device has (PoCL 3.1 and
# Oclgrind 21.10 lack both; the tests run emulated forms): the
# half-arithmetic variants (HALF 1 and 2 with CLFORGE_HALF_NATIVE=1) of the
# GEMM families and the fused attention compile as OpenCL C 1.2 with
# cl_khr_fp16 and their IR computes in half; the int8 GEMM's DOT=1 with
# CLFORGE_INT_DOT_NATIVE=1 compiles with cl_khr_integer_dot_product's packed
# builtins and its IR calls them. clang's OpenCL front end for SPIR checks
# the native source.
#   native_kernels_compile.sh CL_DIR
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
half_ir="fmul half\|fmul <[0-9]* x half>\|@llvm.fma.v[0-9]*f16\|@llvm.fma.f16\|fma.*half"
# check LABEL PATTERN SOURCE OPTIONS...: compiles, and its IR matches PATTERN
check() {
  label=$1 pattern=$2 src=$3
  shift 3
  if ! "$clang" -x cl -target spir64 -Xclang -finclude-default-header -O1 -emit-llvm -S \
      -o "$tmp/out.ll" "$src" "$@" 2> "$tmp/err"; then
    echo "FAIL $label:"; cat "$tmp/err"; fail=1
  elif ! grep -q "$pattern" "$tmp/out.ll"; then
    echo "FAIL $label: no native arithmetic in the IR ($pattern)"; fail=1
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
        check "$k HALF=$half VW=$vw types $types" "$half_ir" "$tmp/$k.cl" -cl-std=CL1.2 $prob $fam -DHALF=$half
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
      check "attention_fused HALF=$half KV_T=$1 $fam" "$half_ir" "$tmp/attention.cl" -cl-std=CL1.2 $prob $fam \
        -DHALF=$half
    done
  done
done
# The int8 GEMM's packed dot products: each signedness pair, packed loads
# and byte gathers (the builtins are declared for OpenCL C 2.0+ devices
# with the feature; 1.2 drivers with the extension define the same macro).
cat "$cl/common.cl" "$cl/gemm_base.cl" "$cl/gemm_operands.cl" "$cl/int8_epilogue.cl" "$cl/gemm_int8.cl" > "$tmp/int8.cl"
for types in "4 4 0 1" "5 4 0 1" "4 5 1 0" "5 5 0 0"; do
  set -- $types
  prob="-DA_T=$1 -DB_T=$2 -DC_T=6 -DTA=$3 -DTB=$4 -DBIAS=0 -DBIAS_T=1 -DACT=0 -DIDX64=0 -DCLFORGE_F32_DENORMS=1"
  prob="$prob -DCLFORGE_HALF_NATIVE=0 -DCLFORGE_INT_DOT_NATIVE=1"
  # shellcheck disable=SC2086
  check "gemm_int8 DOT=1 types $types" "dot_4x8packed" "$tmp/int8.cl" -cl-std=CL2.0 \
    -Xclang -cl-ext=+__opencl_c_integer_dot_product_input_4x8bit_packed $prob \
    -DMWI=2 -DNWI=2 -DVW=4 -DMDIM=4 -DNDIM=4 -DKSYNC=0 -DSTAGE=0 -DDOT=1
done
exit $fail
