// GEMM, packed (BLIS-style): two pack kernels copy op(A) and op(B) once
// into contiguous f32 panels, and a register-blocked micro-kernel multiplies
// the panels. Transposes, leading dimensions, offsets, batch strides and the
// widening of f16/bf16 are all done in the pack, O((m+n)k) work against the
// micro-kernel's O(mnk); the micro-kernel only ever reads contiguous f32.
//
// Packed layout (src/ops/gemm_packed.c allocates it in the context's
// workspace), per batch item:
//   A: panels of MR rows of op(A): element (r, p) of panel i at i*MR*k + p*MR + r
//   B: panels of NR columns of op(B): element (p, c) of panel j at j*NR*k + p*NR + c
// Rows (columns) are zero-padded to a multiple of MC (NC), so every
// work-item of every work-group reads valid panels and the inner loop has
// no bounds checks; only stores are guarded, and only in edge tiles.
//
// Tuned parameters (-D), declared in src/kernels/gemm_packed.c:
//   MR, NR     work-item register block (NR = NR/VW vectors of VW columns)
//   VW         vector width along n
//   MC, NC     work-group block of C (MC/MR x NC/NR work-items)
//   KC         k-block: a barrier after each, so that on CPUs (PoCL runs a
//              work-group as a loop over its work-items, split at barriers)
//              the work-group's MC x KC block of A and KC x NC block of B
//              are used by all its work-items while they are in cache
//   KU         unroll of the k loop
//   ORD        order of a work-group's work-items (dimension 0 runs fastest
//              on PoCL): 0 column panels fastest, so consecutive work-items
//              share A's MR x KC micro-panel; 1 row panels fastest, so they
//              share B's KC x NR micro-panel (BLIS's order)

#define NV (NR / VW)
#define MDIMP (MC / MR)
#define NDIMP (NC / NR)
#define PK 16 // k values per work-item of a pack kernel

// Widening vector loads of n consecutive elements (n a literal 2..16).
#define WLOAD_1(n, p) CLFORGE_CAT(vload, n)(0, p)
#define WLOAD_2(n, p) CLFORGE_CAT(clforge_f32_from_f16_bits_uint, n)(CLFORGE_CAT(convert_uint, n)(CLFORGE_CAT(vload, n)(0, p)))
#define WLOAD_3(n, p) CLFORGE_CAT(as_float, n)(CLFORGE_CAT(convert_uint, n)(CLFORGE_CAT(vload, n)(0, p)) << 16)
#define WLOAD(T, n, p) CLFORGE_CAT(WLOAD_, T)(n, p)

// The widest vector (as a literal) that divides a panel width.
#if MR % 16 == 0
#define MR_CH 16
#elif MR % 8 == 0
#define MR_CH 8
#elif MR % 4 == 0
#define MR_CH 4
#else
#define MR_CH 2 // MR is even (src/kernels/gemm_packed.c)
#endif
#if NR % 16 == 0
#define NR_CH 16
#elif NR % 8 == 0
#define NR_CH 8
#else
#define NR_CH 4
#endif

// Pack PK values of k (from p0) of one panel of W rows of a matrix X whose
// element (i, p) is X[i * SI + p * SP], rows from `first`, `rows` of them
// valid (the rest are zeros). ALONG_P: X is contiguous along p (SP = 1),
// else along i (SI = 1). T is X's storage code, CH the vector width (2..16)
// that divides W. Writes P[(p0 + q) * W + r], a contiguous run of PK * W floats.
#define PACK_PANEL(T, W, CH, ALONG_P, X, SI, SP, first, rows, k, p0, P)                                    \
  do {                                                                                                     \
    const uint nq = min((uint)PK, (k) - (p0));                                                             \
    if (ALONG_P && nq == PK) {                                                                             \
      for (uint r = 0; r < W; ++r) {                                                                       \
        float t[PK];                                                                                       \
        if ((first) + r < (rows)) {                                                                        \
          vstore16(WLOAD(T, 16, X + ((idx_t)((first) + r) * (SI) + (p0))), 0, t);                         \
        } else {                                                                                           \
          UNROLL(PK)                                                                                       \
          for (int q = 0; q < PK; ++q) t[q] = 0.0f;                                                        \
        }                                                                                                  \
        UNROLL(PK)                                                                                         \
        for (int q = 0; q < PK; ++q) P[(q)*W + r] = t[q];                                                  \
      }                                                                                                    \
    } else if (!ALONG_P && (first) + W <= (rows)) {                                              \
      for (uint q = 0; q < nq; ++q) {                                                                      \
        UNROLL(W / CH)                                                                                     \
        for (uint c = 0; c < W / CH; ++c)                                                                  \
          CLFORGE_CAT(vstore, CH)(WLOAD(T, CH, X + ((idx_t)((p0) + q) * (SP) + (first) + c * CH)), 0,       \
                                  P + q * W + c * CH);                                                     \
      }                                                                                                    \
    } else {                                                                                               \
      for (uint q = 0; q < nq; ++q)                                                                        \
        for (uint r = 0; r < W; ++r)                                                                       \
          P[q * W + r] = (first) + r < (rows)                                                              \
                             ? LOAD1(T, X, (idx_t)((first) + r) * (SI) + (idx_t)((p0) + q) * (SP))        \
                             : 0.0f;                                                                       \
    }                                                                                                      \
  } while (0)

// op(A) rows [row0, row0 + rows) into panels of MR rows; global size
// (ceil(k / PK), padded rows / MR, batch). Packed batch items are p_stride
// floats apart.
kernel void clforge_gemm_pack_a(const uint row0, const uint rows, const uint k, const global a_t *restrict A,
                                const ulong a_off, const uint lda, const ulong stride_a, global float *restrict P,
                                const ulong p_off, const ulong p_stride) {
  const uint p0 = get_global_id(0) * PK, panel = get_global_id(1);
  const ulong batch = get_global_id(2);
  if (p0 >= k) return;
  const global a_t *X = A + a_off + batch * stride_a + (TA ? (idx_t)row0 : (idx_t)row0 * lda);
  global float *out = P + p_off + batch * p_stride + (ulong)panel * MR * k + (ulong)p0 * MR;
#if TA
  PACK_PANEL(A_T, MR, MR_CH, 0, X, 1, lda, panel * MR, rows, k, p0, out);
#else
  PACK_PANEL(A_T, MR, MR_CH, 1, X, lda, 1, panel * MR, rows, k, p0, out);
#endif
}

// op(B) columns [col0, col0 + cols) into panels of NR columns (op(B)^T's
// rows); global size (ceil(k / PK), padded columns / NR, batch).
kernel void clforge_gemm_pack_b(const uint col0, const uint cols, const uint k, const global b_t *restrict B,
                                const ulong b_off, const uint ldb, const ulong stride_b, global float *restrict P,
                                const ulong p_off, const ulong p_stride) {
  const uint p0 = get_global_id(0) * PK, panel = get_global_id(1);
  const ulong batch = get_global_id(2);
  if (p0 >= k) return;
  const global b_t *X = B + b_off + batch * stride_b + (TB ? (idx_t)col0 * ldb : (idx_t)col0);
  global float *out = P + p_off + batch * p_stride + (ulong)panel * NR * k + (ulong)p0 * NR;
#if TB
  PACK_PANEL(B_T, NR, NR_CH, 1, X, ldb, 1, panel * NR, cols, k, p0, out);
#else
  PACK_PANEL(B_T, NR, NR_CH, 0, X, 1, ldb, panel * NR, cols, k, p0, out);
#endif
}

// C[row0.., col0..] (a rows x cols region) from packed A (panel 0 = row0)
// and packed B (panel 0 = col0), one work-group per MC x NC block, in
// bands (below); global size (blocks * local size 0, local size 1, batch). The arguments after the region are laid
// out as the other GEMM kernels' (GEMM_OPERAND_ARGS), with A and B the
// packed panels (lda, ldb unused; the strides step from one batch item's
// panels to the next).
#if ORD
#define WG_SHAPE MDIMP, NDIMP
#else
#define WG_SHAPE NDIMP, MDIMP
#endif
kernel __attribute__((reqd_work_group_size(WG_SHAPE, 1)))
void clforge_gemm_packed(const uint row0, const uint col0, const uint rows, const uint cols, const uint band, const uint k,
                         const float alpha, const float beta, const global float *restrict A, const ulong a_off,
                         const uint lda, const ulong stride_a, const global float *restrict B, const ulong b_off,
                         const uint ldb, const ulong stride_b, global c_t *restrict C, const ulong c_off,
                         const uint ldc, const ulong stride_c, const global bias_t *restrict bias,
                         const ulong bias_off) {
  (void)lda, (void)ldb;
  const ulong batch = get_global_id(2);
  // Work-groups in bands of `band` row blocks: the blocks of one band are
  // visited column block by column block, row block fastest, so B's panels
  // of one column block are reused from cache across the band, and the
  // band's panels of A (sized by the host to stay in the last-level cache)
  // across all column blocks; without bands, a large problem streams one
  // operand from memory once per block of the other.
  // (Remainders as x - q * y: the compiler's div/rem pairing would emit an
  // LLVM `freeze`, which Oclgrind cannot run.)
  const uint nrb = (rows + MC - 1) / MC, ncb = (cols + NC - 1) / NC, wg = get_group_id(0);
  const uint per_band = band * ncb, q = wg / per_band, w = wg - q * per_band;
  const uint first = q * band, in_band = min(band, nrb - first), cb = w / in_band;
  const uint rb = first + (w - cb * in_band);
  const uint ip = rb * MDIMP + get_local_id(ORD ? 0 : 1), jp = cb * NDIMP + get_local_id(ORD ? 1 : 0);
  const global float *ap = A + a_off + batch * stride_a + (ulong)ip * MR * k;
  const global float *bp = B + b_off + batch * stride_b + (ulong)jp * NR * k;
  C += c_off + batch * stride_c;

  floatv acc[MR][NV];
  UNROLL(MR)
  for (int r = 0; r < MR; ++r) {
    UNROLL(NV)
    for (int t = 0; t < NV; ++t) acc[r][t] = (floatv)0.0f;
  }
  for (uint kb = 0; kb < k; kb += KC) {
    const uint ke = min(kb + (uint)KC, k);
    uint p = kb;
    for (; p + KU <= ke; p += KU) {
      UNROLL(KU)
      for (int q = 0; q < KU; ++q) {
        floatv b[NV];
        UNROLL(NV)
        for (int t = 0; t < NV; ++t) b[t] = VLOADF(bp + (p + q) * NR + t * VW);
        UNROLL(MR)
        for (int r = 0; r < MR; ++r) {
          const floatv a = (floatv)ap[(p + q) * MR + r];
          UNROLL(NV)
          for (int t = 0; t < NV; ++t) acc[r][t] = fma(a, b[t], acc[r][t]);
        }
      }
    }
    for (; p < ke; ++p) {
      floatv b[NV];
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) b[t] = VLOADF(bp + p * NR + t * VW);
      UNROLL(MR)
      for (int r = 0; r < MR; ++r) {
        const floatv a = (floatv)ap[p * MR + r];
        UNROLL(NV)
        for (int t = 0; t < NV; ++t) acc[r][t] = fma(a, b[t], acc[r][t]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE); // cache blocking: the work-group finishes this k-block together
  }

  const uint r0 = ip * MR, c0 = jp * NR;
  if (r0 >= rows || c0 >= cols) return; // padding only
  if (r0 + MR <= rows && c0 + NR <= cols) {
    UNROLL(MR)
    for (int r = 0; r < MR; ++r) {
      const idx_t row = row0 + r0 + r;
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) {
        const idx_t col = col0 + c0 + t * VW;
        store_c_vec(epilogue_vec(acc[r][t], alpha, beta, C, ldc, row, col, bias, bias_off), C, ldc, row, col);
      }
    }
  } else { // an edge tile: element by element, in range only
    for (int r = 0; r < MR; ++r) {
      if (r0 + r >= rows) break;
      const idx_t row = row0 + r0 + r;
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) {
        float e[VW];
        VSTOREF(acc[r][t], e);
        for (int v = 0; v < VW; ++v) {
          if (c0 + t * VW + v >= cols) break;
          const idx_t col = col0 + c0 + t * VW + v;
          STORE1(C_T, epilogue1(e[v], alpha, beta, C, ldc, row, col, bias, bias_off), C, row * ldc + col);
        }
      }
    }
  }
}
