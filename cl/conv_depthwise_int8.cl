// The int8 depthwise convolution (groups == C, K = C * MULT;
// src/ops/conv_quantized.c): output channel k reads input channel
// k / MULT only, so a work-item sums the R*S taps of VW consecutive output
// channels of one pixel exactly in int, then applies the int8 GEMM's
// epilogue (cl/int8_epilogue.cl). x and y NHWC; the filter transposed to
// [R*S][K] (its K contiguous: vector loads), as the convolution's other
// int8 routes take it. Padding reads x's zero point: it adds nothing.
// Global size (ceil(K / VW) rounded up to WG, Q, N * P).
// Tuned parameters (src/families/conv_depthwise_int8.c): VW, WG.
// Problem options: X_T, W_T (4 s8, 5 u8), C_T, BIAS, BIAS_T, ACT, IDX64,
// MULT (the channel multiplier).


#if VW > 1
#define CONVERT_INTV(x) CLFORGE_CAT(convert_int, VW)(x)
#define VLOAD_B(p) CLFORGE_CAT(vload, VW)(0, p)
static inline void vstore_int_lanes(intv x, int *out) { CLFORGE_CAT(vstore, VW)(x, 0, out); }
#endif

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_conv_depthwise_int8(
    const uint H, const uint W, const uint C, const uint K, const uint P, const uint Q, const uint R, const uint S,
    const uint stride_h, const uint stride_w, const uint dil_h, const uint dil_w, const uint pad_t, const uint pad_l,
    const global x_t *restrict X, const ulong x_off, const global w_t *restrict Wt, global c_t *restrict Y, const ulong y_off, const global bias_t *restrict bias, const ulong bias_off,
    const global float *restrict xscale, const ulong xs_off, const global float *restrict wscale, const ulong ws_off,
    const int w_per, const int zpx, const int zpw, const float alpha, const float beta, const float inv_c,
    const int zpc) {
  const uint k0 = get_global_id(0) * VW, q = get_global_id(1), np = get_global_id(2);
  if (k0 >= K) return;
  const uint n = np / P, p = np - n * P;
  int acc[VW];
  for (int v = 0; v < VW; ++v) acc[v] = 0;
#if VW > 1 && MULT == 1
  // whole vectors of channels: x's and the filter's lanes are consecutive
  const int full = k0 + VW <= K;
  intv vacc = (intv)0;
#else
  const int full = 0;
#endif
  for (uint r = 0; r < R; ++r) {
    const int ih = (int)(p * stride_h + r * dil_h) - (int)pad_t;
    if (ih < 0 || ih >= (int)H) continue;
    for (uint s = 0; s < S; ++s) {
      const int iw = (int)(q * stride_w + s * dil_w) - (int)pad_l;
      if (iw < 0 || iw >= (int)W) continue;
      const global x_t *xp = X + x_off + ((idx_t)(n * H + (uint)ih) * W + (uint)iw) * C;
      const global w_t *wp = Wt + (idx_t)(r * S + s) * K;
#if VW > 1 && MULT == 1
      if (full) {
        vacc += (CONVERT_INTV(VLOAD_B(xp + k0)) - zpx) * (CONVERT_INTV(VLOAD_B(wp + k0)) - zpw);
        continue;
      }
#endif
      for (int v = 0; v < VW; ++v) {
        const uint k = min(k0 + v, K - 1); // lanes past K repeat the last (not stored)
        acc[v] += ((int)xp[k / MULT] - zpx) * ((int)wp[k] - zpw);
      }
    }
  }
#if VW > 1 && MULT == 1
  if (full) vstore_int_lanes(vacc, acc);
#endif
  const idx_t row = ((idx_t)np * Q + q) * K; // y's pixel (n, p, q)
  const float xs = C_T == 6 ? 0.0f : xscale[xs_off];
  for (int v = 0; v < VW; ++v) {
    const uint k = k0 + v;
    if (k >= K) break;
    const float sc = C_T == 6 ? 0.0f : xs * wscale[ws_off + (w_per ? k : 0)];
#if BIAS
    const float bv = LOAD1(BIAS_T, bias, bias_off + k);
#else
    const float bv = 0.0f;
#endif
    int8_store(Y, y_off + row + k, acc[v], sc, 1, alpha, beta, bv, inv_c, zpc);
  }
}
