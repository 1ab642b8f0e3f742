// What every convolution program starts with (after common.cl, ahead of
// the family's own file; src/families/conv_*.c list it first): the storage
// types of the problem's tensors, the signed coordinate type, the lanes'
// indices of a VW-wide vector, and the direct and depthwise kernels' row
// loads of x.
// Each part only where the program is built with what it needs: a kernel
// built with fewer options (the reduce of backward filter, im2col) gets
// only the types it names.
//   X_T W_T Y_T BIAS_T C_T   storage codes (CLFORGE_DT_*; C_T: the int8 output)
//   WIDE                     coordinates may pass 2^31: sidx_t is 64 bits
//   VW                       vector width of the family (tuned): LANES
//   XUNIT                    the direct and depthwise kernels: x's row loads (below)

#ifdef X_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;
#endif
#ifdef W_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, W_T) w_t;
#endif
#ifdef Y_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;
#endif
#ifdef C_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, C_T) c_t;
#endif
#ifdef BIAS_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, BIAS_T) bias_t;
#endif

// Signed coordinates (input rows and columns, which padding makes negative).
#if WIDE
typedef long sidx_t;
#else
typedef int sidx_t;
#endif

// Each lane's index in a VW-wide vector (floatv, LOADV and the rest: common.cl).
#if VW == 2
#define LANES (int2)(0, 1)
#elif VW == 4
#define LANES (int4)(0, 1, 2, 3)
#elif VW == 8
#define LANES (int8)(0, 1, 2, 3, 4, 5, 6, 7)
#elif VW == 16
#define LANES (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#endif

#ifdef XUNIT
// The direct and depthwise kernels' reads of x along a row (XUNIT 1: a
// vector's columns are consecutive x elements).
// VW consecutive x elements from p (all in bounds), as f32.
static inline floatv load_x_vec(const global x_t *p) { return LOADV(X_T, p); }

// VW pixels of x row `xr` from input column iw, sw apart, where some may
// fall in the padding (0 there). Consecutive columns: one vector load at
// iw with the padding's lanes zeroed, where those lanes' memory is still
// inside x's buffer (X .. X + xlen: the neighbouring row); else one load
// inside the row moved into place by a shuffle.
static inline floatv load_x_edge(const global x_t *X, ulong xlen, const global x_t *xr, sidx_t iw, uint sw, uint W,
                                 idx_t xsw) {
#if XUNIT && VW > 1
  const long at = (long)(xr - X) + (long)iw;
  if (at >= 0 && at + VW <= (long)xlen) {
    const intv col = (intv)(int)iw + LANES;
    return select((floatv)0.0f, load_x_vec(xr + (long)iw), (col >= (intv)0) & (col < (intv)(int)W));
  }
  if (W >= VW) {
    const sidx_t b = clamp(iw, (sidx_t)0, (sidx_t)(W - VW));
    const floatv raw = load_x_vec(xr + (idx_t)b);
    const intv col = (intv)(int)(iw - b) + LANES;
    const floatv moved = shuffle(raw, CLFORGE_CAT(convert_uint, VW)(clamp(col, (intv)0, (intv)(VW - 1))));
    const intv abs_col = col + (intv)(int)b;
    return select((floatv)0.0f, moved, (abs_col >= (intv)0) & (abs_col < (intv)(int)W));
  }
#endif
  float t[VW];
  UNROLL(VW)
  for (int v = 0; v < VW; ++v) {
    const sidx_t col = iw + (sidx_t)v * (sidx_t)sw;
    const int in = col >= 0 && col < (sidx_t)W;
    const float e = LOAD1(X_T, xr, (idx_t)(in ? col : 0) * xsw);
    t[v] = in ? e : 0.0f;
  }
  return VLOADF(t);
}
#endif
