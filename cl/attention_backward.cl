// The attention backward (src/ops/attention_backward.c), FlashAttention-2's
// recomputation without an Sq x Sk buffer: P = exp(S - LSE) from the
// forward's LSE, D = rowsum(dO * O), dS = P (dO V^T - D) (times the soft
// cap's derivative 1 - tanh^2), dQ = scale dS K, dK = scale dS^T Q,
// dV = P^T dO. Three kernels, each output element with one writer:
//   clforge_attn_bwd_delta  D per query row (f32 scratch)
//   clforge_attn_bwd_dq     owns query rows, streams their visible keys
//   clforge_attn_bwd_dkv    owns key rows, streams their group's query
//                           heads, then the rows that see them, in order
//                           (GQA's sum is fixed: deterministic)
// The two streaming kernels are blocked as the forward's fused kernel: a
// work-item owns TR = VW * RW rows held transposed as RW vectors of VW
// rows (vectors run along the owned rows, not along D), and the streamed
// rows come TB at a time, widened to f32 into a private block. A block's
// scores are TB x RW vectors, each element of a streamed row broadcast
// against a vector of the owned rows: no horizontal sums, and every
// accumulator update is TB multiply-adds per load and store. Masking is
// per lane (each owned row or key against the streamed one's range).
// Options: the forward's (Q_T KV_T O_T MASK_T HEAD_D HEAD_DV HAS_MASK
// SOFTCAP CAUSAL IDX64), DO_T DQ_T DKV_T; tuned parameters WG (work-items
// per group), VW, RW, TB (src/families/attention_backward.c).

#define TR (VW * RW)
#define LOG2E 1.4426950408889634f

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

// D's rows a work-group: WG * VW (a vector's worth of rows per work-item
// of the streaming kernels; one row per work-item here).
#define DWG (WG * VW)

kernel __attribute__((reqd_work_group_size(DWG, 1, 1))) void clforge_attn_bwd_delta(
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

// Loops written one per line, in functions rather than macros: clang 15
// (PoCL 3.1's) crashes in LICM on some loops that share a source line, as
// every loop of one macro expansion does.
#define INL static inline __attribute__((always_inline))

// Element i of a tensor of storage code t (1 f32, 2 f16, 3 bf16), as f32;
// t is a constant at every call, so the branches fold.
INL float ld_any(const global void *p, const int t, const aidx i) {
  if (t == 1) return LOAD1(1, (const global float *)p, i);
  if (t == 2) return LOAD1(2, (const global ushort *)p, i);
  return LOAD1(3, (const global ushort *)p, i);
}

INL void st_any(const float v, global void *p, const int t, const aidx i) {
  if (t == 1) STORE1(1, v, (global float *)p, i);
  else if (t == 2) STORE1(2, v, (global ushort *)p, i);
  else STORE1(3, v, (global ushort *)p, i);
}

// 16 consecutive elements from i as f32 (vload_half: the F16C instruction
// on CPUs that have it).
INL float16 ld16_any(const global void *p, const int t, const aidx i) {
  if (t == 1) return vload16(0, (const global float *)p + i);
  if (t == 2) return vload_half16(0, (const global half *)p + i);
  return as_float16(convert_uint16(vload16(0, (const global ushort *)p + i)) << 16);
}

// Rows [r0, r0 + TB) of a stream, widened to f32 into dst (n a row):
// element (r, c) at base + r rs + c cs; rows at or past `end` are zeros
// (no garbage meets a zero weight). Unit d strides load 16 at a time.
INL void stage_rows(float *dst, const global void *p, const int t, const aidx base, const aidx rs, const aidx cs,
                    const int n, const int r0, const int end) {
  for (int r = 0; r < TB; ++r) {
    const int ok = r0 + r < end;
    const aidx row = base + (aidx)(r0 + r) * rs;
    float *d = dst + r * n;
    int c = 0;
    if (ok && cs == 1) {
      for (; c + 16 <= n; c += 16)
        vstore16(ld16_any(p, t, row + (aidx)c), 0, d + c);
    }
    for (; c < n; ++c)
      d[c] = ok ? ld_any(p, t, row + (aidx)c * cs) : 0.0f;
  }
}

// Owned rows transposed: acc[c][w] lane e = row r0 + w VW + e's element c
// (at base + r rs + c cs) times mul; zeros for rows at or past `valid`.
INL void load_owned(floatv acc[][RW], const int n, const global void *p, const int t, const aidx base,
                    const aidx rs, const aidx cs, const int r0, const int valid, const float mul) {
  for (int c = 0; c < n; ++c) {
    for (int w = 0; w < RW; ++w) {
      float tv[VW];
      for (int e = 0; e < VW; ++e) {
        const int r = r0 + w * VW + e;
        tv[e] = r < valid ? ld_any(p, t, base + (aidx)r * rs + (aidx)c * cs) : 0.0f;
      }
      acc[c][w] = VLOADF(tv) * mul;
    }
  }
}

// mul * acc's lanes stored for the owned rows below `limit`.
INL void store_owned(floatv acc[][RW], const int n, global void *p, const int t, const aidx base, const aidx rs,
                     const aidx cs, const int r0, const int limit, const float mul) {
  for (int c = 0; c < n; ++c) {
    for (int w = 0; w < RW; ++w) {
      float tv[VW];
      VSTOREF(acc[c][w] * mul, tv);
      for (int e = 0; e < VW; ++e) {
        const int r = r0 + w * VW + e;
        if (r < limit) st_any(tv[e], p, t, base + (aidx)r * rs + (aidx)c * cs);
      }
    }
  }
}

// x[k][w] = sum_c blk[k stride + c] own[c][w] over n elements: TB x RW
// accumulators in registers, each element of the block broadcast.
INL void block_dots(floatv x[TB][RW], const float *blk, const int stride, floatv own[][RW], const int n) {
  UNROLL(TB)
  for (int k = 0; k < TB; ++k) {
    UNROLL(RW)
    for (int w = 0; w < RW; ++w) x[k][w] = (floatv)0.0f;
  }
  for (int c = 0; c < n; ++c) {
    UNROLL(TB)
    for (int k = 0; k < TB; ++k) {
      const floatv bv = (floatv)blk[k * stride + c];
      UNROLL(RW)
      for (int w = 0; w < RW; ++w) x[k][w] = fma(bv, own[c][w], x[k][w]);
    }
  }
}

// own[c][w] += sum_k blk[k stride + c] x[k][w]: one load and store per TB multiply-adds.
INL void block_accum(floatv own[][RW], const int n, const float *blk, const int stride, floatv x[TB][RW]) {
  for (int c = 0; c < n; ++c) {
    UNROLL(RW)
    for (int w = 0; w < RW; ++w) {
      floatv a = own[c][w];
      UNROLL(TB)
      for (int k = 0; k < TB; ++k) a = fma((floatv)blk[k * stride + c], x[k][w], a);
      own[c][w] = a;
    }
  }
}

// Without a soft cap or a mask the owned rows' scale includes log2(e) and
// the scores stay in the log2 domain; otherwise they are natural until the
// weight.
#if SOFTCAP || HAS_MASK
#define SCORE_SCALE 1.0f
#else
#define SCORE_SCALE LOG2E
#endif

// Query row i's LSE (times SCORE_SCALE), D and visible keys [lo, hi):
// none (and zeros) for rows at or past `valid` and rows without a visible
// key (LSE -inf). L at lbase + i ls, D at dbase + i.
INL void row_stats(const int i, const int valid, const global float *L, const aidx lbase, const aidx ls,
                   const global float *Dl, const aidx dbase, const int kv_len, const int q_len, const uint window,
                   float *lse2, float *dl, int *lo, int *hi) {
  const float l = i < valid ? L[lbase + (aidx)i * ls] : -INFINITY;
  attn_key_range(i, kv_len, q_len, window, lo, hi);
  if (l == -INFINITY) *lo = *hi = 0;
  *lse2 = l == -INFINITY ? 0.0f : l * SCORE_SCALE;
  *dl = l == -INFINITY ? 0.0f : Dl[dbase + (aidx)i];
}

// The additive mask of VW (query, key) pairs, lane e's at (ib + e is,
// jb + e js) clamped into the tensor (lanes past it are masked anyway);
// zeros without a mask.
INL floatv mask_lanes(const global mask_t *M, const aidx base, const aidx ms, const aidx md, const int ib,
                      const int is, const int jb, const int js, const int sq, const int sk) {
#if HAS_MASK
  float tm[VW];
  for (int e = 0; e < VW; ++e)
    tm[e] = LOAD1(MASK_T, M, base + (aidx)min(ib + e * is, sq - 1) * ms + (aidx)min(jb + e * js, sk - 1) * md);
  return VLOADF(tm);
#else
  (void)M, (void)base, (void)ms, (void)md, (void)ib, (void)is, (void)jb, (void)js, (void)sq, (void)sk;
  return (floatv)0.0f;
#endif
}

// From a block's raw scores s (scale folded in) and dp = dO . V: the weight
// p = exp(s' - lse) where visible (else 0) and ds = p (dp - delta) (times
// the soft cap's derivative), s' the capped, masked score. p into s, ds
// into dp. lse2 is lse * SCORE_SCALE.
static inline floatv bwd_weight(floatv s, const floatv lse2, const intv vis, const float softcap, const floatv mask) {
#if SOFTCAP
  s = softcap * tanh(s / softcap);
#else
  (void)softcap;
#endif
#if HAS_MASK
  s += mask;
#else
  (void)mask;
#endif
#if SOFTCAP || HAS_MASK
  return select((floatv)0.0f, exp2((s - lse2) * LOG2E), vis);
#else
  return select((floatv)0.0f, exp2(s - lse2), vis);
#endif
}

// The soft cap's derivative at the raw score s: 1 - tanh(s / cap)^2.
static inline floatv bwd_cap_grad(const floatv s, const float softcap) {
#if SOFTCAP
  const floatv t = tanh(s / softcap);
  return 1.0f - t * t;
#else
  (void)s, (void)softcap;
  return (floatv)1.0f;
#endif
}

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_attn_bwd_dq(
    TENSOR(q_t, Q), TENSOR(kv_t, K), TENSOR(kv_t, V), TENSOR(mask_t, M), const global float *restrict L,
    const ulong l_o, const ulong l_b, const ulong l_h, const ulong l_s, TENSOR(do_t, G),
    const global float *restrict Dl, OUT_TENSOR(dq_t, DQ), ATTN_COMMON_ARGS) {
  (void)B, (void)Hkv;
  const uint h = get_global_id(1), b = get_global_id(2), hk = h / group;
  // Causal: the last rows see the most keys; they go first.
#if CAUSAL
  const uint grp = get_num_groups(0) - 1 - get_group_id(0);
#else
  const uint grp = get_group_id(0);
#endif
  const int i0 = (int)((grp * WG + get_local_id(0)) * TR);
  if (i0 >= (int)Sq) return;
  const int kv_len = attn_kv_len(kv_lens, kvl_off, b, Sk, has), q_len = attn_q_len(q_lens, ql_off, b, Sq, has);
  // The rows read: none without a key (their dQ is zero; with Sk = 0 the
  // host passes no Q, dO, LSE or D at all).
  const int rows = kv_len > 0 ? q_len : 0;
  // Per lane: LSE (times SCORE_SCALE), D and the visible keys [lo, hi);
  // rows past q_len, or without a visible key (LSE -inf), see none.
  const aidx lbase = (aidx)l_o + (aidx)b * (aidx)l_b + (aidx)h * (aidx)l_h, dbase = ((aidx)b * Hq + h) * Sq;
  floatv lse2[RW], dl[RW];
  intv lo[RW], hi[RW];
  UNROLL(RW)
  for (int w = 0; w < RW; ++w) {
    float tl[VW], td[VW];
    int ta[VW], tz[VW];
    for (int e = 0; e < VW; ++e)
      row_stats(i0 + w * VW + e, rows, L, lbase, (aidx)l_s, Dl, dbase, kv_len, q_len, window, &tl[e], &td[e], &ta[e],
                &tz[e]);
    lse2[w] = VLOADF(tl), dl[w] = VLOADF(td), lo[w] = VLOADF(ta), hi[w] = VLOADF(tz);
  }
  floatv qt[HEAD_D][RW], gt[HEAD_DV][RW], dq[HEAD_D][RW];
  load_owned(qt, HEAD_D, Q, Q_T, AT(Q, b, h, 0, 0), (aidx)Q_s, (aidx)Q_d, i0, rows, scale * SCORE_SCALE);
  load_owned(gt, HEAD_DV, G, DO_T, AT(G, b, h, 0, 0), (aidx)G_s, (aidx)G_d, i0, rows, 1.0f);
  for (int c = 0; c < HEAD_D; ++c) {
    UNROLL(RW)
    for (int w = 0; w < RW; ++w) dq[c][w] = (floatv)0.0f;
  }
  // The keys any owned row sees (ranges grow with the row).
  int ulo = 0, uhi = 0, t_;
  if (i0 < q_len) {
    attn_key_range(i0, kv_len, q_len, window, &ulo, &t_);
    attn_key_range(min(i0 + TR, q_len) - 1, kv_len, q_len, window, &t_, &uhi);
  }
  const aidx mbase = AT(M, b, h, 0, 0);
  float kb[TB * HEAD_D], vb[TB * HEAD_DV];
  for (int j0 = ulo; j0 < uhi; j0 += TB) {
    stage_rows(kb, K, KV_T, AT(K, b, hk, 0, 0), (aidx)K_s, (aidx)K_d, HEAD_D, j0, uhi);
    stage_rows(vb, V, KV_T, AT(V, b, hk, 0, 0), (aidx)V_s, (aidx)V_d, HEAD_DV, j0, uhi);
    floatv s[TB][RW], dp[TB][RW];
    block_dots(s, kb, HEAD_D, qt, HEAD_D);
    block_dots(dp, vb, HEAD_DV, gt, HEAD_DV);
    UNROLL(TB)
    for (int k = 0; k < TB; ++k) {
      const intv j = (intv)(j0 + k);
      UNROLL(RW)
      for (int w = 0; w < RW; ++w) {
        const floatv mk = mask_lanes(M, mbase, (aidx)M_s, (aidx)M_d, i0 + w * VW, 1, j0 + k, 0, (int)Sq, (int)Sk);
        const floatv p = bwd_weight(s[k][w], lse2[w], (j >= lo[w]) & (j < hi[w]), softcap, mk);
        dp[k][w] = p * (dp[k][w] - dl[w]) * bwd_cap_grad(s[k][w], softcap);
      }
    }
    block_accum(dq, HEAD_D, kb, HEAD_D, dp);
  }
  store_owned(dq, HEAD_D, DQ, DQ_T, AT(DQ, b, h, 0, 0), (aidx)DQ_s, (aidx)DQ_d, i0, (int)Sq, scale);
}

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_attn_bwd_dkv(
    TENSOR(q_t, Q), TENSOR(kv_t, K), TENSOR(kv_t, V), TENSOR(mask_t, M), const global float *restrict L,
    const ulong l_o, const ulong l_b, const ulong l_h, const ulong l_s, TENSOR(do_t, G),
    const global float *restrict Dl, OUT_TENSOR(dkv_t, DK), OUT_TENSOR(dkv_t, DV), ATTN_COMMON_ARGS) {
  (void)B, (void)Hkv;
  const uint hk = get_global_id(1), b = get_global_id(2);
  const int j0 = (int)((get_group_id(0) * WG + get_local_id(0)) * TR);
  if (j0 >= (int)Sk) return;
  const int kv_len = attn_kv_len(kv_lens, kvl_off, b, Sk, has), q_len = attn_q_len(q_lens, ql_off, b, Sq, has);
  // The keys read: none without a query (their dK and dV are zero; with
  // Sq = 0 the host passes no K or V at all).
  const int keys = q_len > 0 ? kv_len : 0;
  intv jv[RW];
  UNROLL(RW)
  for (int w = 0; w < RW; ++w) {
    int t[VW];
    for (int e = 0; e < VW; ++e) t[e] = j0 + w * VW + e;
    jv[w] = VLOADF(t);
  }
  floatv kt[HEAD_D][RW], vt[HEAD_DV][RW], dk[HEAD_D][RW], dv[HEAD_DV][RW];
  load_owned(kt, HEAD_D, K, KV_T, AT(K, b, hk, 0, 0), (aidx)K_s, (aidx)K_d, j0, keys, scale * SCORE_SCALE);
  load_owned(vt, HEAD_DV, V, KV_T, AT(V, b, hk, 0, 0), (aidx)V_s, (aidx)V_d, j0, keys, 1.0f);
  for (int c = 0; c < HEAD_D; ++c) {
    UNROLL(RW)
    for (int w = 0; w < RW; ++w) dk[c][w] = (floatv)0.0f;
  }
  for (int c = 0; c < HEAD_DV; ++c) {
    UNROLL(RW)
    for (int w = 0; w < RW; ++w) dv[c][w] = (floatv)0.0f;
  }
  // The queries that see an owned key: i >= j - (kv_len - q_len) under the
  // causal diagonal (0 for top-left), and i < that + window with one.
  int ilo = 0, ihi = j0 < kv_len ? q_len : 0;
#if CAUSAL
  const int je = min(j0 + TR, kv_len) - 1;
  const long shift = CAUSAL == 2 ? (long)kv_len - (long)q_len : 0L;
  ilo = (int)clamp((long)j0 - shift, 0L, (long)q_len);
  if (window) ihi = min(ihi, (int)clamp((long)je - shift + (long)window, 0L, (long)q_len));
#endif
  float qb[TB * HEAD_D], gb[TB * HEAD_DV], lb[TB], db[TB];
  int lob[TB], hib[TB];
  for (uint h = hk * group; h < (hk + 1) * group; ++h)
    for (int i0 = ilo; i0 < ihi; i0 += TB) {
      stage_rows(qb, Q, Q_T, AT(Q, b, h, 0, 0), (aidx)Q_s, (aidx)Q_d, HEAD_D, i0, ihi);
      stage_rows(gb, G, DO_T, AT(G, b, h, 0, 0), (aidx)G_s, (aidx)G_d, HEAD_DV, i0, ihi);
      const aidx lbase = (aidx)l_o + (aidx)b * (aidx)l_b + (aidx)h * (aidx)l_h, dbase = ((aidx)b * Hq + h) * Sq;
      const aidx mbase = AT(M, b, h, 0, 0);
      for (int r = 0; r < TB; ++r)
        row_stats(i0 + r, ihi, L, lbase, (aidx)l_s, Dl, dbase, kv_len, q_len, window, &lb[r], &db[r], &lob[r], &hib[r]);
      floatv s[TB][RW], dp[TB][RW];
      block_dots(s, qb, HEAD_D, kt, HEAD_D);
      block_dots(dp, gb, HEAD_DV, vt, HEAD_DV);
      UNROLL(TB)
      for (int k = 0; k < TB; ++k) {
        UNROLL(RW)
        for (int w = 0; w < RW; ++w) {
          const floatv mk = mask_lanes(M, mbase, (aidx)M_s, (aidx)M_d, i0 + k, 0, j0 + w * VW, 1, (int)Sq, (int)Sk);
          const floatv p = bwd_weight(s[k][w], (floatv)lb[k], (jv[w] >= lob[k]) & (jv[w] < hib[k]), softcap, mk);
          dp[k][w] = p * (dp[k][w] - db[k]) * bwd_cap_grad(s[k][w], softcap);
          s[k][w] = p;
        }
      }
      block_accum(dv, HEAD_DV, gb, HEAD_DV, s);
      block_accum(dk, HEAD_D, qb, HEAD_D, dp);
    }
  store_owned(dk, HEAD_D, DK, DKV_T, AT(DK, b, hk, 0, 0), (aidx)DK_s, (aidx)DK_d, j0, (int)Sk, scale);
  store_owned(dv, HEAD_DV, DV, DKV_T, AT(DV, b, hk, 0, 0), (aidx)DV_s, (aidx)DV_d, j0, (int)Sk, 1.0f);
}
