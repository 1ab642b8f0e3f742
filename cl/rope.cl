// clforge_rope (src/ops/rope.c): rotary position embedding. One work-item
// per (token, pair of the first R elements) or (token, element past R, when
// out of place): its angle and sin/cos once, then every head of the token
// (the heads share the angle). Neighbouring items take neighbouring pairs.
// Tuned parameters (src/families/rope.c): WG.
// Problem options: X_T Y_T (storage codes), NEOX (1: split halves, 0:
// interleaved pairs), COPY (1: out of place, the elements past R are copied).
// (Remainders as x - q * y: the compiler's div/rem pairing would emit an
// LLVM `freeze`, which Oclgrind cannot run.)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_rope(
    const global x_t *X, const ulong x_off, const ulong x_ts, const ulong x_hs, global y_t *Y, const ulong y_off,
    const ulong y_ts, const ulong y_hs, const global int *P, const ulong p_off, const uint tokens, const uint heads,
    const uint items, const uint npair, const float step) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)tokens * items) return;
  const ulong t = g / items;
  const uint i = (uint)(g - t * items);
  const ulong xb = x_off + t * x_ts, yb = y_off + t * y_ts;
  if (i < npair) {
    // theta^(-2i/R) = exp2(-i * step), step = 2 log2(theta) / R (the host's, in double)
    const float ang = (float)P[p_off + t] * exp2(-(float)i * step);
    const float c = cos(ang), s = sin(ang); // (not sincos: Oclgrind cannot run its pointer argument)
#if NEOX
    const uint i0 = i, i1 = i + npair;
#else
    const uint i0 = 2 * i, i1 = 2 * i + 1;
#endif
    for (uint h = 0; h < heads; ++h) {
      const float a = LOAD1(X_T, X, xb + h * x_hs + i0), b = LOAD1(X_T, X, xb + h * x_hs + i1);
      STORE1(Y_T, a * c - b * s, Y, yb + h * y_hs + i0);
      STORE1(Y_T, b * c + a * s, Y, yb + h * y_hs + i1);
    }
  }
#if COPY
  else {
    const uint e = 2 * npair + (i - npair); // past R
    for (uint h = 0; h < heads; ++h) STORE1(Y_T, LOAD1(X_T, X, xb + h * x_hs + e), Y, yb + h * y_hs + e);
  }
#endif
}
