// FFT convolution's own kernels (src/ops/conv_fft.c runs clFFT between
// them): x and the filter padded into real f32 tiles of FH x FW, the
// pointwise product of the spectra summed over a group's channels, and the
// crop of the inverse transform with the fused epilogue.
//
// Phase planes: with PH x PW phases (PHASE=1: the stride; else 1 x 1) the
// channel c' = (c * PH + a) * PW + b of the tiles holds
//   x'[c'](i, j) = xpad(c, i*PH + a, j*PW + b),   w'[c'](i, j) = w(c, i*PH + a, j*PW + b),
// so that the strided correlation is a sum of stride-EH x EW correlations
// of the planes (EH = stride_h / PH). Tiles hold zeros outside the rows
// and columns a needed output reads, so the circular correlation of the
// FFT never wraps into them.
//
// Spectra are planar (real and imaginary parts in separate arrays, as
// clFFT's CLFFT_HERMITIAN_PLANAR), so work-items along the frequencies load
// consecutive floats.

// x of images n0.. (gid2 = image-in-slice * C' + c') into tiles xt.
// g: PH, PW, pad_t, pad_l, H, W, HN, WN (rows and columns of a plane read).
__kernel void clforge_conv_fft_pad_x(__global const x_t *restrict X, ulong x_off, ulong xs0, ulong xs1, ulong xs2,
                                     ulong xs3, uint n0, uint cp, uint fh, uint fw, uint ph, uint pw, uint pad_t,
                                     uint pad_l, uint h, uint w, uint hn, uint wn, __global float *restrict T) {
  const uint j = get_global_id(0), i = get_global_id(1), z = get_global_id(2);
  if (j >= fw || i >= fh) return;
  // Quotients and remainders by multiplication back: a div/rem pair becomes
  // LLVM's freeze, which Oclgrind cannot run.
  const uint nl = z / cp, c1 = z - nl * cp, c = c1 / (ph * pw), ab = c1 - c * (ph * pw), a = ab / pw;
  const long u = (long)(i * ph + a) - (long)pad_t, v = (long)(j * pw + ab - a * pw) - (long)pad_l;
  float val = 0.0f;
  if (i < hn && j < wn && u >= 0 && u < (long)h && v >= 0 && v < (long)w)
    val = LOAD1(X_T, X, x_off + (ulong)(n0 + nl) * xs0 + (ulong)c * xs1 + (ulong)u * xs2 + (ulong)v * xs3);
  T[(ulong)z * fh * fw + (ulong)i * fw + j] = val;
}

// Filters k0.. (gid2 = filter-in-chunk * Cg' + c' of the group) into tiles.
__kernel void clforge_conv_fft_pad_w(__global const w_t *restrict Wt, ulong w_off, ulong ws0, ulong ws1, ulong ws2,
                                     ulong ws3, uint k0, uint cgp, uint fh, uint fw, uint ph, uint pw, uint r, uint s,
                                     __global float *restrict T) {
  const uint j = get_global_id(0), i = get_global_id(1), z = get_global_id(2);
  if (j >= fw || i >= fh) return;
  const uint kl = z / cgp, c1 = z - kl * cgp, c = c1 / (ph * pw), ab = c1 - c * (ph * pw), a = ab / pw;
  const uint rr = i * ph + a, ss = j * pw + ab - a * pw;
  float val = 0.0f;
  if (rr < r && ss < s)
    val = LOAD1(W_T, Wt, w_off + (ulong)(k0 + kl) * ws0 + (ulong)c * ws1 + (ulong)rr * ws2 + (ulong)ss * ws3);
  T[(ulong)z * fh * fw + (ulong)i * fw + j] = val;
}

// Y[n, k, f] = sum over the group's channels c of X[n, g*Cg' + c, f] * conj(W[k, c, f])
// (cross-correlation: the filter's spectrum conjugated). A work-item does
// VW consecutive frequencies (explicit vectors: PoCL runs them well) of KB
// output channels of one group and NB images; the last vector of a plane
// loads and stores lane by lane.
// gid0: frequency vector, gid1: group * kblocks + k-block, gid2: image block.
static inline floatv fft_load(__global const float *restrict p, ulong o, uint f0, uint nf) {
  if (f0 + VW <= nf) return VLOADF(p + (o + f0));
  float t[VW];
  for (int l = 0; l < VW; ++l) t[l] = p[o + min(f0 + (uint)l, nf - 1u)];
#if VW == 1
  return t[0];
#else
  return CLFORGE_CAT(vload, VW)(0, t);
#endif
}

static inline void fft_store(floatv v, __global float *restrict p, ulong o, uint f0, uint nf) {
  if (f0 + VW <= nf) {
    VSTOREF(v, p + (o + f0));
    return;
  }
  float t[VW];
#if VW == 1
  t[0] = v;
#else
  CLFORGE_CAT(vstore, VW)(v, 0, t);
#endif
  for (int l = 0; l < VW; ++l)
    if (f0 + (uint)l < nf) p[o + f0 + l] = t[l];
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_conv_fft_mac(
    __global const float *restrict Xr, __global const float *restrict Xi, __global const float *restrict Wr,
    __global const float *restrict Wi, __global float *restrict Yr, __global float *restrict Yi, uint nf, uint nb,
    uint cp, uint cgp, uint k, uint kg, uint kblocks) {
  const uint f0 = get_global_id(0) * VW;
  if (f0 >= nf) return;
  const uint g = get_global_id(1) / kblocks, kb = get_global_id(1) - g * kblocks;
  const uint kfirst = kb * KB, nfirst = get_global_id(2) * NB;
  floatv ar[NB][KB], ai[NB][KB];
  ulong wrow[KB], xrow[NB];
  for (int t = 0; t < KB; ++t) wrow[t] = (ulong)(g * kg + min(kfirst + t, kg - 1u)) * cgp * nf;
  for (int m = 0; m < NB; ++m) xrow[m] = ((ulong)min(nfirst + m, nb - 1u) * cp + (ulong)g * cgp) * nf;
  for (int m = 0; m < NB; ++m)
    for (int t = 0; t < KB; ++t) ar[m][t] = ai[m][t] = (floatv)0.0f;
  for (uint c = 0; c < cgp; ++c) {
    floatv xr[NB], xi[NB];
    for (int m = 0; m < NB; ++m) {
      xr[m] = fft_load(Xr, xrow[m] + (ulong)c * nf, f0, nf);
      xi[m] = fft_load(Xi, xrow[m] + (ulong)c * nf, f0, nf);
    }
    for (int t = 0; t < KB; ++t) {
      const floatv wr = fft_load(Wr, wrow[t] + (ulong)c * nf, f0, nf), wi = fft_load(Wi, wrow[t] + (ulong)c * nf, f0, nf);
      for (int m = 0; m < NB; ++m) {
        ar[m][t] = fma(xr[m], wr, fma(xi[m], wi, ar[m][t]));
        ai[m][t] = fma(xi[m], wr, fma(-xr[m], wi, ai[m][t]));
      }
    }
  }
  for (int m = 0; m < NB; ++m)
    for (int t = 0; t < KB; ++t)
      if (nfirst + m < nb && kfirst + t < kg) {
        const ulong o = ((ulong)(nfirst + m) * k + g * kg + kfirst + t) * nf;
        fft_store(ar[m][t], Yr, o, f0, nf);
        fft_store(ai[m][t], Yi, o, f0, nf);
      }
}

// y[n0 + nl, k, p, q] = act(alpha * T[nl, k](p*EH, q*EW) + bias[k] + beta * y).
// T holds the inverse transform (clFFT scales it by 1/(FH*FW)); when T is
// not read (alpha == 0: x and w do not count) use_t is 0.
// gid0: q, gid1: p, gid2: image-in-slice * K + k.
__kernel void clforge_conv_fft_out(__global const float *restrict T, uint use_t, uint fh, uint fw, uint eh, uint ew,
                                   __global y_t *restrict Y, ulong y_off, ulong ys0, ulong ys1, ulong ys2, ulong ys3,
                                   uint n0, uint k, uint p, uint q,
#if BIAS
                                   __global const bias_t *restrict B, ulong b_off, ulong bs,
#endif
                                   float alpha, float beta) {
  const uint qq = get_global_id(0), pp = get_global_id(1), z = get_global_id(2);
  if (qq >= q || pp >= p) return;
  const uint nl = z / k, kk = z - nl * k;
  float v = use_t ? alpha * T[(ulong)z * fh * fw + (ulong)(pp * eh) * fw + qq * ew] : 0.0f;
#if BIAS
  v += LOAD1(BIAS_T, B, b_off + (ulong)kk * bs);
#endif
  const ulong yi = y_off + (ulong)(n0 + nl) * ys0 + (ulong)kk * ys1 + (ulong)pp * ys2 + (ulong)qq * ys3;
  if (beta != 0.0f) v += beta * LOAD1(Y_T, Y, yi);
  v = ACTIVATE(v);
  STORE1(Y_T, v, Y, yi);
}

// Test-only stand-ins for clFFT's transforms (Oclgrind cannot run clFFT's
// kernels: they compile to LLVM's freeze; test_conv runs them for speed):
// the same layouts, by plain sums, one dimension per pass through the
// call's scratch (planar, the imaginary parts `im` floats on): FH + FW terms
// per output instead of FH * FW (Oclgrind interprets every instruction; the
// double sum was most of its conv_fft run). The twiddles advance by a
// complex multiply, re-anchored every DFT_STEP on the exact angle, so a sum
// costs few sines (PoCL's sin/cos of a large argument made these kernels
// most of test_conv's run). Angles come from index products reduced modulo
// the length. Each pass: gid0 along a row, gid1 over rows, gid2 over planes.
#define CLFORGE_TWO_PI 6.283185307179586f

// cos and sin of sign * 2 pi * k / n, k < n. (Not sincos: under Oclgrind's
// uninitialized-value check its cosine came back wrong.) Scalars rather
// than float2: Oclgrind runs these unoptimized, where vector element moves
// doubled the instructions.
#define DFT_ANGLE(k, n, sign) ((sign) * CLFORGE_TWO_PI * (float)(k) / (float)(n))
#define DFT_STEP 64u /* the twiddle recurrence's re-anchoring period */

// (ar, ai) += sum over t < cnt of (XR + i XI) e^(sign 2 pi i f t / n), where
// XR and XI read term t (a macro: no calls in Oclgrind's inner loop).
#define DFT_SUM(cnt, n, f, sign, XR, XI, ar, ai)                                        \
  do {                                                                             \
    const float sa_ = DFT_ANGLE((f) % (n), n, sign), sc_ = cos(sa_), ss_ = sin(sa_); \
    float tc_ = 1.0f, ts_ = 0.0f;                                                  \
    for (uint t = 0; t < (cnt); ++t) {                                             \
      if (t % DFT_STEP == 0u) {                                                    \
        const float a_ = DFT_ANGLE(((f) * t) % (n), n, sign);                      \
        tc_ = cos(a_), ts_ = sin(a_);                                              \
      }                                                                            \
      const float xr_ = (XR), xi_ = (XI);                                          \
      ar += xr_ * tc_ - xi_ * ts_, ai += xr_ * ts_ + xi_ * tc_;                    \
      const float nc_ = tc_ * sc_ - ts_ * ss_;                                     \
      ts_ = tc_ * ss_ + ts_ * sc_, tc_ = nc_;                                      \
    }                                                                              \
  } while (0)

// Forward, rows: R[z, i, v] = sum_j T[z, i, j] e^(-2 pi i v j / FW), v <= FW/2.
__kernel void clforge_conv_fft_dft_fwd_rows(__global const float *restrict T, __global float *restrict R, ulong im,
                                            uint fh, uint fw) {
  const uint v = get_global_id(0), i = get_global_id(1), z = get_global_id(2), hw = fw / 2u + 1u;
  if (v >= hw || i >= fh) return;
  __global const float *x = T + (ulong)z * fh * fw + i * fw;
  float ar = 0.0f, ai = 0.0f;
  DFT_SUM(fw, fw, v, -1.0f, x[t], 0.0f, ar, ai);
  const ulong o = (ulong)z * fh * hw + i * hw + v;
  R[o] = ar, R[im + o] = ai;
}

// Forward, columns: S[z, u, v] = sum_i R[z, i, v] e^(-2 pi i u i / FH).
__kernel void clforge_conv_fft_dft_fwd_cols(__global const float *restrict R, ulong im, __global float *restrict Sr,
                                            __global float *restrict Si, uint fh, uint fw) {
  const uint v = get_global_id(0), u = get_global_id(1), z = get_global_id(2), hw = fw / 2u + 1u;
  if (v >= hw || u >= fh) return;
  const ulong b = (ulong)z * fh * hw + v;
  float ar = 0.0f, ai = 0.0f;
  DFT_SUM(fh, fh, u, -1.0f, R[b + t * hw], R[im + b + t * hw], ar, ai);
  Sr[b + u * hw] = ar, Si[b + u * hw] = ai;
}

// Inverse, columns: C[z, i, v] = sum_u S[z, u, v] e^(2 pi i u i / FH).
__kernel void clforge_conv_fft_dft_inv_cols(__global const float *restrict Sr, __global const float *restrict Si,
                                            __global float *restrict C, ulong im, uint fh, uint fw) {
  const uint v = get_global_id(0), i = get_global_id(1), z = get_global_id(2), hw = fw / 2u + 1u;
  if (v >= hw || i >= fh) return;
  const ulong b = (ulong)z * fh * hw + v;
  float ar = 0.0f, ai = 0.0f;
  DFT_SUM(fh, fh, i, 1.0f, Sr[b + t * hw], Si[b + t * hw], ar, ai);
  C[b + i * hw] = ar, C[im + b + i * hw] = ai;
}

// Inverse, rows, of a Hermitian half-spectrum, scaled by 1/(FH*FW) as
// clFFT's: columns 0 and FW/2 (FW even) once, the others twice (their
// conjugates): T[z, i, j] = sum_v w_v Re(C[z, i, v] e^(2 pi i v j / FW)).
__kernel void clforge_conv_fft_dft_inv_rows(__global const float *restrict C, ulong im, __global float *restrict T,
                                            uint fh, uint fw) {
  const uint j = get_global_id(0), i = get_global_id(1), z = get_global_id(2), hw = fw / 2u + 1u;
  if (j >= fw || i >= fh) return;
  const ulong b = (ulong)z * fh * hw + i * hw;
  float ar = 0.0f, ai = 0.0f;
  // w_v: 1 for columns 0 and FW/2, 2 for the others.
#define DFT_W(t) ((t) == 0u || 2u * (t) == fw ? 1.0f : 2.0f)
  DFT_SUM(hw, fw, j, 1.0f, DFT_W(t) * C[b + t], DFT_W(t) * C[im + b + t], ar, ai);
#undef DFT_W
  T[(ulong)z * fh * fw + i * fw + j] = ar / (float)(fh * fw);
}

// A chunk of filter spectra into place (clFFT takes no buffer offsets).
// A kernel rather than clEnqueueCopyBuffer: Oclgrind's uninitialized-value
// checker does not carry initialization through buffer copies.
__kernel void clforge_conv_fft_copy(__global const float *restrict S, __global float *restrict D, ulong d_off,
                                    ulong n) {
  const ulong i = get_global_id(0);
  if (i < n) D[d_off + i] = S[i];
}
