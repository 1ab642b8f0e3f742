// Direct convolution: the universal fallback (src/ops/conv_direct.c). Every
// shape the descriptor allows: any groups, stride, dilation, asymmetric
// padding, NCHW/NHWC x and y, KCRS/KRSC filters, every storage mix, the
// fused epilogue. All tensors are indexed through element strides passed
// as arguments, so one kernel serves every layout; the geometry is not
// compiled in (one build serves every shape of a layout and type mix).
//
// A work-item computes TQ x VW output pixels of one row (along Q) times TK
// output channels of one group; the work-group is WGQ x WGK work-items. A
// work-item's pixels are TQ chunks of VW consecutive pixels, the chunks
// interleaved across the WGQ work-items (neighbouring work-items read
// neighbouring x). Channels are TK consecutive ones per work-item. Out of
// range channels compute on clamped (valid) indices and are not stored.
// The chunks of a row are laid out so that nearly all are interior (no
// column in the padding for any tap: chunk_of), and those run a loop with
// no column checks; only the border chunks check each column.
//
// Tuned parameters (-D), declared in src/families/conv_direct.c:
//   TQ   chunks of pixels per work-item   TK   output channels per work-item
//   WGQ  work-group size along Q          WGK  work-group size along K
//   VW   pixels per chunk (an explicit float vector)
// Problem options (-D, src/ops/conv_common.c): X_T W_T Y_T BIAS BIAS_T ACT
// IDX64, and from src/ops/conv_direct.c: XUNIT (1 when x's W axis is
// contiguous and stride_w is 1: a chunk is VW consecutive x elements) and
// WIDE (coordinates may pass 2^31: compute them in 64 bits).

// A chunk of VW pixels of x row `xr` whose first input column is iw (the
// next ones are sw apart): 0 where a column falls in the padding. Chunks
// wholly inside the row are one vector load.
static inline floatv load_x_chunk(const global x_t *X, ulong xlen, const global x_t *xr, sidx_t iw, uint sw, uint W,
                                  idx_t xsw) {
#if XUNIT && VW > 1
  if (iw >= 0 && iw + VW <= (sidx_t)W) return load_x_vec(xr + (idx_t)iw);
#endif
  return load_x_edge(X, xlen, xr, iw, sw, W, xsw);
}

// The reduction over the group's input channels and the filter taps; rows
// in the padding are skipped (the same for the whole work-group), columns
// are LOAD_X's business.
#define DIRECT_LOOP(LOAD_X)                                                                \
  for (uint c = 0; c < cg; ++c) {                                                          \
    const global x_t *xc = xn + (idx_t)c * (idx_t)xsc;                                     \
    const idx_t wc = (idx_t)c * (idx_t)wsc;                                                \
    for (uint r = 0; r < R; ++r) {                                                         \
      const sidx_t ih = ih0 + (sidx_t)r * (sidx_t)dh;                                      \
      if (ih < 0 || ih >= (sidx_t)H) continue;                                             \
      const global x_t *xr = xc + (idx_t)ih * (idx_t)xsh;                                  \
      const idx_t wr = wc + (idx_t)r * (idx_t)wsr;                                         \
      for (uint s = 0; s < S; ++s) {                                                       \
        const sidx_t tap = (sidx_t)s * (sidx_t)dw;                                         \
        const idx_t ws = wr + (idx_t)s * (idx_t)wss;                                       \
        float wv[TK];                                                                      \
        UNROLL(TK)                                                                         \
        for (int j = 0; j < TK; ++j) wv[j] = LOAD1(W_T, Wt, wk[j] + ws);                   \
        UNROLL(TQ)                                                                         \
        for (int t = 0; t < TQ; ++t) {                                                     \
          const floatv xv = LOAD_X;                                                        \
          UNROLL(TK)                                                                       \
          for (int j = 0; j < TK; ++j) acc[t][j] = fma(xv, (floatv)wv[j], acc[t][j]);      \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
  }

// Where chunk ci of an output row lies. The row is cut into three runs of
// chunks: [0, qlo) (left border), [qlo, qhi) (interior: every tap of every
// pixel inside x, so no column checks), [qhi, Q) (right border). The last
// interior chunk is moved left to end at qhi, so that it stays interior; it
// stores only the pixels no other chunk does. *start: its first pixel,
// [*lo, *hi): the pixels it stores; returns 1 for an interior chunk.
static inline int chunk_of(uint ci, uint nl, uint ni, uint qlo, uint qhi, uint Q, uint *start, uint *lo, uint *hi) {
  if (ci < nl) {
    *start = *lo = ci * VW, *hi = min(*start + VW, qlo);
    return 0;
  }
  if (ci < nl + ni) {
    const uint nominal = qlo + (ci - nl) * VW;
    *start = min(nominal, qhi - VW), *lo = nominal, *hi = min(nominal + VW, qhi);
    return 1;
  }
  *start = *lo = qhi + (ci - nl - ni) * VW, *hi = min(*start + VW, Q);
  return 0;
}

// An interior chunk's x values: every column inside the row.
static inline floatv load_x_inner(const global x_t *xr, sidx_t iw, uint sw, idx_t xsw) {
#if XUNIT
  return load_x_vec(xr + (idx_t)iw);
#else
  float t[VW];
  UNROLL(VW)
  for (int v = 0; v < VW; ++v) t[v] = LOAD1(X_T, xr, (idx_t)(iw + (sidx_t)v * (sidx_t)sw) * xsw);
  return VLOADF(t);
#endif
}

kernel __attribute__((reqd_work_group_size(WGQ, WGK, 1)))
void clforge_conv_direct(const global x_t *restrict X, const ulong x_len, const ulong x_off, const ulong xsn,
                         const ulong xsc, const ulong xsh, const ulong xsw_, const global w_t *restrict Wt,
                         const ulong w_off, const ulong wsk, const ulong wsc, const ulong wsr, const ulong wss,
                         global y_t *restrict Y, const ulong y_off, const ulong ysn, const ulong ysk, const ulong ysp,
                         const ulong ysq, const global bias_t *restrict B, const ulong b_off, const uint P,
                         const uint cg, const uint kg, const uint ktiles, const uint H, const uint W, const uint Q,
                         const uint R, const uint S, const uint sh, const uint sw, const uint dh, const uint dw,
                         const uint pt, const uint pl, const uint qlo, const uint qhi, const uint nl, const uint ni,
                         const float alpha, const float beta) {
  const uint lq = get_local_id(0), lk = get_local_id(1);
  const uint np = get_global_id(2), n = np / P, p = np - n * P;
  const uint gt = get_group_id(1), g = gt / ktiles, kt = gt - g * ktiles;
  const uint k0 = kt * (WGK * TK) + lk * TK; // first channel of this work-item, within the group
  const uint cb = get_group_id(0) * (WGQ * TQ) + lq; // its first chunk; the next ones WGQ apart
  const idx_t xsw = (idx_t)xsw_;

  // Channel offsets into w (clamped channels: valid, not stored).
  idx_t wk[TK];
  UNROLL(TK)
  for (int j = 0; j < TK; ++j) wk[j] = w_off + (idx_t)(g * kg + min(k0 + j, kg - 1)) * (idx_t)wsk;
  // Each chunk's place, and its first input column before the filter tap.
  uint qs[TQ], qlo_t[TQ], qhi_t[TQ];
  sidx_t iwb[TQ];
  int interior = 1;
  UNROLL(TQ)
  for (int t = 0; t < TQ; ++t) {
    interior &= chunk_of(cb + t * WGQ, nl, ni, qlo, qhi, Q, &qs[t], &qlo_t[t], &qhi_t[t]);
    iwb[t] = (sidx_t)qs[t] * (sidx_t)sw - (sidx_t)pl;
  }

  floatv acc[TQ][TK];
  UNROLL(TQ)
  for (int t = 0; t < TQ; ++t) {
    UNROLL(TK)
    for (int j = 0; j < TK; ++j) acc[t][j] = (floatv)0.0f;
  }

  const global x_t *xn = X + x_off + (idx_t)n * (idx_t)xsn + (idx_t)(g * cg) * (idx_t)xsc;
  const sidx_t ih0 = (sidx_t)p * (sidx_t)sh - (sidx_t)pt;
  if (interior) { // the common case: no column checks
    DIRECT_LOOP(load_x_inner(xr, iwb[t] + tap, sw, xsw))
  } else {
    DIRECT_LOOP(load_x_chunk(X, x_len, xr, iwb[t] + tap, sw, W, xsw))
  }

  // Epilogue: act(alpha*acc + bias + beta*y); y read only when beta != 0,
  // alpha == 0 means x and w do not count (not even their Inf/NaN).
  global y_t *yn = Y + y_off + (idx_t)n * (idx_t)ysn + (idx_t)p * (idx_t)ysp;
  UNROLL(TK)
  for (int j = 0; j < TK; ++j) {
    if (k0 + j >= kg) continue;
    const uint k = g * kg + k0 + j;
    global y_t *yk = yn + (idx_t)k * (idx_t)ysk;
#if BIAS
    const float bk = LOAD1(BIAS_T, B, b_off + k);
#else
    const float bk = 0.0f;
#endif
    UNROLL(TQ)
    for (int t = 0; t < TQ; ++t) {
      float e[VW];
#if VW == 1
      e[0] = acc[t][j];
#else
      CLFORGE_CAT(vstore, VW)(acc[t][j], 0, e);
#endif
      UNROLL(VW)
      for (int v = 0; v < VW; ++v) {
        const uint q = qs[t] + v;
        if (q < qlo_t[t] || q >= qhi_t[t]) continue;
        const idx_t yi = (idx_t)q * (idx_t)ysq;
        float o = alpha != 0.0f ? alpha * e[v] : 0.0f;
        o += bk;
        if (beta != 0.0f) o = fma(beta, LOAD1(Y_T, yk, yi), o);
        o = ACTIVATE(o);
        STORE1(Y_T, o, yk, yi);
      }
    }
  }
}
