// Convolution backward filter (src/ops/conv_backward_filter.c).
//
// clforge_conv_bwd_filter_direct: dw[k, c, r, s] = sum over n, p, q of
// dy[n, k, p, q] * x[n, g*cg + c, p*sh - pt + r*dh, q*sw - pl + s*dw]. The
// N*P*Q sum is split into chunks of CHUNK positions; a work-item adds one
// chunk for TK output channels of one group at one (c, r, s) and writes its
// partial sums (f32) to part[split][K][cg*R*S]; the items at (c, r, s) =
// (0, 0, 0) also add dy alone: the bias gradient's partials, at
// part[b_off + split * K + k]. jn < cg*R*S (1: the bias alone, for the GEMM
// routes) computes the first jn positions and writes no filter partials. clforge_conv_bwd_reduce then adds the splits in order (the same
// order every run: deterministic) and applies alpha and beta.
//   dim 0: cg*R*S filter positions   dim 1: groups * channel tiles   dim 2: splits
// Tuned parameters (src/families/conv_backward_filter.c): WG, TK (CHUNK is
// the host's: the chunk length is an argument).
// Problem options: X_T Y_T (storage codes), DBIAS, IDX64; OUT_T for the
// reduce (dw's or dbias's storage).

#ifdef TK
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_conv_bwd_filter_direct(
    const global x_t *restrict X, const ulong x_off, const ulong xsn, const ulong xsc, const ulong xsh,
    const ulong xsw, const global y_t *restrict DY, const ulong y_off, const ulong ysn, const ulong ysk,
    const ulong ysp, const ulong ysq, global float *restrict part, const uint H, const uint W, const uint P,
    const uint Q, const uint R, const uint S, const uint sh, const uint sw, const uint dh, const uint dw,
    const uint pt, const uint pl, const uint cg, const uint kg, const uint ktiles, const uint K, const ulong npq,
    const ulong chunk, const uint jn, const ulong b_off) {
  const uint crs = cg * R * S, j = get_global_id(0);
  if (j >= jn) return;
  const uint gt = get_global_id(1), split = get_global_id(2);
  // (Remainders as x - q * y: the compiler's div/rem pairing would emit an
  // LLVM `freeze`, which Oclgrind cannot run.)
  const uint g = gt / ktiles, k0 = (gt - g * ktiles) * TK;
  const uint js = j / S, c = js / R, r = js - c * R, s = j - js * S;
  float acc[TK], bacc[TK];
  UNROLL(TK)
  for (int t = 0; t < TK; ++t) acc[t] = bacc[t] = 0.0f;
  idx_t yk[TK];
  UNROLL(TK)
  for (int t = 0; t < TK; ++t) yk[t] = (idx_t)(g * kg + min(k0 + (uint)t, kg - 1)) * (idx_t)ysk;
  const int bias_item = DBIAS && j == 0;
  const ulong i0 = (ulong)split * chunk, i1 = min(i0 + chunk, npq);
  // (n, p, q) of i0, then stepped: no division in the loop
  const ulong iq = i0 / Q, ip = iq / P;
  uint q = (uint)(i0 - iq * Q), p = (uint)(iq - ip * P), n = (uint)ip;
  const global x_t *xc = X + (idx_t)x_off + (idx_t)(g * cg + c) * (idx_t)xsc;
  const int hoff = (int)(r * dh) - (int)pt, woff = (int)(s * dw) - (int)pl;
  for (ulong i = i0; i < i1; ++i) {
    const global y_t *yp = DY + (idx_t)y_off + (idx_t)n * (idx_t)ysn + (idx_t)p * (idx_t)ysp + (idx_t)q * (idx_t)ysq;
    float v[TK];
    UNROLL(TK)
    for (int t = 0; t < TK; ++t) v[t] = LOAD1(Y_T, yp, yk[t]);
    if (bias_item) {
      UNROLL(TK)
      for (int t = 0; t < TK; ++t) bacc[t] += v[t];
    }
    const int ih = (int)(p * sh) + hoff, iw = (int)(q * sw) + woff;
    if (ih >= 0 && ih < (int)H && iw >= 0 && iw < (int)W) {
      const float xv = LOAD1(X_T, xc, (idx_t)n * (idx_t)xsn + (idx_t)ih * (idx_t)xsh + (idx_t)iw * (idx_t)xsw);
      UNROLL(TK)
      for (int t = 0; t < TK; ++t) acc[t] = fma(v[t], xv, acc[t]);
    }
    if (++q == Q) {
      q = 0;
      if (++p == P) p = 0, ++n;
    }
  }
  UNROLL(TK)
  for (int t = 0; t < TK; ++t) {
    const uint k = k0 + (uint)t;
    if (k >= kg) break;
    if (jn == crs) part[((idx_t)split * K + g * kg + k) * crs + j] = acc[t];
    if (bias_item) part[(idx_t)b_off + (idx_t)split * K + g * kg + k] = bacc[t];
  }
}
#endif

#ifdef OUT_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, OUT_T) out_t;

// out[a0, a1, a2, a3] (dims d1..d3 inner, element strides s0..s3) = alpha *
// sum over the splits of part[split * split_stride + i] + beta * out, where i
// is the canonical index (a0 d1 + a1) d2 ... ; the splits added in order.
kernel void clforge_conv_bwd_reduce(const global float *restrict part, const ulong part_off, const uint nsplit,
                                    const ulong split_stride, const ulong count, const uint d1, const uint d2,
                                    const uint d3, global out_t *restrict out, const ulong o_off, const ulong s0,
                                    const ulong s1, const ulong s2, const ulong s3, const float alpha,
                                    const float beta) {
  const idx_t i = get_global_id(0);
  if (i >= count) return;
  float sum = 0.0f;
  for (uint sp = 0; sp < nsplit; ++sp) sum += part[(idx_t)part_off + (idx_t)sp * (idx_t)split_stride + i];
  const idx_t i3 = i / d3, i2 = i3 / d2, a0 = i2 / d1;
  const idx_t a3 = i - i3 * d3, a2 = i3 - i2 * d2, a1 = i2 - a0 * d1; // (no div/rem pairs: Oclgrind)
  const idx_t o = (idx_t)o_off + a0 * (idx_t)s0 + a1 * (idx_t)s1 + a2 * (idx_t)s2 + a3 * (idx_t)s3;
  float v = alpha != 0.0f ? alpha * sum : 0.0f;
  if (beta != 0.0f) v = fma(beta, LOAD1(OUT_T, out, o), v);
  STORE1(OUT_T, v, out, o);
}
#endif
