// Convolution as an implicit GEMM: C[m][k] = sum_kk A[m][kk] * B[kk][k] with
//   m  = output pixel (n, p, q), M = N*P*Q rows
//   k  = output channel of the group, Kg = K/groups columns
//   kk = (r, s, c) over the group's input channels, (C/groups)*R*S
// without materializing A (no im2col workspace): each work-item reads its
// rows of A straight from x, and a work-group stages the filter's KC x NC
// block transposed in local memory so the micro-kernel gets vectors along k.
// The reduction runs (r, s) outer, c inner: for one (r, s) the input
// position of each row, and whether it falls in the padding, is fixed, so
// the inner loop is a plain GEMM step (scalar x broadcast times filter
// vectors) with no per-element index arithmetic; rows whose whole (r, s)
// tap is inside x take a loop without masks.
// Every layout is addressed through element strides (src/desc/conv_desc.h):
// NHWC x makes the rows' loads along c contiguous, NCHW strided (but
// neighbouring rows share cache lines); KRSC / KCRS only change the
// staging loads. One work-group grid dimension per group.
//
// Tuned parameters (-D), declared in src/families/conv_implicit_gemm.c:
//   MR, NR   work-item register block: MR pixels x NR channels (NR/VW vectors)
//   VW       vector width along k
//   MC, NC   work-group block (MC/MR x NC/NR work-items)
//   KC       channels per staged block (a barrier pair each: on PoCL the
//            work-group's work-items then use the block while it is in L1)
//   KU       unroll of the channel loop
// Problem parameters: X_T W_T Y_T BIAS_T storage codes, BIAS, ACT, IDX64,
// YC1 (y's channel stride is 1: vector stores along k).

#define NV (NR / VW)
#define MDIMP (MC / MR)
#define NDIMP (NC / NR)
#define WGS (MDIMP * NDIMP)
#define FAR_OUT 0x40000000 // a row past M: an input position that is never inside x

// The epilogue of one element: act(alpha*acc + beta*y + bias), y read only
// when beta != 0 (as cl/gemm_common.cl's epilogue1).
static inline float epi1(float acc, float alpha, float beta, const global y_t *Y, idx_t yi,
                         const global bias_t *Bias, ulong bi) {
  float v = alpha != 0.0f ? alpha * acc : 0.0f;
  if (beta != 0.0f) v = fma(beta, LOAD1(Y_T, Y, yi), v);
#if BIAS
  v += LOAD1(BIAS_T, Bias, bi);
#endif
  return ACTIVATE(v);
}

#if YC1 && VW > 1
// VW consecutive channels of one pixel (y's channel stride 1).
static inline void epi_vec(floatv acc, float alpha, float beta, global y_t *Y, idx_t yi, const global bias_t *Bias,
                           ulong bi) {
  floatv v = alpha != 0.0f ? alpha * acc : (floatv)0.0f;
  if (beta != 0.0f) {
    float t[VW];
    UNROLL(VW)
    for (int e = 0; e < VW; ++e) t[e] = LOAD1(Y_T, Y, yi + e);
    v = fma((floatv)beta, VLOADF(t), v);
  }
#if BIAS
  float tb[VW];
  UNROLL(VW)
  for (int e = 0; e < VW; ++e) tb[e] = LOAD1(BIAS_T, Bias, bi + e);
  v += VLOADF(tb);
#endif
  STOREV(Y_T, ACTIVATE(v), Y + yi);
}
#endif

// Rows m0 .. m0+ROWS-1 of a kernel: where each starts in x (ih0, iw0 before
// the tap, FAR_OUT past M; xb at the group's channel 0) and in y (yb).
#define ROW_STARTS(ROWS)                                                                   \
  int ih0[ROWS], iw0[ROWS];                                                                \
  idx_t xb[ROWS], yb[ROWS];                                                                \
  const uint PQ = P * Q;                                                                   \
  UNROLL(ROWS)                                                                             \
  for (int i = 0; i < ROWS; ++i) {                                                         \
    const idx_t m = m0 + i;                                                                \
    const int in = m < (idx_t)m_total;                                                     \
    const idx_t mm = in ? m : 0;                                                           \
    const idx_t n = mm / PQ;                                                               \
    const uint pq = (uint)(mm - n * PQ);                                                   \
    const uint p = pq / Q, q = pq - p * Q;                                                 \
    ih0[i] = in ? (int)(p * sh) - (int)pt : FAR_OUT;                                       \
    iw0[i] = in ? (int)(q * sw) - (int)pl : FAR_OUT;                                       \
    xb[i] = gbase + n * (idx_t)xs_n;                                                       \
    yb[i] = (idx_t)y_off + n * (idx_t)ys_n + p * (idx_t)ys_h + q * (idx_t)ys_w;            \
  }

// One step of the channel loop: row i's x value (masked or not) times the
// NV filter vectors of channel cc.
#define STEP(cc, MASKED)                                                          \
  do {                                                                            \
    floatv b[NV];                                                                 \
    UNROLL(NV)                                                                    \
    for (int t = 0; t < NV; ++t) b[t] = VLOADF(bp + (cc) * NC + t * VW);          \
    UNROLL(MR)                                                                    \
    for (int i = 0; i < MR; ++i) {                                                \
      float a = LOAD1(X_T, X, off[i] + (idx_t)(cc) * xsc);                        \
      if (MASKED) a = ok[i] ? a : 0.0f;                                           \
      const floatv av = (floatv)a;                                                \
      UNROLL(NV)                                                                  \
      for (int t = 0; t < NV; ++t) acc[i][t] = fma(av, b[t], acc[i][t]);          \
    }                                                                             \
  } while (0)

#define CHANNEL_LOOP(MASKED)                                                      \
  do {                                                                            \
    uint cc = 0;                                                                  \
    for (; cc + KU <= kc; cc += KU) {                                             \
      UNROLL(KU)                                                                  \
      for (int u = 0; u < KU; ++u) STEP(cc + u, MASKED);                          \
    }                                                                             \
    for (; cc < kc; ++cc) STEP(cc, MASKED);                                       \
  } while (0)

// Global size (ceil(Kg / NC) * NDIMP, ceil(M / MC) * MDIMP, groups).
kernel __attribute__((reqd_work_group_size(NDIMP, MDIMP, 1)))
void clforge_conv_implicit_gemm(const global x_t *restrict X, const ulong x_off, const ulong xs_n, const ulong xs_c,
                                const ulong xs_h, const ulong xs_w, const global w_t *restrict Wf, const ulong w_off,
                                const ulong ws_k, const ulong ws_c, const ulong ws_r, const ulong ws_s,
                                global y_t *restrict Y, const ulong y_off, const ulong ys_n, const ulong ys_c,
                                const ulong ys_h, const ulong ys_w, const global bias_t *restrict Bias,
                                const ulong bias_off, const ulong m_total, const uint P, const uint Q, const uint H,
                                const uint W, const uint R, const uint S, const uint Cg, const uint Kg,
                                const uint sh, const uint sw, const uint dh, const uint dw, const uint pt,
                                const uint pl, const float alpha, const float beta) {
  local float Bl[KC * NC];
  const uint g = get_group_id(2), lc = get_local_id(0), lr = get_local_id(1);
  const uint lid = lr * NDIMP + lc;
  const uint k0 = get_group_id(0) * NC;                  // the work-group's first column
  const uint cw = lc * NR;                               // this work-item's columns in the block
  const idx_t m0 = (idx_t)get_group_id(1) * MC + lr * MR; // this work-item's first row
  const idx_t xsc = (idx_t)xs_c, xsh = (idx_t)xs_h, xsw = (idx_t)xs_w;
  const idx_t gbase = (idx_t)x_off + (idx_t)g * Cg * xsc; // the group's first channel at (0, 0, 0): always inside x
  const idx_t wbase = (idx_t)w_off + (idx_t)g * Kg * (idx_t)ws_k;

  ROW_STARTS(MR);

  floatv acc[MR][NV];
  UNROLL(MR)
  for (int i = 0; i < MR; ++i) {
    UNROLL(NV)
    for (int t = 0; t < NV; ++t) acc[i][t] = (floatv)0.0f;
  }

  // alpha == 0: x and w do not count (not even their Inf/NaN).
  const uint taps = alpha != 0.0f ? R * S : 0;
  for (uint rs = 0; rs < taps; ++rs) {
    const uint r = rs / S, s = rs - r * S;
    idx_t off[MR];
    int ok[MR];
    int all = 1;
    UNROLL(MR)
    for (int i = 0; i < MR; ++i) {
      const int ih = ih0[i] + (int)(r * dh), iw = iw0[i] + (int)(s * dw);
      ok[i] = (uint)ih < H && (uint)iw < W;
      off[i] = ok[i] ? xb[i] + (idx_t)ih * xsh + (idx_t)iw * xsw : gbase; // masked rows read a safe element
      all &= ok[i];
    }
    const idx_t wtap = wbase + (idx_t)r * (idx_t)ws_r + (idx_t)s * (idx_t)ws_s;
    for (uint c0 = 0; c0 < Cg; c0 += KC) {
      const uint kc = min((uint)KC, Cg - c0);
      // The filter block, transposed: Bl[cc][j] = w[k0 + j][c0 + cc][r][s] for
      // the kc channels the loop below reads (few on a 3-channel stem), zeros past Kg.
      for (uint e = lid; e < kc * NC; e += WGS) {
        const uint cc = e / NC, j = e - cc * NC;
        float v = 0.0f;
        if (k0 + j < Kg) v = LOAD1(W_T, Wf, wtap + (idx_t)(k0 + j) * (idx_t)ws_k + (idx_t)(c0 + cc) * (idx_t)ws_c);
        Bl[e] = v;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const local float *bp = Bl + cw;
      if (all) {
        CHANNEL_LOOP(0);
      } else {
        CHANNEL_LOOP(1);
      }
      barrier(CLK_LOCAL_MEM_FENCE); // every work-item is done with the block before the next is staged
      UNROLL(MR)
      for (int i = 0; i < MR; ++i) off[i] += (idx_t)KC * xsc;
    }
  }

  const uint col0 = k0 + cw;
  if (col0 >= Kg) return;
  const ulong kabs0 = (ulong)g * Kg + col0; // the first absolute output channel of this work-item
  const idx_t ysc = (idx_t)ys_c;
  // The epilogue as a loop, not unrolled: one copy of its code instead of
  // MR x NV (PoCL compiled the 12 x 32 block with vector stores in 14 s,
  // now 1-2 s). The accumulators and row bases go through arrays of their
  // own so that the k loop's stay in registers.
  floatv res[MR][NV];
  idx_t ybr[MR];
  UNROLL(MR)
  for (int i = 0; i < MR; ++i) {
    ybr[i] = yb[i];
    UNROLL(NV)
    for (int t = 0; t < NV; ++t) res[i][t] = acc[i][t];
  }
#pragma nounroll
  for (int i = 0; i < MR; ++i) {
    if (m0 + i >= (idx_t)m_total) break;
#pragma nounroll
    for (int t = 0; t < NV; ++t) {
      const uint col = col0 + t * VW;
      const idx_t yi = ybr[i] + (idx_t)(kabs0 + t * VW) * ysc;
#if YC1 && VW > 1
      if (col + VW <= Kg) {
        epi_vec(res[i][t], alpha, beta, Y, yi, Bias, bias_off + kabs0 + t * VW);
        continue;
      }
#endif
      float e[VW];
      VSTOREF(res[i][t], e);
      // Not unrolled: MR*NV*VW copies of the epilogue made most of the
      // kernel's code (its compile took 3x longer) for no speed.
      UNROLL(1)
      for (int v = 0; v < VW; ++v) {
        if (col + v >= Kg) break;
        const idx_t yv = yi + (idx_t)v * ysc;
        STORE1(Y_T, epi1(e[v], alpha, beta, Y, yv, Bias, bias_off + kabs0 + t * VW + v), Y, yv);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The contiguous-channel kernel (x's and w's channel strides 1: NHWC x with
// KRSC filters, C/groups >= DVW): no staging, no barrier. A work-item holds
// DMR pixels x DNR output channels as DVW-wide partial sums along c: x's
// row vectors and the filter's row vectors are both plain vector loads, and
// each FMA multiplies one of each; the lanes are summed once at the end.
// Global size (ceil(M / DMR), ceil(Kg / DNR), groups), each rounded to the local size.
#define DWLOAD_1(p) CLFORGE_CAT(vload, DVW)(0, p)
#define DWLOAD_2(p) CLFORGE_CAT(clforge_f32_from_f16_bits_uint, DVW)(CLFORGE_CAT(convert_uint, DVW)(CLFORGE_CAT(vload, DVW)(0, p)))
#define DWLOAD_3(p) CLFORGE_CAT(as_float, DVW)(CLFORGE_CAT(convert_uint, DVW)(CLFORGE_CAT(vload, DVW)(0, p)) << 16)
#define DWLOAD(T, p) CLFORGE_CAT(DWLOAD_, T)(p)
typedef CLFORGE_CAT(float, DVW) floatd;

// The sum of a partial-sum vector's lanes as a tree of halves (a serial sum
// of 16 lanes costs as much as a 3x3x64 tap loop).
static inline float lanes_sum(floatd v) {
#if DVW == 16
  const float8 a = v.lo + v.hi;
  const float4 b = a.lo + a.hi;
#elif DVW == 8
  const float4 b = v.lo + v.hi;
#else
  const float4 b = v;
#endif
  const float2 c = b.lo + b.hi;
  return c.x + c.y;
}

kernel void clforge_conv_implicit_gemm_dot(const global x_t *restrict X, const ulong x_off, const ulong xs_n,
                                           const ulong xs_c, const ulong xs_h, const ulong xs_w,
                                           const global w_t *restrict Wf, const ulong w_off, const ulong ws_k,
                                           const ulong ws_c, const ulong ws_r, const ulong ws_s,
                                           global y_t *restrict Y, const ulong y_off, const ulong ys_n,
                                           const ulong ys_c, const ulong ys_h, const ulong ys_w,
                                           const global bias_t *restrict Bias, const ulong bias_off,
                                           const ulong m_total, const uint P, const uint Q, const uint H,
                                           const uint W, const uint R, const uint S, const uint Cg, const uint Kg,
                                           const uint sh, const uint sw, const uint dh, const uint dw,
                                           const uint pt, const uint pl, const float alpha, const float beta) {
  (void)xs_c, (void)ws_c;
  const uint g = get_group_id(2);
  const uint j0 = get_global_id(1) * DNR;
  if (j0 >= Kg) return;
  const idx_t m0 = (idx_t)get_global_id(0) * DMR;
  const idx_t xsh = (idx_t)xs_h, xsw = (idx_t)xs_w;
  const idx_t gbase = (idx_t)x_off + (idx_t)g * Cg; // always inside x
  ROW_STARTS(DMR);
  idx_t wb[DNR];
  UNROLL(DNR)
  for (int j = 0; j < DNR; ++j) // columns past Kg read the last one (not stored)
    wb[j] = (idx_t)w_off + (idx_t)(g * Kg + min(j0 + j, Kg - 1)) * (idx_t)ws_k;

  floatd acc[DMR][DNR];
  UNROLL(DMR)
  for (int i = 0; i < DMR; ++i) {
    UNROLL(DNR)
    for (int j = 0; j < DNR; ++j) acc[i][j] = (floatd)0.0f;
  }
  const uint taps = alpha != 0.0f ? R * S : 0;
  const uint cfull = Cg - Cg % DVW;
  for (uint rs = 0; rs < taps; ++rs) {
    const uint r = rs / S, s = rs - r * S;
    const idx_t wt = (idx_t)r * (idx_t)ws_r + (idx_t)s * (idx_t)ws_s;
    idx_t off[DMR];
    int ok[DMR];
    UNROLL(DMR)
    for (int i = 0; i < DMR; ++i) {
      const int ih = ih0[i] + (int)(r * dh), iw = iw0[i] + (int)(s * dw);
      ok[i] = (uint)ih < H && (uint)iw < W;
      off[i] = ok[i] ? xb[i] + (idx_t)ih * xsh + (idx_t)iw * xsw : gbase;
    }
    for (uint c = 0; c < cfull; c += DVW) {
      floatd xv[DMR];
      UNROLL(DMR)
      for (int i = 0; i < DMR; ++i) xv[i] = ok[i] ? DWLOAD(X_T, X + off[i] + c) : (floatd)0.0f;
      UNROLL(DNR)
      for (int j = 0; j < DNR; ++j) {
        const floatd wv = DWLOAD(W_T, Wf + wb[j] + wt + c);
        UNROLL(DMR)
        for (int i = 0; i < DMR; ++i) acc[i][j] = fma(xv[i], wv, acc[i][j]);
      }
    }
    if (cfull < Cg) { // the last Cg % DVW channels, zero-padded
      float tx[DMR][DVW], tw[DVW];
      UNROLL(DMR)
      for (int i = 0; i < DMR; ++i)
        for (int e = 0; e < DVW; ++e) tx[i][e] = ok[i] && cfull + e < Cg ? LOAD1(X_T, X, off[i] + cfull + e) : 0.0f;
      UNROLL(DNR)
      for (int j = 0; j < DNR; ++j) {
        for (int e = 0; e < DVW; ++e) tw[e] = cfull + e < Cg ? LOAD1(W_T, Wf, wb[j] + wt + cfull + e) : 0.0f;
        const floatd wv = CLFORGE_CAT(vload, DVW)(0, tw);
        UNROLL(DMR)
        for (int i = 0; i < DMR; ++i) acc[i][j] = fma(CLFORGE_CAT(vload, DVW)(0, tx[i]), wv, acc[i][j]);
      }
    }
  }

  const idx_t ysc = (idx_t)ys_c;
  UNROLL(DMR)
  for (int i = 0; i < DMR; ++i) {
    if (m0 + i >= (idx_t)m_total) break;
    UNROLL(DNR)
    for (int j = 0; j < DNR; ++j) {
      if (j0 + j >= Kg) break;
      const float sum = lanes_sum(acc[i][j]);
      const ulong kabs = (ulong)g * Kg + j0 + j;
      const idx_t yi = yb[i] + (idx_t)kabs * ysc;
      STORE1(Y_T, epi1(sum, alpha, beta, Y, yi, Bias, bias_off + kabs), Y, yi);
    }
  }
}
