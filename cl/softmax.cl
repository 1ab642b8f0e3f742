// Softmax / log-softmax along rows: y = softmax(scale * x + mask) per row,
// f32 arithmetic, max-subtracted.
// Family parameters (-D), declared in src/kernels/softmax.c:
//   ONLINE  0: two passes over the row for the statistics (max, then the
//           sum of exp(t - max)); 1: one pass keeping a running max and sum
//           per lane (the sum rescaled when the max grows)
//   WG      work-items per row (a local-memory reduction joins them)
//   RPW     rows per work-group
//   VW      elements per vector load along the row (1, 2, 4, 8, 16)
// Problem parameters, set by src/ops/softmax.c:
//   X_T, Y_T, MASK_T  storage codes (CLFORGE_DT_*); HAS_MASK 0/1;
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

#if IDX64
typedef ulong aidx;
#else
typedef uint aidx;
#endif

typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;
#if HAS_MASK
typedef CLFORGE_CAT(CLFORGE_STORAGE_, MASK_T) mask_t;
#else
typedef float mask_t;
#endif

// VW-wide loads and stores of each storage code, as f32 vectors.
#if VW == 1
typedef float floatv;
#define VLD_1(p) (*(p))
#define VLD_2(p) clforge_f32_from_f16_bits_uint((uint)(*(p)))
#define VLD_3(p) as_float((uint)(*(p)) << 16)
#define VST_1(v, p) (*(p) = (v))
#define VST_2(v, p) (*(p) = (ushort)clforge_f16_bits_uint(as_uint(v)))
#define VST_3(v, p) (*(p) = (ushort)clforge_bf16_bits_uint(as_uint(v)))
#else
typedef CLFORGE_CAT(float, VW) floatv;
#define VLOAD CLFORGE_CAT(vload, VW)
#define VSTORE CLFORGE_CAT(vstore, VW)
#define UINTV CLFORGE_CAT(convert_uint, VW)
#define USHORTV CLFORGE_CAT(convert_ushort, VW)
#define ASUINTV CLFORGE_CAT(as_uint, VW)
#define ASFLOATV CLFORGE_CAT(as_float, VW)
#define VLD_1(p) VLOAD(0, p)
#define VLD_2(p) CLFORGE_CAT(clforge_f32_from_f16_bits_uint, VW)(UINTV(VLOAD(0, p)))
#define VLD_3(p) ASFLOATV(UINTV(VLOAD(0, p)) << 16)
#define VST_1(v, p) VSTORE(v, 0, p)
#define VST_2(v, p) VSTORE(USHORTV(CLFORGE_CAT(clforge_f16_bits_uint, VW)(ASUINTV(v))), 0, p)
#define VST_3(v, p) VSTORE(USHORTV(CLFORGE_CAT(clforge_bf16_bits_uint, VW)(ASUINTV(v))), 0, p)
#endif
#define VLD(T, p) CLFORGE_CAT(VLD_, T)(p)
#define VST(T, v, p) CLFORGE_CAT(VST_, T)(v, p)

// t at element e of the row: one vector, or one element.
#if HAS_MASK
#define TV(e) fma(VLD(X_T, xr + (e)), (floatv)scale, VLD(MASK_T, mr + (e)))
#define T1(e) fma(LOAD1(X_T, xr, e), scale, LOAD1(MASK_T, mr, e))
#else
#define TV(e) (VLD(X_T, xr + (e)) * scale)
#define T1(e) (LOAD1(X_T, xr, e) * scale)
#endif

// Max-subtraction base: 0 for a row (or part) with no mass.
#define SAFE(m) select(m, (floatv)0.0f, m == (floatv)(-INFINITY))
static inline float safe1(float m) { return m == -INFINITY ? 0.0f : m; }

// Running (max, sum) update with one exp: with hi/lo the larger/smaller
// of m and t, the sum is rescaled by exp(lo - hi) when t is the new max,
// else grows by it. A NaN t is "lo" and makes the sum NaN; m never becomes
// NaN. Scalar and vector forms (select picks its second operand where the
// comparison holds, in both).
static inline void step1(float *m, float *l, float t) {
  const int gt = t > *m;
  const float hi = gt ? t : *m, e = exp((gt ? *m : t) - safe1(hi));
  *l = gt ? fma(*l, e, 1.0f) : *l + e;
  *m = hi;
}

static inline void stepv(floatv *m, floatv *l, floatv t) {
  const floatv hi = fmax(*m, t); // t NaN: *m, as below
  const floatv e = exp(select(t, *m, t > *m) - SAFE(hi));
  *l = select(*l + e, fma(*l, e, (floatv)1.0f), t > *m);
  *m = hi;
}

// Join two (max, sum) pairs into a.
static inline void join(float *am, float *al, float bm, float bl) {
  const float m = fmax(*am, bm), s = safe1(m);
  *al = *al * exp(*am - s) + bl * exp(bm - s);
  *am = m;
}

static inline float hmax(floatv v) {
#if VW == 1
  return v;
#else
  float m = v.s0;
  float a[VW];
  VSTORE(v, 0, a);
  for (int i = 1; i < VW; ++i) m = fmax(m, a[i]);
  return m;
#endif
}

static inline float hsum(floatv v) {
#if VW == 1
  return v;
#else
  float a[VW];
  VSTORE(v, 0, a);
  float s = 0.0f;
  for (int i = 0; i < VW; ++i) s += a[i];
  return s;
#endif
}

#if WG > 1
// The row's WG items join their values: max (op 0), sum (1), or (max, sum)
// pairs (2). Every item of the group calls it (rows past the end too).
static inline void group_reduce(local float *rm, local float *rl, int op, float *m, float *l) {
  const int w = get_local_id(0);
  rm[w] = *m;
  if (op == 2) rl[w] = *l;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG / 2; s > 0; s >>= 1) {
    if (w < s) {
      if (op == 0) rm[w] = fmax(rm[w], rm[w + s]);
      else if (op == 1) rm[w] += rm[w + s];
      else {
        float am = rm[w], al = rl[w];
        join(&am, &al, rm[w + s], rl[w + s]);
        rm[w] = am, rl[w] = al;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *m = rm[0];
  if (op == 2) *l = rl[0];
  barrier(CLK_LOCAL_MEM_FENCE); // the next reduction reuses rm
}
#endif

kernel __attribute__((reqd_work_group_size(WG, RPW, 1))) void clforge_softmax(
    const global x_t *x, const ulong x_off, const ulong x_stride, const global mask_t *mask, const ulong mask_off,
    const ulong mask_stride, global y_t *y, const ulong y_off, const ulong y_stride, const ulong rows, const aidx n,
    const float scale) {
  const ulong row = get_global_id(1);
  const int w = get_local_id(0);
  // Rows past the end do no work but join the group's barriers.
  const aidx len = row < rows ? n : 0;
  const global x_t *xr = x + x_off + row * x_stride;
  global y_t *yr = y + y_off + row * y_stride;
#if HAS_MASK
  const global mask_t *mr = mask + mask_off + row * mask_stride;
#endif
  const aidx nv = len / VW, tail = nv * VW;
#if WG > 1
  local float red_m[RPW][WG], red_l[RPW][WG];
  local float *rm = red_m[get_local_id(1)], *rl = red_l[get_local_id(1)];
#endif

  float m, l;
#if ONLINE
  floatv mv = (floatv)(-INFINITY), lv = (floatv)0.0f;
  for (aidx i = w; i < nv; i += WG) stepv(&mv, &lv, TV(i * VW));
  m = -INFINITY, l = 0.0f;
  for (aidx e = tail + w; e < len; e += WG) step1(&m, &l, T1(e));
#if VW == 1
  join(&m, &l, mv, lv);
#else
  {
    float am[VW], al[VW];
    VSTORE(mv, 0, am);
    VSTORE(lv, 0, al);
    for (int i = 0; i < VW; ++i) join(&m, &l, am[i], al[i]);
  }
#endif
#if WG > 1
  group_reduce(rm, rl, 2, &m, &l);
#endif
#else
  floatv mv = (floatv)(-INFINITY);
  for (aidx i = w; i < nv; i += WG) mv = fmax(mv, TV(i * VW));
  m = hmax(mv);
  for (aidx e = tail + w; e < len; e += WG) m = fmax(m, T1(e));
#if WG > 1
  group_reduce(rm, NULL, 0, &m, NULL);
#endif
  {
    const float s1 = safe1(m);
    const floatv sv = (floatv)s1;
    floatv lv = (floatv)0.0f;
    for (aidx i = w; i < nv; i += WG) lv += exp(TV(i * VW) - sv);
    l = hsum(lv);
    for (aidx e = tail + w; e < len; e += WG) l += exp(T1(e) - s1);
  }
#if WG > 1
  group_reduce(rm, NULL, 1, &l, NULL);
#endif
#endif
  if (m == INFINITY) l = NAN; // inf - inf: the row is NaN, as the reference's
  if (row >= rows) return;

  const float s = safe1(m);
  const floatv sv = (floatv)s;
#if LOG
  const float lg = l == 0.0f ? 0.0f : log(l); // an empty row stays -inf
  for (aidx i = w; i < nv; i += WG) VST(Y_T, (TV(i * VW) - sv) - lg, yr + i * VW);
  for (aidx e = tail + w; e < len; e += WG) STORE1(Y_T, (T1(e) - s) - lg, yr, e);
#else
  const float inv = l == 0.0f ? 0.0f : 1.0f / l; // an empty row gives zeros
  for (aidx i = w; i < nv; i += WG) VST(Y_T, exp(TV(i * VW) - sv) * inv, yr + i * VW);
  for (aidx e = tail + w; e < len; e += WG) STORE1(Y_T, exp(T1(e) - s) * inv, yr, e);
#endif
}
