// Split-KV attention (flash-decoding) for small Sq: the key range of each
// (batch item, kv head) is cut into P = SPLITS * WG contiguous chunks; one
// work-item streams one chunk for ALL the group's query heads and all Sq
// queries at once (so K and V are read from memory once), keeps an online
// softmax per row and writes its partial (acc[Dv] unnormalized, m, l) to the
// workspace. clforge_attention_combine merges a row's P partials through
// their maxima into O and LSE. src/ops/attention_split_kv.c launches both.
//
// Family parameters (-D, src/families/attention_split_kv.c):
//   KB    keys per block: scores of a block first, one rescale per block
//   ROWS  query rows (head, query) per pass over the chunk; more rows than
//         that take several passes (the chunk is then re-read, from cache)
//   VW    vector width along D and Dv
//   HCVT  f16 K/V widened by vload_half (1) or cl/common.cl's integer
//         conversion (0)
// Host options (-D): KV_UNIT (K's and V's d-stride is 1: vector loads),
// ASKV_SHUF (lanes move by shufflevector; 0 on Oclgrind), ASKV_PF
// (prefetch distance in key blocks; 0: none). Combine: CVW elements of Dv
// per work-item. One chunk per row (P = 1) writes O and LSE itself, no
// combine.
//
// Remainders are written x - q * y: the compiler's div/rem pairing would
// emit an LLVM `freeze`, which Oclgrind cannot run.
//
// Partial slot of row (b, hq, i) and chunk p: ((b*Hq + hq)*Sq + i)*P + p,
// each DV2 = HEAD_DV + 2 floats: acc[0..Dv), m, l.

typedef CLFORGE_CAT(CLFORGE_STORAGE_, Q_T) q_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, KV_T) kv_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, O_T) o_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, MASK_T) mask_t;

#define DV2 (HEAD_DV + 2)

#ifdef VW
// Sums and maxima of a vector's lanes as trees (short dependency chains):
// halves combined down to two lanes, then dot() for the last sum (a plain
// a.x + a.y is folded into a shuffle with an undefined lane, which
// Oclgrind's uninitialized-value check crashes on); 16 lanes halve through
// private memory (Oclgrind loses track of .lo/.hi of a float16; PoCL
// compiles both alike).
static inline float attn_hsum1(float v) { return v; }
static inline float attn_hsum2(float2 v) { return dot(v, (float2)(1.0f, 1.0f)); }
static inline float attn_hsum4(float4 v) { return attn_hsum2(v.lo + v.hi); }
static inline float attn_hsum8(float8 v) { return attn_hsum4(v.lo + v.hi); }
static inline float attn_hsum16(float16 v) {
  float t[16];
  vstore16(v, 0, t);
  return attn_hsum8(vload8(0, t) + vload8(1, t));
}
static inline float attn_hmax1(float v) { return v; }
static inline float attn_hmax2(float2 v) { return fmax(v.x, v.y); }
static inline float attn_hmax4(float4 v) { return attn_hmax2(fmax(v.lo, v.hi)); }
static inline float attn_hmax8(float8 v) { return attn_hmax4(fmax(v.lo, v.hi)); }
static inline float attn_hmax16(float16 v) {
  float t[16];
  vstore16(v, 0, t);
  return attn_hmax8(fmax(vload8(0, t), vload8(1, t)));
}

#if VW == 1
#define UINTV uint
#define FLOATV float
#define VLOAD(p) (*(p))
#define VSTORE(x, p) (*(p) = (x))
#define CVT_UINTV(x) ((uint)(x))
#else
#define UINTV CLFORGE_CAT(uint, VW)
#define FLOATV CLFORGE_CAT(float, VW)
#define VLOAD(p) CLFORGE_CAT(vload, VW)(0, p)
#define VSTORE(x, p) CLFORGE_CAT(vstore, VW)(x, 0, p)
#define CVT_UINTV(x) CLFORGE_CAT(convert_uint, VW)(x)
#endif

// exp(x) for the softmax weights, written out so it vectorizes (PoCL's
// builtin is a call per element): x = n ln2 + r, |r| <= ln2 / 2, e^r by
// a degree-6 polynomial (relative error ~2e-7), times 2^n through the
// exponent bits. x < -87.3 gives 0 (as exp's result would flush), NaN
// stays NaN; x is never above 0 here (scores minus their running max).
#define ATTN_DEFINE_EXP(name, ft, it)                                                        \
  static inline ft name(ft x) {                                               \
    const ft xc = fmax(x, (ft)(-87.3f));                                               \
    const ft n = rint(xc * 1.44269504f);                                               \
    const ft r = fma(n, (ft)(-0.693359375f), fma(n, (ft)(2.12194440e-4f), xc));        \
    ft p = fma((ft)1.3888949e-3f, r, (ft)8.3333836e-3f);                               \
    p = fma(p, r, (ft)4.1666807e-2f);                                                  \
    p = fma(p, r, (ft)1.6666667e-1f);                                                  \
    p = fma(p, r, (ft)0.5f);                                                           \
    p = fma(p, r, (ft)1.0f);                                                           \
    p = fma(p, r, (ft)1.0f);                                                           \
    const ft y = p * CLFORGE_CAT(as_, ft)((CLFORGE_CAT(convert_, it)(n) + (it)127) << 23); \
    return select(select(y, (ft)0.0f, CLFORGE_CAT(convert_, it)(x < (ft)(-87.3f)) != (it)0), x, \
                  CLFORGE_CAT(convert_, it)(isnan(x)) != (it)0);                       \
  }

ATTN_DEFINE_EXP(attn_exp_float, float, int)

// Score vectors for exp: EV of a block's KB scores at a time.
#if KB >= 16
#define EV 16
#else
#define EV KB
#endif
#if EV == 1
typedef float floatev;
#define EXPV(x) attn_exp_float(x)
#define EVLOAD(p) (*(p))
#define EVSTORE(x, p) (*(p) = (x))
#define EVSUM(e) (e)
#define EVMAX(e) (e)
#else
typedef CLFORGE_CAT(float, EV) floatev;
#define FLOATEV CLFORGE_CAT(float, EV)
#define INTEV CLFORGE_CAT(int, EV)
ATTN_DEFINE_EXP(attn_exp_v, FLOATEV, INTEV)
#define EXPV(x) attn_exp_v(x)
#define EVLOAD(p) CLFORGE_CAT(vload, EV)(0, p)
#define EVSTORE(x, p) CLFORGE_CAT(vstore, EV)(x, 0, p)
#define EVSUM(e) CLFORGE_CAT(attn_hsum, EV)(e)
#define EVMAX(e) CLFORGE_CAT(attn_hmax, EV)(e)
#endif

// Online softmax of a block's KB scores sr (masked ones -inf): the block's
// max, one rescale, exp on vectors; sr becomes the weights, *m and *l are
// updated; returns the factor for the accumulator.
static inline float attn_block_softmax(float *sr, float *m, float *l) {
  floatev mv = EVLOAD(sr);
  UNROLL(KB / EV)
  for (int c0 = EV; c0 < KB; c0 += EV) mv = fmax(mv, EVLOAD(&sr[c0]));
  const float mb = fmax(*m, EVMAX(mv));
  float c = 1.0f;
  // never (-inf) - (-inf): an unchanged max (also -inf) keeps the scale
  if (mb != *m) c = attn_exp_float(*m - mb), *m = mb;
  float ls = 0.0f;
  UNROLL(KB / EV)
  for (int c0 = 0; c0 < KB; c0 += EV) {
    const floatev x = EVLOAD(&sr[c0]);
    const floatev e = select(EXPV(x - mb), (floatev)0.0f, x == (floatev)(-INFINITY)); // no (-inf) - (-inf)
    EVSTORE(e, &sr[c0]);
    ls += EVSUM(e);
  }
  *l = fma(*l, c, ls);
  return c;
}

// Stage a block of K and V in private memory as f32 when a load is more
// than a vector load (16-bit storage, strided d): converted once, read by
// every row. (f16 by vload_half unstaged, converted again by each row:
// 1.4x slower at Sk = 8192.)
#define STAGE (KV_T != CLFORGE_DT_F32 || !KV_UNIT)

#define ND ((HEAD_D + VW - 1) / VW)   // vectors along D (the last one may be partial)
#define NDV ((HEAD_DV + VW - 1) / VW) // vectors along Dv

// The whole-block path (16 keys' scores as one vector): 16-wide vectors
// along whole D and Dv rows, contiguous.
#define TREE (VW == 16 && KB % 16 == 0 && KV_UNIT && HEAD_D % 16 == 0 && HEAD_DV % 16 == 0)
#if TREE
// Vectors of Dv per P.V pass: the most that keep ROWS * DVC accumulators
// within 16 registers (NDV divisible).
#if NDV % 4 == 0 && ROWS * 4 <= 16
#define DVC 4
#elif NDV % 2 == 0 && ROWS * 2 <= 16
#define DVC 2
#else
#define DVC 1
#endif
// One level of the transpose-and-add tree: a ++ b as w-lane chunks, chunk
// i of the result = chunk 2i + chunk 2i+1 (a full-width add). Four levels
// (w = 8, 4, 2, 1) turn 16 keys' partial vectors into one vector of their
// 16 sums. Through private memory where Oclgrind runs it, shuffles
// elsewhere (PoCL does not turn the private-memory form into shuffles).
static inline float16 attn_pair16(float16 a, float16 b, const int w) {
#if ASKV_SHUF
  // the same lanes by shufflevector (PoCL: vpermt2ps; Oclgrind loses track
  // of the result's initialized state, the host sets ASKV_SHUF=0 there)
  if (w == 8)
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
           __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  if (w == 4)
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
           __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
  if (w == 2)
    return __builtin_shufflevector(a, b, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29) +
           __builtin_shufflevector(a, b, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30) +
         __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
#else
  float m[32], x[16], y[16];
  vstore16(a, 0, m);
  vstore16(b, 0, m + 16);
  UNROLL(16)
  for (int i = 0; i < 16; ++i) {
    const int c = i / w, e = i - c * w;
    x[i] = m[2 * c * w + e];
    y[i] = m[(2 * c + 1) * w + e];
  }
  return vload16(0, x) + vload16(0, y);
#endif
}
#endif

#define HSUM CLFORGE_CAT(attn_hsum, VW)
static inline float hsum(floatv v) { return HSUM(v); }

#if VW == 1
#define CONVERT_FLOATV(x) convert_float(x)
#else
#define CONVERT_FLOATV(x) CLFORGE_CAT(convert_float, VW)(x)
#endif

// VW contiguous storage elements from p as f32 (the caller knows they exist);
// not for q8_0, whose vectors need their block's scale (load_kv_vec).
#if KV_T != CLFORGE_DT_Q8_0
static inline floatv vload_kv(const __global kv_t *p) {
#if KV_T == CLFORGE_DT_F32
  return VLOAD(p);
#elif KV_T == CLFORGE_DT_F16 && HCVT
  // the builtin: one instruction per vector where the CPU converts f16
  // (PoCL on x86 with F16C emits vcvtph2ps), a routine on some drivers
#if VW == 1
  return vload_half(0, (const __global half *)p);
#else
  return CLFORGE_CAT(vload_half, VW)(0, (const __global half *)p);
#endif
#elif KV_T == CLFORGE_DT_F16
  return CLFORGE_CAT(clforge_f32_from_f16_bits_, UINTV)(CVT_UINTV(VLOAD(p)));
#else
  return CLFORGE_CAT(as_, FLOATV)(CVT_UINTV(VLOAD(p)) << 16);
#endif
}
#endif

// Vector vd of a K or V row (n = D or Dv valid elements, stride sd between
// them): a vector load when whole and contiguous, else element by element
// with zeros past n (never reads past the row: a neighbour's NaN times a
// zero of q would still be NaN).
static inline floatv load_kv_vec(const __global kv_t *p, aidx base, aidx sd, int vd, int n) {
#if KV_T == CLFORGE_DT_Q8_0
  // whole vectors of one block (D % 32 == 0, VW divides 32)
  const int e = vd * VW;
  const __global uchar *blk = p + base + (aidx)((e >> 5) * 34);
  (void)sd, (void)n;
#if VW == 1
  return attn_q8_1(p + base, e);
#else
  return CONVERT_FLOATV(VLOAD((const __global char *)(blk + 2 + (e & 31)))) * attn_q8_scale(blk);
#endif
#else
#if KV_UNIT
  if (vd * VW + VW <= n) return vload_kv(p + base + (aidx)(vd * VW));
#endif
  float t[VW];
  UNROLL(VW)
  for (int e = 0; e < VW; ++e) {
    const int d = vd * VW + e;
    t[e] = d < n ? LOAD1(KV_T, p, base + (aidx)d * sd) : 0.0f;
  }
#if VW == 1
  return t[0];
#else
  return VLOAD(t);
#endif
#endif
}

// Vector vd of a whole, contiguous row starting at `row` (TREE's loads).
static inline floatv kv_row_vec(const __global kv_t *row, int vd) {
#if KV_T == CLFORGE_DT_Q8_0
  return load_kv_vec(row, 0, 1, vd, HEAD_D);
#else
  return vload_kv(row + vd * VW);
#endif
}

static inline floatv load_q_vec(const __global q_t *p, aidx base, aidx sd, int vd) {
  float t[VW];
  UNROLL(VW)
  for (int e = 0; e < VW; ++e) {
    const int d = vd * VW + e;
    t[e] = d < HEAD_D ? LOAD1(Q_T, p, base + (aidx)d * sd) : 0.0f;
  }
#if VW == 1
  return t[0];
#else
  return VLOAD(t);
#endif
}

#if PAGED
// A position in a paged sequence walked key by key: pool-table index pg,
// slot sl, and the entry of table index epg (read once per block crossed,
// and only for keys the caller uses: the host checked just those).
typedef struct {
  uint pg, sl, epg;
  ulong e;
} page_cur;
static inline page_cur cur_at(uint j, uint bsz) {
  page_cur c;
  c.pg = j / bsz, c.sl = j - c.pg * bsz, c.epg = UINT_MAX, c.e = 0;
  return c;
}
static inline ulong cur_entry(page_cur *c, __global const int *bt, ulong row) {
  if (c->epg != c->pg) c->epg = c->pg, c->e = (uint)bt[row + c->pg];
  return c->e;
}
static inline void cur_step(page_cur *c, uint bsz) {
  if (++c->sl == bsz) c->sl = 0, ++c->pg;
}
static inline void cur_skip(page_cur *c, uint n, uint bsz) {
  c->sl += n;
  while (c->sl >= bsz) c->sl -= bsz, ++c->pg;
}
#endif

// global (P, B*Hkv), local (WG, 1): work-item p streams chunk p of its
// (b, kv head)'s keys [0, Sk); chunks are `chunk` keys long (a multiple
// of KB), so trailing ones may be empty (they write m = -inf, l = 0).
__kernel void clforge_attention_split_kv(
    const __global q_t *q, const ulong q_off, const ulong qs0, const ulong qs1, const ulong qs2, const ulong qs3,
    const __global kv_t *k, const ulong k_off, const ulong ks0, const ulong ks1, const ulong ks2, const ulong ks3,
    const __global kv_t *v, const ulong v_off, const ulong vs0, const ulong vs1, const ulong vs2, const ulong vs3,
    const __global mask_t *mask, const ulong m_off, const ulong ms0, const ulong ms1, const ulong ms2,
    const ulong ms3, __global float *ws, const uint chunk, __global o_t *o, const ulong o_off, const ulong os0,
    const ulong os1, const ulong os2, const ulong os3, __global float *lse, const ulong l_off, const ulong ls0,
    const ulong ls1, const ulong ls2, const ulong ls3, ATTN_COMMON_ARGS) {
  const uint p = get_global_id(0), P = get_global_size(0);
  const uint bh = get_global_id(1), b = bh / Hkv, kvh = bh - b * Hkv;
  const int kv_len = attn_kv_len(kv_lens, kvl_off, b, Sk, has);
  const int q_len = attn_q_len(q_lens, ql_off, b, Sq, has);
  const int c_lo = (int)min((ulong)p * chunk, (ulong)Sk), c_hi = (int)min((ulong)(p + 1) * chunk, (ulong)Sk);
  const uint R = group * Sq; // rows of this kv head: r = g * Sq + i, query head kvh * group + g
  const aidx ks = (aidx)ks2, kd = (aidx)ks3, vs = (aidx)vs2, vd_ = (aidx)vs3;
#if PAGED
  // rows through the block table, per key block: a block of keys within
  // one pool block (`run`: the usual case, block sizes a multiple of KB)
  // is rows ks apart from kbase as in a contiguous cache; else per key
  const aidx kh = (aidx)(k_off + kvh * ks1), vh = (aidx)(v_off + kvh * vs1);
  const ulong bt_row = bt_off + (ulong)b * bt_stride;
#define KOFF(jj) kro[jj]
#define VOFF(jj) vro[jj]
#else
  const aidx kb = (aidx)(k_off + b * ks0 + kvh * ks1), vb = (aidx)(v_off + b * vs0 + kvh * vs1);
  (void)bt, (void)bt_off, (void)bt_stride, (void)bsz;
#define KOFF(jj) (kb + (aidx)(j0 + (jj)) * ks)
#define VOFF(jj) (vb + (aidx)(j0 + (jj)) * vs)
#endif
  (void)mask, (void)m_off, (void)ms0, (void)ms1, (void)ms2, (void)ms3, (void)softcap, (void)B;

  for (uint r0 = 0; r0 < R; r0 += ROWS) {
    floatv qr[ROWS][ND], acc[ROWS][NDV];
    float m[ROWS], l[ROWS];
    int lo[ROWS], hi[ROWS], act[ROWS], ulo = c_hi, uhi = c_lo;
#if HAS_MASK
    aidx mrow[ROWS];
#endif
    UNROLL(ROWS)
    for (int r = 0; r < ROWS; ++r) {
      const uint rr = r0 + (uint)r, g = rr / Sq, i = rr - g * Sq, hq = kvh * group + g;
      m[r] = -INFINITY;
      l[r] = 0.0f;
      lo[r] = hi[r] = 0;
      act[r] = rr < R && (int)i < q_len;
      if (act[r]) {
        attn_key_range((int)i, kv_len, q_len, window, &lo[r], &hi[r]);
        lo[r] = max(lo[r], c_lo);
        hi[r] = min(hi[r], c_hi);
        if (lo[r] < hi[r]) ulo = min(ulo, lo[r]), uhi = max(uhi, hi[r]);
      }
      const aidx qb = (aidx)(q_off + b * qs0 + hq * qs1 + i * qs2);
      UNROLL(ND)
      for (int d = 0; d < ND; ++d) qr[r][d] = rr < R ? scale * load_q_vec(q, qb, (aidx)qs3, d) : (floatv)0.0f;
      UNROLL(NDV)
      for (int d = 0; d < NDV; ++d) acc[r][d] = (floatv)0.0f;
#if HAS_MASK
      mrow[r] = (aidx)(m_off + b * ms0 + hq * ms1 + i * ms2);
#endif
    }

#if PAGED
    // cursors at the block's first key and ASKV_PF blocks ahead (prefetch)
    page_cur cur = cur_at((uint)ulo, bsz);
#if ASKV_PF
    page_cur pcur = cur_at((uint)ulo + ASKV_PF * KB, bsz);
#endif
#endif
    for (int j0 = ulo; j0 < uhi; j0 += KB) {
      const int jn = min(KB, uhi - j0); // keys in this block
#if PAGED
      // The block's rows: one table read per pool block it touches (the
      // cursor steps; no division per key).
      aidx kro[KB], vro[KB];
      const ulong e0 = cur_entry(&cur, bt, bt_row);
      const int run = cur.sl + (uint)jn <= bsz;
      const aidx kbase = kh + (aidx)(e0 * ks0) + (aidx)cur.sl * ks, vbase = vh + (aidx)(e0 * vs0) + (aidx)cur.sl * vs;
      if (run) {
        UNROLL(KB)
        for (int jj = 0; jj < KB; ++jj) kro[jj] = kbase + (aidx)jj * ks, vro[jj] = vbase + (aidx)jj * vs;
      } else {
        page_cur c = cur;
        for (int jj = 0; jj < jn; ++jj) {
          const ulong e = cur_entry(&c, bt, bt_row);
          kro[jj] = kh + (aidx)(e * ks0) + (aidx)c.sl * ks;
          vro[jj] = vh + (aidx)(e * vs0) + (aidx)c.sl * vs;
          cur_step(&c, bsz);
        }
      }
      cur_skip(&cur, KB, bsz);
#endif
#if ASKV_PF
#if KV_T == CLFORGE_DT_Q8_0
#define ASKV_KLINES ((HEAD_D / 32 * 34 + 63) / 64)
#define ASKV_VLINES ((HEAD_DV / 32 * 34 + 63) / 64)
#elif KV_T == CLFORGE_DT_F32
#define ASKV_KLINES ((HEAD_D * 4 + 63) / 64)
#define ASKV_VLINES ((HEAD_DV * 4 + 63) / 64)
#else
#define ASKV_KLINES ((HEAD_D * 2 + 63) / 64)
#define ASKV_VLINES ((HEAD_DV * 2 + 63) / 64)
#endif
      // Prefetch the K and V rows ASKV_PF blocks ahead: one work-item per
      // core streams two rows per key, with too much work between its loads
      // for the out-of-order window alone to keep enough misses in flight.
#if PAGED
      // (a whole block within one pool block as the contiguous form does;
      // otherwise key by key)
      if (j0 + ASKV_PF * KB + KB <= uhi && pcur.sl + KB <= bsz) {
        const ulong e = cur_entry(&pcur, bt, bt_row);
        const aidx pkb = kh + (aidx)(e * ks0) + (aidx)pcur.sl * ks, pvb = vh + (aidx)(e * vs0) + (aidx)pcur.sl * vs;
        UNROLL(KB)
        for (int jj = 0; jj < KB; ++jj) {
          const __global char *pk = (const __global char *)(k + pkb + (aidx)jj * ks);
          const __global char *pv = (const __global char *)(v + pvb + (aidx)jj * vs);
#pragma nounroll
          for (int c = 0; c < ASKV_KLINES; ++c) __builtin_prefetch(pk + 64 * c, 0, 3);
#pragma nounroll
          for (int c = 0; c < ASKV_VLINES; ++c) __builtin_prefetch(pv + 64 * c, 0, 3);
        }
      } else if (j0 + ASKV_PF * KB < uhi) {
        page_cur c = pcur;
        for (int jj = 0; jj < KB && j0 + ASKV_PF * KB + jj < uhi; ++jj) {
          const ulong e = cur_entry(&c, bt, bt_row);
          const __global char *pk = (const __global char *)(k + kh + (aidx)(e * ks0) + (aidx)c.sl * ks);
          const __global char *pv = (const __global char *)(v + vh + (aidx)(e * vs0) + (aidx)c.sl * vs);
#pragma nounroll
          for (int c_ = 0; c_ < ASKV_KLINES; ++c_) __builtin_prefetch(pk + 64 * c_, 0, 3);
#pragma nounroll
          for (int c_ = 0; c_ < ASKV_VLINES; ++c_) __builtin_prefetch(pv + 64 * c_, 0, 3);
          cur_step(&c, bsz);
        }
      }
      cur_skip(&pcur, KB, bsz);
#else
      if (j0 + ASKV_PF * KB < uhi) {
        UNROLL(KB)
        for (int jj = 0; jj < KB; ++jj) {
          const __global char *pk = (const __global char *)(k + kb + (aidx)(j0 + ASKV_PF * KB + jj) * ks);
          const __global char *pv = (const __global char *)(v + vb + (aidx)(j0 + ASKV_PF * KB + jj) * vs);
          // (kept as loops: unrolled, they made the block slower)
#pragma nounroll
          for (int c = 0; c < ASKV_KLINES; ++c) __builtin_prefetch(pk + 64 * c, 0, 3);
#pragma nounroll
          for (int c = 0; c < ASKV_VLINES; ++c) __builtin_prefetch(pv + 64 * c, 0, 3);
        }
      }
#endif // PAGED
#endif // ASKV_PF
#if TREE
      // A whole block every row sees (rows past the end compute on valid
      // keys and are never written): each K and V vector is loaded (and
      // widened) once for all ROWS rows, q and the weights come from L1.
      int full = jn == KB;
      UNROLL(ROWS)
      for (int r = 0; r < ROWS; ++r) full &= !act[r] || (lo[r] <= j0 && hi[r] >= j0 + KB);
      if (full) {
        float sc[ROWS][KB];
        UNROLL(KB / 16)
        for (int c0 = 0; c0 < KB; c0 += 16) {
          // 16 keys' dot-product partials summed by a transpose-and-add tree
          // (full-width adds), in the order that keeps few vectors live.
          float16 z[ROWS][2];
          UNROLL(2)
          for (int h = 0; h < 2; ++h) {
            float16 w[ROWS][2];
            UNROLL(2)
            for (int g = 0; g < 2; ++g) {
              float16 t[ROWS][4];
              UNROLL(4)
              for (int jj = 0; jj < 4; ++jj) {
                const __global kv_t *kr = k + KOFF(c0 + 8 * h + 4 * g + jj);
                UNROLL(ROWS)
                for (int r = 0; r < ROWS; ++r) t[r][jj] = (float16)0.0f;
                UNROLL(ND)
                for (int d = 0; d < ND; ++d) {
                  const float16 kv = kv_row_vec(kr, d);
                  UNROLL(ROWS)
                  for (int r = 0; r < ROWS; ++r) t[r][jj] = fma(qr[r][d], kv, t[r][jj]);
                }
              }
              UNROLL(ROWS)
              for (int r = 0; r < ROWS; ++r)
                w[r][g] = attn_pair16(attn_pair16(t[r][0], t[r][1], 8), attn_pair16(t[r][2], t[r][3], 8), 4);
            }
            UNROLL(ROWS)
            for (int r = 0; r < ROWS; ++r) z[r][h] = attn_pair16(w[r][0], w[r][1], 2);
          }
          UNROLL(ROWS)
          for (int r = 0; r < ROWS; ++r) {
            float16 x = attn_pair16(z[r][0], z[r][1], 1);
#if SOFTCAP || HAS_MASK
            float xs[16];
            vstore16(x, 0, xs);
            UNROLL(16)
            for (int jj = 0; jj < 16; ++jj) {
              float y = attn_softcap(xs[jj], softcap);
#if HAS_MASK
              // (a row past the heads has no mask row)
              if (act[r]) y += LOAD1(MASK_T, mask, mrow[r] + (aidx)(j0 + c0 + jj) * (aidx)ms3);
#endif
              xs[jj] = y;
            }
            x = vload16(0, xs);
#endif
            vstore16(x, 0, &sc[r][c0]);
          }
        }
        float cr[ROWS];
        UNROLL(ROWS)
        for (int r = 0; r < ROWS; ++r) cr[r] = attn_block_softmax(sc[r], &m[r], &l[r]);
        // P.V over chunks of DVC vectors of Dv (ROWS * DVC accumulators):
        // per key, ROWS weight broadcasts serve DVC vectors each.
        UNROLL(NDV / DVC)
        for (int d0 = 0; d0 < NDV; d0 += DVC) {
          float16 a_[ROWS][DVC];
          UNROLL(ROWS)
          for (int r = 0; r < ROWS; ++r) {
            UNROLL(DVC)
            for (int d = 0; d < DVC; ++d) a_[r][d] = acc[r][d0 + d] * cr[r];
          }
          UNROLL(KB)
          for (int jj = 0; jj < KB; ++jj) {
            const __global kv_t *vr = v + VOFF(jj);
            float16 vv[DVC];
            UNROLL(DVC)
            for (int d = 0; d < DVC; ++d) vv[d] = kv_row_vec(vr, d0 + d);
            UNROLL(ROWS)
            for (int r = 0; r < ROWS; ++r) {
              const float16 e = (float16)sc[r][jj];
              UNROLL(DVC)
              for (int d = 0; d < DVC; ++d) a_[r][d] = fma(e, vv[d], a_[r][d]);
            }
          }
          UNROLL(ROWS)
          for (int r = 0; r < ROWS; ++r) {
            UNROLL(DVC)
            for (int d = 0; d < DVC; ++d) acc[r][d0 + d] = a_[r][d];
          }
        }
        continue;
      }
#endif
#if STAGE
      // The block's K and V rows as f32, converted once for all the rows.
      // A loop of KB trips with a guard, not one of jn trips: Intel's CPU
      // compiler (2026.2, optimizing) staged the NEXT key's row when KB = 1
      // with the jn-trip loop (docs/drivers.md); -cl-opt-disable or this
      // form stage the right one, and both forms mean the same.
      floatv kbuf[KB][ND], vbuf[KB][NDV];
      for (int jj = 0; jj < KB; ++jj) {
        if (jj < jn) {
          UNROLL(ND)
          for (int d = 0; d < ND; ++d) kbuf[jj][d] = load_kv_vec(k, KOFF(jj), kd, d, HEAD_D);
          UNROLL(NDV)
          for (int d = 0; d < NDV; ++d) vbuf[jj][d] = load_kv_vec(v, VOFF(jj), vd_, d, HEAD_DV);
        }
      }
#define KROW(jj, d) kbuf[jj][d]
#define VROW(jj, d) vbuf[jj][d]
#else
#define KROW(jj, d) load_kv_vec(k, KOFF(jj), kd, d, HEAD_D)
#define VROW(jj, d) load_kv_vec(v, VOFF(jj), vd_, d, HEAD_DV)
#endif
      // Row by row (the block stays in L1): q and acc of one row live in
      // registers while it runs over the block's keys, and a row visits
      // only the keys it sees (a contiguous range), so no per-key checks.
      for (int r = 0; r < ROWS; ++r) {
        const int ja = clamp(lo[r] - j0, 0, jn), jb = clamp(hi[r] - j0, 0, jn);
        float sr[KB];
        UNROLL(KB)
        for (int jj = 0; jj < KB; ++jj) sr[jj] = -INFINITY;
        floatv q_[ND];
        UNROLL(ND)
        for (int d = 0; d < ND; ++d) q_[d] = qr[r][d];
        for (int jj = ja; jj < jb; ++jj) {
          floatv t0 = q_[0] * KROW(jj, 0), t1 = (floatv)0.0f;
          UNROLL(ND)
          for (int d = 1; d < ND; ++d) {
            if (d & 1)
              t1 = fma(q_[d], KROW(jj, d), t1);
            else
              t0 = fma(q_[d], KROW(jj, d), t0);
          }
          float x = attn_softcap(hsum(t0 + t1), softcap);
#if HAS_MASK
          x += LOAD1(MASK_T, mask, mrow[r] + (aidx)(j0 + jj) * (aidx)ms3);
#endif
          sr[jj] = x;
        }
        const float c = attn_block_softmax(sr, &m[r], &l[r]);
        floatv a_[NDV];
        UNROLL(NDV)
        for (int d = 0; d < NDV; ++d) a_[d] = acc[r][d] * c;
        for (int jj = ja; jj < jb; ++jj) {
          const floatv e = (floatv)sr[jj];
          UNROLL(NDV)
          for (int d = 0; d < NDV; ++d) a_[d] = fma(e, VROW(jj, d), a_[d]);
        }
        UNROLL(NDV)
        for (int d = 0; d < NDV; ++d) acc[r][d] = a_[d];
      }
#undef KROW
#undef VROW
    }

    // The stores as loops, not unrolled: one copy of the output's store
    // (an f16 or bf16 rounding per element) instead of ROWS x Dv (PoCL's
    // compile of Dv = 128 with f16 O took 10-15 s). The accumulators and
    // row statistics go through arrays of their own so that the key loop's
    // stay in registers.
    floatv res[ROWS][NDV];
    float mres[ROWS], lres[ROWS];
    UNROLL(ROWS)
    for (int r = 0; r < ROWS; ++r) {
      mres[r] = m[r], lres[r] = l[r];
      UNROLL(NDV)
      for (int d = 0; d < NDV; ++d) res[r][d] = acc[r][d];
    }
#pragma nounroll
    for (int r = 0; r < ROWS; ++r) {
      const uint rr = r0 + (uint)r, g = rr / Sq, i = rr - g * Sq, hq = kvh * group + g;
      if (rr >= R || (int)i >= q_len) continue;
      if (P == 1) {
        // One chunk per row: normalize here, no combine launch; the
        // combine's rules with a single partial (l = 0: zeros, LSE -inf).
        // (A run-time test, once per row: not worth a second program.)
        const float inv = lres[r] == 0.0f ? 0.0f : 1.0f / lres[r];
        const aidx ob = (aidx)(o_off + b * os0 + hq * os1 + i * os2);
#pragma nounroll
        for (int d = 0; d < NDV; ++d) {
          float t[VW];
#if VW == 1
          t[0] = res[r][d] * inv;
#else
          VSTORE(res[r][d] * inv, t);
#endif
#pragma nounroll
          for (int e = 0; e < VW; ++e)
            if (d * VW + e < HEAD_DV) STORE1(O_T, t[e], o, ob + (aidx)(d * VW + e) * (aidx)os3);
        }
        if (has & ATTN_HAS_LSE)
          lse[l_off + b * ls0 + hq * ls1 + i * ls2] = lres[r] == 0.0f ? -INFINITY : mres[r] + log(lres[r]);
        continue;
      }
      (void)ls3;
      __global float *w = ws + (((ulong)(b * Hq + hq) * Sq + i) * P + p) * DV2;
      UNROLL(NDV)
      for (int d = 0; d < NDV; ++d) {
        if (d * VW + VW <= HEAD_DV) {
          VSTORE(res[r][d], w + d * VW);
        } else {
          float t[VW];
#if VW == 1
          t[0] = res[r][d];
#else
          VSTORE(res[r][d], t);
#endif
          for (int e = 0; d * VW + e < HEAD_DV; ++e) w[d * VW + e] = t[e];
        }
      }
      w[HEAD_DV] = mres[r];
      w[HEAD_DV + 1] = lres[r];
    }
  }
}
#endif // VW

#ifdef CVW
// global (ceil(Dv / CVW) rounded up to CWG, Sq, B*Hq), local (CWG, 1, 1):
// a work-item merges CVW elements of row (b, hq, i) over the row's P
// partials: O = sum_p acc_p e^(m_p - M) / sum_p l_p e^(m_p - M), M = max m_p.
// Dv is the argument dv (no loop over it here to unroll: one program for
// every Dv; HEAD_DV is not read).
__kernel void clforge_attention_combine(
    const __global float *ws, const uint P, const uint dv, __global o_t *o, const ulong o_off, const ulong os0,
    const ulong os1, const ulong os2, const ulong os3, __global float *lse, const ulong l_off, const ulong ls0,
    const ulong ls1, const ulong ls2, const ulong ls3, ATTN_COMMON_ARGS) {
  const uint d0 = get_global_id(0) * CVW, i = get_global_id(1), bh = get_global_id(2);
  const uint b = bh / Hq, hq = bh - b * Hq;
  (void)ls3, (void)kv_lens, (void)kvl_off, (void)Hkv, (void)group, (void)Sk, (void)window, (void)scale, (void)softcap,
      (void)B;
  if (d0 >= dv || (int)i >= attn_q_len(q_lens, ql_off, b, Sq, has)) return;
  const uint dv2 = dv + 2; // a partial: acc[0..dv), m, l
  const __global float *w = ws + ((ulong)bh * Sq + i) * P * dv2;
  float M = -INFINITY;
  for (uint p = 0; p < P; ++p) M = fmax(M, w[p * dv2 + dv]);
  // Partials with l = 0 saw no key (their m is -inf, acc 0) and are
  // skipped; a NaN l still counts, so NaN propagates.
  float L = 0.0f, a[CVW];
  for (int e = 0; e < CVW; ++e) a[e] = 0.0f;
  for (uint p = 0; p < P; ++p) {
    const __global float *wp = w + p * dv2;
    const float mp = wp[dv], lp = wp[dv + 1];
    if (lp == 0.0f) continue;
    const float c = mp == M ? 1.0f : exp(mp - M);
    L = fma(lp, c, L);
    for (int e = 0; e < CVW; ++e)
      if (d0 + e < dv) a[e] = fma(wp[d0 + e], c, a[e]);
  }
  const float inv = L == 0.0f ? 0.0f : 1.0f / L;
  const aidx ob = (aidx)(o_off + b * os0 + hq * os1 + i * os2);
  for (int e = 0; e < CVW; ++e)
    if (d0 + e < dv) STORE1(O_T, a[e] * inv, o, ob + (aidx)(d0 + e) * (aidx)os3);
  if (d0 == 0 && (has & ATTN_HAS_LSE)) lse[l_off + b * ls0 + hq * ls1 + i * ls2] = L == 0.0f ? -INFINITY : M + log(L);
}
#endif // CVW
