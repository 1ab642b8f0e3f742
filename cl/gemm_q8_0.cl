// GEMM with q8_0 weights (weight-only quantization, llama.cpp's Q8_0
// models): C = epilogue(alpha * A * W^T) with W (n x k) in ggml's q8_0
// blocks (34 bytes: an f16 scale d, then 32 s8; a row of k / 32 blocks, ldb
// bytes apart), dequantized in the kernel: each block's 32 products summed
// in f32, scaled by d, added into the f32 accumulator. Built for decode's
// skinny shapes (m = batch <= 16): reading W is the whole cost, so each
// work-item streams NC rows of W once for MR rows of A, and KS items split a
// row's blocks (their sums reduced in local memory, in a fixed order). After
// gemm_base.cl, gemm_operands.cl (B_T 7: bytes) and gemm_common.cl (the
// epilogue: bias, activation, beta, the gated pairs; VW 1).
// Tuned parameters (-D):
//   MR   rows of A per work-item            NC   rows of W (columns of C) per item
//   KS   items splitting a row's k blocks   NG   item groups along n per work-group
//   VK   vector width over a block's 32 values (4, 8, 16)
// The work-group is KS x NG; a gated call (GATE) has NC even, so a pair's
// two columns meet in one item.

#define NBLK_VALUES 32
#define BLK_BYTES 34
#define VKSUF VK
typedef CLFORGE_CAT(float, VKSUF) floatk;
typedef CLFORGE_CAT(uint, VKSUF) uintk;

// VK consecutive elements of op(A) in row `row` from column p, as f32.
static inline floatk load_a_k(const global a_t *A, uint lda, idx_t row, idx_t p) {
#if TA == 0 && A_T == CLFORGE_DT_F32
  return CLFORGE_CAT(vload, VK)(0, A + row * lda + p);
#elif TA == 0 && A_T == CLFORGE_DT_F16
  return CLFORGE_CAT(clforge_f32_from_f16_bits_uint, VK)(CLFORGE_CAT(convert_uint, VK)(CLFORGE_CAT(vload, VK)(0, A + row * lda + p)));
#elif TA == 0 && A_T == CLFORGE_DT_BF16
  return CLFORGE_CAT(as_float, VK)(CLFORGE_CAT(convert_uint, VK)(CLFORGE_CAT(vload, VK)(0, A + row * lda + p)) << 16);
#else
  float t[VK];
  UNROLL(VK)
  for (int v = 0; v < VK; ++v) t[v] = LOAD1(A_T, A, A_AT(row, p + v));
  return CLFORGE_CAT(vload, VK)(0, t);
#endif
}

// A block's f16 scale (two bytes: blocks are not 2-byte aligned in general).
static inline float q8_scale(const global uchar *blk) {
  return clforge_f32_from_f16_bits_uint((uint)blk[0] | (uint)blk[1] << 8);
}

// The lanes' sum, in a fixed order (through memory: Oclgrind's checks
// fail on wide vector swizzles).
static inline float hsum(floatk x) {
  float t[VK];
  CLFORGE_CAT(vstore, VK)(x, 0, t);
  float s = 0.0f;
  UNROLL(VK)
  for (int i = 0; i < VK; ++i) s += t[i];
  return s;
}

kernel __attribute__((reqd_work_group_size(KS, NG, 1)))
void clforge_gemm_q8_0(const uint m, const uint n, GEMM_OPERAND_ARGS) {
  GEMM_SELECT_BATCH();
  const uint ks = get_local_id(0), ly = get_local_id(1);
  const uint row0 = get_group_id(0) * MR, col0 = (get_group_id(1) * NG + ly) * NC;
  const uint nblk = k / NBLK_VALUES;
  idx_t rows[MR];
  UNROLL(MR)
  for (int r = 0; r < MR; ++r) rows[r] = min(row0 + r, m - 1);
  const global uchar *wrow[NC];
  UNROLL(NC)
  for (int c = 0; c < NC; ++c) wrow[c] = B + (idx_t)min(col0 + c, n - 1) * ldb;

  floatk acc[MR][NC];
  UNROLL(MR)
  for (int r = 0; r < MR; ++r) {
    UNROLL(NC)
    for (int c = 0; c < NC; ++c) acc[r][c] = (floatk)0.0f;
  }
  for (uint b = ks; b < nblk; b += KS) {
    const idx_t p0 = (idx_t)b * NBLK_VALUES;
    UNROLL(NC)
    for (int c = 0; c < NC; ++c) {
      const global uchar *blk = wrow[c] + (idx_t)b * BLK_BYTES;
      floatk sum[MR];
      UNROLL(MR)
      for (int r = 0; r < MR; ++r) sum[r] = (floatk)0.0f;
      UNROLL(NBLK_VALUES / VK)
      for (int t = 0; t < NBLK_VALUES / VK; ++t) {
        const floatk w = CLFORGE_CAT(convert_float, VK)(CLFORGE_CAT(vload, VK)(0, (const global char *)(blk + 2 + t * VK)));
        UNROLL(MR)
        for (int r = 0; r < MR; ++r) sum[r] = fma(load_a_k(A, lda, rows[r], p0 + t * VK), w, sum[r]);
      }
      const floatk d = (floatk)q8_scale(blk);
      UNROLL(MR)
      for (int r = 0; r < MR; ++r) acc[r][c] = fma(d, sum[r], acc[r][c]);
    }
  }

  // The sums per output: this item's (KS 1) or the KS items' in order.
  float res[MR * NC];
  UNROLL(MR)
  for (int r = 0; r < MR; ++r) {
    UNROLL(NC)
    for (int c = 0; c < NC; ++c) res[r * NC + c] = hsum(acc[r][c]);
  }
#if KS > 1
  local float red[NG][KS][MR * NC];
#pragma nounroll
  for (int o = 0; o < MR * NC; ++o) red[ly][ks][o] = res[o];
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  // The epilogue as a loop (one copy of its code): item ks stores outputs
  // ks, ks + KS, ... in units of one column (two for a gated pair).
#define UNIT (GATE ? 2 : 1)
#pragma nounroll
  for (int u = (int)ks; u < MR * NC / UNIT; u += KS) {
    float gate = 0.0f;
#pragma nounroll
    for (int e = 0; e < UNIT; ++e) {
      const int o = u * UNIT + e, r = o / NC, c = o - r * NC;
      if (row0 + r >= m || col0 + c >= n) continue;
#if KS > 1
      float s = 0.0f;
#pragma nounroll
      for (int q = 0; q < KS; ++q) s += red[ly][q][o];
#else
      const float s = res[o];
#endif
      const idx_t row = row0 + r, col = col0 + c;
      gemm_store1(epilogue1(s, alpha, beta, C, ldc, row, col, bias, bias_off, AUXP), C, ldc, row, col, &gate);
    }
  }
}
