/* The split-KV (flash-decoding) algorithm forced, against the reference
 * through tests/attention_cases.h: decode-sized Sq (1, 2, 4, 16) and a
 * larger one, key lengths off every block (1, 7, 129, 1000, 4097), the
 * split count forced at 1, a few, and more splits than key blocks (empty
 * splits), GQA 4:1 / MQA / Hq = Hkv, head dims 1..256 with D != Dv, the
 * decoder's bottom-right causal mask, windows, key lengths (0 included) and
 * query lengths, full and broadcast masks, soft cap, LSE, f32/f16/bf16 KV
 * with f32 Q, BSHD; then a sample of both families' other parameters.
 * --small: tiny cases only (Oclgrind). */
#include "../src/kernels/attention_split_kv.h"
#include "../src/kernels/families.h"
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

static attn_case make(size_t b, size_t hq, size_t hkv, size_t sq, size_t sk, size_t dk, size_t dv, unsigned seed) {
  attn_case c = {.desc = attn_desc(b, hq, hkv, sq, sk, dk, dv), .seed = seed};
  return c;
}

/* Sq x Sk with several split counts: 1, 3, automatic, and 256 (more
 * splits than key blocks for every Sk here but 4097 with KB=16). */
static void shapes(void) {
  const size_t sqs[] = {1, 2, 4, 16, 40}, sks[] = {1, 7, 129, 1000, 4097};
  const char *splits[] = {"attention_split_kv:SPLITS=1", "attention_split_kv:SPLITS=3", NULL,
                          "attention_split_kv:SPLITS=256"};
  unsigned seed = 1;
  for (size_t a = 0; a < sizeof sqs / sizeof sqs[0]; ++a)
    for (size_t b = 0; b < sizeof sks / sizeof sks[0]; ++b) {
      if (small && (sqs[a] > 4 || sks[b] > 129)) continue;
      if (sqs[a] == 40 && sks[b] > 1000) continue; /* the reference's time */
      for (int s = 0; s < 4; ++s) {
        /* GQA 4:1, the decoder's mask and LSE */
        attn_case c = make(1, 8, 2, sqs[a], sks[b], 64, 64, seed++);
        c.desc.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT, c.lse = 1;
        if (s == 1) c.desc.causal = CLFORGE_CAUSAL_NONE;
        if (s == 3) c.desc.kv_type = CLFORGE_F16;
        run(c, splits[s]);
      }
    }
}

static void heads_and_dims(void) {
  const size_t dims[][2] = {{1, 1}, {8, 8}, {64, 64}, {80, 80}, {128, 128}, {256, 256}, {64, 128}, {128, 80},
                            {1, 256}, {256, 8}, {80, 1}};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; ++i) {
    if (small && i % 3) continue;
    attn_case c = make(1, 4, 1, small ? 2 : 3, small ? 9 : 300, dims[i][0], dims[i][1], 100 + (unsigned)i); /* MQA */
    c.lse = 1, c.desc.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT;
    run(c, i % 2 ? "attention_split_kv:SPLITS=4" : NULL);
    c = make(2, 3, 3, 1, small ? 9 : 257, dims[i][0], dims[i][1], 200 + (unsigned)i); /* Hq = Hkv */
    c.desc.kv_type = (clforge_dtype)(1 + i % 3), c.lse = 1;
    run(c, NULL);
  }
}

static void masking(void) {
  const int32_t kvl[4] = {5, 0, 1000, 37}, ql[4] = {2, 4, 0, 1};
  const size_t sk = small ? 12 : 600;
  /* key lengths (0: zeros, LSE -inf) and query lengths, with a split count
   * that leaves whole splits past kv_len */
  attn_case c = make(4, 4, 2, small ? 2 : 4, sk, 32, 32, 300);
  c.kv_lens = kvl, c.lse = 1, c.desc.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT;
  run(c, "attention_split_kv:SPLITS=8");
  c.q_lens = ql;
  run(c, NULL);
  c.desc.causal = CLFORGE_CAUSAL_NONE;
  run(c, "attention_split_kv:SPLITS=2");
  /* windows, both alignments: most splits see nothing */
  for (int a = 1; a <= 2; ++a)
    for (size_t w = 1; w <= 70; w += 69) {
      c = make(1, 4, 2, small ? 3 : 16, small ? 20 : 1000, 16, 16, 310 + (unsigned)w);
      c.desc.causal = (clforge_causal)a, c.desc.window = w, c.lse = 1;
      run(c, "attention_split_kv:SPLITS=12");
    }
  /* masks: full, broadcast, whole -inf rows, in each storage type */
  const attn_mask masks[] = {ATTN_MASK_FULL, ATTN_MASK_BROADCAST, ATTN_MASK_INF_ROWS};
  for (int mi = 0; mi < 3; ++mi)
    for (int mt = 1; mt <= 3; ++mt) {
      if (small && mt > 1) continue;
      c = make(2, 4, 1, small ? 4 : 7, small ? 9 : 333, 16, 16, 320 + (unsigned)(mi * 3 + mt));
      c.mask = masks[mi], c.desc.mask_type = (clforge_dtype)mt, c.lse = 1;
      run(c, mi == 1 ? "attention_split_kv:SPLITS=6" : NULL);
    }
  /* soft cap with large logits, with and without a mask */
  c = make(1, 8, 2, small ? 2 : 4, small ? 10 : 500, 32, 32, 340);
  c.desc.softcap = 30.0f, c.q_scale = 40.0f, c.lse = 1;
  run(c, NULL);
  c.mask = ATTN_MASK_FULL, c.desc.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT;
  run(c, "attention_split_kv:SPLITS=3");
}

static void storage_and_layout(void) {
  for (int kt = 1; kt <= 3; ++kt)
    for (int ot = 1; ot <= 3; ++ot) {
      if (small && ot > 1) continue;
      attn_case c = make(2, 8, 2, 1, small ? 11 : 777, 128, 128, 400 + (unsigned)(kt * 3 + ot));
      c.desc.kv_type = (clforge_dtype)kt, c.desc.o_type = (clforge_dtype)ot, c.lse = 1;
      run(c, NULL);
    }
  attn_case c = make(2, 4, 2, small ? 2 : 5, small ? 9 : 200, 40, 24, 410);
  c.layout = ATTN_BSHD, c.desc.kv_type = CLFORGE_F16, c.lse = 1, c.desc.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT;
  run(c, NULL);
  /* f16 storage everywhere with |s| ~ 1e4 stays finite */
  c = make(1, 2, 2, 2, small ? 9 : 300, 64, 64, 420);
  c.desc.q_type = c.desc.kv_type = c.desc.o_type = CLFORGE_F16, c.q_scale = 100.0f, c.desc.scale = 1.0f, c.lse = 1;
  run(c, NULL);
}

/* Other parameter values of both families: every key block, row tile and
 * vector width (D tails: 80 and 24 are no multiple of 16 or 32), work-groups
 * of several chunks, combine shapes. */
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
    attn_case c = make(2, 6, 2, small ? 2 : 5, small ? 9 : 301, 80, 24, 500 + (unsigned)i);
    c.desc.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT, c.lse = 1, c.mask = ATTN_MASK_FULL;
    c.desc.kv_type = (clforge_dtype)(1 + i % 3);
    run(c, specs[i]);
    if (small) continue;
    c = make(1, 4, 4, 16, 129, 8, 8, 510 + (unsigned)i);
    c.desc.causal = CLFORGE_CAUSAL_TOP_LEFT, c.desc.window = 20;
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
  if (small) keep_start(ctx);
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
