/* clforge_gemm against clforge_ref_gemm over a table of cases: sizes from 1
 * to 1025 (the large ones checked by projection), every layout x transpose,
 * offsets and padded leading dimensions, batches with and without broadcast,
 * every A/B/C dtype combination, every epilogue, alpha/beta including 0, the
 * tiled and direct paths, and sampled sweeps of both families' parameters.
 * Guard regions around C catch out-of-bounds writes.
 * --small: a short run for Oclgrind (tiny tiles so the tiled kernel runs). */
#include "gemm_cases.h"

/* Parameter sweeps: a deterministic sample of every family's allowed combinations. */
typedef struct {
  clforge_context ctx;
  const char *family;
  size_t index, every, failures;
  gcase c;
} sweep;

static int count_visit(const int *v, void *user) {
  (void)v, (void)user;
  return 0;
}

static int sweep_visit(const int *v, void *user) {
  sweep *s = user;
  if (s->index++ % s->every) return 0;
  const clforge__family *f = !strcmp(s->family, "gemm") ? &clforge__family_gemm : &clforge__family_gemm_direct;
  char env[512];
  size_t used = (size_t)snprintf(env, sizeof env, "%s:", f->name);
  for (int p = 0; p < f->nparams; ++p) used += (size_t)snprintf(env + used, sizeof env - used, "%s%s=%d", p ? "," : "", f->params[p].name, v[p]);
  setenv("CLFORGE_PARAMS", env, 1);
  /* shape rotates through the transpose cases and dtypes */
  gcase c = s->c;
  c.ta = (int)(s->index & 1), c.tb = (int)((s->index >> 1) & 1);
  c.at = c.bt = dts[s->index % 3];
  c.ct = dts[(s->index / 3) % 3];
  if (!run_case(s->ctx, &c)) {
    fprintf(stderr, "  with CLFORGE_PARAMS=%s\n", env);
    s->failures++;
  }
  unsetenv("CLFORGE_PARAMS");
  return 0;
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

  /* Sizes, incl. 1, primes, non-multiples of every tile, both paths. */
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

  const size_t layout_shapes[][3] = {{70, 65, 67}, {1000, 33, 70}, {33, 1000, 40}};
  run_layouts(ctx, layout_shapes, 3);

  /* Every A/B/C dtype combination, both paths. */
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int o = 0; o < 3; ++o) {
        c = base(97, 83, 71);
        c.at = dts[a], c.bt = dts[b], c.ct = dts[o], c.beta = 0.5f;
        run_case(ctx, &c);
        c = base(12, 9, 40);
        c.at = dts[a], c.bt = dts[b], c.ct = dts[o], c.tb = 1, c.layout = CLFORGE_COL_MAJOR;
        run_case(ctx, &c);
      }

  /* Every epilogue: bias none/row/column in each dtype, each activation, both layouts. */
  for (int bm = 0; bm < 3; ++bm)
    for (int bt = 0; bt < 3; ++bt)
      for (int act = 0; act < 4; ++act) {
        if (bm == 0 && bt > 0) continue;
        c = base(130, 70, 45);
        c.bias = (clforge_bias_mode)bm, c.bias_t = dts[bt], c.act = (clforge_activation)act;
        c.layout = (bt + act) % 2 ? CLFORGE_COL_MAJOR : CLFORGE_ROW_MAJOR;
        c.beta = act == 1 ? 1.0f : 0.0f;
        c.alpha = 2.0f;
        run_case(ctx, &c);
      }

  /* A descriptor that leaves alpha out computes the product (alpha = 1),
   * with and without beta. */
  for (int i = 0; i < 2; ++i) {
    c = base(33, 47, 29);
    c.alpha = 1.0f, c.beta = (float)i, c.alpha_left_out = 1;
    run_case(ctx, &c);
  }
  run_alpha_beta_corners(ctx, 66, 129, 31, 66, 129);
  run_batches(ctx, 65, 130, 33, CLFORGE_F32); /* both paths */

  /* Large: checked by projection. */
  c = base(1024, 1024, 1024);
  c.projection = 1;
  run_case(ctx, &c);
  c = base(1025, 1031, 1029);
  c.projection = 1, c.layout = CLFORGE_COL_MAJOR, c.ta = 1, c.tb = 1, c.at = CLFORGE_F16, c.bt = CLFORGE_BF16;
  c.beta = 0.5f, c.bias = CLFORGE_BIAS_ROW, c.pad_c = 3;
  run_case(ctx, &c);
  c = base(1100, 1030, 1024);
  c.projection = 1, c.tb = 1, c.ct = CLFORGE_BF16, c.bias = CLFORGE_BIAS_COLUMN, c.bias_t = CLFORGE_F16;
  run_case(ctx, &c);

  /* Sweeps: an evenly spread sample of each family's allowed combinations
   * (each one is a program build, about a second on PoCL). */
  sweep s = {ctx, "gemm", 0, 1, 0, base(131, 135, 77)};
  s.c.beta = 0.5f, s.c.bias = CLFORGE_BIAS_COLUMN, s.c.pad_b = 1;
  size_t n_tiled = clforge__family_enumerate(&clforge__family_gemm, &ctx->info, count_visit, NULL);
  s.every = n_tiled / 24 + 1;
  setenv("CLFORGE_GEMM_PATH", "tiled", 1);
  clforge__family_enumerate(&clforge__family_gemm, &ctx->info, sweep_visit, &s);
  sweep sd = {ctx, "gemm_direct", 0, 1, 0, base(45, 53, 29)};
  sd.c.act = CLFORGE_ACT_GELU_TANH;
  size_t n_direct = clforge__family_enumerate(&clforge__family_gemm_direct, &ctx->info, count_visit, NULL);
  sd.every = n_direct / 12 + 1;
  setenv("CLFORGE_GEMM_PATH", "direct", 1);
  clforge__family_enumerate(&clforge__family_gemm_direct, &ctx->info, sweep_visit, &sd);
  unsetenv("CLFORGE_GEMM_PATH");
  size_t tried_tiled = (s.index + s.every - 1) / s.every, tried_direct = (sd.index + sd.every - 1) / sd.every;
  printf("sweep: tiled %zu of %zu combinations (%zu failed), direct %zu of %zu (%zu failed)\n", tried_tiled, n_tiled,
         s.failures, tried_direct, n_direct, sd.failures);
  CHECK(tried_tiled >= 20 && tried_direct >= 10, "only %zu tiled and %zu direct combinations tried", tried_tiled,
        tried_direct);

  clforge_context_destroy(ctx);
  return tu_summary();
}
