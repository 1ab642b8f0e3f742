// What the row-wise families share (cl/softmax.cl, cl/softmax_backward.cl,
// cl/cross_entropy.cl): VW-wide loads and stores of each storage code as
// f32 vectors, the index type, clforge's exp, the running (max, sum) of
// exponentials, horizontal max and sum, and the reduction across a row's
// WG work-items. Needs VW, EXP, WG and IDX64 (each family declares
// them; src/families/softmax.c, src/families/softmax_backward.c).

#if IDX64
typedef ulong aidx;
#else
typedef uint aidx;
#endif

// (floatv, and LOADV / STOREV: VW-wide loads and stores of each storage
// code as f32 vectors: cl/common.cl.)

// Max-subtraction base: 0 for a row (or part) with no mass.
#define SAFE(m) select(m, (floatv)0.0f, m == (floatv)(-INFINITY))
static inline float safe1(float m) { return m == -INFINITY ? 0.0f : m; }

// exp(d) for d <= 0 or NaN (every exp here is of t - max or a max
// difference): 2^k * 2^f with k = rint(d log2 e) (adding 1.5 * 2^23 rounds
// it, and leaves k in the low bits, which the shift by 23 moves into the
// exponent), f = d log2 e - k in [-1/2, 1/2] from one fma, 2^f by its
// Taylor polynomial of degree 6 (relative error about 2e-7). Below -87 (results
// under f32's normal range, negligible next to a sum >= 1) it is 0, exactly
// 0 for -inf; NaN stays NaN. Vector and scalar forms.
#define CLFORGE_SOFTMAX_EXP(FT, ASI, ASF)                                       \
  {                                                                             \
    const FT big = fma(d, (FT)1.44269504088896341f, (FT)12582912.0f);            \
    const FT f = fma(d, (FT)1.44269504088896341f, (FT)12582912.0f - big);        \
    FT p = (FT)1.5403530393381606e-4f;                                          \
    p = fma(p, f, (FT)1.3333558146428443e-3f);                                  \
    p = fma(p, f, (FT)9.618129107628477e-3f);                                   \
    p = fma(p, f, (FT)5.550410866482158e-2f);                                   \
    p = fma(p, f, (FT)0.2402265069591007f);                                     \
    p = fma(p, f, (FT)0.6931471805599453f);                                     \
    p = fma(p, f, (FT)1.0f);                                                    \
    FT v = ASF(ASI(p) + (ASI(big) << 23));                                      \
    v = select(v, (FT)0.0f, d < (FT)(-87.0f));                                  \
    return select(v, d, d != d);                                                \
  }
#if VW == 1
static inline floatv own_expv(floatv d) CLFORGE_SOFTMAX_EXP(float, as_int, as_float)
#else
static inline floatv own_expv(floatv d) CLFORGE_SOFTMAX_EXP(floatv, CLFORGE_CAT(as_int, VW), CLFORGE_CAT(as_float, VW))
#endif
static inline float own_exp1(float d) CLFORGE_SOFTMAX_EXP(float, as_int, as_float)
#if EXP
#define EXPV own_expv
#define EXP1 own_exp1
#else
#define EXPV exp
#define EXP1 exp
#endif

// Join two (max, sum) pairs into a.
static inline void join(float *am, float *al, float bm, float bl) {
  const float m = fmax(*am, bm), s = safe1(m);
  *al = *al * EXP1(*am - s) + bl * EXP1(bm - s);
  *am = m;
}

// Running (max, sum) update with one exp: with hi/lo the larger/smaller
// of m and t, the sum is rescaled by exp(lo - hi) when t is the new max,
// else grows by it. A NaN t is "lo" and makes the sum NaN; m never becomes
// NaN. Scalar and vector forms (select picks its second operand where the
// comparison holds, in both).
static inline void step1(float *m, float *l, float t) {
  const int gt = t > *m;
  const float hi = gt ? t : *m, e = EXP1((gt ? *m : t) - safe1(hi));
  *l = gt ? fma(*l, e, 1.0f) : *l + e;
  *m = hi;
}

static inline void stepv(floatv *m, floatv *l, floatv t) {
  const floatv hi = fmax(*m, t); // t NaN: *m, as below
  const floatv e = EXPV(select(t, *m, t > *m) - SAFE(hi));
  *l = select(*l + e, fma(*l, e, (floatv)1.0f), t > *m);
  *m = hi;
}

// Join a vector's per-lane (max, sum) pairs into (*m, *l).
static inline void join_lanes(float *m, float *l, floatv mv, floatv lv) {
#if VW == 1
  join(m, l, mv, lv);
#else
  float am[VW], al[VW];
  VSTOREF(mv, am);
  VSTOREF(lv, al);
  for (int i = 0; i < VW; ++i) join(m, l, am[i], al[i]);
#endif
}

static inline float hmax(floatv v) {
#if VW == 1
  return v;
#else
  float m = v.s0;
  float a[VW];
  VSTOREF(v, a);
  for (int i = 1; i < VW; ++i) m = fmax(m, a[i]);
  return m;
#endif
}

static inline float hsum(floatv v) {
#if VW == 1
  return v;
#else
  float a[VW];
  VSTOREF(v, a);
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

