// clforge_batchnorm_fold (src/ops/batchnorm_fold.c): a batch norm folded
// into the convolution before it. One work-item per filter element (k rows
// of per_k), then one per channel for the bias: each computes its channel's
// s = gamma / sqrt(var + eps) in f32.
// Tuned parameters (src/families/batchnorm_fold.c): WG.
// Problem options: W_T WO_T B_T BO_T (storage codes), BIAS (0: no bias in).
// (Remainders as x - q * y: the compiler's div/rem pairing would emit an
// LLVM `freeze`, which Oclgrind cannot run.)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, W_T) w_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, WO_T) wo_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, B_T) b_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, BO_T) bo_t;

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_batchnorm_fold(
    const global w_t *W, const ulong w_off, global wo_t *WO, const ulong wo_off, const global b_t *Bi, const ulong b_off,
    global bo_t *BO, const ulong bo_off, const global float *G, const global float *BE, const global float *M,
    const global float *V, const ulong bn_off, const ulong count, const ulong per_k, const uint k, const float eps) {
  const ulong g = get_global_id(0);
  if (g < count) {
    const ulong c = g / per_k;
    const float s = G[bn_off + c] / sqrt(V[bn_off + c] + eps);
    STORE1(WO_T, LOAD1(W_T, W, w_off + g) * s, WO, wo_off + g);
  } else if (g - count < k) {
    const ulong c = g - count;
    const float s = G[bn_off + c] / sqrt(V[bn_off + c] + eps);
#if BIAS
    const float b = LOAD1(B_T, Bi, b_off + c);
#else
    const float b = 0.0f;
#endif
    STORE1(BO_T, (b - M[bn_off + c]) * s + BE[bn_off + c], BO, bo_off + c);
  }
}
