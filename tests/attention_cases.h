/* The attention tests' shared harness: random Q, K, V (and mask, lengths)
 * in each tensor's storage type and layout, guard regions around O and
 * LSE (and O's gaps: rows past q_len and strided holes keep their bits),
 * one clforge_attention call, the result against the reference (every row,
 * or sampled rows for big shapes) with O's tolerance. */
#ifndef CLFORGE_TESTS_ATTENTION_CASES_H
#define CLFORGE_TESTS_ATTENTION_CASES_H

#include <math.h>
#include <stdint.h>

#include "../src/desc/attention_desc.h"
#include "../src/ops/attention_algo.h"
#include "../src/ref/attention.h"
#include "../src/ref/compare.h"
#include "oclgrind_keep.h"
#include "test_util.h"

enum { ATTN_GUARD = 29 };               /* elements before O and LSE (and after) */
#define ATTN_FULL_CHECK_FLOPS 2.0e7     /* above: sampled rows */
enum { ATTN_SAMPLED_ROWS = 96 };

/* Where Q, K, V and O live: tight BHSD; BSHD (heads interleaved in each
 * token's row, O too); one packed QKV buffer [B, S, 3, H, D] (needs Sq == Sk,
 * Hq == Hkv, D == Dv and one dtype; O in BSHD). */
typedef enum { ATTN_BHSD = 0, ATTN_BSHD = 1, ATTN_PACKED_QKV = 2 } attn_layout;

/* Masks: none; full [B, Hq, Sq, Sk] random in [-2, 0] with some -inf; one
 * [Sq, Sk] broadcast over batch and heads (strides {0, 0, Sk, 1}); the full
 * one with whole -inf rows. */
typedef enum { ATTN_MASK_NONE = 0, ATTN_MASK_FULL = 1, ATTN_MASK_BROADCAST = 2, ATTN_MASK_INF_ROWS = 3 } attn_mask;

typedef struct attn_case {
  clforge_attention_desc desc;  /* shapes, types, causal, window, softcap, scale, algo */
  attn_layout layout;           /* strides are set from it (desc's strides are ignored) */
  attn_mask mask;
  const int32_t *kv_lens, *q_lens; /* B values each, or NULL */
  int lse;                      /* ask for LSE */
  float q_scale;                /* Q's values times this (0 = 1): large logits */
  unsigned seed;
} attn_case;

static float attn_get(const void *p, clforge_dtype t, size_t i) {
  float v;
  clforge_ref_convert(1, (const char *)p + i * clforge_dtype_size(t), t, &v, CLFORGE_F32);
  return v;
}

static void attn_fill(void *p, clforge_dtype t, size_t n, float scale, unsigned *seed) {
  float *f = malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = scale * ((float)(tu_rand(seed) % 2001) / 1000.0f - 1.0f);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static const char *attn_describe(const attn_case *c, char *buf, size_t cap) {
  const clforge_attention_desc *d = &c->desc;
  snprintf(buf, cap,
           "%s B=%zu Hq=%zu Hkv=%zu Sq=%zu Sk=%zu D=%zu Dv=%zu types=%s,%s,%s layout=%d causal=%d window=%zu "
           "softcap=%g mask=%d(%s) kv_lens=%d q_lens=%d lse=%d qscale=%g",
           clforge_attention_algo_name(d->algo), d->batch ? d->batch : 1, d->heads_q, d->heads_kv ? d->heads_kv : d->heads_q,
           d->seq_q, d->seq_kv, d->head_dim, d->head_dim_v ? d->head_dim_v : d->head_dim,
           clforge_dtype_name(d->q_type ? d->q_type : CLFORGE_F32), clforge_dtype_name(d->kv_type ? d->kv_type : CLFORGE_F32),
           clforge_dtype_name(d->o_type ? d->o_type : CLFORGE_F32), (int)c->layout, (int)d->causal, d->window,
           (double)d->softcap, (int)c->mask, clforge_dtype_name(d->mask_type ? d->mask_type : CLFORGE_F32),
           c->kv_lens != NULL, c->q_lens != NULL, c->lse, (double)c->q_scale);
  return buf;
}

/* Strides of the case's layout (offsets: small odd ones, so that nothing
 * depends on alignment). */
static void attn_apply_layout(attn_case *c) {
  clforge_attention_desc *d = &c->desc;
  const size_t b = d->batch ? d->batch : 1, hq = d->heads_q, hkv = d->heads_kv ? d->heads_kv : hq;
  const size_t sq = d->seq_q, sk = d->seq_kv, dk = d->head_dim, dv = d->head_dim_v ? d->head_dim_v : dk;
  (void)b;
  memset(d->q_strides, 0, sizeof d->q_strides), memset(d->k_strides, 0, sizeof d->k_strides);
  memset(d->v_strides, 0, sizeof d->v_strides), memset(d->o_strides, 0, sizeof d->o_strides);
  d->q_offset = 3, d->k_offset = 5, d->v_offset = 1, d->o_offset = ATTN_GUARD, d->lse_offset = ATTN_GUARD;
  if (c->layout == ATTN_BSHD) {
    const size_t qs[4] = {sq * hq * dk, dk, hq * dk, 1}, ks[4] = {sk * hkv * dk, dk, hkv * dk, 1};
    const size_t vs[4] = {sk * hkv * dv, dv, hkv * dv, 1}, os[4] = {sq * hq * dv, dv, hq * dv, 1};
    memcpy(d->q_strides, qs, sizeof qs), memcpy(d->k_strides, ks, sizeof ks);
    memcpy(d->v_strides, vs, sizeof vs), memcpy(d->o_strides, os, sizeof os);
  } else if (c->layout == ATTN_PACKED_QKV) {
    /* [B, S, 3, H, D]: Q at 0, K at H*D, V at 2*H*D of each token's row */
    const size_t row = 3 * hq * dk;
    const size_t s[4] = {sq * row, dk, row, 1}, os[4] = {sq * hq * dv, dv, hq * dv, 1};
    memcpy(d->q_strides, s, sizeof s), memcpy(d->k_strides, s, sizeof s), memcpy(d->v_strides, s, sizeof s);
    memcpy(d->o_strides, os, sizeof os);
    d->q_offset = 7, d->k_offset = 7 + hq * dk, d->v_offset = 7 + 2 * hq * dk;
  }
  memset(d->mask_strides, 0, sizeof d->mask_strides);
  d->mask_offset = 2;
  if (c->mask == ATTN_MASK_BROADCAST) {
    const size_t ms[4] = {0, 0, sk, 1};
    memcpy(d->mask_strides, ms, sizeof ms);
  }
}

typedef enum { ATTN_RAN = 0, ATTN_REFUSED = 1, ATTN_FAILED = 2 } attn_outcome;

/* Run the case and check it. A forced algorithm that refuses must say
 * CLFORGE_UNSUPPORTED and leave O alone: ATTN_REFUSED. */
static attn_outcome attn_run_case(clforge_context ctx, const attn_case *given) {
  attn_case c = *given;
  attn_apply_layout(&c);
  unsigned seed = c.seed ? c.seed : 777;
  char what[600];
  attn_describe(&c, what, sizeof what);
  clforge_attention_buffers present = {0};
  const cl_mem yes = (cl_mem)(uintptr_t)1;
  present.mask = c.mask ? yes : NULL, present.lse = c.lse ? yes : NULL;
  present.kv_lens = c.kv_lens ? yes : NULL, present.q_lens = c.q_lens ? yes : NULL;
  clforge__attn d;
  if (clforge__attn_resolve(NULL, &c.desc, &present, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: does not resolve: %s", what, clforge_last_error(NULL));
    return ATTN_FAILED;
  }
  const size_t qs = clforge_dtype_size(d.q.type), kvs = clforge_dtype_size(d.k.type);
  const size_t os = clforge_dtype_size(d.o.type), ms = clforge_dtype_size(d.mask.type);
  const int packed = c.layout == ATTN_PACKED_QKV;
  size_t qn = d.q.extent, kn = d.k.extent + 1, vn = d.v.extent + 2;
  if (packed) qn = kn = vn = (d.v.extent > d.k.extent ? d.v.extent : d.k.extent) + 3;
  const size_t on = d.o.extent + ATTN_GUARD, ln = d.lse.extent + ATTN_GUARD, mn = d.mask.extent + 1;
  void *hq = malloc(qn * qs), *hk = malloc(kn * kvs), *hv = malloc(vn * kvs), *hm = malloc(mn * ms);
  void *ho0 = malloc(on * os), *ho = malloc(on * os);
  float *hl0 = malloc(ln * sizeof *hl0), *hl = malloc(ln * sizeof *hl);
  attn_fill(hq, d.q.type, qn, c.q_scale != 0.0f ? c.q_scale : 1.0f, &seed);
  if (!packed) attn_fill(hk, d.k.type, kn, 1.0f, &seed), attn_fill(hv, d.v.type, vn, 1.0f, &seed);
  attn_fill(ho0, d.o.type, on, 9.0f, &seed);
  attn_fill(hl0, CLFORGE_F32, ln, 9.0f, &seed);
  /* the mask: values in [-2, 0], about one in 9 -inf, and for INF_ROWS
   * every third row of the first head entirely -inf */
  attn_fill(hm, d.mask.type, mn, 1.0f, &seed);
  for (size_t i = 0; i < mn; ++i) {
    float m = attn_get(hm, d.mask.type, i) - 1.0f;
    if (tu_rand(&seed) % 9 == 0) m = -INFINITY;
    unsigned char raw[4];
    clforge_ref_convert(1, &m, CLFORGE_F32, raw, d.mask.type);
    memcpy((char *)hm + i * ms, raw, ms);
  }
  if (c.mask == ATTN_MASK_INF_ROWS)
    for (size_t b = 0; b < d.b; ++b)
      for (size_t i = 0; i < d.sq; i += 3)
        for (size_t j = 0; j < d.sk; ++j) {
          float m = -INFINITY;
          unsigned char raw[4];
          clforge_ref_convert(1, &m, CLFORGE_F32, raw, d.mask.type);
          const size_t at = d.mask.offset + b * d.mask.stride[0] + i * d.mask.stride[2] + j * d.mask.stride[3];
          memcpy((char *)hm + at * ms, raw, ms);
        }
  cl_mem q = tu_buffer(ctx, qn * qs), k = packed ? q : tu_buffer(ctx, kn * kvs), v = packed ? q : tu_buffer(ctx, vn * kvs);
  cl_mem m = tu_buffer(ctx, mn * ms), o = tu_buffer(ctx, on * os), l = tu_buffer(ctx, ln * sizeof(float));
  cl_mem kvl = c.kv_lens ? tu_buffer(ctx, (d.b + 1) * sizeof(int32_t)) : NULL;
  cl_mem ql = c.q_lens ? tu_buffer(ctx, (d.b + 1) * sizeof(int32_t)) : NULL;
  tu_write(ctx, q, 0, qn * qs, hq);
  if (!packed) tu_write(ctx, k, 0, kn * kvs, hk), tu_write(ctx, v, 0, vn * kvs, hv);
  tu_write(ctx, m, 0, mn * ms, hm);
  tu_write(ctx, o, 0, on * os, ho0);
  tu_write(ctx, l, 0, ln * sizeof(float), hl0);
  /* lengths at element 1 (offset 1), so that the offset is honoured */
  int32_t lens[2][65] = {{-7}, {-7}};
  for (size_t b = 0; b < d.b && b < 64; ++b) {
    if (c.kv_lens) lens[0][b + 1] = c.kv_lens[b];
    if (c.q_lens) lens[1][b + 1] = c.q_lens[b];
  }
  if (kvl) tu_write(ctx, kvl, 0, (d.b + 1) * sizeof(int32_t), lens[0]);
  if (ql) tu_write(ctx, ql, 0, (d.b + 1) * sizeof(int32_t), lens[1]);
  c.desc.kv_lens_offset = kvl ? 1 : 0, c.desc.q_lens_offset = ql ? 1 : 0;
  clforge__attn_resolve(NULL, &c.desc, &present, &d);

  clforge_attention_buffers extra = {.mask = c.mask ? m : NULL, .kv_lens = kvl, .q_lens = ql, .lse = c.lse ? l : NULL};
  clforge_status st = clforge_attention(ctx, &c.desc, q, k, v, o, &extra, 0, NULL, NULL);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", clforge_last_error(ctx));
  attn_outcome out = ATTN_RAN;
  tu_read(ctx, o, 0, on * os, ho);
  tu_read(ctx, l, 0, ln * sizeof(float), hl);
  if (packed) tu_read(ctx, q, 0, qn * qs, hq); /* K and V are its elements */
  const void *rk = packed ? hq : hk, *rv = packed ? hq : hv;
  if (st == CLFORGE_UNSUPPORTED && c.desc.algo != CLFORGE_ATTENTION_ALGO_AUTO) {
    CHECK(!memcmp(ho, ho0, on * os) && !memcmp(hl, hl0, ln * sizeof(float)), "%s: refused, but O or LSE changed", what);
    CHECK(strlen(msg) > 10, "%s: refused without a reason", what);
    out = ATTN_REFUSED;
  } else if (st != CLFORGE_SUCCESS) {
    CHECK(0, "%s -> %s: %s", what, clforge_status_name(st), msg);
    out = ATTN_FAILED;
  } else {
    /* Expected buffers: the old contents, with the reference's rows written. */
    void *wo = malloc(on * os);
    float *wl = malloc(ln * sizeof *wl);
    memcpy(wo, ho0, on * os);
    memcpy(wl, hl0, ln * sizeof *wl);
    double *row = malloc(d.dv * sizeof *row), *scores = malloc((d.sk ? d.sk : 1) * sizeof *scores);
    const size_t rows = d.b * d.hq * d.sq;
    const int sampled = d.flops > ATTN_FULL_CHECK_FLOPS;
    const size_t step = sampled && rows > ATTN_SAMPLED_ROWS ? rows / ATTN_SAMPLED_ROWS : 1;
    size_t checked = 0;
    float *gf = malloc((rows * d.dv + rows + 1) * sizeof *gf), *ef = malloc((rows * d.dv + rows + 1) * sizeof *ef);
    size_t n = 0;
    int unwritten_ok = 1;
    for (size_t r = 0; r < rows; r += step) {
      /* rows in b, h, i order; sampled: a stride plus the last row */
      size_t rr = r + (step > 1 ? (r * 7919u) % step : 0);
      if (rr >= rows) rr = rows - 1;
      const size_t b = rr / (d.hq * d.sq), hh = (rr / d.sq) % d.hq, i = rr % d.sq;
      const size_t kv_len = clforge__ref_attention_len(c.kv_lens, 0, b, d.sk);
      const size_t q_len = clforge__ref_attention_len(c.q_lens, 0, b, d.sq);
      if (i >= q_len) continue;
      double lse;
      clforge__ref_attention_row(&d, hq, rk, rv, c.mask ? hm : NULL, NULL, b, hh, i, kv_len, q_len, scores, row, &lse);
      for (size_t x = 0; x < d.dv; ++x) {
        const size_t at = d.o.offset + b * d.o.stride[0] + hh * d.o.stride[1] + i * d.o.stride[2] + x * d.o.stride[3];
        float want = (float)row[x];
        unsigned char raw[4];
        clforge_ref_convert(1, &want, CLFORGE_F32, raw, d.o.type);
        /* the element is judged by the tolerance below; the bitwise check
         * after it is for the elements the call must not write */
        memcpy((char *)wo + at * os, (char *)ho + at * os, os);
        gf[n] = attn_get(ho, d.o.type, at), ef[n] = attn_get(raw, d.o.type, 0), ++n;
      }
      if (c.lse) {
        const size_t at = d.lse.offset + b * d.lse.stride[0] + hh * d.lse.stride[1] + i * d.lse.stride[2];
        wl[at] = (float)lse;
        if (!(isinf(lse) && isinf(hl[at]) && hl[at] < 0) && !(fabs(hl[at] - lse) <= 1e-5 * (1 + fabs(lse)))) {
          if (unwritten_ok) CHECK(0, "%s: lse[b=%zu h=%zu i=%zu] = %g, want %g", what, b, hh, i, hl[at], lse);
          unwritten_ok = 0;
          out = ATTN_FAILED;
        }
      }
      ++checked;
    }
    clforge__error_stats es;
    clforge__compare_f32(n, gf, ef, &es);
    const clforge__tolerance tol = clforge__tolerance_for(d.o.type);
    if (!clforge__within_tolerance(&es, tol)) {
      const size_t w = clforge__worst_index(&es, tol);
      CHECK(0, "%s: nrmse %.3g max_abs %.3g (max %.3g), %zu rows; worst #%zu = %g, want %g", what, es.nrmse, es.max_abs,
            es.max_want, checked, w, gf[w], ef[w]);
      out = ATTN_FAILED;
    } else {
      ++tu_passed;
    }
    /* Everything the call must not write keeps its bits: the guards, the
     * rows past q_len, the gaps between strided rows, and, unasked, LSE.
     * (Sampled: only the guards and the checked rows are known.) */
    if (!sampled) {
      CHECK(!memcmp(ho, wo, on * os), "%s: O changed outside the rows it computes (guards, gaps, rows past q_len)",
            what);
      if (!c.lse) CHECK(!memcmp(hl, hl0, ln * sizeof(float)), "%s: LSE written though not asked for", what);
      else CHECK(!memcmp(hl, wl, d.lse.offset * sizeof(float)) &&
                     !memcmp(hl + d.lse.extent, wl + d.lse.extent, ATTN_GUARD * sizeof(float)),
                 "%s: a guard element around LSE changed", what);
    } else {
      CHECK(!memcmp(ho, wo, d.o.offset * os) &&
                !memcmp((char *)ho + d.o.extent * os, (char *)wo + d.o.extent * os, ATTN_GUARD * os),
            "%s: a guard element around O changed", what);
    }
    if (out == ATTN_FAILED) CHECK(0, "%s: failed (see above)", what);
    free(wo), free(wl), free(row), free(scores), free(gf), free(ef);
  }
  keep_release(q);
  if (!packed) keep_release(k), keep_release(v);
  keep_release(m), keep_release(o), keep_release(l);
  if (kvl) keep_release(kvl);
  if (ql) keep_release(ql);
  free(hq), free(hk), free(hv), free(hm), free(ho0), free(ho), free(hl0), free(hl);
  return out;
}

/* A descriptor with the usual fields. */
static clforge_attention_desc attn_desc(size_t b, size_t hq, size_t hkv, size_t sq, size_t sk, size_t dk, size_t dv) {
  clforge_attention_desc d = {.batch = b, .heads_q = hq, .heads_kv = hkv, .seq_q = sq, .seq_kv = sk, .head_dim = dk,
                              .head_dim_v = dv};
  return d;
}

/* What a case compiles in: with the algorithm and its parameters, these
 * make its program (cl/attention_common.cl's options); everything else
 * (shapes, strides, lengths, LSE, the mask's layout, window, scale, the cap's
 * value) is a kernel argument. Building a program costs seconds, running a
 * case milliseconds, so the tests put their cases on few of these. */
typedef struct attn_prog {
  clforge_dtype q, kv, o;
  size_t d, dv;
  clforge_dtype mask; /* the mask's storage type; 0: no mask */
  int softcap;        /* soft capping (the cap itself is a case's value) */
  clforge_causal causal;
} attn_prog;

/* Compile-time values the attention tests share: with one algorithm and
 * its parameters they are one build whichever test asks for it, so a run
 * of the suite builds it once. */
typedef enum {
  ATTN_P_F32, /* f32, D = Dv = 16: the feature cases (shapes, windows, lengths, layouts, heads) */
  ATTN_P_F32_TL,
  ATTN_P_F32_BR,
  /* 16-bit storage with the defaults of its variant, each type once in
   * each place (D = 48, Dv = 40: vector and scalar tails of 16-bit rows),
   * one mask type each: f16 everywhere (|s| ~ 1e4 must stay finite),
   * bottom-right causal; Q and O f32 with bf16 K/V; bf16 Q and O with f32
   * K/V (read in place) */
  ATTN_P_HALF_F16,
  ATTN_P_HALF_BF16_KV,
  ATTN_P_HALF_BF16_Q,
  ATTN_P_SOFTCAP,      /* f32, D = Dv = 32, soft cap */
  ATTN_P_SOFTCAP_MASK, /* and an f32 mask, top-left causal */
  ATTN_P_SHARED_COUNT
} attn_shared_prog;

static inline attn_prog attn_shared(attn_shared_prog which) {
  const clforge_dtype f32 = CLFORGE_F32, f16 = CLFORGE_F16, bf16 = CLFORGE_BF16;
  const attn_prog all[ATTN_P_SHARED_COUNT] = {
      [ATTN_P_F32] = {f32, f32, f32, 16, 16, 0, 0, CLFORGE_CAUSAL_NONE},
      [ATTN_P_F32_TL] = {f32, f32, f32, 16, 16, 0, 0, CLFORGE_CAUSAL_TOP_LEFT},
      [ATTN_P_F32_BR] = {f32, f32, f32, 16, 16, 0, 0, CLFORGE_CAUSAL_BOTTOM_RIGHT},
      [ATTN_P_HALF_F16] = {f16, f16, f16, 48, 40, f16, 0, CLFORGE_CAUSAL_BOTTOM_RIGHT},
      [ATTN_P_HALF_BF16_KV] = {f32, bf16, f32, 48, 40, bf16, 0, CLFORGE_CAUSAL_NONE},
      [ATTN_P_HALF_BF16_Q] = {bf16, f32, bf16, 48, 40, f32, 0, CLFORGE_CAUSAL_NONE},
      [ATTN_P_SOFTCAP] = {f32, f32, f32, 32, 32, 0, 1, CLFORGE_CAUSAL_NONE},
      [ATTN_P_SOFTCAP_MASK] = {f32, f32, f32, 32, 32, f32, 1, CLFORGE_CAUSAL_TOP_LEFT},
  };
  return all[which];
}

/* The head-dim pairs the tests cover (D and Dv from 1 to 256, unequal),
 * each with one causal alignment (so that its cases can share one build),
 * and the dtype mix that carries it in tests/test_attention.c. */
typedef struct attn_dims_pair {
  size_t d, dv;
  clforge_causal causal;
  int q, kv, o;
} attn_dims_pair;

enum { ATTN_NDIMS = 14 };
static inline const attn_dims_pair *attn_dims(int i) {
  static const attn_dims_pair t[ATTN_NDIMS] = {
      {1, 1, CLFORGE_CAUSAL_NONE, 3, 3, 3},         {8, 8, CLFORGE_CAUSAL_TOP_LEFT, 1, 1, 2},
      {40, 40, CLFORGE_CAUSAL_NONE, 1, 1, 3},       {64, 64, CLFORGE_CAUSAL_NONE, 2, 2, 2},
      {80, 80, CLFORGE_CAUSAL_BOTTOM_RIGHT, 1, 2, 1}, {96, 96, CLFORGE_CAUSAL_TOP_LEFT, 1, 2, 2},
      {128, 128, CLFORGE_CAUSAL_NONE, 3, 1, 1},     {256, 256, CLFORGE_CAUSAL_NONE, 2, 1, 1},
      {64, 128, CLFORGE_CAUSAL_BOTTOM_RIGHT, 1, 3, 1}, {128, 40, CLFORGE_CAUSAL_TOP_LEFT, 2, 1, 3},
      {1, 256, CLFORGE_CAUSAL_NONE, 2, 1, 2},       {256, 8, CLFORGE_CAUSAL_BOTTOM_RIGHT, 3, 1, 3},
      {80, 96, CLFORGE_CAUSAL_NONE, 2, 2, 1},       {40, 1, CLFORGE_CAUSAL_NONE, 3, 3, 1},
  };
  return &t[i];
}

/* Pair i with f32 everywhere. */
static inline attn_prog attn_dims_f32(int i) {
  const attn_dims_pair *p = attn_dims(i);
  const attn_prog r = {CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, p->d, p->dv, 0, 0, p->causal};
  return r;
}

/* A case of program p: shapes (b, hq, hkv, sq, sk); a full mask when p has
 * one (the caller may choose another kind), a cap of 30 when p caps. */
static inline attn_case attn_on(attn_prog p, size_t b, size_t hq, size_t hkv, size_t sq, size_t sk, unsigned seed) {
  attn_case c = {.desc = attn_desc(b, hq, hkv, sq, sk, p.d, p.dv), .seed = seed};
  c.desc.q_type = p.q, c.desc.kv_type = p.kv, c.desc.o_type = p.o, c.desc.causal = p.causal;
  c.desc.mask_type = p.mask ? p.mask : CLFORGE_F32;
  c.mask = p.mask ? ATTN_MASK_FULL : ATTN_MASK_NONE;
  c.desc.softcap = p.softcap ? 30.0f : 0.0f;
  return c;
}

#endif
