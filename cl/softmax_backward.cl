// Softmax / log-softmax backward along rows: dx from y (the forward's
// output) and dy, f32 arithmetic, per row
//   softmax:     dx = scale * y * (dy - s),       s = sum_j y_j dy_j
//   log-softmax: dx = scale * (dy - exp(y) * s),  s = sum_j dy_j
// Family parameters (-D), declared in src/families/softmax_backward.c:
//   EXP     0: the built-in exp; 1: clforge's own (log-softmax's exp(y),
//           y <= 0: cl/softmax_common.cl)
//   WG      work-items per row (a local-memory reduction joins their sums)
//   RPW     rows per work-group (work-items along dimension 1)
//   RPI     (host side) at most this many rows per work-item; the kernel
//           takes the count as the argument rpi
//   VW      elements per vector load along the row
// Problem parameters, set by src/ops/softmax_backward.c:
//   Y_T, DY_T, DX_T  storage codes; LOG 1 for log-softmax; IDX64 1 when n >= 2^32
// Two passes over a row: its sum, then dx. With several rows per item the
// dx pass of a row streams beside the sum pass of the next (as the
// forward's passes do). Each element's y and dy are read before its dx is
// written by the same work-item, so dx may be y or dy (in place).

typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DY_T) dy_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DX_T) dx_t;

// A row's sum terms (vector at e, element e) and its dx (with sv / s1 the
// row's sum as a vector and a scalar, scv / scale the scale).
#if LOG
#define TERMV(yp, dp, e) LOADV(DY_T, (dp) + (e))
#define TERM1(yp, dp, e) LOAD1(DY_T, dp, e)
#define DXV(yp, dp, e) (scv * (LOADV(DY_T, (dp) + (e)) - EXPV(LOADV(Y_T, (yp) + (e))) * sv))
#define DX1(yp, dp, e) (scale * (LOAD1(DY_T, dp, e) - EXP1(LOAD1(Y_T, yp, e)) * s1))
#else
#define TERMV(yp, dp, e) (LOADV(Y_T, (yp) + (e)) * LOADV(DY_T, (dp) + (e)))
#define TERM1(yp, dp, e) (LOAD1(Y_T, yp, e) * LOAD1(DY_T, dp, e))
#define DXV(yp, dp, e) (scv * (LOADV(Y_T, (yp) + (e)) * (LOADV(DY_T, (dp) + (e)) - sv)))
#define DX1(yp, dp, e) (scale * (LOAD1(Y_T, yp, e) * (LOAD1(DY_T, dp, e) - s1)))
#endif

kernel __attribute__((reqd_work_group_size(WG, RPW, 1))) void clforge_softmax_backward(
    const global y_t *y, const ulong y_off, const ulong y_stride, const global dy_t *dy, const ulong dy_off,
    const ulong dy_stride, global dx_t *dx, const ulong dx_off, const ulong dx_stride, const ulong rows, const aidx n,
    const float scale, const uint rpi) {
  const int w = get_local_id(0);
  const aidx nv = n / VW, tail = nv * VW;
  const ulong first = get_global_id(1) * rpi;
  const floatv scv = (floatv)scale;
#if WG > 1
  local float red[RPW][WG];
  local float *rs = red[get_local_id(1)];
#endif
#define ROW_PTRS(r, yp, dp)                          \
  const global y_t *yp = y + y_off + (r) * y_stride; \
  const global dy_t *dp = dy + dy_off + (r) * dy_stride

  // The first row's sum. Rows past the end (len 0) do no work but join the
  // group's barriers.
  float s1;
  {
    ROW_PTRS(first, yr, dr);
    const aidx nvr = first < rows ? nv : 0, len = first < rows ? n : 0;
    floatv acc = (floatv)0.0f;
    s1 = 0.0f;
    for (aidx i = w; i < nvr; i += WG) acc += TERMV(yr, dr, i * VW);
    for (aidx e = tail + w; e < len; e += WG) s1 += TERM1(yr, dr, e);
    s1 += hsum(acc);
#if WG > 1
    group_reduce(rs, NULL, 1, &s1, NULL);
#endif
  }

  for (uint k = 0; k < rpi; ++k) {
    const ulong row = first + k, next = row + 1;
    ROW_PTRS(row, yr, dr);
    ROW_PTRS(next, yn, dn);
    global dx_t *xr = dx + dx_off + row * dx_stride;
    const int here = row < rows, ahead = k + 1 < rpi && next < rows;
    const aidx len = here ? n : 0, nvr = here ? nv : 0;
    const floatv sv = (floatv)s1;
    floatv acc = (floatv)0.0f;
    float snx = 0.0f;
    if (ahead) {
      for (aidx i = w; i < nv; i += WG) {
        STOREV(DX_T, DXV(yr, dr, i * VW), xr + i * VW);
        acc += TERMV(yn, dn, i * VW);
      }
      for (aidx e = tail + w; e < n; e += WG) {
        STORE1(DX_T, DX1(yr, dr, e), xr, e);
        snx += TERM1(yn, dn, e);
      }
    } else {
      for (aidx i = w; i < nvr; i += WG) STOREV(DX_T, DXV(yr, dr, i * VW), xr + i * VW);
      for (aidx e = tail + w; e < len; e += WG) STORE1(DX_T, DX1(yr, dr, e), xr, e);
    }
    snx += hsum(acc);
#if WG > 1
    group_reduce(rs, NULL, 1, &snx, NULL);
#endif
    s1 = snx;
  }
}
