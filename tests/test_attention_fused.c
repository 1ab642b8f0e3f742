/* The fused attention algorithm (desc.algo forced) against the reference
 * through clforge_attention: sizes off every tile (1, 7, 129, 1000), Sq !=
 * Sk both ways, D and Dv from 1 to 256 (D != Dv), GQA and MQA, both causal
 * alignments, windows, key lengths (0 included) and query lengths, masks
 * (full, broadcast, whole -inf rows; each storage type), soft cap, BSHD and
 * packed QKV, dtype mixes, LSE, large logits; K and V with d strides
 * other than 1 (rows not loaded as vectors). The full list runs with the
 * device's default parameters, a structural list under parameter sets that
 * change the kernel's code paths (clforge_context_set_params): scalar and
 * vector lanes, one and several query vectors, work-groups of one and many
 * items, private and local staging (more rows than items and fewer), key
 * blocks of 1..32, Dv chunks and D unrolls that do and do not divide the
 * head dims; with the defaults, every value of every parameter. Each list
 * sits on few programs (what a case compiles in: tests/attention_cases.h).
 * --small: tiny cases only (Oclgrind). */
#include "../src/families/families.h"
#include "attention_cases.h"

/* VW QW WGQ TK DCH KU STAGE. With the CPU defaults that the full list runs
 * (VW=16 QW=2 WGQ=1 TK=8 DCH=4 KU=2 STAGE=0; QW=4 TK=4 KU=4 for 16-bit
 * storage) each of these values runs at least once: VW 1 4 8 16, QW 1 2 4,
 * WGQ 1 2 4 64, TK 1 4 8 16 32, DCH 1 4 8 16, KU 1 2 4 8, STAGE 0 1. Each
 * set is a few builds (build_structural), so the sets are few. */
static const char *const param_sets[] = {
    "attention_fused:VW=8,QW=1,WGQ=2,TK=32,DCH=8,KU=4,STAGE=0",  /* the largest key block; several items, no barriers */
    "attention_fused:VW=1,QW=1,WGQ=1,TK=1,DCH=1,KU=1,STAGE=0",   /* scalar everything */
    "attention_fused:VW=4,QW=2,WGQ=4,TK=8,DCH=16,KU=8,STAGE=1",  /* local staging, 2 rows per item */
    "attention_fused:VW=1,QW=1,WGQ=64,TK=16,DCH=4,KU=4,STAGE=1", /* GPU default: more items than rows */
};
enum { NSETS = sizeof param_sets / sizeof param_sets[0] };

static attn_case full[160], structural[32];
static int nfull, nstruct;
static unsigned next_seed = 11;

static attn_case base(size_t b, size_t hq, size_t hkv, size_t sq, size_t sk, size_t dk, size_t dv) {
  attn_case c = {.desc = attn_desc(b, hq, hkv, sq, sk, dk, dv), .seed = next_seed};
  next_seed += 31;
  c.desc.algo = CLFORGE_ATTENTION_ALGO_FUSED;
  return c;
}

static void add(attn_case *list, int *n, int cap, attn_case c) {
  if (*n < cap) list[(*n)++] = c;
  else CHECK(0, "case list full (%d)", cap);
}
#define ADD_FULL(c) add(full, &nfull, (int)(sizeof full / sizeof full[0]), c)
#define ADD_STRUCT(c) add(structural, &nstruct, (int)(sizeof structural / sizeof structural[0]), c)

/* Lengths outlive the cases (the harness reads them at run time). */
static const int32_t kv_lens4[4] = {5, 0, 1000, 3}, q_lens4[4] = {2, 7, 0, 1};
static const int32_t kv_lens2[2] = {100, 0}, q_lens2[2] = {129, 60};

/* A case on program p (fused forced). */
static attn_case on(attn_prog p, size_t b, size_t hq, size_t hkv, size_t sq, size_t sk) {
  attn_case c = attn_on(p, b, hq, hkv, sq, sk, next_seed);
  next_seed += 31;
  c.desc.algo = CLFORGE_ATTENTION_ALGO_FUSED;
  return c;
}

/* The full list (the defaults) on few programs (tests/attention_cases.h):
 * f32 with D = Dv = 16 for the feature cases (tests/test_attention.c's too),
 * f32 for each head-dim pair, soft cap, and 16-bit storage (the half
 * variant's defaults) carrying the mask types. */
static void build_full(int small) {
  attn_case c;
  const clforge_causal none = CLFORGE_CAUSAL_NONE, tl = CLFORGE_CAUSAL_TOP_LEFT, br = CLFORGE_CAUSAL_BOTTOM_RIGHT;
  const attn_shared_prog f32_progs[3] = {ATTN_P_F32, ATTN_P_F32_TL, ATTN_P_F32_BR};
  /* sizes, each with every causal alignment: D = 16, and every other size
   * on a head-dim pair's program of that alignment (D = 40, 8 and 80;
   * --small: 16) */
  const size_t sizes[][2] = {{1, 1},     {7, 7},     {1, 129},     {7, 129},   {129, 7},
                             {129, 129}, {16, 1000}, {1000, 1000}, {1000, 37}, {37, 1000}};
  const int odd_dims[3] = {2, 1, 4}; /* attn_dims: (40, 40) none, (8, 8) top-left, (80, 80) bottom-right */
  const clforge_causal order[3] = {none, br, tl};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    if (small && sizes[i][0] * sizes[i][1] > 64) continue;
    const size_t h = sizes[i][0] * sizes[i][1] >= 1000000 ? 1 : 2;
    for (int a = 0; a < 3; ++a) {
      const attn_prog p = i % 2 && !small ? attn_dims_f32(odd_dims[order[a]]) : attn_shared(f32_progs[order[a]]);
      c = on(p, 1, h, h, sizes[i][0], sizes[i][1]);
      c.lse = a > 0;
      ADD_FULL(c);
    }
  }
  /* head dims, each pair with its program's causal alignment; Sq > Sk too
   * where that is causal */
  for (int i = 0; i < ATTN_NDIMS; ++i) {
    if (small && attn_dims(i)->d + attn_dims(i)->dv > 80) continue;
    c = on(attn_dims_f32(i), 1, 1, 1, small ? 3 : 33, small ? 5 : 70);
    c.lse = 1;
    ADD_FULL(c);
    if (c.desc.causal == none) continue;
    c.desc.seq_q = small ? 5 : 70, c.desc.seq_kv = small ? 3 : 33;
    ADD_FULL(c);
  }
  /* GQA 4:1 and MQA, batch > 1 */
  c = on(attn_shared(ATTN_P_F32_BR), 2, 8, 2, small ? 3 : 20, small ? 6 : 45);
  c.lse = 1;
  ADD_FULL(c);
  c = on(attn_shared(ATTN_P_F32), 2, 4, 1, small ? 2 : 17, small ? 7 : 31);
  ADD_FULL(c);
  c = on(attn_shared(ATTN_P_F32_TL), 2, 4, 1, small ? 2 : 17, small ? 7 : 31);
  ADD_FULL(c);
  /* windows, both alignments, Sq < Sk and Sq > Sk */
  for (int a = 1; a <= 2; ++a)
    for (size_t w = 1; w <= 17; w += 8) {
      c = on(attn_shared(f32_progs[a]), 1, 2, 1, small ? 5 : 40, small ? 9 : 60);
      c.desc.window = w, c.lse = 1;
      ADD_FULL(c);
      if (small) continue;
      c.desc.seq_q = 60, c.desc.seq_kv = 40;
      ADD_FULL(c);
    }
  /* key and query lengths (0: every row fully masked -> zeros, LSE -inf) */
  c = on(attn_shared(ATTN_P_F32), 4, 2, 2, small ? 3 : 12, small ? 6 : 40);
  c.kv_lens = kv_lens4, c.lse = 1;
  ADD_FULL(c);
  c.q_lens = q_lens4;
  ADD_FULL(c);
  c.desc.causal = br;
  ADD_FULL(c);
  c.desc.causal = tl, c.desc.window = 3;
  ADD_FULL(c);
  if (!small) {
    c = on(attn_dims_f32(odd_dims[br]), 2, 2, 1, 129, 129);
    c.kv_lens = kv_lens2, c.q_lens = q_lens2, c.lse = 1;
    ADD_FULL(c);
  }
  /* masks: full, broadcast, whole -inf rows, in each type (on the 16-bit
   * programs, ATTN_P_HALF_*: f16's bottom-right causal) */
  const attn_mask masks[] = {ATTN_MASK_FULL, ATTN_MASK_BROADCAST, ATTN_MASK_INF_ROWS};
  const attn_shared_prog mask_progs[] = {ATTN_P_HALF_BF16_Q, ATTN_P_HALF_F16, ATTN_P_HALF_BF16_KV};
  for (int mi = 0; mi < 3; ++mi)
    for (int mt = 1; mt <= 3; ++mt) {
      if (small && mt > 1) continue;
      c = on(attn_shared(mask_progs[mt - 1]), 2, 2, 1, small ? 4 : 19, small ? 5 : 37);
      c.mask = masks[mi], c.lse = 1;
      ADD_FULL(c);
    }
  /* soft cap with large logits (alone; with a mask and causal) */
  c = on(attn_shared(ATTN_P_SOFTCAP), 1, 2, 2, small ? 3 : 25, small ? 4 : 50);
  c.q_scale = 40.0f, c.lse = 1;
  ADD_FULL(c);
  c = on(attn_shared(ATTN_P_SOFTCAP_MASK), 1, 2, 2, small ? 3 : 25, small ? 4 : 50);
  c.q_scale = 40.0f, c.lse = 1;
  ADD_FULL(c);
  /* layouts (BSHD with D != Dv: the pair 128, 40) */
  c = on(attn_shared(ATTN_P_F32), 2, 3, 3, small ? 4 : 21, small ? 4 : 21);
  c.layout = ATTN_BSHD, c.lse = 1;
  ADD_FULL(c);
  c = on(attn_shared(ATTN_P_F32_TL), 2, 3, 3, small ? 4 : 21, small ? 4 : 21);
  c.layout = ATTN_PACKED_QKV, c.lse = 1;
  ADD_FULL(c);
  c = on(attn_dims_f32(9), 2, 4, 2, small ? 3 : 9, small ? 5 : 30);
  c.layout = ATTN_BSHD;
  ADD_FULL(c);
  /* dtype mixes of Q, KV, O, each type once in each place (the 27 mixes,
   * fused forced, are tests/test_attention.c's): the 16-bit programs, D = 48
   * (vector and scalar staging of 16-bit rows); large logits (|s| ~ 1e4)
   * with f16 storage */
  for (int mt = 0; mt < 3; ++mt) {
    c = on(attn_shared(mask_progs[mt]), 1, 2, 1, small ? 3 : 13, small ? 5 : 29);
    c.lse = 1;
    ADD_FULL(c);
  }
  c = on(attn_shared(ATTN_P_HALF_F16), 1, 2, 2, small ? 3 : 30, small ? 5 : 60);
  c.q_scale = 100.0f, c.desc.scale = 1.0f, c.lse = 1;
  ADD_FULL(c);
}

/* What every parameter set runs: the paths a set changes (tile tails,
 * boundary blocks of both alignments and windows, the skipped rows of
 * lengths, masks, soft cap, 16-bit staging, D and Dv off every chunk).
 * Three builds per set, one per causal alignment: f32 (read in place
 * without staging) with D off every unroll and Dv off every chunk; 16-bit
 * rows with a mask and soft cap; f32 with the largest K row (staged in
 * local memory with STAGE=1) and Dv below every chunk. */
static void build_structural(int small) {
  const clforge_dtype f32 = CLFORGE_F32, f16 = CLFORGE_F16, bf16 = CLFORGE_BF16;
  const attn_prog tails = {f32, f32, f32, 41, 20, 0, 0, CLFORGE_CAUSAL_TOP_LEFT};
  const attn_prog half = {bf16, f16, bf16, 32, 20, bf16, 1, CLFORGE_CAUSAL_BOTTOM_RIGHT};
  const attn_prog wide = {f32, f32, f32, 256, 8, 0, 0, CLFORGE_CAUSAL_NONE};
  attn_case c;
  c = on(tails, 1, 2, 2, small ? 7 : 129, small ? 7 : 129);
  c.lse = 1;
  ADD_STRUCT(c);
  if (!small) {
    c.desc.heads_q = c.desc.heads_kv = 1, c.desc.seq_q = c.desc.seq_kv = 1000;
    ADD_STRUCT(c);
  }
  c = on(tails, 2, 4, 2, small ? 9 : 70, small ? 4 : 33); /* Sq > Sk */
  c.lse = 1;
  ADD_STRUCT(c);
  /* lengths, windows, masks of -inf rows, soft cap with large logits
   * (rescales), BSHD */
  c = on(half, 4, 2, 2, small ? 3 : 12, small ? 6 : 40);
  c.kv_lens = kv_lens4, c.q_lens = q_lens4, c.lse = 1;
  ADD_STRUCT(c);
  c = on(half, 2, 2, 1, small ? 9 : 129, small ? 4 : 37);
  c.kv_lens = kv_lens2, c.q_lens = q_lens2, c.lse = 1, c.desc.window = 5;
  ADD_STRUCT(c);
  c = on(half, 2, 2, 1, small ? 4 : 19, small ? 5 : 37);
  c.mask = ATTN_MASK_INF_ROWS, c.q_scale = 40.0f, c.lse = 1, c.layout = ATTN_BSHD;
  ADD_STRUCT(c);
  c = on(wide, 1, 1, 1, small ? 2 : 33, small ? 3 : 70);
  ADD_STRUCT(c);
  c = on(wide, 1, 1, 1, small ? 3 : 17, small ? 2 : 45);
  c.lse = 1;
  ADD_STRUCT(c);
  c = on(wide, 4, 2, 2, small ? 3 : 12, small ? 6 : 40);
  c.kv_lens = kv_lens4, c.lse = 1;
  ADD_STRUCT(c);
}

/* K and V with a d stride of 2 (their elements interleaved in one buffer),
 * Q and O with d strides of 3: the kernel loads rows element by element.
 * Checked against clforge_ref_attention on the same host arrays. */
static void strided_d(clforge_context ctx, clforge_dtype kvt, size_t sq, size_t sk) {
  const size_t dk = 24, dv = 20, h = 2;
  clforge_attention_desc d = attn_desc(1, h, h, sq, sk, dk, dv);
  d.algo = CLFORGE_ATTENTION_ALGO_FUSED, d.kv_type = kvt, d.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT;
  const size_t qs[4] = {0, sq * dk * 3, dk * 3, 3}, os[4] = {0, sq * dv * 3, dv * 3, 3};
  const size_t ks[4] = {0, sk * 64, 64, 2}, vs[4] = {0, sk * 64, 64, 2}; /* K at even, V at odd elements */
  memcpy(d.q_strides, qs, sizeof qs), memcpy(d.o_strides, os, sizeof os);
  memcpy(d.k_strides, ks, sizeof ks), memcpy(d.v_strides, vs, sizeof vs);
  d.k_offset = 0, d.v_offset = 1;
  const size_t qn = h * sq * dk * 3, kvn = h * sk * 64, on = h * sq * dv * 3;
  const size_t ke = clforge_dtype_size(kvt);
  float *hq = malloc(qn * sizeof *hq), *ho = malloc(on * sizeof *ho), *wo = malloc(on * sizeof *wo);
  void *hkv = malloc(kvn * ke);
  unsigned seed = 99;
  attn_fill(hq, CLFORGE_F32, qn, 1.0f, &seed);
  attn_fill(hkv, kvt, kvn, 1.0f, &seed);
  attn_fill(ho, CLFORGE_F32, on, 9.0f, &seed);
  memcpy(wo, ho, on * sizeof *wo);
  cl_mem q = tu_buffer(ctx, qn * sizeof *hq), kv = tu_buffer(ctx, kvn * ke), o = tu_buffer(ctx, on * sizeof *ho);
  tu_write(ctx, q, 0, qn * sizeof *hq, hq);
  tu_write(ctx, kv, 0, kvn * ke, hkv);
  tu_write(ctx, o, 0, on * sizeof *ho, ho);
  CHECK_OK(ctx, clforge_attention(ctx, &d, q, kv, kv, o, NULL, 0, NULL, NULL));
  tu_read(ctx, o, 0, on * sizeof *ho, ho);
  CHECK_OK(NULL, clforge_ref_attention(&d, hq, hkv, hkv, NULL, NULL, NULL, wo, NULL));
  /* the written elements against the reference; the gaps keep their bits */
  float *g = malloc(on * sizeof *g), *w = malloc(on * sizeof *w);
  size_t n = 0;
  int gaps_ok = 1;
  for (size_t i = 0; i < on; ++i) {
    if (i % 3 == 0) g[n] = ho[i], w[n] = wo[i], ++n;
    else gaps_ok &= !memcmp(&ho[i], &wo[i], sizeof ho[i]);
  }
  clforge__error_stats es;
  clforge__compare_f32(n, g, w, &es);
  const clforge__tolerance tol = clforge__tolerance_for(CLFORGE_F32); /* O is f32; the reference reads the same KV */
  CHECK(clforge__within_tolerance(&es, tol), "d strides 3/2, kv %s: nrmse %.3g max_abs %.3g", clforge_dtype_name(kvt),
        es.nrmse, es.max_abs);
  CHECK(gaps_ok, "d strides 3/2: O's gaps changed");
  if (clforge__within_tolerance(&es, tol)) ++tu_passed;
  keep_release(q), keep_release(kv), keep_release(o);
  free(hq), free(ho), free(wo), free(hkv), free(g), free(w);
}

static void run_list(clforge_context ctx, const attn_case *list, int n, const char *params) {
  if (clforge_context_set_params(ctx, params) != CLFORGE_SUCCESS) { /* checked in main */
    printf("skipped on this device: %s\n", params ? params : "default");
    return;
  }
  for (int i = 0; i < n; ++i) {
    const attn_outcome out = attn_run_case(ctx, &list[i]);
    CHECK(out == ATTN_RAN, "[%s] case %d did not run", params ? params : "default", i);
  }
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  if (!ctx) return 1;
  if (small) keep_start_sizes(ctx, 64, (size_t)256 << 10); /* Oclgrind: small buffers, quick checks (no conv) */
  build_full(small);
  build_structural(small);

  /* Every set is a valid point of the family's space on a device with
   * work-groups of 64 and 32 KiB of local memory (PoCL, Oclgrind, GPUs);
   * elsewhere the sets that do not fit are skipped. */
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  const int roomy = dev.max_work_group_size >= 64 && dev.local_mem_bytes >= 32768;
  for (int s = 0; s < NSETS; ++s) {
    int v[CLFORGE_MAX_PARAMS];
    clforge__family_default(&clforge__family_attention_fused, dev.device_class, 0, v);
    char why[256] = "";
    const int ok = clforge__family_parse_params(&clforge__family_attention_fused, param_sets[s], v, why, sizeof why) == 1 &&
                   clforge__family_check(&clforge__family_attention_fused, v, &dev, why, sizeof why);
    CHECK(ok || !roomy, "%s: not allowed: %s", param_sets[s], why);
  }

  run_list(ctx, full, nfull, NULL); /* the device's defaults */
  for (int s = 0; s < NSETS; ++s)
    run_list(ctx, structural, nstruct, param_sets[s]);
  for (int s = 0; s < NSETS; s += small ? 3 : 1) {
    if (clforge_context_set_params(ctx, param_sets[s]) != CLFORGE_SUCCESS) continue; /* skipped above */
    strided_d(ctx, s % 2 ? CLFORGE_F16 : CLFORGE_F32, small ? 5 : 37, small ? 6 : 53);
    if (!small) strided_d(ctx, s % 2 ? CLFORGE_F16 : CLFORGE_F32, 9, 70);
  }

  /* A value set outside the family's constraints is refused, O untouched. */
  {
    CHECK_OK(ctx, clforge_context_set_params(ctx, "attention_fused:TK=32,QW=4"));
    attn_case c = base(1, 1, 1, 3, 3, 8, 8);
    c.desc.algo = CLFORGE_ATTENTION_ALGO_FUSED;
    clforge__attn d;
    CHECK_OK(NULL, clforge__attn_resolve(NULL, &c.desc, NULL, &d));
    cl_mem q = tu_buffer(ctx, 64 * sizeof(float)), o = tu_buffer(ctx, 64 * sizeof(float));
    const float before[64] = {1, 2, 3};
    float after[64];
    tu_write(ctx, o, 0, sizeof before, before);
    CHECK_FAILS(ctx, clforge_attention(ctx, &c.desc, q, q, q, o, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "TK*QW");
    tu_read(ctx, o, 0, sizeof after, after);
    CHECK(!memcmp(before, after, sizeof after), "refused parameters: O changed");
    keep_release(q), keep_release(o);
    CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
  }
  printf("%d cases with the defaults, %d under each of %d parameter sets\n", nfull, nstruct, NSETS);
  keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
