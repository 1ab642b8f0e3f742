// Winograd convolution F(WM x WM, 3x3) (src/ops/conv_winograd.c): the
// filter, input and output transforms around a batched clforge GEMM.
//   WM      output tile: 2 (F(2x2,3x3), 4x4 input tiles) or 4 (F(4x4,3x3), 6x6)
//   VW      vector lanes of the input and output transforms (channels)
//   X_T W_T Y_T BIAS_T BIAS ACT IDX64   the problem (src/ops/conv_common.c)
// Transformed planes t = 0..WT*WT-1, each holding every group:
//   U[t][g][c][k]   (c, k within the group; KG = K/G)
//   V[t][g][tile][c]   nt tiles (one pass) x CG channels
//   M[t][g][tile][k]   nt tiles x KG output channels
// Tiles of a pass are tile0 .. tile0+cnt-1 of the flattened (n, ty, tx) grid;
// nt (>= cnt) is the pass's capacity, the planes' tile dimension.
// Workspace indices are uint (the host keeps the workspace below 2^32
// floats); tensor indices are idx_t.
// Launches are 1-D, WG work-items a group whatever the shape (one compile
// per program): a work-item's two coordinates come from its flat id.
// (Remainders as x - q * y: the compiler's div/rem pairing would emit an
// LLVM `freeze`, which Oclgrind cannot run.)

#define WT (WM + 2)

// One dimension of each transform on WT values (in place would alias; the
// macros read a[] and write b[]). Points 0, +-1, (+-2), infinity: the usual
// choice; its error bound is in src/ops/conv_winograd.c.
#if WM == 2
// G g: g0, (g0+g1+g2)/2, (g0-g1+g2)/2, g2
#define FILTER1(a, b)                          \
  do {                                         \
    float e_ = 0.5f * ((a)[0] + (a)[2]);       \
    (b)[0] = (a)[0];                           \
    (b)[1] = e_ + 0.5f * (a)[1];               \
    (b)[2] = e_ - 0.5f * (a)[1];               \
    (b)[3] = (a)[2];                           \
  } while (0)
// B^T d
#define INPUT1(T, a, b)                        \
  do {                                         \
    (b)[0] = (a)[0] - (a)[2];                  \
    (b)[1] = (a)[1] + (a)[2];                  \
    (b)[2] = (a)[2] - (a)[1];                  \
    (b)[3] = (a)[1] - (a)[3];                  \
  } while (0)
// A^T m
#define OUTPUT1(T, a, b)                       \
  do {                                         \
    (b)[0] = (a)[0] + (a)[1] + (a)[2];         \
    (b)[1] = (a)[1] - (a)[2] - (a)[3];         \
  } while (0)
#elif WM == 4
// G g with G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
#define FILTER1(a, b)                                        \
  do {                                                       \
    float s_ = (a)[0] + (a)[2], t_ = (a)[0] * 0.25f + (a)[2]; \
    (b)[0] = 0.25f * (a)[0];                                 \
    (b)[1] = (-1.0f / 6.0f) * (s_ + (a)[1]);                 \
    (b)[2] = (-1.0f / 6.0f) * (s_ - (a)[1]);                 \
    (b)[3] = (1.0f / 6.0f) * (t_ + 0.5f * (a)[1]);           \
    (b)[4] = (1.0f / 6.0f) * (t_ - 0.5f * (a)[1]);           \
    (b)[5] = (a)[2];                                         \
  } while (0)
// B^T d with B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
//                   0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
#define INPUT1(T, a, b)                                      \
  do {                                                       \
    T p_ = (a)[4] - 4.0f * (a)[2], q_ = (a)[3] - 4.0f * (a)[1]; \
    T r_ = (a)[4] - (a)[2], s_ = 2.0f * ((a)[3] - (a)[1]); \
    (b)[0] = 4.0f * (a)[0] - 5.0f * (a)[2] + (a)[4];         \
    (b)[1] = p_ + q_;                                        \
    (b)[2] = p_ - q_;                                        \
    (b)[3] = r_ + s_;                                        \
    (b)[4] = r_ - s_;                                        \
    (b)[5] = 4.0f * (a)[1] - 5.0f * (a)[3] + (a)[5];         \
  } while (0)
// A^T m with A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
#define OUTPUT1(T, a, b)                                     \
  do {                                                       \
    T s1_ = (a)[1] + (a)[2], d1_ = (a)[1] - (a)[2];      \
    T s2_ = (a)[3] + (a)[4], d2_ = (a)[3] - (a)[4];      \
    (b)[0] = (a)[0] + s1_ + s2_;                             \
    (b)[1] = d1_ + 2.0f * d2_;                               \
    (b)[2] = s1_ + 4.0f * s2_;                               \
    (b)[3] = d1_ + 8.0f * d2_ + (a)[5];                      \
  } while (0)
#else
#error "WM must be 2 or 4"
#endif

// U = G g G^T for one (k, c): flat id c * K + k. w strides: k, c, r, s.
kernel void clforge_conv_winograd_filter(const global w_t *restrict W, idx_t w_off, idx_t ws0, idx_t ws1, idx_t ws2,
                                         idx_t ws3, global float *restrict U, uint u_off, uint K, uint CG, uint KG,
                                         uint G) {
  const uint id = (uint)get_global_id(0), c = id / K, k = id - c * K;
  if (c >= CG) return;
  float g[9], a[3], b[WT], t[WT][3];
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) g[r * 3 + s] = LOAD1(W_T, W, w_off + k * ws0 + c * ws1 + r * ws2 + s * ws3);
  for (int s = 0; s < 3; ++s) { // columns: G g
    a[0] = g[s], a[1] = g[3 + s], a[2] = g[6 + s];
    FILTER1(a, b);
    for (int i = 0; i < WT; ++i) t[i][s] = b[i];
  }
  const uint grp = k / KG, kk = k - grp * KG;
  const uint plane = G * CG * KG;
  for (int i = 0; i < WT; ++i) { // rows: (G g) G^T
    FILTER1(t[i], b);
    for (int j = 0; j < WT; ++j) U[u_off + (uint)(i * WT + j) * plane + (grp * CG + c) * KG + kk] = b[j];
  }
}

// ------------------------------------------------------------ vector helpers
// The input and output transforms run on VW channels at once (explicit
// vectors: PoCL does not vectorize these kernels across work-items). V and
// M keep channels innermost, so their accesses are vectors; x and y are
// vectors where NHWC, lane by lane where NCHW (the arithmetic stays vector).
// Lanes past C or K, or across a group boundary, go lane by lane.
// (Lanes along a tile row for NCHW, with V and M tile-innermost, measured
// slower: the GEMM on those transposed planes loses more than the
// transforms gain.)
// (floatv, VLOADF, LOADV and their stores: cl/conv_base.cl.)

// ------------------------------------------------------------ input transform
// V = B^T d B: flat id ti * ceil(C/VW) + c0/VW, V[t][g][tile][c].
kernel void clforge_conv_winograd_input(const global x_t *restrict X, idx_t x_off, idx_t xs0, idx_t xs1, idx_t xs2,
                                        idx_t xs3, uint H, uint Wd, int pad_t, int pad_l, uint TH, uint TW,
                                        uint tile0, uint cnt, uint nt, uint C, uint CG, global float *restrict V,
                                        uint v_off) {
  floatv d[WT][WT];
  float tmp[VW];
  const uint plane = nt * C;
  const uint nv = (C + VW - 1) / VW, id = (uint)get_global_id(0), ti = id / nv, c0 = (id - ti * nv) * VW;
  if (ti >= cnt) return;
  const uint tile = tile0 + ti, per = TH * TW;
  const uint n = tile / per, rem = tile - n * per, ty = rem / TW, tx = rem - ty * TW;
  const int h0 = (int)(ty * WM) - pad_t, w0 = (int)(tx * WM) - pad_l;
  const uint grp = c0 / CG, cc = c0 - grp * CG;
  const int full = c0 + VW <= C && cc + VW <= CG; // lanes are channels of one group
  const idx_t base = x_off + (idx_t)n * xs0 + (idx_t)c0 * xs1;
  for (int i = 0; i < WT; ++i)
    for (int j = 0; j < WT; ++j) {
      const int h = h0 + i, w = w0 + j;
      if (h >= 0 && h < (int)H && w >= 0 && w < (int)Wd) {
        const idx_t at = base + (idx_t)h * xs2 + (idx_t)w * xs3;
        if (full && xs1 == 1) {
          d[i][j] = LOADV(X_T, X + at);
        } else if (full) {
          for (int l = 0; l < VW; ++l) tmp[l] = LOAD1(X_T, X, at + (idx_t)l * xs1);
          d[i][j] = VLOADF(tmp);
        } else {
          for (int l = 0; l < VW; ++l) tmp[l] = c0 + l < C ? LOAD1(X_T, X, at + (idx_t)l * xs1) : 0.0f;
          d[i][j] = VLOADF(tmp);
        }
      } else {
        d[i][j] = (floatv)0.0f;
      }
    }
  const uint at = v_off + grp * nt * CG + ti * CG + cc;
  floatv t[WT][WT], a[WT], b[WT];
  for (int j = 0; j < WT; ++j) { // columns: B^T d
    for (int i = 0; i < WT; ++i) a[i] = d[i][j];
    INPUT1(floatv, a, b);
    for (int i = 0; i < WT; ++i) t[i][j] = b[i];
  }
  for (int i = 0; i < WT; ++i) { // rows: (B^T d) B
    INPUT1(floatv, t[i], b);
    for (int j = 0; j < WT; ++j) {
      const uint o = at + (uint)(i * WT + j) * plane;
      if (full) {
        VSTOREF(b[j], V + o);
      } else {
        VSTOREF(b[j], tmp);
        for (int l = 0; l < VW; ++l) {
          const uint cl = c0 + l;
          if (cl >= C) break;
          const uint g2 = cl / CG;
          V[v_off + (uint)(i * WT + j) * plane + g2 * nt * CG + ti * CG + (cl - g2 * CG)] = tmp[l];
        }
      }
    }
  }
}

// ----------------------------------------------------------- output transform
// Y = A^T M A and the epilogue y = act(alpha*Y + bias[k] + beta*y); use_m 0:
// alpha is 0, M is not read. Flat id ti * ceil(K/VW) + k0/VW, M[t][g][tile][k].
static inline float epi1(float acc, float bk, float beta, const global y_t *Y, idx_t at) {
  float v = acc + bk;
  if (beta != 0.0f) v += beta * LOAD1(Y_T, Y, at);
  return ACTIVATE(v);
}

kernel void clforge_conv_winograd_output(const global float *restrict M, uint m_off, uint tile0, uint cnt, uint nt,
                                         uint K, uint KG, uint TH, uint TW, uint P, uint Q, global y_t *restrict Y,
                                         idx_t y_off, idx_t ys0, idx_t ys1, idx_t ys2, idx_t ys3,
                                         const global bias_t *restrict Bias, idx_t b_off, idx_t bs0, float alpha,
                                         float beta, int use_m) {
  floatv m[WT][WT];
  float tmp[VW];
  const uint plane = nt * K;
  const uint nv = (K + VW - 1) / VW, id = (uint)get_global_id(0), ti = id / nv, k0 = (id - ti * nv) * VW;
  if (ti >= cnt) return;
  const uint grp = k0 / KG, kk = k0 - grp * KG;
  const int full = k0 + VW <= K && kk + VW <= KG;
  if (use_m)
    for (int i = 0; i < WT; ++i)
      for (int j = 0; j < WT; ++j) {
        const uint o = m_off + (uint)(i * WT + j) * plane;
        if (full) {
          m[i][j] = VLOADF(M + o + grp * nt * KG + ti * KG + kk);
        } else {
          for (int l = 0; l < VW; ++l) {
            const uint kl = k0 + l, g2 = kl / KG;
            tmp[l] = kl < K ? M[o + g2 * nt * KG + ti * KG + (kl - g2 * KG)] : 0.0f;
          }
          m[i][j] = VLOADF(tmp);
        }
      }
  floatv o[WM][WM];
  if (use_m) {
    floatv t[WM][WT], a[WT], b[WM];
    for (int j = 0; j < WT; ++j) { // columns: A^T m
      for (int i = 0; i < WT; ++i) a[i] = m[i][j];
      OUTPUT1(floatv, a, b);
      for (int i = 0; i < WM; ++i) t[i][j] = b[i];
    }
    for (int i = 0; i < WM; ++i) { // rows: (A^T m) A
      OUTPUT1(floatv, t[i], b);
      for (int j = 0; j < WM; ++j) o[i][j] = alpha * b[j];
    }
  } else {
    for (int i = 0; i < WM; ++i)
      for (int j = 0; j < WM; ++j) o[i][j] = (floatv)0.0f;
  }
  // Lanes are output channels, contiguous in y.
  const uint tile = tile0 + ti, per = TH * TW;
  const uint n = tile / per, rem = tile - n * per, ty = rem / TW, tx = rem - ty * TW;
  float bka[VW];
  for (int l = 0; l < VW; ++l) {
    bka[l] = 0.0f;
#if BIAS
    if (k0 + l < K) bka[l] = LOAD1(BIAS_T, Bias, b_off + (idx_t)(k0 + l) * bs0);
#endif
  }
  const floatv bk = VLOADF(bka);
  const idx_t base = y_off + (idx_t)n * ys0 + (idx_t)k0 * ys1;
  for (int i = 0; i < WM; ++i) {
    const uint p = ty * WM + i;
    if (p >= P) break;
    for (int j = 0; j < WM; ++j) {
      const uint q = tx * WM + j;
      if (q >= Q) break;
      const idx_t at = base + (idx_t)p * ys2 + (idx_t)q * ys3;
      if (full && ys1 == 1) {
        floatv v = o[i][j] + bk;
        if (beta != 0.0f) v += beta * LOADV(Y_T, Y + at);
        v = ACTIVATE(v);
        STOREV(Y_T, v, Y + at);
      } else if (full) { // y NCHW: the epilogue on vectors, the stores lane by lane
        floatv v = o[i][j] + bk;
        if (beta != 0.0f) {
          for (int l = 0; l < VW; ++l) tmp[l] = LOAD1(Y_T, Y, at + (idx_t)l * ys1);
          v += beta * VLOADF(tmp);
        }
        v = ACTIVATE(v);
        VSTOREF(v, tmp);
        for (int l = 0; l < VW; ++l) STORE1(Y_T, tmp[l], Y, at + (idx_t)l * ys1);
      } else {
        VSTOREF(o[i][j], tmp);
        for (int l = 0; l < VW; ++l) {
          if (k0 + l >= K) break;
          const idx_t al = at + (idx_t)l * ys1;
          STORE1(Y_T, epi1(tmp[l], bka[l], beta, Y, al), Y, al);
        }
      }
    }
  }
}
