/* The split-KV (flash-decoding) algorithm forced, against the reference
 * through tests/attention_cases.h: decode-sized Sq (1, 2, 4, 16) and a
 * larger one, key lengths off every block (1, 7, 129, 1000, 4097), the
 * split count forced at 1, a few, and more splits than key blocks (empty
 * splits), GQA 4:1 / MQA / Hq = Hkv, head dims 1..256 with D != Dv, the
 * decoder's bottom-right causal mask, windows, key lengths (0 included) and
 * query lengths, full and broadcast masks, soft cap, LSE, f32/f16/bf16 KV
 * with f32 Q, BSHD; then a sample of both families' other parameters.
 * The cases' compile-time values come from few programs (see dims_prog).
 * --small: tiny cases only (Oclgrind). */
#include "../src/families/attention_split_kv.h"
#include "../src/families/families.h"
#include "attention_cases.h"

static clforge_context ctx;
static int small;

/* Run c with split_kv forced under parameter override spec (NULL: none). */
static void run(attn_case c, const char *spec) {
  c.desc.algo = CLFORGE_ATTENTION_ALGO_SPLIT_KV;
  CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
  const attn_outcome out = attn_run_case(ctx, &c);
  CHECK(out == ATTN_RAN, "split_kv refused or failed a case (params %s)", spec ? spec : "default");
  clforge_context_set_params(ctx, NULL);
}

/* The programs (with the default parameters): the feature cases' f32 with
 * D = Dv = 16 (tests/attention_cases.h, attn_shared, as tests/test_attention.c's)
 * and one with f16 K/V; one per head-dim pair, carrying the K/V and O
 * storage types (Q f32: every pair of them), the whole-block path's mask
 * and soft cap, and causal alignments; and attn_shared's 16-bit ones (mask
 * types, f16 storage) and soft cap. The storage types sit where they cost
 * least on PoCL: an f16 O row is several times f32's code generation at a
 * large Dv, bf16 K/V costlier at D = 256 (measured side by side on one
 * loaded machine: D = 64, Dv = 128 took 15 s with bf16 K/V and f16 O, 20 s
 * with f32 K/V and f16 O, 4.6 s with bf16 K/V and f32 O; D = Dv = 256 31 s
 * with bf16 K/V, 19 s with f32), so f16 O rides on Dv = 8 and 1 and on one
 * whole-block program (80, the soft cap's), bf16 K/V on D = 64 and 1. */
static const attn_prog f16_kv = {CLFORGE_F32, CLFORGE_F16, CLFORGE_F32, 16, 16, 0, 0, CLFORGE_CAUSAL_BOTTOM_RIGHT};

enum { NDIMS = 11 };
static attn_prog dims_prog(int i) {
  const clforge_dtype f32 = CLFORGE_F32, f16 = CLFORGE_F16, bf16 = CLFORGE_BF16;
  const clforge_causal none = CLFORGE_CAUSAL_NONE, tl = CLFORGE_CAUSAL_TOP_LEFT, br = CLFORGE_CAUSAL_BOTTOM_RIGHT;
  const attn_prog t[NDIMS] = {
      {bf16, bf16, bf16, 1, 1, 0, 0, none},
      {f32, f32, f16, 8, 8, 0, 0, tl},
      {f32, f32, f32, 64, 64, 0, 0, br},
      {f32, f16, f16, 80, 80, 0, 1, none},      /* the whole-block path with soft cap */
      {f32, f16, bf16, 128, 128, f32, 0, none}, /* the whole-block path with a mask */
      {f32, f32, f32, 256, 256, 0, 0, br},
      {f32, bf16, f32, 64, 128, 0, 0, none},
      {f32, f16, f32, 128, 80, 0, 0, br},
      {f32, bf16, bf16, 1, 256, 0, 0, br},
      {f32, f32, bf16, 256, 8, 0, 0, none},
      {f32, bf16, f16, 80, 1, 0, 0, tl},
  };
  return t[i];
}

/* The program with Q f32 and K/V, O types kv, o (all nine pairs). */
static attn_prog storage_prog(clforge_dtype kv, clforge_dtype o) {
  for (int i = 0; i < NDIMS; ++i) {
    const attn_prog p = dims_prog(i);
    if (p.q == CLFORGE_F32 && p.kv == kv && p.o == o) return p;
  }
  CHECK(0, "no program with K/V %d and O %d", (int)kv, (int)o);
  return dims_prog(2);
}

/* Sq x Sk with several split counts: 1, 3, automatic, and 256 (more
 * splits than key blocks for every Sk here but 4097 with KB=16; --small:
 * 16, more than the 9 blocks of its largest Sk, each empty split a work-item
 * Oclgrind simulates). The split count is a launch size, not a build: three
 * programs for all of it. */
static void shapes(void) {
  const size_t sqs[] = {1, 2, 4, 16, 40}, sks[] = {1, 7, 129, 1000, 4097};
  const char *splits[] = {"attention_split_kv:SPLITS=1", "attention_split_kv:SPLITS=3", NULL,
                          small ? "attention_split_kv:SPLITS=16" : "attention_split_kv:SPLITS=256"};
  unsigned seed = 1;
  for (size_t a = 0; a < sizeof sqs / sizeof sqs[0]; ++a)
    for (size_t b = 0; b < sizeof sks / sizeof sks[0]; ++b) {
      if (small && (sqs[a] > 4 || sks[b] > 129)) continue;
      if (sqs[a] == 40 && sks[b] > 1000) continue; /* the reference's time */
      for (int s = 0; s < 4; ++s) {
        /* GQA 4:1, the decoder's mask and LSE; none; f16 K/V */
        const attn_prog p = s == 1 ? attn_shared(ATTN_P_F32) : s == 3 ? f16_kv : attn_shared(ATTN_P_F32_BR);
        attn_case c = attn_on(p, 1, 8, 2, sqs[a], sks[b], seed++);
        c.lse = 1;
        run(c, splits[s]);
      }
    }
}

static void heads_and_dims(void) {
  for (int i = 0; i < NDIMS; ++i) {
    if (small && i % 3) continue;
    const attn_prog p = dims_prog(i);
    attn_case c = attn_on(p, 1, 4, 1, small ? 2 : 3, small ? 9 : 300, 100 + (unsigned)i); /* MQA */
    c.lse = 1;
    run(c, i % 2 ? "attention_split_kv:SPLITS=4" : NULL);
    c = attn_on(p, 2, 3, 3, 1, small ? 9 : 257, 200 + (unsigned)i); /* Hq = Hkv */
    c.lse = 1;
    run(c, NULL);
  }
}

static void masking(void) {
  const int32_t kvl[4] = {5, 0, 1000, 37}, ql[4] = {2, 4, 0, 1};
  const size_t sk = small ? 12 : 600;
  /* key lengths (0: zeros, LSE -inf) and query lengths, with a split count
   * that leaves whole splits past kv_len */
  attn_case c = attn_on(attn_shared(ATTN_P_F32_BR), 4, 4, 2, small ? 2 : 4, sk, 300);
  c.kv_lens = kvl, c.lse = 1;
  run(c, "attention_split_kv:SPLITS=8");
  c.q_lens = ql;
  run(c, NULL);
  c = attn_on(attn_shared(ATTN_P_F32), 4, 4, 2, small ? 2 : 4, sk, 301);
  c.kv_lens = kvl, c.q_lens = ql, c.lse = 1;
  run(c, "attention_split_kv:SPLITS=2");
  /* windows, both alignments: most splits see nothing */
  for (int a = 1; a <= 2; ++a)
    for (size_t w = 1; w <= 70; w += 69) {
      c = attn_on(attn_shared(a == 1 ? ATTN_P_F32_TL : ATTN_P_F32_BR), 1, 4, 2, small ? 3 : 16, small ? 20 : 1000,
                  310 + (unsigned)w);
      c.desc.window = w, c.lse = 1;
      run(c, "attention_split_kv:SPLITS=12");
    }
  /* masks: full, broadcast, whole -inf rows, in each storage type (the
   * mask types' programs) */
  const attn_mask masks[] = {ATTN_MASK_FULL, ATTN_MASK_BROADCAST, ATTN_MASK_INF_ROWS};
  const attn_shared_prog mask_progs[] = {ATTN_P_HALF_BF16_Q, ATTN_P_HALF_F16, ATTN_P_HALF_BF16_KV};
  for (int mi = 0; mi < 3; ++mi)
    for (int mt = 1; mt <= 3; ++mt) {
      if (small && mt > 1) continue;
      const unsigned seed = 320 + (unsigned)(mi * 3 + mt);
      c = attn_on(attn_shared(mask_progs[mt - 1]), 2, 4, 1, small ? 4 : 7, small ? 9 : 333, seed);
      c.mask = masks[mi], c.lse = 1;
      run(c, mi == 1 ? "attention_split_kv:SPLITS=6" : NULL);
    }
  /* the whole-block path (D, Dv multiples of 16, 16 keys a block) with a
   * row tile past the heads (group 3, 4 rows a pass), a mask or soft cap */
  c = attn_on(dims_prog(4), 1, 6, 2, 1, small ? 40 : 300, 345);
  c.lse = 1;
  run(c, NULL);
  c = attn_on(dims_prog(3), 1, 6, 2, 1, small ? 40 : 300, 346);
  c.desc.softcap = 20.0f, c.lse = 1;
  run(c, "attention_split_kv:SPLITS=2");
  /* soft cap with large logits, with and without a mask */
  c = attn_on(attn_shared(ATTN_P_SOFTCAP), 1, 8, 2, small ? 2 : 4, small ? 10 : 500, 340);
  c.q_scale = 40.0f, c.lse = 1;
  run(c, NULL);
  c = attn_on(attn_shared(ATTN_P_SOFTCAP_MASK), 1, 8, 2, small ? 2 : 4, small ? 10 : 500, 341);
  c.q_scale = 40.0f, c.lse = 1;
  run(c, "attention_split_kv:SPLITS=3");
}

static void storage_and_layout(void) {
  for (int kt = 1; kt <= 3; ++kt)
    for (int ot = 1; ot <= 3; ++ot) {
      if (small && ot > 1) continue;
      attn_case c = attn_on(storage_prog((clforge_dtype)kt, (clforge_dtype)ot), 2, 8, 2, 1, small ? 11 : 777,
                            400 + (unsigned)(kt * 3 + ot));
      c.lse = 1;
      run(c, NULL);
    }
  attn_case c = attn_on(dims_prog(7), 2, 4, 2, small ? 2 : 5, small ? 9 : 200, 410);
  c.layout = ATTN_BSHD, c.lse = 1;
  run(c, NULL);
  /* f16 storage everywhere with |s| ~ 1e4 stays finite */
  c = attn_on(attn_shared(ATTN_P_HALF_F16), 1, 2, 2, 2, small ? 9 : 300, 420);
  c.q_scale = 100.0f, c.desc.scale = 1.0f, c.lse = 1;
  run(c, NULL);
}

/* Other parameter values of both families: every key block, row tile and
 * vector width (D tails: 40 and 24 are no multiple of 16 or 32), work-groups
 * of several chunks, combine shapes. One program per value set: its cases
 * differ in shapes, window and split count only. */
static void parameters(void) {
  const char *specs[] = {
      "attention_split_kv:KB=1,ROWS=1,VW=1,WG=1,HCVT=0",
      "attention_split_kv:KB=16,ROWS=4,VW=16,WG=1,HCVT=1",
      "attention_split_kv:KB=2,ROWS=2,VW=2,WG=2,HCVT=1;attention_combine:CWG=1,CVW=1",
      "attention_split_kv:KB=4,ROWS=8,VW=4,WG=4;attention_combine:CWG=4,CVW=16",
      "attention_split_kv:KB=8,ROWS=16,VW=8,WG=1,SPLITS=2;attention_combine:CWG=64,CVW=2",
      "attention_split_kv:KB=32,ROWS=4,VW=16,WG=8;attention_combine:CWG=8,CVW=8",
      "attention_split_kv:KB=64,ROWS=2,VW=16,WG=1,SPLITS=96;attention_combine:CWG=2,CVW=4",
  };
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i) {
    /* both alignments across the sets; a full mask */
    const attn_prog p = {CLFORGE_F32, (clforge_dtype)(1 + i % 3), CLFORGE_F32, 40, 24, CLFORGE_F32, 0,
                         i % 2 ? CLFORGE_CAUSAL_TOP_LEFT : CLFORGE_CAUSAL_BOTTOM_RIGHT};
    attn_case c = attn_on(p, 2, 6, 2, small ? 2 : 5, small ? 9 : 301, 500 + (unsigned)i);
    c.lse = 1;
    run(c, specs[i]);
    if (small) continue;
    c = attn_on(p, 1, 4, 4, 16, 129, 510 + (unsigned)i);
    c.desc.window = 20;
    run(c, specs[i]);
  }
}

/* The explain and workspace queries agree with the partials' size, which
 * never grows with Sq*Sk. */
static void workspace(void) {
  clforge_attention_desc d = attn_desc(1, 32, 8, 1, 8192, 128, 128);
  d.algo = CLFORGE_ATTENTION_ALGO_SPLIT_KV;
  CHECK_OK(ctx, clforge_context_set_params(ctx, "attention_split_kv:SPLITS=16,WG=1"));
  size_t bytes = 0;
  CHECK_OK(ctx, clforge_attention_workspace_size(ctx, &d, &bytes));
  CHECK(bytes == 32 * 16 * 130 * sizeof(float), "workspace %zu bytes, want %zu", bytes,
        (size_t)32 * 16 * 130 * sizeof(float));
  clforge_attention_choice ch;
  CHECK_OK(ctx, clforge_attention_explain(ctx, &d, &ch));
  CHECK(ch.algo == CLFORGE_ATTENTION_ALGO_SPLIT_KV && ch.splits == 16 && ch.nkernels == 2,
        "explain: algo %d splits %d kernels %d", (int)ch.algo, ch.splits, ch.nkernels);
  clforge_context_set_params(ctx, NULL);
  /* automatic: at least one split, at most one per key block */
  d.seq_kv = 20;
  CHECK_OK(ctx, clforge_attention_explain(ctx, &d, &ch));
  CHECK(ch.splits >= 1 && ch.splits <= 2, "automatic splits %d for 2 key blocks", ch.splits);
}

int main(int argc, char **argv) {
  small = argc > 1 && !strcmp(argv[1], "--small");
  ctx = tu_context();
  if (!ctx) return 1;
  if (small) keep_start_sizes(ctx, 64, (size_t)576 << 10); /* Oclgrind: its largest scratch (no conv) */
  workspace();
  shapes();
  heads_and_dims();
  masking();
  storage_and_layout();
  parameters();
  keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
