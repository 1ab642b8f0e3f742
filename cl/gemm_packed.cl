// GEMM, packed (BLIS-style): the pack kernel (gemm_pack.cl, a program of
// its own) copies op(A) and op(B) once into contiguous f32 panels, and the
// register-blocked micro-kernel here multiplies the panels. Transposes,
// leading dimensions, offsets, batch strides and the widening of f16/bf16
// are all done in the pack, O((m+n)k) work against the micro-kernel's
// O(mnk); the micro-kernel only ever reads contiguous f32. One exception,
// A_DIRECT: where A's panels would be used once (one column block, n <= NC)
// and A is already f32 with rows along k, the micro-kernel reads A in place
// (MR row pointers, lda apart) and A is not packed.
//
// Packed layout (src/ops/gemm_packed.c allocates it in the context's
// workspace), per batch item:
//   A: panels of MR rows of op(A): element (r, p) of panel i at i*MR*k + p*MR + r
//   B: panels of NR columns of op(B): element (p, c) of panel j at j*NR*k + p*NR + c
// Rows (columns) are zero-padded to a multiple of MC (NC), so every
// work-item of every work-group reads valid panels and the inner loop has
// no bounds checks; only stores are guarded, and only in edge tiles.
//
// The micro-kernel's program is built with A and B described as what it
// reads, f32 panels (A_T = B_T = f32, TA = TB = 0), so that one build serves
// every storage type and transpose of the caller's A and B.
// Tuned parameters (-D), declared in src/families/gemm_packed.c:
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
#if GATE && VW % 2 // a gated pair's two columns must share a vector (src/ops/gemm.c, gate_vectors)
#error "clforge: a gated GEMM needs an even VW"
#endif

kernel __attribute__((reqd_work_group_size(WG_SHAPE, 1)))
void clforge_gemm_packed(const uint row0, const uint col0, const uint rows, const uint cols, const uint band, const uint k,
                         const float alpha, const float beta, const global float *restrict A, const ulong a_off,
                         const uint lda, const ulong stride_a, const global float *restrict B, const ulong b_off,
                         const uint ldb, const ulong stride_b, global c_t *restrict C, const ulong c_off,
                         const uint ldc, const ulong stride_c, const global bias_t *restrict bias,
                         const ulong bias_off, global aux_t *AUXP, const ulong aux_off) {
  (void)lda, (void)ldb;
#ifndef A_DIRECT
#define A_DIRECT 0
#endif
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
#if A_DIRECT
  // A read in place (f32, rows along k, lda apart): row r of the tile from
  // its own pointer; rows past the region (padding) read the last row.
  const global float *arow[MR];
  UNROLL(MR)
  for (int r = 0; r < MR; ++r) arow[r] = A + a_off + batch * stride_a + (idx_t)(row0 + min(ip * MR + r, rows - 1)) * lda;
#define A_AT(p, r) arow[r][p]
#else
  const global float *ap = A + a_off + batch * stride_a + (ulong)ip * MR * k;
#define A_AT(p, r) ap[(p) * MR + (r)]
#endif
  const global float *bp = B + b_off + batch * stride_b + (ulong)jp * NR * k;
  C += c_off + batch * stride_c;
  AUXP += aux_off + batch * stride_c;

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
          const floatv a = (floatv)A_AT(p + q, r);
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
        const floatv a = (floatv)A_AT(p, r);
        UNROLL(NV)
        for (int t = 0; t < NV; ++t) acc[r][t] = fma(a, b[t], acc[r][t]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE); // cache blocking: the work-group finishes this k-block together
  }

  const uint r0 = ip * MR, c0 = jp * NR;
  if (r0 >= rows || c0 >= cols) return; // padding only
  if (r0 + MR <= rows && c0 + NR <= cols) {
    // The epilogue as a loop, not unrolled: one copy of its code instead of
    // MR x NV (bias, activation, aux, beta, conversions), which cut PoCL's
    // compile of a 12 x 32 block with an epilogue from 9.4 s to 1.1 s. The
    // accumulators go through an array of their own so that the k loop's
    // stay in registers (a loop-indexed acc would put them in memory).
    floatv res[MR][NV];
    UNROLL(MR)
    for (int r = 0; r < MR; ++r) {
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) res[r][t] = acc[r][t];
    }
#pragma nounroll
    for (int r = 0; r < MR; ++r) {
      const idx_t row = row0 + r0 + r;
#pragma nounroll
      for (int t = 0; t < NV; ++t) {
        const idx_t col = col0 + c0 + t * VW;
        store_c_vec(epilogue_vec(res[r][t], alpha, beta, C, ldc, row, col, bias, bias_off, AUXP), C, ldc, row, col);
      }
    }
  } else { // an edge tile: element by element, in range only
    for (int r = 0; r < MR; ++r) {
      if (r0 + r >= rows) break;
      const idx_t row = row0 + r0 + r;
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) {
        float e[VW], gate = 0.0f;
        VSTOREF(acc[r][t], e);
        for (int v = 0; v < VW; ++v) {
          if (c0 + t * VW + v >= cols) break;
          const idx_t col = col0 + c0 + t * VW + v;
          gemm_store1(epilogue1(e[v], alpha, beta, C, ldc, row, col, bias, bias_off, AUXP), C, ldc, row, col, &gate);
        }
      }
    }
  }
}
