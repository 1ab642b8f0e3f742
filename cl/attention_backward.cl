// The attention backward (src/ops/attention_backward.c), FlashAttention-2's
// recomputation without an Sq x Sk buffer: P = exp(S - LSE) from the
// forward's LSE, D = rowsum(dO * O), dS = P (dO V^T - D) (times the soft
// cap's derivative 1 - tanh^2), dQ = scale dS K, dK = scale dS^T Q,
// dV = P^T dO. Three kernels, each output element with one writer:
//   clforge_attn_bwd_delta  D per query row (f32 scratch)
//   clforge_attn_bwd_dq     a work-item per query row: its keys in order
//   clforge_attn_bwd_dkv    a work-item per key row: its group's query heads,
//                           then their rows, in order (GQA's sum is fixed)
// Work-groups of WG consecutive rows of one (b, h): they read the same
// K/V (or Q/dO) row at once. Masking: cl/attention_common.cl's rules.
// Options: the forward's (Q_T KV_T O_T MASK_T HEAD_D HEAD_DV HAS_MASK
// SOFTCAP CAUSAL IDX64), DO_T DQ_T DKV_T; tuned parameter WG.

typedef CLFORGE_CAT(CLFORGE_STORAGE_, Q_T) q_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, KV_T) kv_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, O_T) o_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, MASK_T) mask_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DO_T) do_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DQ_T) dq_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DKV_T) dkv_t;

#define TENSOR(T, t) const global T *restrict t, const ulong t##_o, const ulong t##_b, const ulong t##_h, \
                     const ulong t##_s, const ulong t##_d
#define OUT_TENSOR(T, t) global T *restrict t, const ulong t##_o, const ulong t##_b, const ulong t##_h, \
                         const ulong t##_s, const ulong t##_d
#define AT(t, b, h, s, c) ((aidx)t##_o + (aidx)(b) * (aidx)t##_b + (aidx)(h) * (aidx)t##_h + (aidx)(s) * (aidx)t##_s + \
                           (aidx)(c) * (aidx)t##_d)

#define UNROLL_(x) _Pragma(#x)
#define UNROLL(n) UNROLL_(unroll n)

// scale q.k for key j, soft-capped (the mask is added by the caller).
static inline float capped_score(const float *qv, const global kv_t *K, ulong K_o, ulong K_b, ulong K_h, ulong K_s,
                                 ulong K_d, uint b, uint hk, int j, float scale, float softcap) {
  float dot = 0.0f;
  for (int c = 0; c < HEAD_D; ++c) dot = fma(qv[c], LOAD1(KV_T, K, AT(K, b, hk, j, c)), dot);
  return attn_softcap(scale * dot, softcap);
}

static inline float mask_at(const global mask_t *M, ulong m_o, ulong m_b, ulong m_h, ulong m_s, ulong m_d, uint b,
                            uint h, int i, int j) {
#if HAS_MASK
  return LOAD1(MASK_T, M, (aidx)m_o + (aidx)b * (aidx)m_b + (aidx)h * (aidx)m_h + (aidx)i * (aidx)m_s +
                              (aidx)j * (aidx)m_d);
#else
  (void)M, (void)m_o, (void)m_b, (void)m_h, (void)m_s, (void)m_d, (void)b, (void)h, (void)i, (void)j;
  return 0.0f;
#endif
}

// The soft cap's derivative at a capped score c: 1 - (c / cap)^2.
#if SOFTCAP
#define CAP_GRAD(c) (1.0f - ((c) / softcap) * ((c) / softcap))
#else
#define CAP_GRAD(c) 1.0f
#endif

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_attn_bwd_delta(
    TENSOR(o_t, O), TENSOR(do_t, G), global float *restrict Dl, ATTN_COMMON_ARGS) {
  (void)B, (void)Hkv, (void)group, (void)window, (void)scale, (void)softcap, (void)kv_lens, (void)kvl_off;
  const int i = (int)get_global_id(0);
  const uint h = get_global_id(1), b = get_global_id(2);
  if (i >= (int)Sq) return;
  const int q_len = attn_q_len(q_lens, ql_off, b, Sq, has);
  float s = 0.0f;
  if (i < q_len)
    for (int c = 0; c < HEAD_DV; ++c) s = fma(LOAD1(O_T, O, AT(O, b, h, i, c)), LOAD1(DO_T, G, AT(G, b, h, i, c)), s);
  Dl[((aidx)b * Hq + h) * Sq + (uint)i] = s;
}

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_attn_bwd_dq(
    TENSOR(q_t, Q), TENSOR(kv_t, K), TENSOR(kv_t, V), TENSOR(mask_t, M), const global float *restrict L,
    const ulong l_o, const ulong l_b, const ulong l_h, const ulong l_s, TENSOR(do_t, G),
    const global float *restrict Dl, OUT_TENSOR(dq_t, DQ), ATTN_COMMON_ARGS) {
  (void)B, (void)Hkv, (void)M_d, (void)Q_d;
  const int i = (int)get_global_id(0);
  const uint h = get_global_id(1), b = get_global_id(2), hk = h / group;
  if (i >= (int)Sq) return;
  const int kv_len = attn_kv_len(kv_lens, kvl_off, b, Sk, has), q_len = attn_q_len(q_lens, ql_off, b, Sq, has);
  float acc[HEAD_D];
  UNROLL(HEAD_D)
  for (int c = 0; c < HEAD_D; ++c) acc[c] = 0.0f;
  const float lse = i < q_len ? L[(aidx)l_o + (aidx)b * (aidx)l_b + (aidx)h * (aidx)l_h + (aidx)i * (aidx)l_s]
                              : -INFINITY;
  if (lse > -INFINITY) {
    float qv[HEAD_D], gv[HEAD_DV];
    for (int c = 0; c < HEAD_D; ++c) qv[c] = LOAD1(Q_T, Q, AT(Q, b, h, i, c));
    for (int c = 0; c < HEAD_DV; ++c) gv[c] = LOAD1(DO_T, G, AT(G, b, h, i, c));
    const float delta = Dl[((aidx)b * Hq + h) * Sq + (uint)i];
    int lo, hi;
    attn_key_range(i, kv_len, q_len, window, &lo, &hi);
    for (int j = lo; j < hi; ++j) {
      const float capped = capped_score(qv, K, K_o, K_b, K_h, K_s, K_d, b, hk, j, scale, softcap);
      const float s = capped + mask_at(M, M_o, M_b, M_h, M_s, M_d, b, h, i, j);
      if (s == -INFINITY) continue;
      const float p = exp(s - lse);
      float dp = 0.0f;
      for (int c = 0; c < HEAD_DV; ++c) dp = fma(gv[c], LOAD1(KV_T, V, AT(V, b, hk, j, c)), dp);
      const float ds = p * (dp - delta) * CAP_GRAD(capped);
      for (int c = 0; c < HEAD_D; ++c) acc[c] = fma(ds, LOAD1(KV_T, K, AT(K, b, hk, j, c)), acc[c]);
    }
  }
  for (int c = 0; c < HEAD_D; ++c) STORE1(DQ_T, scale * acc[c], DQ, AT(DQ, b, h, i, c));
}

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_attn_bwd_dkv(
    TENSOR(q_t, Q), TENSOR(kv_t, K), TENSOR(kv_t, V), TENSOR(mask_t, M), const global float *restrict L,
    const ulong l_o, const ulong l_b, const ulong l_h, const ulong l_s, TENSOR(do_t, G),
    const global float *restrict Dl, OUT_TENSOR(dkv_t, DK), OUT_TENSOR(dkv_t, DV), ATTN_COMMON_ARGS) {
  (void)B, (void)Hkv, (void)M_d, (void)K_d;
  const int j = (int)get_global_id(0);
  const uint hk = get_global_id(1), b = get_global_id(2);
  if (j >= (int)Sk) return;
  const int kv_len = attn_kv_len(kv_lens, kvl_off, b, Sk, has), q_len = attn_q_len(q_lens, ql_off, b, Sq, has);
  float kv[HEAD_D], vv[HEAD_DV], dk[HEAD_D], dv[HEAD_DV];
  UNROLL(HEAD_D)
  for (int c = 0; c < HEAD_D; ++c) dk[c] = 0.0f;
  UNROLL(HEAD_DV)
  for (int c = 0; c < HEAD_DV; ++c) dv[c] = 0.0f;
  if (j < kv_len) {
    for (int c = 0; c < HEAD_D; ++c) kv[c] = LOAD1(KV_T, K, AT(K, b, hk, j, c));
    for (int c = 0; c < HEAD_DV; ++c) vv[c] = LOAD1(KV_T, V, AT(V, b, hk, j, c));
    // The queries that see key j: i >= j - (kv_len - q_len) under the
    // causal diagonal (0 for top-left), and i < that + window with one.
    int ilo = 0, ihi = q_len;
#if CAUSAL
    const long shift = CAUSAL == 2 ? (long)kv_len - (long)q_len : 0L;
    ilo = (int)clamp((long)j - shift, 0L, (long)q_len);
    if (window) ihi = (int)clamp((long)j - shift + (long)window, 0L, (long)q_len);
#endif
    for (uint h = hk * group; h < (hk + 1) * group; ++h)
      for (int i = ilo; i < ihi; ++i) {
        int lo, hi;
        attn_key_range(i, kv_len, q_len, window, &lo, &hi);
        if (j < lo || j >= hi) continue;
        const float lse = L[(aidx)l_o + (aidx)b * (aidx)l_b + (aidx)h * (aidx)l_h + (aidx)i * (aidx)l_s];
        if (lse == -INFINITY) continue;
        float dot = 0.0f;
        for (int c = 0; c < HEAD_D; ++c) dot = fma(LOAD1(Q_T, Q, AT(Q, b, h, i, c)), kv[c], dot);
        const float capped = attn_softcap(scale * dot, softcap);
        const float s = capped + mask_at(M, M_o, M_b, M_h, M_s, M_d, b, h, i, j);
        if (s == -INFINITY) continue;
        const float p = exp(s - lse);
        float dp = 0.0f;
        for (int c = 0; c < HEAD_DV; ++c) dp = fma(LOAD1(DO_T, G, AT(G, b, h, i, c)), vv[c], dp);
        const float ds = p * (dp - Dl[((aidx)b * Hq + h) * Sq + (uint)i]) * CAP_GRAD(capped);
        for (int c = 0; c < HEAD_DV; ++c) dv[c] = fma(p, LOAD1(DO_T, G, AT(G, b, h, i, c)), dv[c]);
        for (int c = 0; c < HEAD_D; ++c) dk[c] = fma(ds, LOAD1(Q_T, Q, AT(Q, b, h, i, c)), dk[c]);
      }
  }
  for (int c = 0; c < HEAD_D; ++c) STORE1(DKV_T, scale * dk[c], DK, AT(DK, b, hk, j, c));
  for (int c = 0; c < HEAD_DV; ++c) STORE1(DKV_T, dv[c], DV, AT(DV, b, hk, j, c));
}
