// Convolution backward data (src/ops/conv_backward_data.c).
//
// clforge_conv_bwd_data_direct gathers each dx element from the dy elements
// it fed in the forward pass: dx[n, c, h, w] = sum over the group's output
// channels k and the taps (r, s) with p * stride_h + r * dil_h = h + pad_t
// (and likewise for q) of dy[n, k, p, q] * w[k, c, r, s]. Every shape: any
// stride (taps whose p is not a multiple of the stride skip), dilation,
// asymmetric padding, groups, NCHW/NHWC, KCRS/KRSC (all through element
// strides), every storage mix; f32 accumulation, one rounding. No atomics:
// each dx element is written by one work-item.
// A work-item computes TC channels of one group at one pixel; work-groups
// of WG pixels along a row (neighbouring items read neighbouring dy).
//   dim 0: H*W pixels   dim 1: groups * channel tiles   dim 2: N
// Tuned parameters (src/families/conv_backward_data.c): WG, TC.
//
// clforge_conv_rotate_filter writes the filter of the equivalent forward
// convolution for stride 1: wt[c][k][R-1-r][S-1-s] = w[k][c][r][s] per group
// (KCRS, C output channels of kg inputs), a copy of the storage bits.

#ifdef TC
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_conv_bwd_data_direct(
    const global y_t *restrict DY, const ulong y_off, const ulong ysn, const ulong ysk, const ulong ysp,
    const ulong ysq, const global w_t *restrict Wt, const ulong w_off, const ulong wsk, const ulong wsc,
    const ulong wsr, const ulong wss, global x_t *restrict DX, const ulong x_off, const ulong xsn, const ulong xsc,
    const ulong xsh, const ulong xsw, const uint H, const uint W, const uint P, const uint Q, const uint R,
    const uint S, const uint sh, const uint sw, const uint dh, const uint dw, const uint pt, const uint pl,
    const uint cg, const uint kg, const uint ctiles, const float alpha, const float beta) {
  const uint pix = get_global_id(0);
  if (pix >= H * W) return;
  const uint gt = get_global_id(1), n = get_global_id(2);
  // (Remainders as x - q * y: the compiler's div/rem pairing would emit an
  // LLVM `freeze`, which Oclgrind cannot run.)
  const uint g = gt / ctiles, c0 = (gt - g * ctiles) * TC;
  const uint h = pix / W, x = pix - h * W;
  float acc[TC];
  UNROLL(TC)
  for (int t = 0; t < TC; ++t) acc[t] = 0.0f;
  // Out of range channels of the last tile read a valid one and are not stored.
  idx_t wc[TC];
  UNROLL(TC)
  for (int t = 0; t < TC; ++t) wc[t] = (idx_t)min(c0 + (uint)t, cg - 1) * (idx_t)wsc;
  const idx_t ybase = (idx_t)y_off + (idx_t)n * (idx_t)ysn + (idx_t)(g * kg) * (idx_t)ysk;
  const idx_t wbase = (idx_t)w_off + (idx_t)(g * kg) * (idx_t)wsk;
  for (uint r = 0; r < R; ++r) {
    const int hp = (int)(h + pt) - (int)(r * dh);
    if (hp < 0) break; // later taps are further up
    const uint p = (uint)hp / sh;
    if ((uint)hp != p * sh) continue;
    if (p >= P) continue;
    for (uint s = 0; s < S; ++s) {
      const int wp = (int)(x + pl) - (int)(s * dw);
      if (wp < 0) break;
      const uint q = (uint)wp / sw;
      if ((uint)wp != q * sw) continue;
      if (q >= Q) continue;
      const global y_t *yp = DY + ybase + (idx_t)p * (idx_t)ysp + (idx_t)q * (idx_t)ysq;
      const global w_t *wp_ = Wt + wbase + (idx_t)r * (idx_t)wsr + (idx_t)s * (idx_t)wss;
      for (uint k = 0; k < kg; ++k) {
        const float v = LOAD1(Y_T, yp, (idx_t)k * (idx_t)ysk);
        const global w_t *wk = wp_ + (idx_t)k * (idx_t)wsk;
        UNROLL(TC)
        for (int t = 0; t < TC; ++t) acc[t] = fma(v, LOAD1(W_T, wk, wc[t]), acc[t]);
      }
    }
  }
  const idx_t o = (idx_t)x_off + (idx_t)n * (idx_t)xsn + (idx_t)h * (idx_t)xsh + (idx_t)x * (idx_t)xsw;
  UNROLL(TC)
  for (int t = 0; t < TC; ++t) {
    const uint c = c0 + (uint)t;
    if (c >= cg) break;
    const idx_t i = o + (idx_t)(g * cg + c) * (idx_t)xsc;
    float v = alpha != 0.0f ? alpha * acc[t] : 0.0f; // alpha 0: dy and w do not count (as forward)
    if (beta != 0.0f) v = fma(beta, LOAD1(X_T, DX, i), v);
    STORE1(X_T, v, DX, i);
  }
}
#endif

// A 16 x 16 tile of (k, c) at one tap (r, s) of one group per work-group,
// through local memory: reads run along c, writes along k (a transpose:
// for 1x1 filters both are unit-stride; an element at a time was 1.3 GB/s
// on PoCL).   dim 0: c in the group   dim 1: k in the group   dim 2: g*R*S + r*S + s
kernel __attribute__((reqd_work_group_size(16, 16, 1))) void clforge_conv_rotate_filter(
    const global w_t *restrict Wt, const ulong w_off, const ulong wsk, const ulong wsc, const ulong wsr,
    const ulong wss, global w_t *restrict WR, const uint cg, const uint kg, const uint R, const uint S) {
  local w_t tile[16][17];
  const uint li = get_local_id(0), lj = get_local_id(1);
  const uint c0 = get_group_id(0) * 16, k0 = get_group_id(1) * 16, z = get_global_id(2);
  const uint g = z / (R * S), rs = z - g * (R * S), r = rs / S, s = rs - r * S;
  const uint c = c0 + li, k = k0 + lj;
  if (c < cg && k < kg)
    tile[lj][li] = Wt[(idx_t)w_off + (idx_t)(g * kg + k) * (idx_t)wsk + (idx_t)c * (idx_t)wsc + (idx_t)r * (idx_t)wsr +
                      (idx_t)s * (idx_t)wss];
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint kw = k0 + li, cw = c0 + lj; // the writer's (k, c): consecutive items, consecutive k
  if (kw < kg && cw < cg)
    WR[(((idx_t)(g * cg + cw) * kg + kw) * R + (R - 1 - r)) * S + (S - 1 - s)] = tile[li][lj];
}

// clforge_conv_col2im: the GEMM route's second half. A GEMM wrote the
// column gradient dcol = w_g^T dy_g (f32) for a pass of images (or one
// image's pixel range [pix0, pix0 + npix)) in the forward im2col's layout
// (ROWS 1: dcol[img][pixel][j], else dcol[img][j][pixel]; j in the filter's
// own order, KRSC: (r, s, c), KCRS: (c, r, s), after the group's offset).
// Each dx element adds the entries of the taps that reach it, in tap order
// (deterministic), and is written once per pass: the first pass applies
// alpha and beta, later passes of the same image add alpha * their sum.
//   dim 0: H*W pixels   dim 1: C channels   dim 2: the pass's images
#ifdef COL2IM
kernel void clforge_conv_col2im(const global float *restrict col, global x_t *restrict DX, const ulong x_off,
                                const ulong xsn, const ulong xsc, const ulong xsh, const ulong xsw, const uint H,
                                const uint W, const uint P, const uint Q, const uint R, const uint S, const uint sh,
                                const uint sw, const uint dh, const uint dw, const uint pt, const uint pl,
                                const uint cg, const uint n0, const uint pix0, const uint npix, const uint rsc,
                                const uint first, const float alpha, const float beta) {
  const uint pix = get_global_id(0), c = get_global_id(1), img = get_global_id(2);
  if (pix >= H * W) return;
  const uint h = pix / W, x = pix - h * W, g = c / cg, cl = c - g * cg;
  const uint rscg = cg * R * S;
  float acc = 0.0f;
  for (uint r = 0; r < R; ++r) {
    const int hp = (int)(h + pt) - (int)(r * dh);
    if (hp < 0) break;
    const uint p = (uint)hp / sh;
    if ((uint)hp != p * sh || p >= P) continue;
    for (uint s = 0; s < S; ++s) {
      const int wp = (int)(x + pl) - (int)(s * dw);
      if (wp < 0) break;
      const uint q = (uint)wp / sw;
      if ((uint)wp != q * sw || q >= Q) continue;
      const uint at = p * Q + q;
      if (at < pix0 || at - pix0 >= npix) continue;
#if KRSC
      const uint j = g * rscg + (r * S + s) * cg + cl;
#else
      const uint j = g * rscg + (cl * R + r) * S + s;
#endif
#if ROWS
      acc += col[((idx_t)img * npix + (at - pix0)) * rsc + j];
#else
      acc += col[((idx_t)img * rsc + j) * npix + (at - pix0)];
#endif
    }
  }
  const idx_t i = (idx_t)x_off + (idx_t)(n0 + img) * (idx_t)xsn + (idx_t)c * (idx_t)xsc + (idx_t)h * (idx_t)xsh +
                  (idx_t)x * (idx_t)xsw;
  float v = alpha != 0.0f ? alpha * acc : 0.0f;
  if (!first) v += LOAD1(X_T, DX, i);
  else if (beta != 0.0f) v = fma(beta, LOAD1(X_T, DX, i), v);
  STORE1(X_T, v, DX, i);
}
#endif
