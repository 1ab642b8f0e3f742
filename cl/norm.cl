// LayerNorm and RMSNorm over rows, forward and backward (src/ops/norm.c).
// One work-group of WG items per row for the forward and the backward's dx
// (items stride the row; sums by a tree in local memory, the same order
// every run); one work-item per feature for the parameter gradients (a
// fixed-order loop over the rows). f32 statistics and math.
// Options: KIND (0 LayerNorm, 1 RMSNorm), X_T Y_T DY_T DX_T P_T (storage
// codes; P_T: weight, bias and their gradients), WEIGHT BIAS (0/1: given),
// STATS (forward: 1 writes them), WRITE_Y (0: the statistics alone, for a
// backward without them), WANT_DW WANT_DB (the parameter gradients asked for).
// Tuned parameter (src/families/norm.c): WG.

typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, P_T) p_t;

// The sum of v over the work-group (every item gets it).
static inline float group_sum(local float *red, float v) {
  const uint l = get_local_id(0);
  red[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (l < s) red[l] += red[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float r = red[0];
  barrier(CLK_LOCAL_MEM_FENCE); // the next sum reuses red
  return r;
}

#ifdef Y_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_norm_fwd(
    const global x_t *X, const ulong x_off, const ulong x_stride, global y_t *Y, const ulong y_off,
    const ulong y_stride, const global p_t *restrict Wt, const ulong w_off, const global p_t *restrict Bs,
    const ulong b_off, global float *restrict S, const ulong s_off, const uint n, const float eps) {
  local float red[WG];
  const ulong row = get_group_id(0);
  const uint l = get_local_id(0);
  const global x_t *xr = X + x_off + row * x_stride;
  float mean = 0.0f;
#if KIND == 0
  float s = 0.0f;
  for (uint j = l; j < n; j += WG) s += LOAD1(X_T, xr, j);
  mean = group_sum(red, s) / (float)n;
#endif
  float v = 0.0f;
  for (uint j = l; j < n; j += WG) {
    const float t = LOAD1(X_T, xr, j) - mean;
    v = fma(t, t, v);
  }
  const float rstd = rsqrt(group_sum(red, v) / (float)n + eps);
#if STATS
  if (l == 0) S[s_off + 2 * row] = mean, S[s_off + 2 * row + 1] = rstd;
#endif
#if WRITE_Y
  global y_t *yr = Y + y_off + row * y_stride;
  for (uint j = l; j < n; j += WG) { // each item writes the elements it read: y may be x
    float o = (LOAD1(X_T, xr, j) - mean) * rstd;
#if WEIGHT
    o *= LOAD1(P_T, Wt, w_off + j);
#endif
#if BIAS
    o += LOAD1(P_T, Bs, b_off + j);
#endif
    STORE1(Y_T, o, yr, j);
  }
#endif
}
#endif

#ifdef DY_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DY_T) dy_t;

#ifdef DX_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DX_T) dx_t;

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * weight
// (RMSNorm: without mean(g)).
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_norm_bwd(
    const global x_t *restrict X, const ulong x_off, const ulong x_stride, const global p_t *restrict Wt,
    const ulong w_off, const global float *restrict S, const ulong s_off, const global dy_t *DY, const ulong dy_off,
    const ulong dy_stride, global dx_t *DX, const ulong dx_off, const ulong dx_stride, const uint n) {
  local float red[WG];
  const ulong row = get_group_id(0);
  const uint l = get_local_id(0);
  const float mean = S[s_off + 2 * row], rstd = S[s_off + 2 * row + 1];
  const global x_t *xr = X + x_off + row * x_stride;
  const global dy_t *gr = DY + dy_off + row * dy_stride;
  float sg = 0.0f, sgx = 0.0f;
  for (uint j = l; j < n; j += WG) {
    float g = LOAD1(DY_T, gr, j);
#if WEIGHT
    g *= LOAD1(P_T, Wt, w_off + j);
#endif
    sg += g;
    sgx = fma(g, (LOAD1(X_T, xr, j) - mean) * rstd, sgx);
  }
  sg = group_sum(red, sg) / (float)n;
  sgx = group_sum(red, sgx) / (float)n;
#if KIND == 1
  sg = 0.0f;
#endif
  global dx_t *dr = DX + dx_off + row * dx_stride;
  for (uint j = l; j < n; j += WG) { // each item writes the elements it read: dx may be dy
    float g = LOAD1(DY_T, gr, j);
#if WEIGHT
    g *= LOAD1(P_T, Wt, w_off + j);
#endif
    const float xh = (LOAD1(X_T, xr, j) - mean) * rstd;
    STORE1(DX_T, rstd * (g - sg - xh * sgx), dr, j);
  }
}
#endif

// dweight[j] = sum over rows of dy * xhat, dbias[j] = sum of dy; rows in order.
kernel void clforge_norm_bwd_params(const global x_t *restrict X, const ulong x_off, const ulong x_stride,
                                    const global float *restrict S, const ulong s_off, const global dy_t *restrict DY,
                                    const ulong dy_off, const ulong dy_stride, global p_t *restrict DW,
                                    const ulong dw_off, global p_t *restrict DB, const ulong db_off, const uint n,
                                    const uint rows) {
  const uint j = get_global_id(0);
  if (j >= n) return;
  float sw = 0.0f, sb = 0.0f;
  for (uint r = 0; r < rows; ++r) {
    const float y = LOAD1(DY_T, DY, dy_off + (ulong)r * dy_stride + j);
    const float xh = (LOAD1(X_T, X, x_off + (ulong)r * x_stride + j) - S[s_off + 2 * r]) * S[s_off + 2 * r + 1];
    sw = fma(y, xh, sw);
    sb += y;
  }
#if WANT_DW
  STORE1(P_T, sw, DW, dw_off + j);
#endif
#if WANT_DB
  STORE1(P_T, sb, DB, db_off + j);
#endif
}
#endif
