// GEMM, direct: any region of C, any size, bounds handled in the kernel.
// Used for small and skinny problems and for the edges the tiled kernel
// leaves (see src/ops/gemm.c). Each work-item computes an MWID x NWID tile,
// rows and columns interleaved across the MDIMD x NDIMD work-group.
// Tuned parameters (-D), declared in src/kernels/gemm_direct.c:
//   MWID, NWID  work-item tile      MDIMD, NDIMD  work-group shape
//   KUD         unroll of the k loop

kernel __attribute__((reqd_work_group_size(NDIMD, MDIMD, 1)))
void clforge_gemm_direct(const uint row0, const uint col0, const uint rows, const uint cols, const uint k,
                         const float alpha, const float beta,
                         const global a_t *restrict A, const ulong a_off, const uint lda, const ulong stride_a,
                         const global b_t *restrict B, const ulong b_off, const uint ldb, const ulong stride_b,
                         global c_t *restrict C, const ulong c_off, const uint ldc, const ulong stride_c,
                         const global bias_t *restrict bias, const ulong bias_off) {
  const uint lx = get_local_id(0), ly = get_local_id(1);
  const ulong batch = get_global_id(2);
  A += a_off + batch * stride_a;
  B += b_off + batch * stride_b;
  C += c_off + batch * stride_c;
  const uint rbase = get_group_id(1) * (MDIMD * MWID) + ly, cbase = get_group_id(0) * (NDIMD * NWID) + lx;

  // Out-of-range rows and columns read a clamped (valid) element and are not
  // stored: no branch in the k loop.
  idx_t ra[MWID], cb[NWID];
  UNROLL(MWID)
  for (int s = 0; s < MWID; ++s) ra[s] = row0 + min(rbase + s * MDIMD, rows - 1);
  UNROLL(NWID)
  for (int t = 0; t < NWID; ++t) cb[t] = col0 + min(cbase + t * NDIMD, cols - 1);

  float acc[MWID][NWID];
  UNROLL(MWID)
  for (int s = 0; s < MWID; ++s) {
    UNROLL(NWID)
    for (int t = 0; t < NWID; ++t) acc[s][t] = 0.0f;
  }
  UNROLL(KUD)
  for (uint p = 0; p < k; ++p) {
    float bv[NWID];
    UNROLL(NWID)
    for (int t = 0; t < NWID; ++t) bv[t] = LOAD1(B_T, B, B_AT(p, cb[t]));
    UNROLL(MWID)
    for (int s = 0; s < MWID; ++s) {
      const float av = LOAD1(A_T, A, A_AT(ra[s], p));
      UNROLL(NWID)
      for (int t = 0; t < NWID; ++t) acc[s][t] = fma(av, bv[t], acc[s][t]);
    }
  }

  UNROLL(MWID)
  for (int s = 0; s < MWID; ++s) {
    if (rbase + s * MDIMD >= rows) continue;
    const idx_t row = ra[s];
    UNROLL(NWID)
    for (int t = 0; t < NWID; ++t) {
      if (cbase + t * NDIMD >= cols) continue;
      const idx_t col = cb[t];
      float v = alpha * acc[s][t];
      if (beta != 0.0f) v = fma(beta, LOAD1(C_T, C, row * ldc + col), v);
#if BIAS == 1
      v += LOAD1(BIAS_T, bias, bias_off + row);
#elif BIAS == 2
      v += LOAD1(BIAS_T, bias, bias_off + col);
#endif
      v = ACTIVATE(v);
      STORE1(C_T, v, C, row * ldc + col);
    }
  }
}
