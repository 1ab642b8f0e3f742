// im2col (src/ops/conv_im2col.c): the column matrix of one pass (some
// images, or some pixels of one image) written for clforge's GEMM. Its
// elements are copies of x in x's storage type (exact; zeros where the
// filter overhangs the padding).
// Column index j within a row of R*S*C: group g, then the filter's own
// order, so that w is the GEMM's other operand as it lies:
//   KRSC=1: j = g*R*S*cg + (r*S + s)*cg + c      KRSC=0: j = g*cg*R*S + (c*R + r)*S + s
// Layouts (ROWS, -D): 1: col[img][pixel][j] (y NHWC: y = col * w^T);
//   0: col[img][j][pixel] (y NCHW: y[n] = w * col[n]).
// NDRange: dim 0 runs along a line of the matrix (VW elements per
// work-item), dim 1 over the lines of one image, dim 2 over the images.
// Parameters: VW (elements per work-item); the problem's X_T, and PAD: the
// value padding reads (int8 convolution: x's zero point, so that padding
// adds nothing to the integer sums; 0 otherwise).
// (Remainders as x - q * y: the compiler's div/rem pairing would emit an
// LLVM `freeze`, which Oclgrind cannot run.)

#if X_T == CLFORGE_DT_F32
#define XS float
#elif X_T == CLFORGE_DT_F16 || X_T == CLFORGE_DT_BF16
#define XS ushort
#elif X_T == CLFORGE_DT_S8 // (clforge_conv2d_quantized)
#define XS char
#else
#define XS uchar
#endif
#ifndef PAD
#define PAD 0
#endif
#if VW > 1
typedef CLFORGE_CAT(XS, VW) xv_t;
#define VLOADX(p) CLFORGE_CAT(vload, VW)(0, p)
#define VSTOREX(v, p) CLFORGE_CAT(vstore, VW)(v, 0, p)
#endif

// The geometry every work-item needs.
typedef struct {
  ulong sxn, sxc, sxh, sxw;   // x's element strides (n, c, h, w)
  int h, w;                   // input size
  uint q;                     // output width
  uint cg, r, s;              // channels per group, filter size
  int sh, sw, dh, dw, pt, pl; // stride, dilation, top and left padding
} geo_t;

// n0: the pass's first image; pix0: its first pixel of each image;
// lines, len: lines per image and their length (ROWS: npix lines of R*S*C,
// else R*S*C lines of npix).
kernel void clforge_conv_im2col(const global x_t *restrict X, const ulong x_off, const ulong sxn, const ulong sxc,
                                const ulong sxh, const ulong sxw, global x_t *restrict COL, const uint h,
                                const uint w, const uint q, const uint cg, const uint r, const uint s, const uint sh,
                                const uint sw, const uint dh, const uint dw, const uint pt, const uint pl,
                                const uint n0, const uint pix0, const uint lines, const uint len) {
  const uint e0 = (uint)get_global_id(0) * VW, line = (uint)get_global_id(1), img = (uint)get_global_id(2);
  if (e0 >= len) return;
  const geo_t g = {sxn, sxc, sxh, sxw, (int)h, (int)w, q, cg, r, s, (int)sh, (int)sw, (int)dh, (int)dw, (int)pt, (int)pl};
  X += x_off;
  const uint n = n0 + img;
  global x_t *out = COL + ((ulong)img * lines + line) * len + e0;
#if ROWS
  const uint pix = pix0 + line;
#else
  const uint j = line;
#endif
#if VW > 1
  if (e0 + VW <= len) {
#if ROWS && KRSC
    // A run of VW channels of one pixel and one filter tap: one source
    // pixel, channels sxc apart (contiguous in NHWC).
    const uint rscg = r * s * cg, grp = e0 / rscg, rem = e0 - grp * rscg, rs = rem / cg, c = rem - rs * cg;
    const uint op = pix / q, oq = pix - op * q;
    if (c + VW <= cg) {
      const uint fr = rs / s, fs = rs - fr * s;
      const int ih = (int)op * g.sh - g.pt + (int)fr * g.dh;
      const int iw = (int)oq * g.sw - g.pl + (int)fs * g.dw;
      xv_t v = (xv_t)(PAD);
      if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) {
        const global x_t *src = X + n * sxn + (ulong)(grp * cg + c) * sxc + (ulong)ih * sxh + (ulong)iw * sxw;
        if (sxc == 1) {
          v = VLOADX(src);
        } else {
          x_t t[VW];
          UNROLL(VW)
          for (int i = 0; i < VW; ++i) t[i] = src[(ulong)i * sxc];
          v = VLOADX(t);
        }
      }
      VSTOREX(v, out);
      return;
    }
    // One group of NHWC channels (sxw == cg, sxc == 1) and dilation 1 in
    // width: a filter row's taps s and channels c are S*cg contiguous
    // elements of x (few channels: the stem's RGB).
    const uint rr = rem / (s * cg), t = rem - rr * (s * cg), ts = t / cg, tc = t - ts * cg;
    if (sxc == 1 && sxw == cg && dw == 1 && t + VW <= s * cg) {
      const int ih = (int)op * g.sh - g.pt + (int)rr * g.dh;
      const int iw = (int)oq * g.sw - g.pl + (int)ts, iw_last = iw + (int)((t + VW - 1) / cg - ts);
      if (ih >= 0 && ih < g.h && iw >= 0 && iw_last < g.w) {
        VSTOREX(VLOADX(X + n * sxn + (ulong)(grp * cg) * sxc + (ulong)ih * sxh + (ulong)iw * sxw + tc), out);
        return;
      }
    }
#elif !ROWS
    // VW pixels of one output row for one (channel, tap): sources
    // stride*sxw apart in one input row (contiguous in NCHW at stride 1).
    const uint pix = pix0 + e0, op = pix / q, oq = pix - op * q;
    if (oq + VW <= q) {
      const uint rscg = r * s * cg, grp = j / rscg, rem = j - grp * rscg;
#if KRSC
      const uint rs = rem / cg, c = rem - rs * cg;
#else
      const uint c = rem / (r * s), rs = rem - c * (r * s);
#endif
      const uint fr = rs / s, fs = rs - fr * s;
      const int ih = (int)op * g.sh - g.pt + (int)fr * g.dh;
      const int iw = (int)oq * g.sw - g.pl + (int)fs * g.dw;
      const int iw_last = iw + (VW - 1) * g.sw;
      xv_t v = (xv_t)(PAD);
      if (ih >= 0 && ih < g.h) {
        const global x_t *src = X + n * sxn + (ulong)(grp * cg + c) * sxc + (ulong)ih * sxh;
        if (iw >= 0 && iw_last < g.w && g.sw == 1 && sxw == 1) {
          v = VLOADX(src + iw);
        } else {
          x_t t[VW];
          UNROLL(VW)
          for (int i = 0; i < VW; ++i) {
            const int x_w = iw + i * g.sw;
            t[i] = x_w >= 0 && x_w < g.w ? src[(ulong)x_w * sxw] : (x_t)(PAD);
          }
          v = VLOADX(t);
        }
      }
      VSTOREX(v, out);
      return;
    }
#endif
  }
#endif
  // Anything else (runs across a group, a tap or an output row; the end of
  // a line): element by element, the coordinates of the first one
  // decomposed once and then stepped along the line.
#if ROWS
  uint jj = e0, pp = pix;
#else
  uint jj = j, pp = pix0 + e0;
#endif
  const uint rscg = r * s * cg;
  uint grp = jj / rscg, rem = jj - grp * rscg;
#if KRSC
  uint rs = rem / cg, c = rem - rs * cg;
#else
  uint c = rem / (r * s), rs = rem - c * (r * s);
#endif
  uint fr = rs / s, fs = rs - fr * s, op = pp / q, oq = pp - op * q;
  const ulong xn = n * sxn;
  UNROLL(VW)
  for (uint i = 0; i < VW; ++i) {
    if (e0 + i < len) {
      const int ih = (int)op * g.sh - g.pt + (int)fr * g.dh, iw = (int)oq * g.sw - g.pl + (int)fs * g.dw;
      out[i] = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w
                   ? X[xn + (ulong)(grp * cg + c) * sxc + (ulong)ih * sxh + (ulong)iw * sxw]
                   : (x_t)(PAD);
#if ROWS && KRSC
      if (++c == cg) {
        c = 0;
        if (++fs == s) {
          fs = 0;
          if (++fr == r) fr = 0, ++grp;
        }
      }
#elif ROWS
      if (++fs == s) {
        fs = 0;
        if (++fr == r) {
          fr = 0;
          if (++c == cg) c = 0, ++grp;
        }
      }
#else
      if (++oq == q) oq = 0, ++op;
#endif
    }
  }
}
