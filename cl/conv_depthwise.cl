// Depthwise convolution (groups == C, K = C * M for a channel multiplier
// M >= 1; src/ops/conv_depthwise.c): output channel k reads input channel
// k / M only. Memory-bound, so a work-item computes VW outputs along the
// contiguous axis as one float vector, loaded and stored as vectors where
// the layout allows, and TP outputs along the next axis:
//   x NCHW (CINNER 0): VW consecutive pixels q of TP consecutive rows p of
//     one (n, k); dimension 0 = Q / (VW*NV), 1 = P / TP, 2 = N*K.
//   x NHWC (CINNER 1): VW consecutive channels k of TP consecutive pixels q
//     of one row; dimension 0 = K / VW, 1 = Q / (TP*NV), 2 = N*P.
// Any filter size, stride, dilation, padding; y in either layout (stored as
// vectors when its axis matches); every storage mix; the fused epilogue.
// Tuned parameters (-D), declared in src/families/conv_depthwise.c:
//   VW   outputs per vector (contiguous axis)   TP   vectors per tile
//   NV   tiles per work-item (along dimension 1, in a loop)
//   WG0, WG1   work-group shape
// Problem options: X_T W_T Y_T BIAS BIAS_T ACT IDX64 (src/ops/conv_common.c),
// and from src/ops/conv_depthwise.c: CINNER (above), XUNIT (x's VW values are
// consecutive elements: NCHW with stride_w 1, or NHWC with M = 1), YUNIT
// (y's axis of the vector is contiguous), WUNIT (NHWC: w's channels are
// consecutive, as in the prepared weights' R S K layout), WIDE (64-bit
// coordinates).

// The epilogue of one vector of outputs whose first element is y0 and whose
// elements are ystep apart; the first `valid` exist. bias: each lane's bias.
static inline void finish(floatv acc, floatv bias, float alpha, float beta, global y_t *y0, idx_t ystep, uint valid) {
  floatv o = alpha != 0.0f ? alpha * acc : (floatv)0.0f;
  o += bias;
#if YUNIT
  if (valid >= VW) {
    if (beta != 0.0f) o = fma((floatv)beta, LOADV(Y_T, y0), o);
    STOREV(Y_T, ACTIVATE(o), y0);
    return;
  }
#endif
  float e[VW];
  VSTOREF(o, e);
  UNROLL(VW)
  for (uint v = 0; v < VW; ++v) {
    if (v >= valid) continue;
    const idx_t yi = (idx_t)v * ystep;
    float t = e[v];
    if (beta != 0.0f) t = fma(beta, LOAD1(Y_T, y0, yi), t);
    t = ACTIVATE(t);
    STORE1(Y_T, t, y0, yi);
  }
}

#define DW_ARGS                                                                                                \
  const global x_t *restrict X, const ulong x_len, const ulong x_off, const ulong xsn, const ulong xsc,          \
      const ulong xsh, const ulong xsw, const global w_t *restrict Wt, const ulong w_off, const ulong wsk,        \
      const ulong wsr, const ulong wss, global y_t *restrict Y, const ulong y_off, const ulong ysn,               \
      const ulong ysk, const ulong ysp, const ulong ysq, const global bias_t *restrict B, const ulong b_off,      \
      const uint K, const uint M, const uint H, const uint W, const uint P, const uint Q, const uint R,            \
      const uint S, const uint sh, const uint sw, const uint dh, const uint dw, const uint pt, const uint pl,      \
      const float alpha, const float beta
// The same without restrict, for the tile function: inlining restrict
// parameters leaves noalias scope intrinsics that Oclgrind cannot run.
#define DW_PARAMS                                                                                              \
  const global x_t *X, const ulong x_len, const ulong x_off, const ulong xsn, const ulong xsc, const ulong xsh,  \
      const ulong xsw, const global w_t *Wt, const ulong w_off, const ulong wsk, const ulong wsr,                 \
      const ulong wss, global y_t *Y, const ulong y_off, const ulong ysn, const ulong ysk, const ulong ysp,        \
      const ulong ysq, const global bias_t *B, const ulong b_off, const uint K, const uint M, const uint H,        \
      const uint W, const uint P, const uint Q, const uint R, const uint S, const uint sh, const uint sw,          \
      const uint dh, const uint dw, const uint pt, const uint pl, const float alpha, const float beta

#if !CINNER

static inline void dw_tile(DW_PARAMS, const uint g0, const uint g1, const uint g2) {
  // Work-items past the output (the launch is rounded up to work-groups)
  // compute on valid indices and store nothing: no early return, which
  // makes some compilers (PoCL) run the work-group loop the slow way.
  const uint q0 = min(g0 * VW, Q - 1), p0 = min(g1 * TP, P - 1);
  const int live = g0 * VW < Q && g1 * TP < P;
  const uint nk = g2, n = nk / K, k = nk - n * K, c = k / M;
  const global x_t *xc = X + x_off + (idx_t)n * (idx_t)xsn + (idx_t)c * (idx_t)xsc;
  const idx_t wk = w_off + (idx_t)k * (idx_t)wsk;
  const sidx_t iw0 = (sidx_t)q0 * (sidx_t)sw - (sidx_t)pl;
  floatv acc[TP];
  UNROLL(TP)
  for (int i = 0; i < TP; ++i) acc[i] = (floatv)0.0f;
#if XUNIT
  // An interior tile (every tap of every output inside x) runs without any
  // row or column check: a vector load and an FMA per tap and row.
  const sidx_t ihf = (sidx_t)p0 * (sidx_t)sh - (sidx_t)pt;
  const int interior = p0 + TP <= P && ihf >= 0 &&
                       ihf + (sidx_t)(TP - 1) * (sidx_t)sh + (sidx_t)(R - 1) * (sidx_t)dh < (sidx_t)H && iw0 >= 0 &&
                       iw0 + (sidx_t)(S - 1) * (sidx_t)dw + VW <= (sidx_t)W;
  if (interior) {
    const global x_t *xt = xc + (idx_t)ihf * (idx_t)xsh + (idx_t)iw0;
    for (uint r = 0; r < R; ++r) {
      const global x_t *xr = xt + (idx_t)(r * dh) * (idx_t)xsh;
      const idx_t wr = wk + (idx_t)r * (idx_t)wsr;
      for (uint s = 0; s < S; ++s) {
        const float wv = LOAD1(W_T, Wt, wr + (idx_t)s * (idx_t)wss);
        const global x_t *xs = xr + (idx_t)(s * dw);
        UNROLL(TP)
        for (int i = 0; i < TP; ++i) acc[i] = fma(load_x_vec(xs + (idx_t)(i * sh) * (idx_t)xsh), (floatv)wv, acc[i]);
      }
    }
  } else
#endif
  for (uint r = 0; r < R; ++r) {
    const sidx_t ihr = (sidx_t)r * (sidx_t)dh - (sidx_t)pt;
    const idx_t wr = wk + (idx_t)r * (idx_t)wsr;
    for (uint s = 0; s < S; ++s) {
      const float wv = LOAD1(W_T, Wt, wr + (idx_t)s * (idx_t)wss);
      const sidx_t iw = iw0 + (sidx_t)s * (sidx_t)dw;
#if XUNIT
      const int inner = iw >= 0 && iw + VW <= (sidx_t)W;
#endif
      UNROLL(TP)
      for (int i = 0; i < TP; ++i) { // independent accumulators: many loads in flight
        const sidx_t ih = (sidx_t)(p0 + i) * (sidx_t)sh + ihr;
        if (ih < 0 || ih >= (sidx_t)H) continue;
        const global x_t *xr = xc + (idx_t)ih * (idx_t)xsh;
        floatv xv;
#if XUNIT
        if (inner)
          xv = load_x_vec(xr + (idx_t)iw);
        else
#endif
          xv = load_x_edge(X, x_len, xr, iw, sw, W, (idx_t)xsw);
        acc[i] = fma(xv, (floatv)wv, acc[i]);
      }
    }
  }
#if BIAS
  const floatv bv = (floatv)LOAD1(BIAS_T, B, b_off + k);
#else
  const floatv bv = (floatv)0.0f;
#endif
  global y_t *yk = Y + y_off + (idx_t)n * (idx_t)ysn + (idx_t)k * (idx_t)ysk + (idx_t)q0 * (idx_t)ysq;
  const uint valid = min((uint)VW, Q - q0);
  UNROLL(TP)
  for (int i = 0; i < TP; ++i) {
    if (!live || p0 + i >= P) continue;
    finish(acc[i], bv, alpha, beta, yk + (idx_t)(p0 + i) * (idx_t)ysp, (idx_t)ysq, valid);
  }
}

#else

// VW consecutive output channels' weights of one tap, from p (channel k0's
// tap): one vector in the prepared R S K layout (WUNIT), else VW loads wsk
// apart (all VW channels exist).
static inline floatv load_w_lanes(const global w_t *p, const ulong wsk) {
#if WUNIT
  (void)wsk;
  return LOADV(W_T, p);
#else
  float we[VW];
  UNROLL(VW)
  for (int v = 0; v < VW; ++v) we[v] = LOAD1(W_T, p, (idx_t)v * (idx_t)wsk);
  return VLOADF(we);
#endif
}

static inline void dw_tile(DW_PARAMS, const uint g0, const uint g1, const uint g2) {
  // No early return for work-items past the output (see above).
  const uint k0 = min(g0 * VW, K - 1), q0 = min(g1 * TP, Q - 1);
  const int live = g0 * VW < K && g1 * TP < Q;
  const uint np = g2, n = np / P, p = np - n * P;
  const uint valid = min((uint)VW, K - k0);
  const global x_t *xn = X + x_off + (idx_t)n * (idx_t)xsn;
#if XUNIT
  const int inner = valid >= VW;
#else
  const int inner = 0;
#endif
  // Channel k0's filter; each lane's input channel (clamped past K: valid,
  // not stored) for the gathers only: VW divisions cost more than a tile's
  // FMAs on a CPU.
  const global w_t *wk = Wt + w_off + (idx_t)k0 * (idx_t)wsk;
  idx_t xl[VW];
  if (!inner) {
    UNROLL(VW)
    for (uint v = 0; v < VW; ++v) xl[v] = (idx_t)(min(k0 + v, K - 1) / M) * (idx_t)xsc;
  }
  floatv acc[TP];
  UNROLL(TP)
  for (int i = 0; i < TP; ++i) acc[i] = (floatv)0.0f;
  const sidx_t ih0 = (sidx_t)p * (sidx_t)sh - (sidx_t)pt;
#if XUNIT
  // An interior tile (VW whole channels, every tap of its TP pixels inside
  // x) runs without checks or per-lane indices: a vector load and an FMA
  // per tap and pixel, the weights one vector per tap (WUNIT) or VW loads
  // wsk apart.
  const sidx_t iwf = (sidx_t)q0 * (sidx_t)sw - (sidx_t)pl;
  const int interior = inner && q0 + TP <= Q && ih0 >= 0 && ih0 + (sidx_t)(R - 1) * (sidx_t)dh < (sidx_t)H &&
                       iwf >= 0 && iwf + (sidx_t)((TP - 1) * sw) + (sidx_t)(S - 1) * (sidx_t)dw < (sidx_t)W;
  if (interior) {
    const global x_t *xt = xn + (idx_t)ih0 * (idx_t)xsh + (idx_t)iwf * (idx_t)xsw + (idx_t)k0;
    const idx_t xq = (idx_t)sw * (idx_t)xsw; // from one pixel of the tile to the next
    if (S == 3 && sw == 1 && dw == 1) {
      // The 3-wide window of stride 1 (MobileNet's filters): a row's TP + 2
      // x vectors loaded (and widened from 16 bits) once, not three times.
      for (uint r = 0; r < R; ++r) {
        const global x_t *xr = xt + (idx_t)(r * dh) * (idx_t)xsh;
        const global w_t *wr = wk + (idx_t)r * (idx_t)wsr;
        const floatv w0 = load_w_lanes(wr, wsk), w1 = load_w_lanes(wr + wss, wsk), w2 = load_w_lanes(wr + 2 * wss, wsk);
        floatv xv[TP + 2];
        UNROLL(TP + 2)
        for (int j = 0; j < TP + 2; ++j) xv[j] = load_x_vec(xr + (idx_t)j * xq);
        UNROLL(TP)
        for (int i = 0; i < TP; ++i) acc[i] = fma(xv[i + 2], w2, fma(xv[i + 1], w1, fma(xv[i], w0, acc[i])));
      }
    } else {
      for (uint r = 0; r < R; ++r) {
        const global x_t *xr = xt + (idx_t)(r * dh) * (idx_t)xsh;
        const global w_t *wr = wk + (idx_t)r * (idx_t)wsr;
        for (uint s = 0; s < S; ++s) {
          const floatv wv = load_w_lanes(wr + (idx_t)s * (idx_t)wss, wsk);
          const global x_t *xs = xr + (idx_t)(s * dw) * (idx_t)xsw;
          UNROLL(TP)
          for (int i = 0; i < TP; ++i) acc[i] = fma(load_x_vec(xs + (idx_t)i * xq), wv, acc[i]);
        }
      }
    }
  } else
#endif
  for (uint r = 0; r < R; ++r) {
    const sidx_t ih = ih0 + (sidx_t)r * (sidx_t)dh;
    if (ih < 0 || ih >= (sidx_t)H) continue; // the same for the whole row
    const global x_t *xr = xn + (idx_t)ih * (idx_t)xsh;
    for (uint s = 0; s < S; ++s) {
      const idx_t wt = (idx_t)r * (idx_t)wsr + (idx_t)s * (idx_t)wss;
      floatv wv;
      if (valid >= VW) {
        wv = load_w_lanes(wk + wt, wsk);
      } else { // a partial vector: lanes past K repeat channel K - 1
        float we[VW];
        UNROLL(VW)
        for (int v = 0; v < VW; ++v) we[v] = LOAD1(W_T, Wt, w_off + (idx_t)min(k0 + v, K - 1) * (idx_t)wsk + wt);
        wv = VLOADF(we);
      }
      const sidx_t iws = (sidx_t)s * (sidx_t)dw - (sidx_t)pl;
      UNROLL(TP)
      for (int i = 0; i < TP; ++i) {
        const sidx_t iw = (sidx_t)(q0 + i) * (sidx_t)sw + iws;
        if (iw < 0 || iw >= (sidx_t)W) continue;
        const global x_t *xp = xr + (idx_t)iw * (idx_t)xsw;
        floatv xv;
#if XUNIT
        if (inner) {
          xv = load_x_vec(xp + (idx_t)k0);
        } else
#endif
        {
          float t[VW];
          UNROLL(VW)
          for (int v = 0; v < VW; ++v) t[v] = LOAD1(X_T, xp, xl[v]);
          xv = VLOADF(t);
        }
        acc[i] = fma(xv, wv, acc[i]);
      }
    }
  }
#if BIAS
  float be[VW];
  UNROLL(VW)
  for (uint v = 0; v < VW; ++v) be[v] = LOAD1(BIAS_T, B, b_off + min(k0 + v, K - 1));
  const floatv bv = VLOADF(be);
#else
  const floatv bv = (floatv)0.0f;
#endif
  global y_t *yp = Y + y_off + (idx_t)n * (idx_t)ysn + (idx_t)p * (idx_t)ysp + (idx_t)k0 * (idx_t)ysk;
  UNROLL(TP)
  for (int i = 0; i < TP; ++i) {
    if (!live || q0 + i >= Q) continue;
    finish(acc[i], bv, alpha, beta, yp + (idx_t)(q0 + i) * (idx_t)ysq, (idx_t)ysk, valid);
  }
}

#endif

// NV tiles per work-item, one after the other, along the rows of x's
// contiguous axis for NCHW (consecutive chunks of Q: the work-item streams
// along x's rows, which a CPU's prefetcher follows) and along Q for NHWC.
kernel __attribute__((reqd_work_group_size(WG0, WG1, 1))) void clforge_conv_depthwise(DW_ARGS) {
#if CINNER
  const uint g0 = get_global_id(0), g1 = get_global_id(1) * NV;
#else
  const uint g0 = get_global_id(0) * NV, g1 = get_global_id(1);
#endif
  const uint g2 = get_global_id(2);
  for (uint it = 0; it < NV; ++it)
    dw_tile(X, x_len, x_off, xsn, xsc, xsh, xsw, Wt, w_off, wsk, wsr, wss, Y, y_off, ysn, ysk, ysp, ysq, B, b_off, K,
            M, H, W, P, Q, R, S, sh, sw, dh, dw, pt, pl, alpha, beta, CINNER ? g0 : g0 + it, CINNER ? g1 + it : g1, g2);
}
