// Fused attention forward (prefill): one pass over K and V with an online
// softmax; the Sq x Sk scores never leave registers.
//
// A work-group owns BQ = WGQ * TQ consecutive queries of one (b, h), each
// work-item TQ = QW * VW of them, held as QW vectors of VW queries. Vectors
// run along the queries, not along D: a score tile S^T[key][queries] is
// accumulated by broadcasting one K element against a vector of Q^T, the
// running max and sum are per-lane vector operations, and O^T[dv][queries]
// += V[key][dv] (broadcast) * P^T[key][queries]. So K and V are read along
// their contiguous rows, nothing is transposed in the loop and there is no
// horizontal reduction; Q is transposed once on load and O once on store.
//
// Keys stream in blocks of TK, converted to f32 into a contiguous staging
// block (STAGE 0: per work-item, private, no barriers; STAGE 1: shared by
// the work-group in local memory). Each work-item visits only the blocks
// that intersect the union of its rows' visible key ranges
// (attn_key_range); blocks inside every row's range run without masking,
// the boundary blocks mask per element.
//
// Tuned parameters (-D, src/families/attention_fused.c): VW, QW, WGQ, TK,
// DCH (Dv accumulators kept in registers at a time in P*V), KU (unroll of
// the D loop in Q*K^T), STAGE, HALF (below). Problem options:
// attention_common.cl, plus
// K_UNIT / V_UNIT (1 when K's / V's d stride is 1: rows load as vectors)
// and KV_DIRECT (below).

#define TQ (VW * QW)
#define BQ (WGQ * TQ)
#define LOG2E 1.4426950408889634f
#define LN2 0.6931471805599453f

typedef CLFORGE_CAT(CLFORGE_STORAGE_, Q_T) q_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, KV_T) kv_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, O_T) o_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, MASK_T) mask_t;

// Widening vector load of 16 consecutive elements of storage code T.
#define WLOAD16_1(p) vload16(0, p)
#if HCVT
// the builtin: on CPUs with F16C PoCL emits the conversion instruction
// (vcvtph2ps), several times faster than the integer route below
#define WLOAD16_2(p) vload_half16(0, (const __global half *)(p))
#else
#define WLOAD16_2(p) clforge_f32_from_f16_bits_uint16(convert_uint16(vload16(0, p)))
#endif
#define WLOAD16_3(p) as_float16(convert_uint16(vload16(0, p)) << 16)
#define WLOAD16(T, p) CLFORGE_CAT(WLOAD16_, T)(p)

// Half arithmetic (HALF, gated by the call's compute type in
// src/ops/attention.c). Q (scaled), K, V and the softmax weights P are
// rounded to f16 and both products, Q*K^T and P*V, are f16 multiplies:
// HALF 1 adds each product into the f32 scores / accumulators; HALF 2 sums
// them in f16, added into f32 every 32 elements of D (Q*K^T) and at the end
// of each key block (P*V, TK <= 32 keys). The max, exp and sums of the
// online softmax stay f32, and the weights stay at most 1 (RESCALE_GAP 0
// below), so f16 partial sums of P*V stay within 32 * max|V|. Native half
// types where the device has cl_khr_fp16; elsewhere (tests only) the same
// steps on f32 values rounded to f16, as the GEMM variants
// (cl/gemm_common.cl). K and V are staged in f16, halving the block.
#ifndef HALF
#define HALF 0
#endif
#if VW == 1
#define AVSUF
#else
#define AVSUF VW
#endif
#if HALF && CLFORGE_HALF_NATIVE
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half st_t;                       // a staged K/V element
typedef CLFORGE_CAT(half, AVSUF) qv_t;   // Q^T, a broadcast K/V element, P
#define TO_QV(x) CLFORGE_CAT(convert_half, AVSUF)(x)
#define TO_FV(x) CLFORGE_CAT(convert_float, AVSUF)(x)
#define ST16(x) convert_half16(x)
#define ST1(x) convert_half(x)
#define HMUL(a, b) ((a) * (b))
#define HFMA(a, b, c) fma(a, b, c)
#elif HALF
typedef float st_t;
typedef floatv qv_t;
#define TO_QV(x) CLFORGE_F16_ROUND(AVSUF, x)
#define TO_FV(x) (x)
#define ST16(x) CLFORGE_F16_ROUND(16, x)
#define ST1(x) CLFORGE_F16_ROUND(, (float)(x))
#define HMUL(a, b) TO_QV((a) * (b))
#define HFMA(a, b, c) TO_QV(fma(a, b, c))
#else
typedef float st_t;
typedef floatv qv_t;
#define TO_QV(x) (x)
#define ST16(x) (x)
#define ST1(x) (x)
#endif
#if HALF && KV_DIRECT
#error "KV_DIRECT reads f32 rows where they lie: the half variants stage f16 rows (the host turns it off)"
#endif
#if HALF == 2 && TK > 32
#error "HALF 2 sums a key block's P*V in f16: TK must be at most 32"
#endif

// KV_DIRECT (f32 K and V with unit d strides, STAGE 0): the block is read
// where it lies, rows row-stride apart, no copy; the rows of a last,
// partial block past its end repeat its last row (their scores are masked,
// so they weigh 0).
#if KV_DIRECT && PAGED
#error "KV_DIRECT reads rows where they lie: a paged cache's go through the table (the host turns it off)"
#endif
#if STAGE
#define KV_AS local
#elif KV_DIRECT
#define KV_AS global
#else
#define KV_AS private
#endif

// Row r of a staging block (n floats at dst) from n elements of src, d
// stride sd (UNIT: 1), or zeros when the key is past the block's end.
// q8_0 rows (n a multiple of 32) widen 16 values at a time.
#if KV_T == CLFORGE_DT_Q8_0
#define STAGE_ROW(dst, src, sd, n, UNIT, valid)                                  \
  do {                                                                           \
    if (!(valid)) {                                                              \
      for (int c_ = 0; c_ < (n); ++c_) (dst)[c_] = 0.0f;                         \
    } else {                                                                     \
      for (int c_ = 0; c_ < (n); c_ += 16) vstore16(ST16(attn_q8_16(src, c_)), 0, (dst) + c_); \
    }                                                                            \
  } while (0)
#else
#define STAGE_ROW(dst, src, sd, n, UNIT, valid)                                  \
  do {                                                                           \
    if (!(valid)) {                                                              \
      for (int c_ = 0; c_ < (n); ++c_) (dst)[c_] = 0.0f;                         \
    } else if (UNIT) {                                                           \
      int c_ = 0;                                                                \
      for (; c_ + 16 <= (n); c_ += 16) vstore16(ST16(WLOAD16(KV_T, (src) + c_)), 0, (dst) + c_); \
      for (; c_ < (n); ++c_) (dst)[c_] = ST1(LOAD1(KV_T, src, c_));             \
    } else {                                                                     \
      for (int c_ = 0; c_ < (n); ++c_) (dst)[c_] = ST1(LOAD1(KV_T, src, (aidx)c_ * (sd))); \
    }                                                                            \
  } while (0)
#endif

// Where key rows are: K and V at their (item and) head, the block table's
// row of the item (PAGED), and the strides attn_kv_row takes.
typedef struct {
  const global kv_t *K, *V;
  global const int *bt;
  ulong bt_row, k_sb, k_ss, v_sb, v_ss;
  uint bsz, b;
} kv_rows;

// Stage keys [j0, j0 + TK) (those below jend; the rest zeros, so that no
// garbage, NaN included, meets a zero weight) into kb and vb; work-item
// `first` of `step` takes every step-th row.
static inline void stage_block(KV_AS st_t *kb, KV_AS st_t *vb, const kv_rows *kr_, const aidx k_sd,
                               const aidx v_sd, const int j0, const int jend, const int first, const int step) {
  for (int r = first; r < TK; r += step) {
    const int j = j0 + r;
    const global kv_t *kr = kr_->K, *vr = kr_->V;
    if (j < jend) { // (a paged row past the end may have no table entry)
      kr += (aidx)attn_kv_row(kr_->bt, kr_->bt_row, kr_->bsz, kr_->b, (uint)j, kr_->k_sb, kr_->k_ss);
      vr += (aidx)attn_kv_row(kr_->bt, kr_->bt_row, kr_->bsz, kr_->b, (uint)j, kr_->v_sb, kr_->v_ss);
    }
    STAGE_ROW(kb + r * HEAD_D, kr, k_sd, HEAD_D, K_UNIT, j < jend);
    STAGE_ROW(vb + r * HEAD_DV, vr, v_sd, HEAD_DV, V_UNIT, j < jend);
  }
}

// Add P^T * V for the block's keys to the accumulators of Dv elements
// [dc, dc + n), n of them in registers at a time: PV_T partial sums started
// by PV_INIT from acc, one multiply-add per key (PV_MAC with P's vector
// PW), added back by PV_DONE.
#if HALF == 2
#define PV_T qv_t
#define PV_INIT(a) ((qv_t)0)
#define PV_MAC(s_, v, p) ((s_) = HFMA(v, p, s_))
#define PV_DONE(a, s_) ((a) += TO_FV(s_))
#elif HALF
#define PV_T floatv
#define PV_INIT(a) (a)
#define PV_MAC(s_, v, p) ((s_) += TO_FV(HMUL(v, p)))
#define PV_DONE(a, s_) ((a) = (s_))
#else
#define PV_T floatv
#define PV_INIT(a) (a)
#define PV_MAC(s_, v, p) ((s_) = fma(v, p, s_))
#define PV_DONE(a, s_) ((a) = (s_))
#endif
#if HALF
#define PW ph // the weights rounded to f16
#else
#define PW s
#endif
#define PV_CHUNK(dc, n)                                                          \
  do {                                                                           \
    PV_T a_[n][QW];                                                              \
    UNROLL(n)                                                                    \
    for (int c = 0; c < (n); ++c) {                                              \
      UNROLL(QW)                                                                 \
      for (int w = 0; w < QW; ++w) a_[c][w] = PV_INIT(acc[(dc) + c][w]);         \
    }                                                                            \
    UNROLL(TK)                                                                   \
    for (int k = 0; k < TK; ++k) {                                               \
      UNROLL(n)                                                                  \
      for (int c = 0; c < (n); ++c) {                                            \
        const qv_t vv = (qv_t)vb[vo[k] + (dc) + c];                              \
        UNROLL(QW)                                                               \
        for (int w = 0; w < QW; ++w) PV_MAC(a_[c][w], vv, PW[k][w]);             \
      }                                                                          \
    }                                                                            \
    UNROLL(n)                                                                    \
    for (int c = 0; c < (n); ++c) {                                              \
      UNROLL(QW)                                                                 \
      for (int w = 0; w < QW; ++w) PV_DONE(acc[(dc) + c][w], a_[c][w]);          \
    }                                                                            \
  } while (0)

// One multiply-add of Q*K^T into the score s_ (HALF 2: its f16 partial
// sum hs_, added into s_ by QK_FLUSH every 32 elements of D).
#if HALF == 2
#define QK_MAC(s_, hs_, kv, q) ((hs_) = HFMA(kv, q, hs_))
#define QK_FLUSH(s_, hs_) ((s_) += TO_FV(hs_), (hs_) = (qv_t)0)
#elif HALF
#define QK_MAC(s_, hs_, kv, q) ((s_) += TO_FV(HMUL(kv, q)))
#else
#define QK_MAC(s_, hs_, kv, q) ((s_) = fma(kv, q, s_))
#endif

// Lazy rescaling: the weights are taken against a reference max m that
// moves only when some row's block max exceeds it by more than RESCALE_GAP
// (log2 units), so a weight is at most 2^RESCALE_GAP and l and acc, both
// against the same m, stay exact; after the first blocks the max rarely
// moves that far, and the multiply of every accumulator by alpha (a
// load, a multiply and a store per accumulator and block) is skipped.
#if HALF
#define RESCALE_GAP 0.0f // weights <= 1: f16 products and sums of P*V cannot overflow
#else
#define RESCALE_GAP 8.0f
#endif
#if VW == 1
#define ANYV(x) (x)
#else
#define ANYV(x) any(x)
#endif

// One key block [j0, j0 + TK) against the work-item's queries: scores, the
// online-softmax update of m and l (log2 domain), and acc += P^T V.
// masked: some score of the block is outside its row's [lo, hi).
// kb, vb: the block's first K and V rows, rows krs and vrs floats apart,
// nk of them (the rest repeat the last).
static inline __attribute__((always_inline)) void fused_block(
    qv_t qt[HEAD_D][QW], const KV_AS st_t *kb, const KV_AS st_t *vb, const aidx krs, const aidx vrs, const int nk,
    floatv acc[HEAD_DV][QW], floatv m[QW], floatv l[QW], const int j0, const int masked, const intv lo[QW],
    const intv hi[QW], const global mask_t *M, const aidx m_si, const aidx m_sj, const int i0, const int sq,
    const int sk, const float softcap) {
  aidx ko[TK], vo[TK];
  UNROLL(TK)
  for (int k = 0; k < TK; ++k) ko[k] = (aidx)min(k, nk - 1) * krs, vo[k] = (aidx)min(k, nk - 1) * vrs;
  floatv s[TK][QW];
#if HALF == 2
  qv_t hs[TK][QW]; // f16 partial sums (KU divides 32: flushed every 32 d)
#define HS(k, w) hs[k][w]
#else
#define HS(k, w) s[k][w] // (not used)
#endif
  UNROLL(TK)
  for (int k = 0; k < TK; ++k) {
    UNROLL(QW)
    for (int w = 0; w < QW; ++w) {
      s[k][w] = (floatv)0.0f;
#if HALF == 2
      hs[k][w] = (qv_t)0;
#endif
    }
  }
  int d = 0;
  for (; d + KU <= HEAD_D; d += KU) {
    UNROLL(KU)
    for (int u = 0; u < KU; ++u) {
      UNROLL(TK)
      for (int k = 0; k < TK; ++k) {
        const qv_t kv = (qv_t)kb[ko[k] + d + u];
        UNROLL(QW)
        for (int w = 0; w < QW; ++w) QK_MAC(s[k][w], HS(k, w), kv, qt[d + u][w]);
      }
    }
#if HALF == 2
    if ((d + KU) % 32 == 0) {
      UNROLL(TK)
      for (int k = 0; k < TK; ++k) {
        UNROLL(QW)
        for (int w = 0; w < QW; ++w) QK_FLUSH(s[k][w], hs[k][w]);
      }
    }
#endif
  }
  for (; d < HEAD_D; ++d) {
    UNROLL(TK)
    for (int k = 0; k < TK; ++k) {
      const qv_t kv = (qv_t)kb[ko[k] + d];
      UNROLL(QW)
      for (int w = 0; w < QW; ++w) QK_MAC(s[k][w], HS(k, w), kv, qt[d][w]);
    }
  }
#if HALF == 2
  UNROLL(TK)
  for (int k = 0; k < TK; ++k) {
    UNROLL(QW)
    for (int w = 0; w < QW; ++w) QK_FLUSH(s[k][w], hs[k][w]);
  }
#endif
#undef HS

  // Soft cap and mask in natural units, then to the log2 domain (without
  // either, the scale on Q already includes log2(e)).
#if SOFTCAP || HAS_MASK
  UNROLL(TK)
  for (int k = 0; k < TK; ++k) {
    UNROLL(QW)
    for (int w = 0; w < QW; ++w) {
      floatv x = s[k][w];
#if SOFTCAP
      x = softcap * tanh(x / softcap);
#endif
#if HAS_MASK
      {
        float t[VW];
        const aidx j = (aidx)min(j0 + k, sk - 1);
        UNROLL(VW)
        for (int e = 0; e < VW; ++e) t[e] = LOAD1(MASK_T, M, (aidx)min(i0 + w * VW + e, sq - 1) * m_si + j * m_sj);
        x += VLOADF(t);
      }
#endif
      s[k][w] = x * LOG2E;
    }
  }
#else
  (void)M, (void)m_si, (void)m_sj, (void)i0, (void)sq, (void)sk, (void)softcap;
#endif
  if (masked) {
    UNROLL(TK)
    for (int k = 0; k < TK; ++k) {
      const intv j = (intv)(j0 + k);
      UNROLL(QW)
      for (int w = 0; w < QW; ++w) s[k][w] = select(s[k][w], (floatv)(-INFINITY), (j < lo[w]) | (j >= hi[w]));
    }
  }

  // Online softmax. A row that has seen no finite score keeps m = -inf; its
  // weights are taken against 0 (exp2(-inf) = 0), so -inf - -inf never
  // happens, while a NaN score still makes a NaN weight (fmax ignores it).
  floatv mx[QW];
  int grow = 0;
  UNROLL(QW)
  for (int w = 0; w < QW; ++w) {
    mx[w] = s[0][w];
    UNROLL(TK)
    for (int k = 1; k < TK; ++k) mx[w] = fmax(mx[w], s[k][w]);
    grow |= ANYV(mx[w] > m[w] + RESCALE_GAP);
  }
  if (grow) {
    floatv alpha[QW];
    UNROLL(QW)
    for (int w = 0; w < QW; ++w) {
      const floatv mn = fmax(m[w], mx[w]);
      alpha[w] = exp2(m[w] - select(mn, (floatv)0.0f, mn == (floatv)(-INFINITY)));
      l[w] *= alpha[w];
      m[w] = mn;
    }
    for (int dd = 0; dd < HEAD_DV; ++dd) {
      UNROLL(QW)
      for (int w = 0; w < QW; ++w) acc[dd][w] *= alpha[w];
    }
  }
#if HALF
  qv_t ph[TK][QW];
#endif
  UNROLL(QW)
  for (int w = 0; w < QW; ++w) {
    const floatv ms = select(m[w], (floatv)0.0f, m[w] == (floatv)(-INFINITY));
    floatv rs = (floatv)0.0f;
    UNROLL(TK)
    for (int k = 0; k < TK; ++k) {
      s[k][w] = exp2(s[k][w] - ms);
      rs += s[k][w];
#if HALF
      ph[k][w] = TO_QV(s[k][w]);
#endif
    }
    l[w] += rs;
  }

  int dc = 0;
  for (; dc + DCH <= HEAD_DV; dc += DCH) PV_CHUNK(dc, DCH);
#if HEAD_DV % DCH
  PV_CHUNK(HEAD_DV - HEAD_DV % DCH, HEAD_DV % DCH);
#endif
}

// Global size (ceil(Sq / BQ) * WGQ, Hq, B); each tensor is a buffer, its
// offset and four element strides (b, h, s, d; the mask's b, h, sq, sk;
// LSE's b, h, sq, unused), then the common arguments.
kernel __attribute__((reqd_work_group_size(WGQ, 1, 1))) void clforge_attention_fused(
    const global q_t *restrict Q, const ulong q_off, const ulong q_sb, const ulong q_sh, const ulong q_ss,
    const ulong q_sd, const global kv_t *restrict K, const ulong k_off, const ulong k_sb, const ulong k_sh,
    const ulong k_ss, const ulong k_sd, const global kv_t *restrict V, const ulong v_off, const ulong v_sb,
    const ulong v_sh, const ulong v_ss, const ulong v_sd, global o_t *restrict O, const ulong o_off,
    const ulong o_sb, const ulong o_sh, const ulong o_ss, const ulong o_sd, const global mask_t *restrict M,
    const ulong m_off, const ulong m_sb, const ulong m_sh, const ulong m_si, const ulong m_sj,
    global float *restrict L, const ulong l_off, const ulong l_sb, const ulong l_sh, const ulong l_ss,
    const ulong l_sd, ATTN_COMMON_ARGS) {
  (void)B, (void)Hq, (void)Hkv, (void)l_sd;
  const uint sq = Sq, sk = Sk;
  const uint bi = get_global_id(2), h = get_global_id(1), hk = h / group;
  const int lid = (int)get_local_id(0);
  const int kv_len = attn_kv_len(kv_lens, kvl_off, bi, Sk, has);
  const int q_len = attn_q_len(q_lens, ql_off, bi, Sq, has);
  // Causal: the last query blocks see the most keys; they go first, so
  // that the short ones fill the tail.
#if CAUSAL
  const int qb = (int)(get_num_groups(0) - 1 - get_group_id(0));
#else
  const int qb = (int)get_group_id(0);
#endif
  const int wi0 = qb * BQ, i0 = wi0 + lid * TQ;
  if (wi0 >= q_len) return; // the whole work-group: no row to write
  Q += (aidx)q_off + (aidx)bi * (aidx)q_sb + (aidx)h * (aidx)q_sh;
  K += (aidx)k_off + (aidx)hk * (aidx)k_sh; // the item's offset: attn_kv_row
  V += (aidx)v_off + (aidx)hk * (aidx)v_sh;
  const kv_rows rows = {K, V, bt, bt_off + (ulong)bi * bt_stride, k_sb, k_ss, v_sb, v_ss, bsz, bi};
  (void)rows; // (unused when KV_DIRECT)
  O += (aidx)o_off + (aidx)bi * (aidx)o_sb + (aidx)h * (aidx)o_sh;
#if HAS_MASK
  M += (aidx)m_off + (aidx)bi * (aidx)m_sb + (aidx)h * (aidx)m_sh;
#else
  (void)m_off, (void)m_sb, (void)m_sh;
#endif
  L += (aidx)l_off + (aidx)bi * (aidx)l_sb + (aidx)h * (aidx)l_sh; // (not read without ATTN_HAS_LSE)

  // Key ranges: per lane, and over this item's valid rows [i0, ie] their
  // hull [ulo, uhi) and common part [xlo, xhi) (ranges grow with the row).
  intv lo[QW], hi[QW];
  UNROLL(QW)
  for (int w = 0; w < QW; ++w) {
    int tl[VW], th[VW];
    for (int e = 0; e < VW; ++e) attn_key_range(i0 + w * VW + e, kv_len, q_len, window, &tl[e], &th[e]);
    lo[w] = VLOADF(tl);
    hi[w] = VLOADF(th);
  }
  const int active = i0 < q_len, ie = min(i0 + TQ, q_len) - 1;
  int ulo, uhi, xlo, xhi, t0, t1;
  attn_key_range(i0, kv_len, q_len, window, &ulo, &xhi);
  attn_key_range(ie, kv_len, q_len, window, &xlo, &uhi);
#if STAGE
  // The work-group visits the hull of all its rows together.
  int wlo, whi;
  attn_key_range(wi0, kv_len, q_len, window, &wlo, &t0);
  attn_key_range(min(wi0 + BQ, q_len) - 1, kv_len, q_len, window, &t1, &whi);
  local st_t kb[TK * HEAD_D];
  local st_t vb[TK * HEAD_DV];
#else
  if (!active) return;
  const int wlo = ulo, whi = uhi;
  (void)t0, (void)t1;
#if !KV_DIRECT
  st_t kb[TK * HEAD_D];
  st_t vb[TK * HEAD_DV];
#endif
#endif

  // This item's queries, transposed, times scale (and log2(e) when the
  // scores go to the log2 domain straight away). Rows past Sq are zeros.
#if SOFTCAP || HAS_MASK
  const float qs = scale;
#else
  const float qs = scale * LOG2E;
#endif
  qv_t qt[HEAD_D][QW];
  for (int dd = 0; dd < HEAD_D; ++dd) {
    UNROLL(QW)
    for (int w = 0; w < QW; ++w) {
      float t[VW];
      UNROLL(VW)
      for (int e = 0; e < VW; ++e) {
        const int i = i0 + w * VW + e;
        t[e] = i < (int)sq ? LOAD1(Q_T, Q, (aidx)i * (aidx)q_ss + (aidx)dd * (aidx)q_sd) : 0.0f;
      }
      qt[dd][w] = TO_QV(VLOADF(t) * qs);
    }
  }
  floatv acc[HEAD_DV][QW], m[QW], l[QW];
  for (int dd = 0; dd < HEAD_DV; ++dd) {
    UNROLL(QW)
    for (int w = 0; w < QW; ++w) acc[dd][w] = (floatv)0.0f;
  }
  UNROLL(QW)
  for (int w = 0; w < QW; ++w) m[w] = (floatv)(-INFINITY), l[w] = (floatv)0.0f;

  for (int j0 = wlo; j0 < whi; j0 += TK) {
#if STAGE
    barrier(CLK_LOCAL_MEM_FENCE); // the previous block is consumed
    stage_block(kb, vb, &rows, (aidx)k_sd, (aidx)v_sd, j0, whi, lid, WGQ);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!active || j0 >= uhi || j0 + TK <= ulo) continue; // outside this item's rows
#elif !KV_DIRECT
    stage_block(kb, vb, &rows, (aidx)k_sd, (aidx)v_sd, j0, whi, 0, 1);
#endif
#if KV_DIRECT && !STAGE
    const global float *kb = K + (aidx)bi * (aidx)k_sb + (aidx)j0 * (aidx)k_ss;
    const global float *vb = V + (aidx)bi * (aidx)v_sb + (aidx)j0 * (aidx)v_ss;
    const aidx krs = (aidx)k_ss, vrs = (aidx)v_ss;
    const int nk = min(TK, whi - j0);
#else
    const aidx krs = HEAD_D, vrs = HEAD_DV;
    const int nk = TK; // staged rows past the end are zeros
#endif
    // One copy of the block for both cases (a branch around the masking,
    // not two inlined copies: half the code to compile, no measured cost).
    const int masked = j0 < xlo || j0 + TK > xhi;
    fused_block(qt, kb, vb, krs, vrs, nk, acc, m, l, j0, masked, lo, hi, M, (aidx)m_si, (aidx)m_sj, i0, (int)sq, (int)sk,
                softcap);
  }
  if (!active) return;

  // O = acc / l (0 for a row without a visible key: l = 0), LSE = ln of
  // the sum; rows past q_len are not written.
  UNROLL(QW)
  for (int w = 0; w < QW; ++w) {
    float tm[VW], tl[VW];
    VSTOREF(m[w], tm);
    VSTOREF(l[w], tl);
    float inv[VW];
    UNROLL(VW)
    for (int e = 0; e < VW; ++e) inv[e] = tl[e] == 0.0f ? 0.0f : 1.0f / tl[e];
    // Not unrolled: one copy of the output's store (an f16 or bf16
    // rounding per element) instead of Dv x VW per row of the tile.
#pragma nounroll
    for (int dd = 0; dd < HEAD_DV; ++dd) {
      float t[VW];
      VSTOREF(acc[dd][w], t);
#pragma nounroll
      for (int e = 0; e < VW; ++e) {
        const int i = i0 + w * VW + e;
        if (i < q_len) STORE1(O_T, t[e] * inv[e], O, (aidx)i * (aidx)o_ss + (aidx)dd * (aidx)o_sd);
      }
    }
    if (has & ATTN_HAS_LSE) {
      UNROLL(VW)
      for (int e = 0; e < VW; ++e) {
        const int i = i0 + w * VW + e;
        if (i < q_len) L[(aidx)i * (aidx)l_ss] = tm[e] == -INFINITY ? -INFINITY : (tm[e] + log2(tl[e])) * LN2;
      }
    }
  }
}
