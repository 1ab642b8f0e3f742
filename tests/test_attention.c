/* clforge_attention against clforge_ref_attention: a table of cases that
 * spans the descriptor (Sq != Sk both ways, sizes off every tile, D and Dv
 * from 1 to 256, GQA/MQA, both causal alignments, windows, key and query
 * lengths, masks, soft cap, BSHD and packed QKV, every dtype mix, LSE,
 * large logits), each run with the automatic choice and with every
 * algorithm forced: it computes the case right or refuses it with
 * CLFORGE_UNSUPPORTED, O untouched. First, the reference itself against
 * results known in closed form.
 *
 * A program (a build per algorithm: seconds) is what a case compiles in
 * (tests/attention_cases.h, attn_prog) and the parameters; a case runs in
 * milliseconds. So the feature cases (shapes, windows, lengths, layouts,
 * heads) share f32 with D = Dv = 16 and the default parameters (one build
 * per causal alignment, the same builds as the algorithms' tests'), and
 * the cases of types, head dims, masks and soft cap ride on the 27 dtype
 * mixes' programs under the families' scalar parameter sets, which build
 * several times quicker than the defaults' unrolled tiles (~20x with 16-bit
 * storage; the defaults' kernels for those cases' features:
 * tests/test_attention_fused.c, tests/test_attention_split_kv.c). */
#include "attention_cases.h"

static const char *const scalar_params = "attention_fused:VW=1,QW=1,WGQ=1,TK=1,DCH=1,KU=1,STAGE=0;"
                                         "attention_split_kv:KB=1,ROWS=1,VW=1,WG=1,HCVT=0";

static attn_case cases[256];
static char fused_only[256]; /* split_kv not forced: see mix_prog */
static char scalar[256];     /* under scalar_params */
static int ncases;

static void add_case(attn_case c, int only, int sc) {
  if (ncases < (int)(sizeof cases / sizeof cases[0]))
    fused_only[ncases] = (char)only, scalar[ncases] = (char)sc, cases[ncases++] = c;
  else
    CHECK(0, "case table full");
}

/* What each dtype mix of Q, KV and O (codes 1..3) compiles in, besides its
 * types: the head-dim pairs ride on mixes (attn_dims), so do each mask
 * type, soft cap (alone, and with an f32 mask and top-left causal); the
 * rest keep D = Dv = 16. split_kv is forced on the mixes whose codes sum to
 * a multiple of 3 (each type once in each place). */
static attn_prog mix_prog(int q, int kv, int o) {
  const clforge_dtype f32 = CLFORGE_F32, f16 = CLFORGE_F16, bf16 = CLFORGE_BF16;
  attn_prog p = {(clforge_dtype)q, (clforge_dtype)kv, (clforge_dtype)o, 16, 16, 0, 0, CLFORGE_CAUSAL_NONE};
  for (int i = 0; i < ATTN_NDIMS; ++i) {
    const attn_dims_pair *d = attn_dims(i);
    if (d->q == q && d->kv == kv && d->o == o) p.d = d->d, p.dv = d->dv, p.causal = d->causal;
  }
  const struct {
    int q, kv, o;
    clforge_dtype mask;
    int softcap;
    clforge_causal causal;
  } extra[] = {{1, 2, 3, f32, 0, CLFORGE_CAUSAL_NONE},     {2, 3, 1, f16, 0, CLFORGE_CAUSAL_BOTTOM_RIGHT},
               {3, 1, 2, bf16, 0, CLFORGE_CAUSAL_NONE},    {1, 3, 2, 0, 1, CLFORGE_CAUSAL_NONE},
               {3, 2, 1, f32, 1, CLFORGE_CAUSAL_TOP_LEFT}};
  for (size_t i = 0; i < sizeof extra / sizeof extra[0]; ++i)
    if (extra[i].q == q && extra[i].kv == kv && extra[i].o == o) {
      p.mask = extra[i].mask, p.softcap = extra[i].softcap, p.causal = extra[i].causal;
      p.d = extra[i].softcap ? 32 : 48, p.dv = extra[i].softcap ? 32 : 40;
    }
  return p;
}

static int mix_split(int q, int kv, int o) { return (q + kv + o) % 3 == 0; }

/* A case on mix (q, kv, o)'s program (under scalar_params). */
static attn_case on_mix(int q, int kv, int o, size_t b, size_t hq, size_t hkv, size_t sq, size_t sk) {
  return attn_on(mix_prog(q, kv, o), b, hq, hkv, sq, sk, (unsigned)(ncases * 31 + 7));
}

static void add_mix(int q, int kv, int o, attn_case c) { add_case(c, !mix_split(q, kv, o), 1); }

/* A case on f32 with D = Dv = 16 (causal: which of the three builds), the defaults. */
static attn_case base(size_t b, size_t hq, size_t hkv, size_t sq, size_t sk, clforge_causal causal) {
  static const attn_shared_prog which[3] = {ATTN_P_F32, ATTN_P_F32_TL, ATTN_P_F32_BR};
  return attn_on(attn_shared(which[causal]), b, hq, hkv, sq, sk, (unsigned)(ncases * 31 + 7));
}

static void add(attn_case c) { add_case(c, 0, 0); }

/* With Q = 0 every visible score is 0 (no mask): O is the mean of the
 * visible rows of V and LSE = log(their count); so each masking rule is
 * checked against counting, not against a second softmax. */
static void reference_closed_form(void) {
  enum { SQ = 5, SK = 9, D = 3 };
  const clforge_causal causal[] = {CLFORGE_CAUSAL_NONE, CLFORGE_CAUSAL_TOP_LEFT, CLFORGE_CAUSAL_BOTTOM_RIGHT};
  float q[SQ * D] = {0}, k[SK * D], v[SK * D], o[SQ * D], lse[SQ];
  for (int i = 0; i < SK * D; ++i) k[i] = (float)(i % 7) - 3.0f, v[i] = (float)(i * 3 % 11);
  for (int ci = 0; ci < 3; ++ci)
    for (size_t window = 0; window <= 3; window += 3) {
      if (window && causal[ci] == CLFORGE_CAUSAL_NONE) continue;
      for (int32_t kvl = 0; kvl <= SK; kvl += 4) {
        const int32_t qlen = 4;
        clforge_attention_desc d = attn_desc(1, 1, 1, SQ, SK, D, D);
        d.causal = causal[ci], d.window = window;
        for (int i = 0; i < SQ * D; ++i) o[i] = 99.0f;
        CHECK_OK(NULL, clforge_ref_attention(&d, q, k, v, NULL, &kvl, &qlen, o, lse));
        for (int i = 0; i < SQ; ++i) {
          if (i >= qlen) { /* not written */
            CHECK(o[i * D] == 99.0f, "ref: row %d past q_len was written", i);
            continue;
          }
          /* visible keys by the rule spelled out once more */
          long diag = causal[ci] == CLFORGE_CAUSAL_TOP_LEFT ? i : causal[ci] == CLFORGE_CAUSAL_BOTTOM_RIGHT ? i + kvl - qlen : SK;
          int count = 0;
          double sum[D] = {0};
          for (int j = 0; j < kvl; ++j) {
            if (causal[ci] != CLFORGE_CAUSAL_NONE && j > diag) continue;
            if (window && j <= diag - (long)window) continue;
            ++count;
            for (int c = 0; c < D; ++c) sum[c] += v[j * D + c];
          }
          for (int c = 0; c < D; ++c) {
            const double want = count ? sum[c] / count : 0.0;
            CHECK(fabs(o[i * D + c] - want) < 1e-5, "ref: causal %d window %zu kv_len %d row %d: o = %g, want %g", ci,
                  window, kvl, i, o[i * D + c], want);
          }
          const double wl = count ? log((double)count) : -INFINITY;
          CHECK(count ? fabs(lse[i] - wl) < 1e-6 : (isinf(lse[i]) && lse[i] < 0), "ref: lse %g, want %g", lse[i], wl);
        }
      }
    }
  /* One visible key: O is its V row whatever the scores. */
  float q1[D] = {3, -2, 5}, kk[2 * D] = {1, 2, 3, 4, 5, 6}, vv[2 * D] = {7, 8, 9, 10, 11, 12}, o1[D], l1;
  int32_t one = 1;
  clforge_attention_desc d = attn_desc(1, 1, 1, 1, 2, D, D);
  CHECK_OK(NULL, clforge_ref_attention(&d, q1, kk, vv, NULL, &one, NULL, o1, &l1));
  CHECK(o1[0] == 7 && o1[1] == 8 && o1[2] == 9, "ref: one key: o = %g %g %g", o1[0], o1[1], o1[2]);
  CHECK(fabs(l1 - (3 * 1 - 2 * 2 + 5 * 3) / sqrt(3.0)) < 1e-5, "ref: one key: lse %g", l1);
}

static void build(int small) {
  attn_case c;
  static const int32_t kvl[4] = {5, 0, 1000, 3}, ql[4] = {2, 7, 0, 1}; /* the cases keep pointers */
  const clforge_causal none = CLFORGE_CAUSAL_NONE, tl = CLFORGE_CAUSAL_TOP_LEFT, br = CLFORGE_CAUSAL_BOTTOM_RIGHT;
  /* shapes: sizes off every tile, Sq != Sk both ways, decode */
  const size_t sizes[][2] = {{1, 1},     {7, 7},     {1, 129}, {7, 129}, {129, 7},
                             {129, 129}, {16, 1000}, {1, 1000}, {2, 300}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    if (small && sizes[i][0] * sizes[i][1] > 1000) continue;
    /* (--small: decode over 257 keys, not 1000: past a block's tail all the same,
     * at a quarter of the work-items Oclgrind simulates) */
    const size_t sk = small && sizes[i][1] == 1000 ? 257 : sizes[i][1];
    c = base(1, 2, 2, sizes[i][0], sk, none);
    add(c);
    c.desc.causal = br, c.lse = 1;
    add(c);
    c.desc.causal = tl;
    add(c);
  }
  /* head dims, D != Dv, each on its mix's program (--small: those of the
   * mixes it runs) */
  for (int i = 0; i < ATTN_NDIMS; ++i) {
    const attn_dims_pair *m = attn_dims(i);
    if (small && !mix_split(m->q, m->kv, m->o)) continue;
    c = on_mix(m->q, m->kv, m->o, 1, 1, 1, small ? 3 : 33, small ? 5 : 70);
    c.lse = 1;
    add_mix(m->q, m->kv, m->o, c);
    c.desc.seq_q = 1;
    add_mix(m->q, m->kv, m->o, c);
  }
  /* GQA 4:1 and MQA, batch > 1 */
  c = base(2, 8, 2, small ? 3 : 20, small ? 6 : 45, br);
  c.lse = 1;
  add(c);
  c.desc.seq_q = 1;
  add(c);
  c = base(2, 4, 1, small ? 2 : 17, small ? 7 : 31, none);
  add(c);
  /* windows, both alignments */
  for (int a = 1; a <= 2; ++a)
    for (size_t w = 1; w <= 9; w += 8) {
      c = base(1, 2, 1, small ? 5 : 40, small ? 9 : 60, (clforge_causal)a);
      c.desc.window = w, c.lse = 1;
      add(c);
    }
  /* key and query lengths (0: every row fully masked -> zeros, LSE -inf) */
  c = base(4, 2, 2, small ? 3 : 12, small ? 6 : 40, none);
  c.kv_lens = kvl, c.lse = 1;
  add(c);
  c.q_lens = ql;
  add(c);
  c.desc.causal = br;
  add(c);
  c.desc.seq_q = 1, c.q_lens = NULL;
  add(c);
  /* masks: full, broadcast, whole -inf rows; in each type (on the mixes
   * whose programs have them) */
  const attn_mask masks[] = {ATTN_MASK_FULL, ATTN_MASK_BROADCAST, ATTN_MASK_INF_ROWS};
  const int mask_mix[3][3] = {{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}; /* f32, f16, bf16 masks */
  for (int mi = 0; mi < 3; ++mi)
    for (int mt = 1; mt <= 3; ++mt) {
      if (small && mt > 1) continue;
      const int *m = mask_mix[mt - 1];
      c = on_mix(m[0], m[1], m[2], 2, 2, 1, small ? 4 : 19, small ? 5 : 37);
      c.mask = masks[mi], c.lse = 1;
      add_mix(m[0], m[1], m[2], c);
    }
  /* soft cap with large logits (alone, and with a mask and top-left causal) */
  c = on_mix(1, 3, 2, 1, 2, 2, small ? 3 : 25, small ? 4 : 50);
  c.q_scale = 40.0f, c.lse = 1;
  add_mix(1, 3, 2, c);
  c = on_mix(3, 2, 1, 1, 2, 2, small ? 3 : 25, small ? 4 : 50);
  c.q_scale = 40.0f, c.lse = 1;
  add_mix(3, 2, 1, c);
  /* layouts (BSHD with D != Dv on the mix that carries 128, 40) */
  c = base(2, 3, 3, small ? 4 : 21, small ? 4 : 21, none);
  c.layout = ATTN_BSHD, c.lse = 1;
  add(c);
  c.layout = ATTN_PACKED_QKV, c.desc.causal = tl;
  add(c);
  c = on_mix(2, 1, 3, 2, 4, 2, small ? 3 : 9, small ? 5 : 30);
  c.layout = ATTN_BSHD;
  add_mix(2, 1, 3, c);
  /* every dtype mix of Q, KV, O (--small: split_kv's); large logits (|s| ~
   * 1e4) with f16 storage (on the mix that carries 64, 64) */
  for (int qt = 1; qt <= 3; ++qt)
    for (int kt = 1; kt <= 3; ++kt)
      for (int ot = 1; ot <= 3; ++ot) {
        if (small && !mix_split(qt, kt, ot)) continue;
        c = on_mix(qt, kt, ot, 1, 2, 1, small ? 3 : 13, small ? 5 : 29);
        c.lse = 1;
        add_mix(qt, kt, ot, c);
      }
  c = on_mix(2, 2, 2, 1, 2, 2, small ? 3 : 30, small ? 5 : 60);
  c.q_scale = 100.0f, c.desc.scale = 1.0f, c.lse = 1;
  add_mix(2, 2, 2, c);
}

/* Validation mode checks every call, and catches a wrong result. */
static void validation(clforge_context ctx) {
  attn_case c = base(1, 2, 1, 9, 21, CLFORGE_CAUSAL_BOTTOM_RIGHT);
  c.lse = 1;
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  CHECK(attn_run_case(ctx, &c) == ATTN_RAN, "validation mode: a right result was refused");
  clforge__test_set_fault(ctx, "attention");
  attn_apply_layout(&c);
  const size_t bytes = 4096 * sizeof(float);
  cl_mem q = tu_buffer(ctx, bytes), k = tu_buffer(ctx, bytes), v = tu_buffer(ctx, bytes), o = tu_buffer(ctx, bytes);
  /* inputs of known size (stale memory could hold values so large that
   * one wrong element would hide within the relative tolerance) */
  float host[4096];
  unsigned seed = 5;
  attn_fill(host, CLFORGE_F32, 4096, 1.0f, &seed);
  tu_write(ctx, q, 0, bytes, host), tu_write(ctx, k, 0, bytes, host), tu_write(ctx, v, 0, bytes, host);
  CHECK_FAILS(ctx, clforge_attention(ctx, &c.desc, q, k, v, o, NULL, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
              "attention");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  keep_release(q), keep_release(k), keep_release(v), keep_release(o);
}

/* No scratch memory grows with Sq * Sk: fused needs none, split_kv its
 * partial rows (B * Hq * Sq * splits * (Dv + 2) floats). */
static void scratch_bounds(clforge_context ctx) {
  clforge_attention_desc d = attn_desc(1, 32, 8, 4096, 4096, 128, 128);
  clforge_attention_choice ch;
  CHECK_OK(ctx, clforge_attention_explain(ctx, &d, &ch));
  CHECK(ch.algo == CLFORGE_ATTENTION_ALGO_FUSED && ch.workspace_bytes == 0, "prefill: %s with %zu bytes of scratch",
        clforge_attention_algo_name(ch.algo), ch.workspace_bytes);
  d = attn_desc(1, 32, 8, 1, 16384, 128, 128);
  CHECK_OK(ctx, clforge_attention_explain(ctx, &d, &ch));
  CHECK(ch.algo == CLFORGE_ATTENTION_ALGO_SPLIT_KV && ch.splits >= 1, "decode: %s, %d splits",
        clforge_attention_algo_name(ch.algo), ch.splits);
  CHECK(ch.workspace_bytes <= (size_t)32 * ch.splits * (128 + 2) * sizeof(float),
        "decode: %zu bytes of scratch for %d splits", ch.workspace_bytes, ch.splits);
  size_t bytes = 1;
  CHECK_OK(ctx, clforge_attention_workspace_size(ctx, &d, &bytes));
  CHECK(bytes == ch.workspace_bytes, "workspace_size %zu != explain's %zu", bytes, ch.workspace_bytes);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  reference_closed_form();
  clforge_context ctx = tu_context();
  if (!ctx) return 1;
  if (small) keep_start_sizes(ctx, 64, (size_t)256 << 10); /* Oclgrind: small buffers, quick checks (no conv) */
  build(small);
  int ran[CLFORGE_ATTENTION_ALGO_COUNT] = {0};
  for (int i = 0; i < ncases; ++i) {
    if (clforge_context_set_params(ctx, scalar[i] ? scalar_params : NULL) != CLFORGE_SUCCESS)
      CHECK(0, "parameters %s refused: %s", scalar[i] ? scalar_params : "(none)", clforge_last_error(ctx));
    for (int a = 0; a < CLFORGE_ATTENTION_ALGO_COUNT; ++a) {
      attn_case c = cases[i];
      if (a == CLFORGE_ATTENTION_ALGO_SPLIT_KV && fused_only[i]) continue;
      c.desc.algo = (clforge_attention_algo)a;
      if (attn_run_case(ctx, &c) == ATTN_RAN) ++ran[a];
    }
  }
  clforge_context_set_params(ctx, NULL);
  for (int a = 0; a < CLFORGE_ATTENTION_ALGO_COUNT; ++a)
    CHECK(ran[a] > ncases / 2, "%s ran only %d of %d cases", clforge_attention_algo_name((clforge_attention_algo)a),
          ran[a], ncases);
  validation(ctx);
  scratch_bounds(ctx);
  printf("%d cases\n", ncases);
  keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
