// Softmax / log-softmax along rows: y = softmax(scale * x + mask) per row,
// f32 arithmetic, max-subtracted.
// Family parameters (-D), declared in src/families/softmax.c:
//   ONLINE  0: two passes over the row for the statistics (max, then the
//           sum of exp(t - max)); 1: one pass keeping a running max and sum
//           per lane (the sum rescaled when the max grows)
//   STASH   with ONLINE 0, softmax and f32 y: the sum pass stores each
//           exp(t - max) in y and the output pass scales it (one exp per
//           element instead of two); no effect otherwise (the host then
//           passes 0)
//   EXP     0: the built-in exp; 1: clforge's own (cl/softmax_common.cl: a few FMAs,
//           where a driver's exp is a slow library call)
//   WG      work-items per row (a local-memory reduction joins them)
//   RPW     rows per work-group (work-items along dimension 1)
//   RPI     (host side, not a build option) at most this many rows per
//           work-item, one after the other; the kernel takes the count as
//           the argument rpi
//   VW      elements per vector load along the row (1, 2, 4, 8, 16)
// Problem parameters, set by src/ops/softmax.c:
//   X_T, Y_T, MASK_T  storage codes (CLFORGE_DT_*; MASK_T f32 without a mask); HAS_MASK 0/1;
//   LOG 1 for log-softmax; IDX64 1 when n >= 2^32
// A work-group is WG x RPW work-items: dimension 0 runs along a row (item
// w takes vectors w, w + WG, ...: adjacent items, adjacent memory),
// dimension 1 over rows. The row is read again for the output (it is in
// cache for the row lengths softmax sees: 2048 f32 = 8 KiB).
//
// Special rows, as the reference (src/ref/softmax.c): NaN anywhere or a
// +inf (inf - inf) makes the row NaN; every t = -inf gives zeros (log:
// -inf). Max-subtraction uses a "safe" max, 0 when the max is -inf, so that
// -inf - -inf never happens; the sum is then 0 and marks the empty row.

// The stash applies where y can hold exp(t - max) unrounded.
#define STASHED (STASH && !ONLINE && !LOG && Y_T == CLFORGE_DT_F32)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;
#if HAS_MASK
typedef CLFORGE_CAT(CLFORGE_STORAGE_, MASK_T) mask_t;
#else
typedef float mask_t;
#endif

// t at element e of the row: one vector, or one element.
#if HAS_MASK
#define TVR(xp, mp, e) fma(LOADV(X_T, (xp) + (e)), (floatv)scale, LOADV(MASK_T, (mp) + (e)))
#define T1R(xp, mp, e) fma(LOAD1(X_T, xp, e), scale, LOAD1(MASK_T, mp, e))
#else
#define TVR(xp, mp, e) (LOADV(X_T, (xp) + (e)) * scale)
#define T1R(xp, mp, e) (LOAD1(X_T, xp, e) * scale)
#endif
#define TV(e) TVR(xr, mr, e)   // this row
#define T1(e) T1R(xr, mr, e)
#define TVN(e) TVR(xn, mn, e)  // the next row
#define T1N(e) T1R(xn, mn, e)

// A row's first pass, fused into the previous row's last loop: with
// several rows per work-item (rpi), the next row streams in from memory
// while this row's exps are computed.
kernel __attribute__((reqd_work_group_size(WG, RPW, 1))) void clforge_softmax(
    const global x_t *x, const ulong x_off, const ulong x_stride, const global mask_t *mask, const ulong mask_off,
    const ulong mask_stride, global y_t *y, const ulong y_off, const ulong y_stride, const ulong rows, const aidx n,
    const float scale, const uint rpi) {
  const int w = get_local_id(0);
  const aidx nv = n / VW, tail = nv * VW;
  const ulong first = get_global_id(1) * rpi;
#if WG > 1
  local float red_m[RPW][WG], red_l[RPW][WG];
  local float *rm = red_m[get_local_id(1)], *rl = red_l[get_local_id(1)];
#endif
#if HAS_MASK
#define ROW_PTRS(r, xp, mp)                                 \
  const global x_t *xp = x + x_off + (r) * x_stride;        \
  const global mask_t *mp = mask + mask_off + (r) * mask_stride
#else
#define ROW_PTRS(r, xp, mp) const global x_t *xp = x + x_off + (r) * x_stride
#endif

  // The first row's first pass. Rows past the end (len 0) do no work but
  // join the group's barriers.
  float m = -INFINITY, l = 0.0f;
  {
    ROW_PTRS(first, xr, mr);
    const aidx nvr = first < rows ? nv : 0, len = first < rows ? n : 0;
#if ONLINE
    floatv mv = (floatv)(-INFINITY), lv = (floatv)0.0f;
    for (aidx i = w; i < nvr; i += WG) stepv(&mv, &lv, TV(i * VW));
    for (aidx e = tail + w; e < len; e += WG) step1(&m, &l, T1(e));
    join_lanes(&m, &l, mv, lv);
#if WG > 1
    group_reduce(rm, rl, 2, &m, &l);
#endif
#else
    floatv mv = (floatv)(-INFINITY), mv2 = (floatv)(-INFINITY);
    aidx i = w;
    for (; i + WG < nvr; i += 2 * WG) { // two chains: the loop is bound by their latency
      mv = fmax(mv, TV(i * VW));
      mv2 = fmax(mv2, TV((i + WG) * VW));
    }
    if (i < nvr) mv = fmax(mv, TV(i * VW));
    m = hmax(fmax(mv, mv2));
    for (aidx e = tail + w; e < len; e += WG) m = fmax(m, T1(e));
#if WG > 1
    group_reduce(rm, NULL, 0, &m, NULL);
#endif
#endif
  }

  for (uint k = 0; k < rpi; ++k) {
    const ulong row = first + k, next = row + 1;
    ROW_PTRS(row, xr, mr);
    ROW_PTRS(next, xn, mn);
    global y_t *yr = y + y_off + row * y_stride;
    const int here = row < rows, ahead = k + 1 < rpi && next < rows;
    const aidx len = here ? n : 0, nvr = here ? nv : 0;
#if ONLINE
    // the output pass of this row with the one pass of the next
    if (m == INFINITY) l = NAN; // inf - inf: the row is NaN, as the reference's
    const float s = safe1(m);
    const floatv sv = (floatv)s;
#if LOG
    const float lg = l == 0.0f ? 0.0f : log(l); // an empty row stays -inf
#define OUTV(i) STOREV(Y_T, (TV((i) * VW) - sv) - lg, yr + (i) * VW)
#define OUT1(e) STORE1(Y_T, (T1(e) - s) - lg, yr, e)
#else
    const float inv = l == 0.0f ? 0.0f : 1.0f / l; // an empty row gives zeros
#define OUTV(i) STOREV(Y_T, EXPV(TV((i) * VW) - sv) * inv, yr + (i) * VW)
#define OUT1(e) STORE1(Y_T, EXP1(T1(e) - s) * inv, yr, e)
#endif
    floatv mv = (floatv)(-INFINITY), lv = (floatv)0.0f;
    float mnx = -INFINITY, lnx = 0.0f;
    if (ahead) {
      for (aidx i = w; i < nv; i += WG) {
        OUTV(i);
        stepv(&mv, &lv, TVN(i * VW));
      }
      for (aidx e = tail + w; e < n; e += WG) {
        OUT1(e);
        step1(&mnx, &lnx, T1N(e));
      }
    } else {
      for (aidx i = w; i < nvr; i += WG) OUTV(i);
      for (aidx e = tail + w; e < len; e += WG) OUT1(e);
    }
    join_lanes(&mnx, &lnx, mv, lv);
#if WG > 1
    group_reduce(rm, rl, 2, &mnx, &lnx);
#endif
    m = mnx, l = lnx;
#else
    // the sum pass of this row with the max pass of the next
    const float s = safe1(m);
    const floatv sv = (floatv)s;
    floatv lv = (floatv)0.0f, mv = (floatv)(-INFINITY);
    float mnx = -INFINITY;
#if STASHED
#define SUMV(i)                                   \
  do {                                            \
    const floatv ev_ = EXPV(TV((i) * VW) - sv);   \
    STOREV(Y_T, ev_, yr + (i) * VW);                 \
    lv += ev_;                                    \
  } while (0)
#define SUM1(e)                     \
  do {                              \
    const float ev_ = EXP1(T1(e) - s); \
    yr[e] = ev_;                    \
    l += ev_;                       \
  } while (0)
#else
#define SUMV(i) (lv += EXPV(TV((i) * VW) - sv))
#define SUM1(e) (l += EXP1(T1(e) - s))
#endif
    l = 0.0f;
    if (ahead) {
      for (aidx i = w; i < nv; i += WG) {
        SUMV(i);
        mv = fmax(mv, TVN(i * VW));
      }
      for (aidx e = tail + w; e < n; e += WG) {
        SUM1(e);
        mnx = fmax(mnx, T1N(e));
      }
    } else {
      for (aidx i = w; i < nvr; i += WG) SUMV(i);
      for (aidx e = tail + w; e < len; e += WG) SUM1(e);
    }
    l += hsum(lv);
    mnx = fmax(mnx, hmax(mv));
#if WG > 1
    group_reduce(rm, NULL, 1, &l, NULL);
    group_reduce(rm, NULL, 0, &mnx, NULL);
#endif
    if (m == INFINITY) l = NAN; // inf - inf: the row is NaN, as the reference's
    // the output pass
#if LOG
    const float lg = l == 0.0f ? 0.0f : log(l); // an empty row stays -inf
    for (aidx i = w; i < nvr; i += WG) STOREV(Y_T, (TV(i * VW) - sv) - lg, yr + i * VW);
    for (aidx e = tail + w; e < len; e += WG) STORE1(Y_T, (T1(e) - s) - lg, yr, e);
#else
    const float inv = l == 0.0f ? 0.0f : 1.0f / l; // an empty row gives zeros
#if STASHED
    for (aidx i = w; i < nvr; i += WG) STOREV(Y_T, LOADV(Y_T, yr + i * VW) * inv, yr + i * VW);
    for (aidx e = tail + w; e < len; e += WG) yr[e] *= inv;
#else
    for (aidx i = w; i < nvr; i += WG) STOREV(Y_T, EXPV(TV(i * VW) - sv) * inv, yr + i * VW);
    for (aidx e = tail + w; e < len; e += WG) STORE1(Y_T, EXP1(T1(e) - s) * inv, yr, e);
#endif
#endif
    m = mnx;
#endif
  }
}
