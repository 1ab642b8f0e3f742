/* The packed GEMM path (CLFORGE_GEMM_PATH=packed) against clforge_ref_gemm:
 * small forced blocks (MC, NC, KC) so that modest sizes span several blocks
 * in every dimension; every layout x transpose with padded leading
 * dimensions and offsets, batches (with broadcast operands), every A/B/C
 * dtype combination, every epilogue, alpha/beta corners and k = 0; the
 * workspace bound forcing the call into passes (batch items, then column
 * and row blocks) and, when not even one block fits, onto the other paths; a
 * sample of every parameter combination the descriptor allows; and the
 * automatic choice as clforge_gemm_explain reports it; two calls sharing the
 * workspace on an out-of-order queue.
 * Guard regions around C catch out-of-bounds writes. The pack kernel is built
 * per panel width, storage type and orientation, the micro-kernel per
 * parameter set, C type and epilogue (src/ops/gemm_packed.c): the keys below
 * give the 27 dtype mixes 3 micro-kernels.
 * --small: a short run for Oclgrind. */
#include "gemm_cases.h"
#include "param_cover.h"

/* Blocks much smaller than the problems below: MC = 16 rows, NC = 32
 * columns, KC = 32 (and MR, NR that leave edges). */
#define SMALL_BLOCKS "gemm_packed:MR=4,NR=16,VW=8,MC=16,NC=32,KC=32,KU=2"

/* The 7 epilogues: none; a row bias in each type, then a column bias in
 * each type, with the activations in turn (each one at least once). */
static void packed_epilogue(int e, gkey *k) {
  k->bias = e ? (clforge_bias_mode)(1 + (e - 1) / 3) : CLFORGE_BIAS_NONE;
  k->bias_t = e ? dts[(e - 1) % 3] : CLFORGE_F32;
  k->act = (clforge_activation)(e % 4);
}

/* Dtype mix m (A, B, C = m / 9, m / 3 % 3, m % 3) as a key: transposed
 * operands in half of the mixes, and one epilogue per C type (f32: none,
 * f16: 3, bf16: 6), so that the 27 mixes build 3 micro-kernels; every
 * epilogue runs with the sweep's parameter sets. */
static gkey packed_key(int m) {
  static const int epilogue[3] = {0, 3, 6};
  const int a = m / 9, b = (m / 3) % 3, o = m % 3;
  gkey k = {dts[a], dts[b], dts[o], (a + o) % 2, (b + o) % 2, CLFORGE_BIAS_NONE, CLFORGE_F32, CLFORGE_ACT_NONE};
  packed_epilogue(epilogue[o], &k);
  return k;
}

/* The plain f32 problem with each transpose case (layouts). */
static const gkey *pick_plain(int ta, int tb, int narrow, void *user) {
  gkey *k = user;
  (void)narrow; /* the packed family has one default for both sides */
  *k = (gkey){CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, ta, tb, CLFORGE_BIAS_NONE, CLFORGE_F32, CLFORGE_ACT_NONE};
  return k;
}

/* The family of the first kernel a call of m x n x k (f32) runs. */
static char route[48]; /* of the last family_of: why that family runs */

static int family_trans_b; /* family_of's calls: B transposed */

static const char *family_of(clforge_context ctx, size_t m, size_t n, size_t k, clforge_params_source *src) {
  static clforge_kernel_choice ch[2];
  int count = 0;
  clforge_gemm_desc d = {.m = m, .n = n, .k = k, .alpha = 1.0f};
  if (family_trans_b) d.trans_b = CLFORGE_TRANS;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, ch, 2, &count));
  if (src) *src = ch[0].source;
  snprintf(route, sizeof route, "%s", count > 0 ? ch[0].route : "");
  CHECK(count < 2 || !strcmp(ch[0].route, ch[1].route), "choices of one call give two routes: %s, %s", ch[0].route,
        ch[1].route);
  return count > 0 ? ch[0].family : "";
}

#define CHECK_ROUTE(prefix) CHECK(!strncmp(route, prefix, strlen(prefix)), "route \"%s\", wanted \"%s...\"", route, prefix)

/* A tuning file with one f32 nn "large" entry for the tiled family and one
 * for the packed family (their built-in CPU values) measured at the given
 * speeds (0: no entry); which family does 1024^3 run? */
static const char *tuned_choice(const clforge_device_info *dev, double tiled_gflops, double packed_gflops) {
  static char family[32];
  const char *path = "test_gemm_packed_tuning.json";
  char e[2][1024];
  const char *fam[2] = {"gemm", "gemm_packed"};
  const clforge__family *f[2] = {&clforge__family_gemm, &clforge__family_gemm_packed};
  const double gf[2] = {tiled_gflops, packed_gflops};
  int used = 0;
  for (int i = 0; i < 2; ++i) {
    if (gf[i] <= 0) continue;
    char params[256] = "";
    size_t len = 0;
    for (int p = 0; p < f[i]->nparams; ++p)
      len += (size_t)snprintf(params + len, sizeof params - len, "%s\"%s\":%d", p ? "," : "", f[i]->params[p].name,
                              f[i]->defaults[CLFORGE_DEVICE_CLASS_CPU][p]);
    snprintf(e[used++], sizeof e[0],
             "{\"device\":{\"vendor\":\"%s\",\"name\":\"%s\",\"driver\":\"%s\",\"compute_units\":%u},"
             "\"family\":\"%s\",\"dtypes\":\"f32,f32,f32\",\"layout\":\"nn\",\"shape_class\":\"large\","
             "\"shape\":[1024,1024,1024],\"provider\":\"clforge\",\"params\":{%s},\"median_ms\":5,\"gflops\":%g,"
             "\"date\":\"2026-12-01T00:00:00Z\"}",
             dev->vendor, dev->name, dev->driver_version, dev->compute_units, fam[i], params, gf[i]);
  }
  FILE *out = fopen(path, "wb");
  if (!out) return "";
  fprintf(out,
          "{\"format\":\"clforge-tuning\",\"format_version\":1,\"library_version\":\"0.1.0\",\"entries\":[%s%s%s]}",
          used > 0 ? e[0] : "", used > 1 ? "," : "", used > 1 ? e[1] : "");
  fclose(out);
  setenv("CLFORGE_TUNING_FILE", path, 1);
  clforge_context ctx = tu_context();
  clforge_params_source src;
  snprintf(family, sizeof family, "%s", family_of(ctx, 1024, 1024, 1024, &src));
  CHECK(src == CLFORGE_PARAMS_FROM_TUNED, "%s from source %s", family, clforge_params_source_name(src));
  clforge_context_destroy(ctx);
  setenv("CLFORGE_TUNING_FILE", "off", 1);
  remove(path);
  return family;
}

/* Two packed calls enqueued back to back on an out-of-order queue share the
 * workspace: the second one's packs must wait for the first one's
 * micro-kernel (the workspace's last user), or the first reads the second's
 * panels. Each result is compared with the reference. */
static void test_out_of_order(clforge_context base) {
  cl_context cl;
  cl_device_id dev;
  clforge_context_cl_context(base, &cl);
  clforge_context_device(base, &dev);
  cl_int err;
  cl_command_queue q =
      clCreateCommandQueue(cl, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) {
    printf("out-of-order queues unsupported here (%d): that case skipped\n", err);
    return;
  }
  clforge_context ctx = NULL;
  CHECK_OK(NULL, clforge_context_create_from_queue(q, &ctx));
  if (!ctx) {
    clReleaseCommandQueue(q);
    return;
  }
  enum { M = 70, N = 65, K = 67 };
  const clforge_gemm_desc d = {.m = M, .n = N, .k = K, .alpha = 1.0f, .beta = 0.0f};
  float *ha[2], *hb[2], *hc = malloc(M * N * sizeof *hc), *want = malloc(M * N * sizeof *want);
  cl_mem a[2], b[2], c[2];
  cl_event ev[2] = {NULL, NULL};
  for (int i = 0; i < 2; ++i) {
    ha[i] = malloc(M * K * sizeof(float));
    hb[i] = malloc(K * N * sizeof(float));
    fill(ha[i], CLFORGE_F32, M * K, 1.0f);
    fill(hb[i], CLFORGE_F32, K * N, 1.0f);
    a[i] = tu_buffer(ctx, M * K * sizeof(float));
    b[i] = tu_buffer(ctx, K * N * sizeof(float));
    c[i] = tu_buffer(ctx, M * N * sizeof(float));
    tu_write(ctx, a[i], 0, M * K * sizeof(float), ha[i]);
    tu_write(ctx, b[i], 0, K * N * sizeof(float), hb[i]);
  }
  for (int i = 0; i < 2; ++i) CHECK_OK(ctx, clforge_gemm(ctx, &d, a[i], b[i], c[i], NULL, 0, NULL, &ev[i]));
  if (ev[0] && ev[1]) clWaitForEvents(2, ev);
  for (int i = 0; i < 2; ++i) {
    tu_read(ctx, c[i], 0, M * N * sizeof(float), hc);
    CHECK_OK(NULL, clforge_ref_gemm(&d, ha[i], hb[i], want, NULL));
    clforge__error_stats st;
    clforge__compare_f32(M * N, hc, want, &st);
    CHECK(clforge__within_tolerance(&st, clforge__tolerance_for(CLFORGE_F32)),
          "out-of-order queue, call %d: nrmse %.3g", i, st.nrmse);
    if (ev[i]) clReleaseEvent(ev[i]);
    clReleaseMemObject(a[i]);
    clReleaseMemObject(b[i]);
    clReleaseMemObject(c[i]);
    free(ha[i]);
    free(hb[i]);
  }
  free(hc);
  free(want);
  clforge_context_destroy(ctx);
  clReleaseCommandQueue(q);
}

int main(int argc, char **argv) {
  int small = argc > 1 && !strcmp(argv[1], "--small");
  /* No user or system tuning file: the choices below are the built-in ones. */
  setenv("CLFORGE_TUNING_FILE", "off", 1);
  setenv("CLFORGE_SYSTEM_TUNING_FILE", "test_gemm_packed_no_system_file.json", 1);
  clforge_context ctx = tu_context();
  gcase c;
  setenv("CLFORGE_GEMM_PATH", "packed", 1);
  setenv("CLFORGE_PARAMS", SMALL_BLOCKS, 1);

  if (small) { /* Oclgrind: every transpose case, dtype mixes, epilogues, several blocks, a batch */
    for (int t = 0; t < 4; ++t) {
      c = base(35, 37, 40);
      c.ta = t & 1, c.tb = t >> 1;
      c.layout = t == 3 ? CLFORGE_COL_MAJOR : CLFORGE_ROW_MAJOR;
      c.at = dts[t % 3], c.bt = dts[(t + 1) % 3], c.ct = dts[(t + 2) % 3];
      c.beta = 0.5f, c.bias = (clforge_bias_mode)(t % 3), c.act = (clforge_activation)t;
      c.pad_a = 1, c.off_c = 2, c.batch = 2, c.broadcast = t % 3;
      run_case(ctx, &c);
    }
    c = base(37, 19, 23); /* n <= NC, A f32 along k: the micro-kernel reads A in place */
    c.pad_a = 1, c.batch = 2, c.beta = 0.5f;
    run_case(ctx, &c);
    c = base(5, 3, 0); /* k = 0 */
    c.beta = 1.0f;
    run_case(ctx, &c);
    unsetenv("CLFORGE_PARAMS");
    unsetenv("CLFORGE_GEMM_PATH");
    clforge_context_destroy(ctx);
    return tu_summary();
  }

  /* Sizes: 1, primes, below and above one block in each dimension. */
  const size_t sizes[][3] = {{1, 1, 1},     {7, 7, 7},       {33, 33, 33},  {1, 257, 129}, {130, 1, 65},
                             {129, 131, 1}, {200, 190, 180}, {64, 64, 64},  {16, 32, 32},  {17, 33, 33}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    c = base(sizes[i][0], sizes[i][1], sizes[i][2]);
    run_case(ctx, &c);
  }

  gkey plain;
  const size_t layout_shapes[][3] = {{70, 65, 67}, {100, 33, 70}};
  run_layouts(ctx, layout_shapes, 2, pick_plain, &plain);

  /* Every A/B/C dtype combination (the widening in the pack, the narrowing
   * in the store), transposed operands in half of them. */
  gkey keys[27];
  for (int m = 0; m < 27; ++m) {
    keys[m] = packed_key(m);
    c = keyed(&keys[m], 0, 57, 83, 71);
    c.beta = 0.5f;
    run_case(ctx, &c);
  }

  /* mixes 4 (a row bias, f16 C) and 7 (B bf16 and transposed) */
  run_alpha_beta_corners(ctx, &keys[0], 66, 49, 31, &keys[4], 40, 45);
  run_batches(ctx, &keys[4], 45, 50, 33, &keys[7]);

  /* The workspace bound: 100 x 90 x 50 packs (112 + 96) x 50 floats per
   * batch item (41,600 bytes). 50,000 bytes: one item per pass; 16,384:
   * column blocks of 32 and row blocks of 48 (A packed per row block);
   * 4,000: not even one block: the tiled and direct kernels run. */
  /* Packed: mix 14 (A f16, C bf16, a column bias) and the plain problem,
   * B transposed; on the direct kernel (4,000) test_gemm's keys 16 (a
   * column bias) and 8 (B transposed), so that the fallback builds nothing
   * new. */
  const size_t caps[] = {50000, 16384, 4000};
  pick_plain(0, 1, 0, &plain);
  const gkey direct_keys[2] = {mix_key(16), mix_key(8)};
  for (size_t i = 0; i < 3; ++i) {
    ctx->workspace.cap = caps[i];
    c = keyed(i < 2 ? &keys[14] : &direct_keys[0], 0, 100, 90, 50);
    c.batch = 3, c.broadcast = (int)i % 3, c.beta = 0.5f, c.pad_c = 3;
    run_case(ctx, &c);
    c = keyed(i < 2 ? &plain : &direct_keys[1], 1, 90, 100, 50);
    c.alpha = 0.5f;
    run_case(ctx, &c);
  }
  /* A read in place (n <= NC, A f32 along k) in row blocks of 48 (16,384
   * bytes: a row0 past 0 in each pass), batched, padded. */
  ctx->workspace.cap = 16384;
  c = keyed(&plain, 0, 100, 30, 50);
  c.batch = 2, c.pad_a = 2, c.beta = 0.5f;
  run_case(ctx, &c);
  ctx->workspace.cap = 0;
  {
    clforge_params_source src;
    ctx->workspace.cap = 4000;
    CHECK(strcmp(family_of(ctx, 100, 90, 50, &src), "gemm_packed"),
          "a call whose blocks do not fit the workspace is not packed");
    ctx->workspace.cap = 0;
    CHECK(!strcmp(family_of(ctx, 100, 90, 50, &src), "gemm_packed") && src == CLFORGE_PARAMS_FROM_ENV,
          "CLFORGE_GEMM_PATH=packed runs the packed family with CLFORGE_PARAMS's values");
  }

  test_out_of_order(ctx);

  /* Validation mode checks the packed path's result too (it waits on the
   * last of the chain's launches). */
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  c = base(70, 65, 67);
  c.tb = 1, c.beta = 0.5f, c.bt = CLFORGE_F16;
  run_case(ctx, &c);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));

  /* Large, the default blocks: checked by projection. */
  unsetenv("CLFORGE_PARAMS");
  c = base(1031, 1025, 1029); /* the programs of one of test_gemm's large cases */
  c.projection = 1, c.ta = 1, c.at = CLFORGE_BF16, c.beta = 0.5f, c.bias = CLFORGE_BIAS_COLUMN, c.pad_b = 5;
  run_case(ctx, &c);

  /* At most 16 columns on a CPU: the built-in default packs 16-wide panels,
   * one per work-group (GEMM_VAR_N16); 17 columns keep the class default.
   * (The kernel paths are SMALL_BLOCKS' and the sweep's: NR = 16 runs
   * there, A in place with n <= NC above; no build of its own here.) */
  if (ctx->info.device_class == CLFORGE_DEVICE_CLASS_CPU) {
    int v16[CLFORGE_MAX_PARAMS], v17[CLFORGE_MAX_PARAMS], v0[CLFORGE_MAX_PARAMS];
    clforge__family_default(&clforge__family_gemm_packed, CLFORGE_DEVICE_CLASS_CPU,
                            clforge__gemm_variant(0, 1, CLFORGE_F32, CLFORGE_F32, 16), v16);
    clforge__family_default(&clforge__family_gemm_packed, CLFORGE_DEVICE_CLASS_CPU,
                            clforge__gemm_variant(0, 1, CLFORGE_F32, CLFORGE_F32, 17), v17);
    clforge__family_default(&clforge__family_gemm_packed, CLFORGE_DEVICE_CLASS_CPU, 0, v0);
    CHECK(v16[GEMMP_NR] == 16 && v16[GEMMP_NC] == 16 && v17[GEMMP_NR] == v0[GEMMP_NR] && v17[GEMMP_NC] == v0[GEMMP_NC],
          "16 columns: NR %d NC %d; 17: NR %d NC %d", v16[GEMMP_NR], v16[GEMMP_NC], v17[GEMMP_NR], v17[GEMMP_NC]);
  }

  /* Sweep: a fixed-seed sample of the allowed combinations that holds every
   * value of every parameter, each set on a mix of its own (in turn) with
   * epilogue j % 7, two shapes, the second spanning several blocks in each
   * dimension; the first seven sets also run their epilogue in the other
   * layout (every epilogue, both layouts: the epilogue code is shared with
   * the tiled kernel, tested in full there). */
  param_set ps[32];
  const size_t nps = cover_sample(&clforge__family_gemm_packed, &ctx->info, 2028, NULL, 0, 13, ps, 32);
  CHECK(cover_complete(&clforge__family_gemm_packed, &ctx->info, ps, nps), "the packed sample misses values");
  int failures = 0;
  for (size_t j = 0; j < nps; ++j) {
    char spec[256] = "";
    cover_spec(&clforge__family_gemm_packed, &ps[j], spec, sizeof spec);
    setenv("CLFORGE_PARAMS", spec, 1);
    gkey key = keys[(j * 7) % 27];
    packed_epilogue((int)(j % 7), &key);
    const gkey *k = &key;
    const size_t mc = (size_t)ps[j].v[GEMMP_MC], nc = (size_t)ps[j].v[GEMMP_NC], kc = (size_t)ps[j].v[GEMMP_KC];
    c = keyed(k, 0, 131, 135, 77);
    c.beta = 0.5f, c.pad_b = 1;
    if (!run_case(ctx, &c)) fprintf(stderr, "  with CLFORGE_PARAMS=%s\n", spec), ++failures;
    c = keyed(k, 1, 2 * mc + 3, nc + 5, kc + 7);
    c.batch = 2;
    if (!run_case(ctx, &c)) fprintf(stderr, "  with CLFORGE_PARAMS=%s\n", spec), ++failures;
    if (j < 7) {
      c = keyed(k, (int)(j % 2), 50, 70, 45);
      c.beta = k->act == CLFORGE_ACT_RELU ? 1.0f : 0.0f, c.alpha = 2.0f;
      if (!run_case(ctx, &c)) fprintf(stderr, "  with CLFORGE_PARAMS=%s\n", spec), ++failures;
    }
    unsetenv("CLFORGE_PARAMS");
  }
  printf("sweep: %zu packed parameter sets (%d cases failed)\n", nps, failures);

  /* The automatic choice without a tuning file: the heuristic (packed on
   * CPUs from 768^3 multiply-adds with m, n >= 768 or A and B over 32 MiB,
   * never for skinny shapes unless B is transposed), from the built-in defaults; CLFORGE_GEMM_PATH
   * and overrides of one family win. */
  unsetenv("CLFORGE_GEMM_PATH");
  {
    clforge_params_source src;
    const int cpu = ctx->info.device_class == CLFORGE_DEVICE_CLASS_CPU;
    const char *big = family_of(ctx, 1024, 1024, 1024, &src);
    CHECK(!strcmp(big, cpu ? "gemm_packed" : "gemm") && src == CLFORGE_PARAMS_FROM_DEVICE_DEFAULT,
          "1024^3 runs %s", big);
    CHECK_ROUTE(cpu ? "heuristic: CPU, >= 768^3, m and n >= 768" : "heuristic: not a CPU");
    CHECK(!strcmp(family_of(ctx, 512, 512, 512, NULL), "gemm"), "512^3 runs tiled");
    CHECK_ROUTE(cpu ? "heuristic: below 768^3: tiled" : "heuristic: not a CPU");
    CHECK(!strcmp(family_of(ctx, 64, 64, 64, NULL), "gemm_direct"), "64^3 runs direct");
    CHECK_ROUTE("small (< 128^3 or < one tile) or k = 0: direct");
    CHECK(!strcmp(family_of(ctx, 512, 768, 3072, NULL), "gemm"), "512 x 768 x 3072 (A and B in 16 MiB) runs tiled");
    CHECK(!strcmp(family_of(ctx, 256, 4096, 4096, NULL), cpu ? "gemm_packed" : "gemm"),
          "256 x 4096 x 4096 (B alone 64 MiB) runs packed on CPUs");
    if (cpu) CHECK_ROUTE("heuristic: CPU, >= 768^3, A+B > 32 MiB");
    /* m or n off the tiled kernel's tile (64 rows against MWG 128): the
     * direct kernel's strip would be slow, packed on CPUs from 256^3 */
    CHECK(!strcmp(family_of(ctx, 64, 4096, 4096, NULL), cpu ? "gemm_packed" : "gemm"), "64 x 4096 x 4096");
    if (cpu) CHECK_ROUTE("heuristic: CPU, >= 256^3, ragged edge: packed");
    CHECK(!strcmp(family_of(ctx, 256, 512, 2048, NULL), "gemm"), "256 x 512 x 2048 (whole tiles) runs tiled");
    CHECK(strcmp(family_of(ctx, 200, 200, 200, NULL), "gemm_packed") != 0, "200^3 (below 256^3) is not packed");
    /* B transposed: packed on CPUs from 16 rows, skinny or not (the other
     * kernels gather B); not below 16 rows or 128^3. */
    family_trans_b = 1;
    CHECK(!strcmp(family_of(ctx, 49, 512, 2048, NULL), cpu ? "gemm_packed" : "gemm"), "49 x 512 x 2048 NT");
    CHECK_ROUTE(cpu ? "heuristic: CPU, B transposed (m >= 16): packed" : "heuristic: not a CPU");
    CHECK(!strcmp(family_of(ctx, 16, 4096, 4096, NULL), cpu ? "gemm_packed" : "gemm"), "16 x 4096 x 4096 NT");
    CHECK(strcmp(family_of(ctx, 8, 4096, 4096, NULL), "gemm_packed") != 0, "8 x 4096 x 4096 NT is not packed");
    CHECK(!strcmp(family_of(ctx, 64, 64, 64, NULL), "gemm_direct"), "64^3 NT runs direct");
    family_trans_b = 0;
    CHECK(!strcmp(family_of(ctx, 49, 512, 2048, NULL), cpu ? "gemm_packed" : "gemm"), "49 x 512 x 2048 NN (49 rows: off the tile)");
    CHECK(strcmp(family_of(ctx, 8, 4096, 4096, NULL), "gemm_packed") != 0, "8 x 4096 x 4096 NN is not packed");
    setenv("CLFORGE_PARAMS", "gemm:KWG=256", 1);
    CHECK(!strcmp(family_of(ctx, 1024, 1024, 1024, NULL), "gemm"), "an override of the tiled family runs it");
    CHECK_ROUTE("override names gemm only");
    setenv("CLFORGE_PARAMS", "gemm_packed:KC=128", 1);
    CHECK(!strcmp(family_of(ctx, 512, 512, 512, NULL), "gemm_packed"), "an override of the packed family runs it");
    unsetenv("CLFORGE_PARAMS");
    setenv("CLFORGE_GEMM_PATH", "tiled", 1);
    CHECK(!strcmp(family_of(ctx, 1024, 1024, 1024, NULL), "gemm"), "CLFORGE_GEMM_PATH=tiled");
    CHECK_ROUTE("CLFORGE_GEMM_PATH=tiled");
    unsetenv("CLFORGE_GEMM_PATH");
  }

  /* With a tuning file: the faster of the two families as measured. */
  if (ctx->info.device_class == CLFORGE_DEVICE_CLASS_CPU) {
    const char *f = tuned_choice(&ctx->info, 400, 300);
    CHECK(!strcmp(f, "gemm"), "tiled measured faster: %s runs", f);
    CHECK_ROUTE("tuned: tiled 400 > packed 300 GFLOP/s");
    f = tuned_choice(&ctx->info, 300, 400);
    CHECK(!strcmp(f, "gemm_packed"), "packed measured faster: %s runs", f);
    CHECK_ROUTE("tuned: packed 400 > tiled 300 GFLOP/s");
    /* one family tuned: no comparison, the heuristic (packed at 1024^3) */
    f = tuned_choice(&ctx->info, 0, 300);
    CHECK(!strcmp(f, "gemm_packed"), "only packed tuned: %s runs", f);
    CHECK_ROUTE("heuristic: CPU");
  }

  clforge_context_destroy(ctx);
  return tu_summary();
}
