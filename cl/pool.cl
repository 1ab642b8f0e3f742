// clforge_pool (src/ops/pool.c): max and average pooling, PyTorch's
// definitions (src/ref/pool.c), one output element per work-item step: EPI
// steps per item, the items of a group interleaved by element (item i of
// group g takes g*WG*EPI + e*WG + i), so neighbouring items write
// neighbouring outputs and read neighbouring inputs: along the output row in
// NCHW, along the channels in NHWC (coalesced on GPUs, one vector loop of
// PoCL's over the group's items on CPUs).
// Tuned parameters (src/families/pool.c): WG, EPI.
// Problem options: X_T Y_T (storage codes), KIND (0 max, 1 avg), NHWC,
// EXCLUDE (avg: count_include_pad=False), DIVISOR (avg: divisor_override).
// (Remainders as x - q * y: the compiler's div/rem pairing would emit an
// LLVM `freeze`, which Oclgrind cannot run.)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_pool(
    const global x_t *restrict X, const ulong x_off, global y_t *restrict Y, const ulong y_off, const ulong total,
    const uint C, const uint H, const uint W, const uint P, const uint Q, const uint KH, const uint KW, const uint SH,
    const uint SW, const uint PH, const uint PW, const uint DH, const uint DW, const float divisor) {
  const ulong base = (ulong)get_group_id(0) * (WG * EPI) + get_local_id(0);
  for (int e = 0; e < EPI; ++e) {
    const ulong i = base + (ulong)e * WG;
    if (i >= total) return;
#if NHWC
    const ulong pix = i / C, row = pix / Q, n = row / P;
    const ulong c = i - pix * C, q = pix - row * Q, p = row - n * P;
    const ulong plane = x_off + n * H * W * C + c, step = C; // element (y, x): plane + (y * W + x) * C
#else
    const ulong row = i / Q, nc = row / P;
    const ulong q = i - row * Q, p = row - nc * P;
    const ulong plane = x_off + nc * H * W, step = 1;
#endif
    const long h0 = (long)(p * SH) - (long)PH, w0 = (long)(q * SW) - (long)PW;
#if KIND == 0
    float m = -INFINITY;
    for (uint a = 0; a < KH; ++a) {
      const long y = h0 + (long)(a * DH);
      if (y < 0 || y >= (long)H) continue;
      for (uint b = 0; b < KW; ++b) {
        const long x = w0 + (long)(b * DW);
        if (x < 0 || x >= (long)W) continue;
        const float v = LOAD1(X_T, X, plane + ((ulong)y * W + (ulong)x) * step);
        m = (v > m || isnan(v)) ? v : m; // a NaN wins, as PyTorch's
      }
    }
#else
    // the window clipped to the padded input (its size divides with
    // count_include_pad), then to the input (what is summed)
    const long h1 = min(h0 + (long)KH, (long)(H + PH)), w1 = min(w0 + (long)KW, (long)(W + PW));
    const long ya = max(h0, 0L), xa = max(w0, 0L), yb = min(h1, (long)H), xb = min(w1, (long)W);
    float s = 0.0f;
    for (long y = ya; y < yb; ++y)
      for (long x = xa; x < xb; ++x) s += LOAD1(X_T, X, plane + ((ulong)y * W + (ulong)x) * step);
#if DIVISOR
    const float div = divisor;
#elif EXCLUDE
    const float div = (float)((yb - ya) * (xb - xa));
#else
    const float div = (float)((h1 - h0) * (w1 - w0));
#endif
    const float m = ya < yb && xa < xb ? s / div : 0.0f;
#endif
    STORE1(Y_T, m, Y, y_off + i);
  }
}
