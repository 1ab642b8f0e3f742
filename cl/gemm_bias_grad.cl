// The GEMM backward's bias gradient (src/ops/gemm.c, CLFORGE_GEMM_AUX_BACKWARD
// with a bias_mode): C (as just written, row-major view) summed along the
// bias's axis and over the batch, one work-item per bias element, in a
// fixed order (the same bits every run). PER_ROW 1: one value per row of C
// (sum over its columns), else one per column (neighbouring items read
// neighbouring columns). Options: C_T, BIAS_T, IDX64, PER_ROW.

typedef CLFORGE_CAT(CLFORGE_STORAGE_, C_T) c_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, BIAS_T) bias_t;

kernel void clforge_gemm_bias_grad(const global c_t *restrict C, const ulong c_off, const uint ldc,
                                   const ulong stride_c, const uint m, const uint n, const uint batch,
                                   global bias_t *restrict bias, const ulong bias_off) {
  const uint t = get_global_id(0);
  if (t >= (PER_ROW ? m : n)) return;
  float s = 0.0f;
  for (uint b = 0; b < batch; ++b) {
    const global c_t *cb = C + (idx_t)c_off + (idx_t)b * (idx_t)stride_c;
#if PER_ROW
    for (uint u = 0; u < n; ++u) s += LOAD1(C_T, cb, (idx_t)t * ldc + u);
#else
    for (uint u = 0; u < m; ++u) s += LOAD1(C_T, cb, (idx_t)u * ldc + t);
#endif
  }
  STORE1(BIAS_T, s, bias, (idx_t)bias_off + t);
}
