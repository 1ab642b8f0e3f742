/* clforge_gemm against clforge_ref_gemm over a table of cases: sizes from 1
 * to 1025 (the large ones checked by projection), every layout x transpose,
 * offsets and padded leading dimensions, batches with and without broadcast,
 * every A/B/C dtype combination, every epilogue, alpha/beta including 0, the
 * tiled and direct paths, and sweeps of both families' parameters that hold
 * every value of every parameter. Guard regions around C catch out-of-bounds
 * writes. Cases share programs by sharing keys (gemm_cases.h): each
 * program runs several shapes and layouts. The calls the automatic route
 * sends to the packed family incidentally run on its GPU classes' defaults
 * (packed_params), the plain and one column-bias large case on its CPU
 * default (as test_gemm_packed does).
 * --small: a short run for Oclgrind (tiny tiles so the tiled kernel runs). */
#include "gemm_cases.h"
#include "param_cover.h"

/* The mix keys the sweeps' parameter pairs run, chosen so that the tiled
 * kernel sees every storage type of A and of B untransposed (its vector
 * loads), every C type, transpose case, bias and activation. Of the other
 * 21, those without a GELU run on the direct kernel's defaults (every
 * transpose case on both sides of n = 64, B f16 and bf16 untransposed, both
 * bias sides in each type), those with one on a small direct set: the
 * defaults compile the epilogue MWID x NWID x VW = 128 times over, costly
 * with tanh or erf inside. */
static const int sweep_keys[] = {1, 2, 6, 10, 14, 23, 24};
enum { SWEEP_KEYS = sizeof sweep_keys / sizeof sweep_keys[0] };

static int in_sweep(int i) {
  for (int j = 0; j < SWEEP_KEYS; ++j)
    if (sweep_keys[j] == i) return 1;
  return 0;
}

/* Keys on the direct kernel's defaults (the others not in the sweeps run
 * with small_direct). */
static int on_defaults(const gkey *k, int i) {
  return !in_sweep(i) && k->act != CLFORGE_ACT_GELU_TANH && k->act != CLFORGE_ACT_GELU_ERF;
}
static const char small_direct[] = "gemm_direct:MWID=1,NWID=1,MDIMD=8,NDIMD=8,KUD=1,VW=4";

/* The keys on the direct kernel's defaults in turn for each (transposes,
 * narrow) class. */
typedef struct {
  gkey keys[MIX_KEYS];
  int turn[8];
} rotation;

static const gkey *pick_direct(int ta, int tb, int narrow, void *user) {
  rotation *r = user;
  const int cls = ta + 2 * tb + 4 * narrow;
  for (int tries = 0; tries < MIX_KEYS; ++tries) {
    const int i = r->turn[cls]++ % MIX_KEYS;
    if (on_defaults(&r->keys[i], i) && r->keys[i].ta == ta && r->keys[i].tb == tb && mix_narrow(i) == narrow)
      return &r->keys[i];
  }
  return &r->keys[0]; /* not reached: every class has direct keys */
}

/* One parameter pair of the sweeps, forced for both families, on key k:
 * tiled shapes with edges on both sides (the direct set computes them),
 * an exact multiple of the tile (tiled alone), a batch; and direct alone. */
static void run_sweep_pair(clforge_context ctx, const param_set *t, const param_set *d, const gkey *k, int *failures) {
  char spec[512] = "";
  cover_spec(&clforge__family_gemm, t, spec, sizeof spec);
  cover_spec(&clforge__family_gemm_direct, d, spec, sizeof spec);
  setenv("CLFORGE_PARAMS", spec, 1);
  const size_t mwg = (size_t)t->v[GEMM_MWG], nwg = (size_t)t->v[GEMM_NWG];
  const size_t tiled[4][4] = {/* m, n, k (row-major view), column-major */
                              {2 * mwg + 3, 2 * nwg + 5, 77, 0},
                              {mwg, nwg, 40, 1},
                              {3 * mwg, nwg + 7, 131, 0},
                              {mwg + 1, 3 * nwg, 16, 1}};
  setenv("CLFORGE_GEMM_PATH", "tiled", 1);
  for (int i = 0; i < 4; ++i) {
    gcase c = keyed(k, (int)tiled[i][3], tiled[i][0], tiled[i][1], tiled[i][2]);
    c.beta = i % 2 ? 0.0f : 0.5f, c.pad_b = 1, c.batch = i == 3 ? 2 : 1;
    if (!run_case(ctx, &c)) fprintf(stderr, "  with CLFORGE_PARAMS=%s\n", spec), ++*failures;
  }
  setenv("CLFORGE_GEMM_PATH", "direct", 1);
  gcase c = keyed(k, 0, 45, 53, 29);
  if (!run_case(ctx, &c)) fprintf(stderr, "  with CLFORGE_PARAMS=%s\n", spec), ++*failures;
  c = keyed(k, 1, 7, 200, 64);
  c.beta = 1.0f, c.batch = 3, c.off_c = 1;
  if (!run_case(ctx, &c)) fprintf(stderr, "  with CLFORGE_PARAMS=%s\n", spec), ++*failures;
  unsetenv("CLFORGE_GEMM_PATH");
  unsetenv("CLFORGE_PARAMS");
}

/* Each key's own cases (its dtype mix and epilogue): four shapes on the
 * key's side of n = 64 (row-major view), both layouts, alpha and beta
 * corners, a batch with padded leading dimensions and offsets. */
static void run_key(clforge_context ctx, const gkey *k, int narrow) {
  const size_t wide[4][3] = {{97, 83, 71}, {130, 70, 45}, {45, 129, 33}, {1, 200, 64}};
  const size_t thin[4][3] = {{97, 12, 71}, {130, 50, 45}, {9, 12, 40}, {300, 5, 33}};
  const float ab[4][2] = {{2.0f, 0.5f}, {1.0f, 0.0f}, {-1.0f, 1.0f}, {0.5f, 0.25f}};
  for (int i = 0; i < 4; ++i) {
    const size_t *s = narrow ? thin[i] : wide[i];
    gcase c = keyed(k, i % 2, s[0], s[1], s[2]);
    c.alpha = ab[i][0], c.beta = ab[i][1];
    if (i == 2) c.batch = 2, c.pad_a = 2, c.pad_b = 3, c.pad_c = 1, c.off_a = 4, c.off_b = 2, c.off_c = 5;
    run_case(ctx, &c);
  }
}

/* The packed family's parameters for the cases the automatic route sends
 * to it incidentally (B transposed, >= 128^3: the layouts' 1000 x 33 x 70
 * cases, one large case): the GPU classes' defaults (MR x NR = 4 x 16),
 * cheap to compile, where the CPU default's 12 x 32 block costs 2-6 s per
 * C type and epilogue on PoCL. The CPU default runs the plain and a
 * column-bias large case here and its own test_gemm_packed. The tiled
 * family is named too, with the device's own MWG (no variant changes it),
 * so that the route stays the heuristic's: an override naming one family
 * alone sends the call to that family. cheap = 0: no override. */
static void packed_params(clforge_context ctx, int cheap) {
  char spec[512] = "";
  if (cheap) {
    param_set v, t;
    clforge__family_default(&clforge__family_gemm_packed, CLFORGE_DEVICE_CLASS_GENERIC, 0, v.v);
    cover_spec(&clforge__family_gemm_packed, &v, spec, sizeof spec);
    clforge__family_device_default(&clforge__family_gemm, &ctx->info, 0, t.v);
    snprintf(spec + strlen(spec), sizeof spec - strlen(spec), ";gemm:MWG=%d", t.v[GEMM_MWG]);
  }
  if (clforge_context_set_params(ctx, spec) != CLFORGE_SUCCESS) /* not a check of its own: counts stay comparable */
    CHECK(0, "clforge_context_set_params(\"%s\"): %s", spec, clforge_last_error(ctx));
}

int main(int argc, char **argv) {
  int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  gcase c;

  if (small) { /* Oclgrind: small tiles so both kernels run, every transpose case, dtypes, epilogue */
    setenv("CLFORGE_PARAMS", "gemm:MWG=16,NWG=16,MWI=2,NWI=4,KWG=8,VW=2,KU=2,SA=1,SB=0;gemm_direct:MWID=2,NWID=2,MDIMD=2,NDIMD=4", 1);
    setenv("CLFORGE_GEMM_PATH", "tiled", 1);
    for (int t = 0; t < 4; ++t) {
      c = base(35, 18, 19);
      c.ta = t & 1, c.tb = t >> 1;
      c.layout = t == 3 ? CLFORGE_COL_MAJOR : CLFORGE_ROW_MAJOR;
      c.at = dts[t % 3], c.bt = dts[(t + 1) % 3], c.ct = dts[(t + 2) % 3];
      c.beta = 0.5f, c.bias = (clforge_bias_mode)(t % 3), c.act = (clforge_activation)t;
      c.pad_a = 1, c.off_c = 2, c.batch = 2;
      run_case(ctx, &c);
    }
    setenv("CLFORGE_PARAMS", "gemm:MWG=16,NWG=16,MWI=2,NWI=4,KWG=8,VW=4,KU=1,SA=0,SB=1", 1);
    c = base(33, 17, 9);
    c.beta = 1.0f;
    run_case(ctx, &c);
    unsetenv("CLFORGE_GEMM_PATH");
    unsetenv("CLFORGE_PARAMS");
    c = base(5, 3, 7); /* all direct */
    run_case(ctx, &c);
    clforge_context_destroy(ctx);
    return tu_summary();
  }

  /* Sizes, incl. 1, primes, non-multiples of every tile, both paths: the
   * plain f32 problem (key 0) on the tiled kernel's defaults and the direct
   * kernel's on both sides of n = 64. */
  const size_t sizes[][3] = {{1, 1, 1}, {7, 7, 7}, {33, 33, 33}, {127, 127, 127}, {1, 257, 129}, {130, 1, 65}, {5, 300, 4},
                             {300, 5, 200}, {129, 131, 1}, {200, 190, 180}, {64, 64, 64}, {256, 256, 64}};
  const char *paths[] = {"auto", "tiled", "direct"};
  for (size_t p = 0; p < 3; ++p) {
    setenv("CLFORGE_GEMM_PATH", paths[p], 1);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
      c = base(sizes[i][0], sizes[i][1], sizes[i][2]);
      run_case(ctx, &c);
    }
  }
  unsetenv("CLFORGE_GEMM_PATH");

  /* Every A/B/C dtype combination and every epilogue: the keys not in the
   * sweeps on the direct kernel (the sweeps run the others). */
  rotation rot = {.turn = {0}};
  for (int i = 0; i < MIX_KEYS; ++i) rot.keys[i] = mix_key(i);
  setenv("CLFORGE_GEMM_PATH", "direct", 1);
  for (int i = 0; i < MIX_KEYS; ++i) {
    if (in_sweep(i)) continue;
    if (!on_defaults(&rot.keys[i], i)) setenv("CLFORGE_PARAMS", small_direct, 1);
    run_key(ctx, &rot.keys[i], mix_narrow(i));
    unsetenv("CLFORGE_PARAMS");
  }
  unsetenv("CLFORGE_GEMM_PATH");

  /* Every layout x transpose (on the keys of each class in turn). */
  const size_t layout_shapes[][3] = {{70, 65, 67}, {1000, 33, 70}, {33, 1000, 40}};
  packed_params(ctx, 1);
  run_layouts(ctx, layout_shapes, 3, pick_direct, &rot);
  packed_params(ctx, 0);

  /* A descriptor that leaves alpha out computes the product (alpha = 1),
   * with and without beta. */
  for (int i = 0; i < 2; ++i) {
    c = base(33, 47, 29);
    c.alpha = 1.0f, c.beta = (float)i, c.alpha_left_out = 1;
    run_case(ctx, &c);
  }
  /* keys 5 (a row bias and ReLU), 8 and 9 (a row bias; B transposed, the
   * second narrow) */
  run_alpha_beta_corners(ctx, &rot.keys[0], 66, 129, 31, &rot.keys[5], 66, 129);
  run_batches(ctx, &rot.keys[8], 65, 130, 33, &rot.keys[9]);

  /* Large: checked by projection. */
  c = base(1024, 1024, 1024);
  c.projection = 1;
  run_case(ctx, &c);
  c = base(1025, 1031, 1029);
  c.projection = 1, c.layout = CLFORGE_COL_MAJOR, c.ta = 1, c.tb = 1, c.at = CLFORGE_F16, c.bt = CLFORGE_BF16;
  c.beta = 0.5f, c.bias = CLFORGE_BIAS_ROW, c.pad_c = 3;
  run_case(ctx, &c);
  c = base(1100, 1030, 1024); /* packed (B transposed), on packed_params' */
  c.projection = 1, c.tb = 1, c.ct = CLFORGE_BF16, c.bias = CLFORGE_BIAS_COLUMN, c.bias_t = CLFORGE_F16;
  packed_params(ctx, 1);
  run_case(ctx, &c);
  packed_params(ctx, 0);

  /* Sweeps: fixed-seed samples of each family's allowed combinations that
   * hold every value of every parameter, paired (the direct set computes
   * the tiled set's edges), each pair on a key of its own. */
  param_set ts[16], ds[16];
  size_t nt = cover_sample(&clforge__family_gemm, &ctx->info, 2026, NULL, 0, SWEEP_KEYS, ts, 16);
  size_t nd = cover_sample(&clforge__family_gemm_direct, &ctx->info, 2027, NULL, 0, nt, ds, 16);
  if (nd > nt) nt = cover_sample(&clforge__family_gemm, &ctx->info, 2026, NULL, 0, nd, ts, 16);
  CHECK(cover_complete(&clforge__family_gemm, &ctx->info, ts, nt), "the tiled sample misses values");
  CHECK(cover_complete(&clforge__family_gemm_direct, &ctx->info, ds, nd), "the direct sample misses values");
  int failures = 0;
  const size_t pairs = nt < nd ? nt : nd;
  for (size_t j = 0; j < pairs; ++j) run_sweep_pair(ctx, &ts[j], &ds[j], &rot.keys[sweep_keys[j % SWEEP_KEYS]], &failures);
  printf("sweep: %zu tiled and %zu direct parameter sets (%d cases failed)\n", nt, nd, failures);

  clforge_context_destroy(ctx);
  return tu_summary();
}
