// The int8 GEMM (clforge_gemm_quantized, src/ops/gemm_quantized.c): s8/u8 A
// and B, exact integer accumulation, then the quantization epilogue. Any
// region, bounds in the kernel (clamped loads, guarded stores), as
// gemm_direct.cl: each work-item computes MWI rows x NWI vectors of VW
// columns, rows and vectors interleaved across the MDIM x NDIM work-group.
//
// Exact and portable: (a - zpa) * (b - zpb) is an integer of at most 2^16
// in magnitude, so f32 multiply-adds of a k-block of 256 stay exact (below
// 2^24) and run at the device's f32 rate wherever it has no integer dot
// product (PoCL cannot emit VNNI: docs/inference-precision.md); each
// block's sum is then added into an s32 accumulator.
//
// DOT 1 (devices with cl_khr_integer_dot_product) takes the raw bytes
// instead: four k of a row of A and of a column of B packed in a uint, one
// packed dot product for four multiply-adds, summed in uint (mod 2^32), and
// the zero points applied at the end from the rows' and columns' sums:
// sum (a - za)(b - zb) = sum ab - zb sum a - za sum b + k za zb, exact mod
// 2^32 and so exact (the op refuses a k whose true sum could pass s32).
//
// Parameters (src/families/gemm_int8.c): MWI, NWI, VW, MDIM, NDIM, KSYNC,
// STAGE (A and B widened once per work-group into local memory), DOT.
// Problem options: A_T, B_T (4 s8, 5 u8), C_T (1-3 float, 4/5 s8/u8
// requantized, 6 s32), TA, TB, BIAS, BIAS_T, ACT, IDX64.
// (gemm_base.cl and gemm_operands.cl ahead: idx_t, UNROLL, the operand
// types, A_AT, B_AT.)

#define KBLOCK 256 // 256 * 255 * 255 < 2^24
#define KS 32       // k per staged chunk (STAGE), a divisor of KBLOCK
#define WGR (MDIM * MWI)      // the group's rows
#define WGC (NDIM * NWI * VW) // the group's columns


// (VSUF, floatv, intv, uintv, VLOADF, VSTOREF: cl/common.cl.)
#define CONVERT_INTV(x) CLFORGE_CAT(convert_int, VSUF)(x)


// VW values of op(B) in row p from column col, minus zpb, as f32; columns
// past the last read the last one (their results are not stored).
static inline floatv load_b_int8(const global b_t *B, uint ldb, uint p, uint col, uint cols, int zpb) {
#if TB == 0 && VW > 1
  if (col + VW <= cols)
    return CLFORGE_CAT(convert_float, VW)(CLFORGE_CAT(convert_int, VW)(CLFORGE_CAT(vload, VW)(0, B + B_AT(p, col))) - zpb);
#endif
  float t[VW];
  UNROLL(VW)
  for (int v = 0; v < VW; ++v) t[v] = (float)((int)B[B_AT(p, min(col + v, cols - 1))] - zpb);
  return VLOADF(t);
}

#ifndef DOT
#define DOT 0
#endif
#if DOT
#if STAGE
#error "DOT reads A and B packed from global memory (STAGE 0)"
#endif
#if DOT == 2 && VW != 1
#error "DOT 2 keeps one column a work-item (VW 1)"
#endif
// Byte i of a packed uint as a value of operand type T (4 s8, 5 u8);
// shifts, not vector casts (Oclgrind's uninitialized-value checker stops
// on the casts).
#define BYTE_4(x, i) ((int)(char)((x) >> (8 * (i))))
#define BYTE_5(x, i) ((int)(((x) >> (8 * (i))) & 0xFFu))
#define BYTE(T, x, i) CLFORGE_CAT(BYTE_, T)(x, i)
#define SUM4(T, x) ((uint)(BYTE(T, x, 0) + BYTE(T, x, 1) + BYTE(T, x, 2) + BYTE(T, x, 3)))
#if CLFORGE_INT_DOT_NATIVE && defined(__opencl_c_integer_dot_product_input_4x8bit_packed)
#pragma OPENCL EXTENSION cl_khr_integer_dot_product : enable
// the packed builtins: u/s per operand
#define DOT4_4_4(a, b) ((uint)dot_4x8packed_ss_int(a, b))
#define DOT4_4_5(a, b) ((uint)dot_4x8packed_su_int(a, b))
#define DOT4_5_4(a, b) ((uint)dot_4x8packed_us_int(a, b))
#define DOT4_5_5(a, b) dot_4x8packed_uu_uint(a, b)
#define DOT4_(ta, tb) DOT4_##ta##_##tb
#define DOT4_X(ta, tb) DOT4_(ta, tb)
#define DOT4(a, b) DOT4_X(A_T, B_T)(a, b)
#else
// emulated (tests only: the op needs the extension for DOT 1)
#define DOT4(a, b)                                                                                  \
  ((uint)(BYTE(A_T, a, 0) * BYTE(B_T, b, 0) + BYTE(A_T, a, 1) * BYTE(B_T, b, 1) + BYTE(A_T, a, 2) * BYTE(B_T, b, 2) + \
          BYTE(A_T, a, 3) * BYTE(B_T, b, 3)))
#endif

// Four bytes of A's row r from k = p (past kend: zeros, which add nothing),
// packed in memory order either way (a vector load, or four bytes put in a
// vector), so that A's and B's lanes pair up on any byte order.
#define PACK4(X, AT, i0)                                                                               \
  as_uint((uchar4)(p < kend ? (uchar)X[AT(i0, p)] : (uchar)0, p + 1 < kend ? (uchar)X[AT(i0, p + 1)] : (uchar)0, \
                   p + 2 < kend ? (uchar)X[AT(i0, p + 2)] : (uchar)0, p + 3 < kend ? (uchar)X[AT(i0, p + 3)] : (uchar)0))
static inline uint pack_a(const global a_t *A, uint lda, uint r, uint p, uint kend) {
#if TA == 0
  if (p + 4 <= kend) return as_uint(vload4(0, A + A_AT(r, p)));
#endif
#define A_AT_RK(row, kk) A_AT(row, kk)
  return PACK4(A, A_AT_RK, r);
}

// Four bytes of op(B)'s column c from k = p.
static inline uint pack_b(const global b_t *B, uint ldb, uint c, uint p, uint kend) {
#if TB == 1
  if (p + 4 <= kend) return as_uint(vload4(0, B + B_AT(p, c)));
#endif
#define B_AT_CK(col, kk) B_AT(kk, col)
  return PACK4(B, B_AT_CK, c);
}
#endif

// DOT 2: each work-item's MWI x NWI sums run along k in plain byte
// products, k innermost, one work-item at a time: Intel's CPU compiler then
// vectorizes the k loop (a partial reduction of u8 x s8 products: vpdpbusd
// on VNNI CPUs), whereas across work-items it widens every byte to 32 bits
// (vpdpwssd at best; its dot_4x8packed builtins are vpmaddwd + vphaddd:
// docs/inference-precision.md). The hint keeps its work-item vectorizer off.
#if DOT == 2 && defined(cl_intel_vec_len_hint)
#define DOT_HINT __attribute__((intel_vec_len_hint(1)))
#else
#define DOT_HINT
#endif

kernel __attribute__((reqd_work_group_size(NDIM, MDIM, 1))) DOT_HINT
void clforge_gemm_int8(const uint rows, const uint cols, const uint k, const float alpha, const float beta,
                       // (from k on, the arguments src/ops/gemm.c sets for every GEMM kernel)
                       const global a_t *restrict A, const ulong a_off, const uint lda, const ulong stride_a,
                       const global b_t *restrict B, const ulong b_off, const uint ldb, const ulong stride_b,
                       global c_t *restrict C, const ulong c_off, const uint ldc, const ulong stride_c,
                       const global bias_t *restrict bias, const ulong bias_off,
                       const global float *aux_unused, const ulong aux_off_unused, // the GEMM kernels' shared arguments
                       const global float *restrict rscale, const ulong rs_off, const int row_per,
                       const global float *restrict cscale, const ulong cs_off, const int col_per,
                       const int zpa, const int zpb, const float inv_c, const int zpc) {
  const ulong batch = get_global_id(2);
  A += a_off + batch * stride_a;
  B += b_off + batch * stride_b;
  C += c_off + batch * stride_c;
  const uint lx = get_local_id(0), ly = get_local_id(1);
  const uint rbase = get_group_id(1) * (MDIM * MWI) + ly, vbase = get_group_id(0) * (NDIM * NWI) + lx;
  uint ra[MWI], cv[NWI];
  UNROLL(MWI)
  for (int s = 0; s < MWI; ++s) ra[s] = min(rbase + s * MDIM, rows - 1);
  UNROLL(NWI)
  for (int t = 0; t < NWI; ++t) cv[t] = (vbase + t * NDIM) * VW;

  intv iacc[MWI][NWI];
  UNROLL(MWI)
  for (int s = 0; s < MWI; ++s) {
    UNROLL(NWI)
    for (int t = 0; t < NWI; ++t) iacc[s][t] = (intv)0;
  }
#if STAGE
  // A's and B's values for the group's rows and columns, KS k at a time,
  // widened and zero-point-corrected once per group (not once per
  // work-item): the conversions were most of the loop's instructions.
  local float As[KS * WGR], Bs[KS * WGC];
  const uint lid = ly * NDIM + lx;
  const uint row0 = get_group_id(1) * WGR, col0 = get_group_id(0) * WGC;
#endif
#if DOT
  uintv raw[MWI][NWI], csum[NWI]; // sum ab, and sum b per column
  uint rsum[MWI];                 // sum a per row
  UNROLL(MWI)
  for (int s = 0; s < MWI; ++s) {
    rsum[s] = 0;
    UNROLL(NWI)
    for (int t = 0; t < NWI; ++t) raw[s][t] = (uintv)0;
  }
  UNROLL(NWI)
  for (int t = 0; t < NWI; ++t) csum[t] = (uintv)0;
#endif
#if DOT == 2
  {
    // k-contiguous operands (A not transposed, op(B) transposed: the op packs
    // B so) make unit-stride loads along k; sums mod 2^32 as DOT 1's
    const global a_t *ap[MWI];
    const global b_t *bq[NWI];
    UNROLL(MWI)
    for (int s = 0; s < MWI; ++s) ap[s] = A + A_AT(ra[s], 0);
    UNROLL(NWI)
    for (int t = 0; t < NWI; ++t) bq[t] = B + B_AT(0, min(cv[t], cols - 1));
#if TA
#define A_KS lda
#else
#define A_KS 1
#endif
#if TB
#define B_KS 1
#else
#define B_KS ldb
#endif
    // the rows' and columns' byte sums only where a zero point multiplies
    // them: each is a widening add per 16 k beside the MWI x NWI products
    // (the loop is one of four copies, chosen once)
#define DOT2_LOOP(RS, CS)                                               \
  for (uint p = 0; p < k; ++p) {                                        \
    uint x[MWI], y[NWI];                                                \
    UNROLL(MWI)                                                         \
    for (int s = 0; s < MWI; ++s) {                                     \
      x[s] = (uint)(int)ap[s][(idx_t)p * A_KS];                         \
      if (RS) rsum[s] += x[s];                                          \
    }                                                                   \
    UNROLL(NWI)                                                         \
    for (int t = 0; t < NWI; ++t) {                                     \
      y[t] = (uint)(int)bq[t][(idx_t)p * B_KS];                         \
      if (CS) csum[t] += y[t];                                          \
    }                                                                   \
    UNROLL(MWI)                                                         \
    for (int s = 0; s < MWI; ++s) {                                     \
      UNROLL(NWI)                                                       \
      for (int t = 0; t < NWI; ++t) raw[s][t] += x[s] * y[t];           \
    }                                                                   \
  }
    if (zpb != 0 && zpa != 0) DOT2_LOOP(1, 1)
    else if (zpb != 0) DOT2_LOOP(1, 0)
    else if (zpa != 0) DOT2_LOOP(0, 1)
    else DOT2_LOOP(0, 0)
  }
#else
  for (uint k0 = 0; k0 < k; k0 += KBLOCK) {
    const uint kend = min(k, k0 + KBLOCK);
#if DOT
    for (uint p = k0; p < kend; p += 4) {
      uint bp[NWI][VW];
      UNROLL(NWI)
      for (int t = 0; t < NWI; ++t) {
        uint cs[VW];
        UNROLL(VW)
        for (int v = 0; v < VW; ++v) {
          bp[t][v] = pack_b(B, ldb, min(cv[t] + v, cols - 1), p, kend);
          cs[v] = SUM4(B_T, bp[t][v]);
        }
        csum[t] += VLOADF(cs);
      }
      UNROLL(MWI)
      for (int s = 0; s < MWI; ++s) {
        const uint ap = pack_a(A, lda, ra[s], p, kend);
        rsum[s] += SUM4(A_T, ap);
        UNROLL(NWI)
        for (int t = 0; t < NWI; ++t) {
          uint d[VW];
          UNROLL(VW)
          for (int v = 0; v < VW; ++v) d[v] = DOT4(ap, bp[t][v]);
          raw[s][t] += VLOADF(d);
        }
      }
    }
#else
    floatv facc[MWI][NWI];
    UNROLL(MWI)
    for (int s = 0; s < MWI; ++s) {
      UNROLL(NWI)
      for (int t = 0; t < NWI; ++t) facc[s][t] = (floatv)0.0f;
    }
#if STAGE
    for (uint ks0 = k0; ks0 < kend; ks0 += KS) {
      const uint kn = min((uint)KS, kend - ks0);
      barrier(CLK_LOCAL_MEM_FENCE); // the previous chunk is consumed
      for (uint i = lid; i < KS * WGC; i += MDIM * NDIM) {
        const uint kk = i / WGC, cc = i - kk * WGC;
        Bs[i] = kk < kn ? (float)((int)B[B_AT(ks0 + kk, min(col0 + cc, cols - 1))] - zpb) : 0.0f;
      }
      for (uint i = lid; i < KS * WGR; i += MDIM * NDIM) {
        const uint rr = i / KS, kk = i - rr * KS; // k fastest: contiguous in a row of A
        As[kk * WGR + rr] = kk < kn ? (float)((int)A[A_AT(min(row0 + rr, rows - 1), ks0 + kk)] - zpa) : 0.0f;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint p = 0; p < kn; ++p) {
        floatv bv[NWI];
        UNROLL(NWI)
        for (int t = 0; t < NWI; ++t) bv[t] = VLOADF(Bs + p * WGC + (lx + t * NDIM) * VW);
        UNROLL(MWI)
        for (int s = 0; s < MWI; ++s) {
          const float av = As[p * WGR + ly + s * MDIM];
          UNROLL(NWI)
          for (int t = 0; t < NWI; ++t) facc[s][t] = fma((floatv)av, bv[t], facc[s][t]);
        }
      }
    }
#else
    for (uint p = k0; p < kend; ++p) {
      floatv bv[NWI];
      UNROLL(NWI)
      for (int t = 0; t < NWI; ++t) bv[t] = load_b_int8(B, ldb, p, min(cv[t], cols - 1), cols, zpb);
      UNROLL(MWI)
      for (int s = 0; s < MWI; ++s) {
        const float av = (float)((int)A[A_AT(ra[s], p)] - zpa);
        UNROLL(NWI)
        for (int t = 0; t < NWI; ++t) facc[s][t] = fma((floatv)av, bv[t], facc[s][t]);
      }
    }
#endif
    UNROLL(MWI)
    for (int s = 0; s < MWI; ++s) {
      UNROLL(NWI)
      for (int t = 0; t < NWI; ++t) iacc[s][t] += CONVERT_INTV(facc[s][t]);
    }
#endif
#if KSYNC
    // the whole work-group finishes this k-block before the next: on CPUs
    // (PoCL) the block's rows of A and B stay in cache (cl/gemm.cl's KSYNC)
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
#endif

#if DOT
  // the zero points, in uint (mod 2^32): exact where the true sum fits s32
  UNROLL(MWI)
  for (int s = 0; s < MWI; ++s) {
    UNROLL(NWI)
    for (int t = 0; t < NWI; ++t)
      iacc[s][t] = CLFORGE_CAT(as_int, VSUF)(raw[s][t] - (uint)zpb * rsum[s] - (uint)zpa * csum[t] +
                                             (uintv)(k * (uint)zpa * (uint)zpb));
  }
#endif
  // The epilogue is not unrolled: MWI * NWI * VW copies of it (256 with the
  // CPU's defaults) made each build take 15 s on PoCL, for O(m n) work.
  for (int s = 0; s < MWI; ++s) {
    const uint row = rbase + s * MDIM;
    if (row >= rows) continue;
    for (int t = 0; t < NWI; ++t) {
      int e[VW];
      VSTOREF(iacc[s][t], e);
      for (int v = 0; v < VW; ++v) {
        const uint col = cv[t] + v;
        if (col >= cols) continue;
        const idx_t ci = (idx_t)row * ldc + col;
#if C_T == 6
        int8_store(C, ci, e[v], 0.0f, 1, alpha, beta, 0.0f, inv_c, zpc);
#else
        const float sc = rscale[rs_off + (row_per ? row : 0)] * cscale[cs_off + (col_per ? col : 0)];
#if BIAS == 1
        const float bv = LOAD1(BIAS_T, bias, bias_off + row);
#elif BIAS == 2
        const float bv = LOAD1(BIAS_T, bias, bias_off + col);
#else
        const float bv = 0.0f;
#endif
        int8_store(C, ci, e[v], sc, k != 0, alpha, beta, bv, inv_c, zpc);
#endif
      }
    }
  }
}
