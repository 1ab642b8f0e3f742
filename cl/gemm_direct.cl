// GEMM, direct: any region of C, any size, bounds handled in the kernel.
// Used for small and skinny problems (m = 1..16 is a matrix-vector product
// in disguise) and for the edges the tiled kernel leaves (src/ops/gemm.c).
// Each work-item computes MWID rows x NWID vectors of VW columns; rows and
// vectors are interleaved across the MDIMD x NDIMD work-group, so
// neighbouring work-items read neighbouring memory.
// Tuned parameters (-D), declared in src/families/gemm_direct.c:
//   MWID, NWID    work-item tile (rows, vectors)   MDIMD, NDIMD  work-group shape
//   VW            vector width along n             KUD           unroll of the k loop

// Out-of-range rows read a clamped (valid) row and are not stored, so the k
// loop has no branch; a work-item whose vectors reach past the last column
// takes the second loop, which clamps each column instead of loading vectors.
#if HALF == 0
#define DIRECT_K_LOOP(LOAD_B)                                                \
  UNROLL(KUD)                                                                \
  for (uint p = 0; p < k; ++p) {                                             \
    floatv bv[NWID];                                                         \
    UNROLL(NWID)                                                             \
    for (int t = 0; t < NWID; ++t) bv[t] = LOAD_B(p, t);                     \
    UNROLL(MWID)                                                             \
    for (int s = 0; s < MWID; ++s) {                                         \
      const float av = LOAD1(A_T, A, A_AT(ra[s], p));                        \
      UNROLL(NWID)                                                           \
      for (int t = 0; t < NWID; ++t) acc[s][t] = fma((floatv)av, bv[t], acc[s][t]); \
    }                                                                        \
  }
#else
// Half arithmetic (cl/gemm_common.cl): k in runs of 32, each run's f16
// sums added into f32 after it.
#define DIRECT_K_LOOP(LOAD_B)                                                \
  for (uint p0 = 0; p0 < k; p0 += 32) {                                      \
    halfv hacc[MWID][NWID];                                                  \
    for (int s = 0; s < MWID; ++s)                                           \
      for (int t = 0; t < NWID; ++t) hacc[s][t] = (halfv)0;                  \
    const uint pe = min(k, p0 + 32);                                         \
    for (uint p = p0; p < pe; ++p) {                                         \
      halfv bh[NWID];                                                        \
      for (int t = 0; t < NWID; ++t) bh[t] = HALFV(LOAD_B(p, t));            \
      for (int s = 0; s < MWID; ++s) {                                       \
        const half1_t av = HALF1(LOAD1(A_T, A, A_AT(ra[s], p)));                 \
        for (int t = 0; t < NWID; ++t) GEMM_HMAC(acc[s][t], hacc[s][t], av, bh[t]); \
      }                                                                      \
    }                                                                        \
    for (int s = 0; s < MWID; ++s)                                           \
      for (int t = 0; t < NWID; ++t) GEMM_HFLUSH(acc[s][t], hacc[s][t]);     \
  }
#endif

#define LOAD_B_FULL(p, t) load_b_vec(B, ldb, p, col0 + cv[t])

static inline floatv load_b_clamped(const global b_t *B, uint ldb, uint p, idx_t col0, uint c, uint cols) {
  float e[VW];
  UNROLL(VW)
  for (int v = 0; v < VW; ++v) e[v] = LOAD1(B_T, B, B_AT(p, col0 + min(c + v, cols - 1)));
  return VLOADF(e);
}
#define LOAD_B_EDGE(p, t) load_b_clamped(B, ldb, p, col0, cv[t], cols)

#if GATE && VW % 2 // a gated pair's two columns must share a vector (src/ops/gemm.c, gate_vectors)
#error "clforge: a gated GEMM needs an even VW"
#endif

kernel __attribute__((reqd_work_group_size(NDIMD, MDIMD, 1)))
void clforge_gemm_direct(const uint row0, const uint col0, const uint rows, const uint cols, GEMM_OPERAND_ARGS) {
  const uint lx = get_local_id(0), ly = get_local_id(1);
  GEMM_SELECT_BATCH();
  const uint rbase = get_group_id(1) * (MDIMD * MWID) + ly, vbase = get_group_id(0) * (NDIMD * NWID) + lx;

  idx_t ra[MWID];
  UNROLL(MWID)
  for (int s = 0; s < MWID; ++s) ra[s] = row0 + min(rbase + s * MDIMD, rows - 1);
  uint cv[NWID]; // first column of each vector, relative to col0
  UNROLL(NWID)
  for (int t = 0; t < NWID; ++t) cv[t] = (vbase + t * NDIMD) * VW;

  floatv acc[MWID][NWID];
  UNROLL(MWID)
  for (int s = 0; s < MWID; ++s) {
    UNROLL(NWID)
    for (int t = 0; t < NWID; ++t) acc[s][t] = (floatv)0.0f;
  }
  if (cv[NWID - 1] + VW <= cols) {
    DIRECT_K_LOOP(LOAD_B_FULL)
  } else {
    DIRECT_K_LOOP(LOAD_B_EDGE)
  }

  // The epilogue as loops, not unrolled: one copy of its code instead of
  // MWID x NWID x VW (PoCL's compile of an 8 x 16 block with an epilogue
  // took seconds). The accumulators go through an array of their own so
  // that the k loop's stay in registers.
  floatv res[MWID][NWID];
  UNROLL(MWID)
  for (int s = 0; s < MWID; ++s) {
    UNROLL(NWID)
    for (int t = 0; t < NWID; ++t) res[s][t] = acc[s][t];
  }
#pragma nounroll
  for (int s = 0; s < MWID; ++s) {
    if (rbase + s * MDIMD >= rows) continue;
    const idx_t row = row0 + min(rbase + s * MDIMD, rows - 1); // ra[s], recomputed: ra stays in registers
#pragma nounroll
    for (int t = 0; t < NWID; ++t) {
      float e[VW];
      VSTOREF(res[s][t], e);
      const uint cvt = (vbase + t * NDIMD) * VW; // cv[t], recomputed likewise
      float gate = 0.0f;
#pragma nounroll
      for (int v = 0; v < VW; ++v) {
        if (cvt + v >= cols) continue;
        const idx_t col = col0 + cvt + v;
        gemm_store1(epilogue1(e[v], alpha, beta, C, ldc, row, col, bias, bias_off, AUXP), C, ldc, row, col, &gate);
      }
    }
  }
}
