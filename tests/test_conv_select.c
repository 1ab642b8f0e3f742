/* How a convolution's algorithm is chosen, and the ways of calling it:
 * the heuristic table, desc.algo over CLFORGE_CONV_ALGO over the tuning
 * file (the faster measured family, only where the heuristic's was measured
 * in the class too: a partial file never changes the choice; f32 entries
 * for f16 calls; the nearest shape; damaged and unfit entries passed over),
 * the workspace fallback, a caller's workspace, prepared weights,
 * validation mode, and the tuner's find: it measures, verifies and stores,
 * and a fresh context uses it. The tuning files are written here by hand
 * (except the tuner's). */
#include <unistd.h>

#include "../src/core/context.h"
#include "../src/families/conv_classes.h"
#include "../src/families/conv_fft.h"
#include "../src/families/families.h"
#include "conv_cases.h"
#include "tuning_entries.h"

static char file[512];
static clforge_device_info dev;

static clforge_conv_choice explain(clforge_context ctx, const clforge_conv2d_desc *d) {
  clforge_conv_choice c;
  memset(&c, 0, sizeof c);
  clforge_status st = clforge_conv2d_explain(ctx, d, &c);
  CHECK(st == CLFORGE_SUCCESS, "explain: %s", clforge_last_error(ctx));
  return c;
}

/* One tuning entry for this device: family f's built-in default
 * parameters (valid by construction) or `params` as given. */
static void entry(char *buf, size_t cap, const clforge__family *f, const char *dtypes, const char *layout,
                  const char *cls, const char *shape, double gflops, const char *params) {
  char pv[600];
  if (!params) tu_default_params(f, &dev, pv, sizeof pv);
  tu_tuning_entry(buf, cap, &dev, f->name, dtypes, layout, cls, shape, "clforge", params ? params : pv, gflops);
}

static void write_file(const char *const *entries, int n) { tu_write_tuning_file(file, entries, n); }

/* The r50_3x3_28 class's layer (shape as in src/families/conv_classes.h), but
 * with N = 4: nearer to that class's N = 8 than to r50_3x3_28_n1's 1. */
static clforge_conv2d_desc layer_3x3(void) { return conv_desc(4, 128, 28, 28, 128, 3, 1, 1); }
#define SHAPE_3X3_28 "8,128,28,128,3,1,1,1"

static void test_heuristic(clforge_context ctx) {
  struct {
    clforge_conv2d_desc d;
    clforge_conv_algo want;
  } t[] = {
      {conv_desc(1, 32, 56, 56, 32, 3, 1, 1), CLFORGE_CONV_ALGO_DEPTHWISE},
      {conv_desc(1, 64, 28, 28, 256, 1, 1, 0), CLFORGE_CONV_ALGO_GEMM_1X1},
      {conv_desc(8, 64, 56, 56, 64, 3, 1, 1), CLFORGE_CONV_ALGO_WINOGRAD_4X4},
      {conv_desc(1, 64, 56, 56, 64, 3, 1, 1), CLFORGE_CONV_ALGO_WINOGRAD_2X2},
      {conv_desc(8, 128, 28, 28, 128, 3, 1, 1), CLFORGE_CONV_ALGO_WINOGRAD_4X4}, /* N*P*Q 6272 >= 4096 */
      {conv_desc(1, 32, 7, 7, 32, 3, 1, 1), CLFORGE_CONV_ALGO_IM2COL}, /* 49 outputs: no per-call filter transform */
      {conv_desc(1, 3, 224, 224, 64, 7, 2, 3), CLFORGE_CONV_ALGO_IM2COL},
      {conv_desc(1, 3, 11, 11, 4, 3, 2, 1), CLFORGE_CONV_ALGO_DIRECT},
  };
  t[0].d.groups = 32;
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
    clforge_conv_choice c = explain(ctx, &t[i].d);
    char ignored[160];
    const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of(t[i].want);
    clforge__conv d;
    clforge__conv_resolve(NULL, &t[i].d, 0, &d);
    if (!impl->supports(ctx, &d, ignored, sizeof ignored)) {
      printf("skipped: heuristic case %zu: %s cannot run it here (%s)\n", i, clforge_conv_algo_name(t[i].want), ignored);
      continue;
    }
    CHECK(c.algo == t[i].want && c.source == CLFORGE_CONV_ALGO_FROM_HEURISTIC && !strncmp(c.why, "heuristic", 9),
          "heuristic case %zu: %s from %d (%s), want %s", i, clforge_conv_algo_name(c.algo), (int)c.source, c.why,
          clforge_conv_algo_name(t[i].want));
    CHECK(c.p == d.p && c.q == d.q && c.nkernels >= 1, "case %zu: output %zux%zu, %d kernels", i, c.p, c.q, c.nkernels);
  }
  /* Prepared weights pay Winograd's filter transform once: the 49-output
   * 3x3 above takes F(2x2,3x3) for them. */
  {
    const clforge_conv2d_desc d = conv_desc(1, 32, 7, 7, 32, 3, 1, 1);
    cl_mem w = tu_buffer(ctx, 32 * 32 * 9 * 4);
    clforge_conv2d_weights pw = NULL;
    clforge_conv_algo a = CLFORGE_CONV_ALGO_AUTO;
    CHECK_OK(ctx, clforge_conv2d_weights_create(ctx, &d, w, 0, NULL, &pw));
    CHECK_OK(NULL, clforge_conv2d_weights_algo(pw, &a));
    CHECK(a == CLFORGE_CONV_ALGO_WINOGRAD_2X2, "prepared 1 x 7^2 3x3 weights: %s", clforge_conv_algo_name(a));
    CHECK_OK(NULL, clforge_conv2d_weights_release(pw));
    clReleaseMemObject(w);
  }
}

static void test_order(clforge_context ctx) {
  clforge_conv2d_desc d = layer_3x3();
  setenv("CLFORGE_CONV_ALGO", "direct", 1);
  clforge_conv_choice c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_DIRECT && c.source == CLFORGE_CONV_ALGO_FROM_ENV, "env: %s (%s)",
        clforge_conv_algo_name(c.algo), c.why);
  d.algo = CLFORGE_CONV_ALGO_IMPLICIT_GEMM; /* the descriptor wins over the environment */
  c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_IMPLICIT_GEMM && c.source == CLFORGE_CONV_ALGO_FROM_DESC, "desc: %s (%s)",
        clforge_conv_algo_name(c.algo), c.why);
  unsetenv("CLFORGE_CONV_ALGO");
}

static void test_tuning_file(void) {
  char e1[4096], e2[4096], e3[4096], e4[4096], ew[4096], ei[4096];
  const clforge__family *fd = &clforge__family_conv_direct, *fi = &clforge__family_conv_implicit_gemm;
  /* the layer's heuristic choice is Winograd F(2x2): measured, and beaten by direct */
  entry(e1, sizeof e1, fd, "f32,f32,f32", "nchw,kcrs", "r50_3x3_28", SHAPE_3X3_28, 500.0, NULL);
  entry(e2, sizeof e2, fi, "f32,f32,f32", "nchw,kcrs", "r50_3x3_28", SHAPE_3X3_28, 100.0, NULL);
  entry(ew, sizeof ew, &clforge__family_conv_winograd_2x2, "f32,f32,f32", "nchw,kcrs", "r50_3x3_28", SHAPE_3X3_28,
        300.0, NULL);
  entry(ei, sizeof ei, &clforge__family_conv_im2col, "f32,f32,f32", "nchw,kcrs", "r50_3x3_28", SHAPE_3X3_28, 200.0,
        NULL);
  const char *both[4] = {e1, e2, ew, ei};
  write_file(both, 4);
  clforge_context ctx = tu_context();
  clforge_conv2d_desc d = layer_3x3();
  clforge_conv_choice c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_DIRECT && c.source == CLFORGE_CONV_ALGO_FROM_TUNED &&
            strstr(c.why, "direct 500 > heuristic's winograd_2x2 300"),
        "tuned: %s (%s)", clforge_conv_algo_name(c.algo), c.why);
  CHECK(c.kernels[0].source == CLFORGE_PARAMS_FROM_TUNED, "the direct family's parameters: %s",
        clforge_params_source_name(c.kernels[0].source));
  /* a 3x3 layer far from every class (1 -> 8 channels at 16^2: the CNN example's first) is
   * no class's: the heuristic's algorithm, whatever r50_3x3_28 measured; one within a
   * factor 8 of its channels (the same layer at 96 -> 96) is r50_3x3_28's */
  clforge_conv2d_desc far = conv_desc(64, 1, 16, 16, 8, 3, 1, 1), near = layer_3x3();
  near.c = near.k = 96;
  c = explain(ctx, &far);
  CHECK(c.source == CLFORGE_CONV_ALGO_FROM_HEURISTIC && strstr(c.why, "too far") &&
            !strcmp(c.kernels[0].shape_class, "conv"),
        "far layer: %s from %s (%s), class %s", clforge_conv_algo_name(c.algo), clforge_conv_algo_source_name(c.source),
        c.why, c.kernels[0].shape_class);
  c = explain(ctx, &near);
  CHECK(c.algo == CLFORGE_CONV_ALGO_DIRECT && c.source == CLFORGE_CONV_ALGO_FROM_TUNED &&
            !strcmp(c.kernels[0].shape_class, "r50_3x3_28"),
        "near layer: %s from %s (%s), class %s", clforge_conv_algo_name(c.algo), clforge_conv_algo_source_name(c.source),
        c.why, c.kernels[0].shape_class);
  /* f16 storage: no f16 entries, the f32 ones decide (and give parameters) */
  d.x_type = d.w_type = d.y_type = CLFORGE_F16;
  c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_DIRECT && strstr(c.why, "(f32)") &&
            c.kernels[0].source == CLFORGE_PARAMS_FROM_TUNED,
        "f16 from f32 entries: %s (%s)", clforge_conv_algo_name(c.algo), c.why);
  /* NHWC has no entries of its own layout: the heuristic */
  d = layer_3x3();
  d.x_layout = d.y_layout = CLFORGE_NHWC, d.w_layout = CLFORGE_KRSC;
  c = explain(ctx, &d);
  CHECK(c.source == CLFORGE_CONV_ALGO_FROM_HEURISTIC, "nhwc: %s (%s)", clforge_conv_algo_name(c.algo), c.why);
  /* a 5x5 layer is in no class: its heuristic's (im2col's) nearest tuned
   * class decides, where direct beat it */
  d = conv_desc(4, 64, 28, 28, 64, 5, 1, 2);
  c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_DIRECT && c.source == CLFORGE_CONV_ALGO_FROM_NEAREST &&
            strstr(c.why, "r50_3x3_28") && strstr(c.why, "heuristic's im2col 200"),
        "5x5: %s from %d (%s)", clforge_conv_algo_name(c.algo), (int)c.source, c.why);
  clforge_context_destroy(ctx);
  /* a class whose shape has a 0 (no padding): the file reads it back */
  entry(e3, sizeof e3, &clforge__family_conv_im2col, "f32,f32,f32", "nchw,kcrs", "r50_1x1_56", "8,256,56,64,1,1,0,1",
        999.0, NULL);
  entry(e4, sizeof e4, &clforge__family_conv_gemm_1x1, "f32,f32,f32", "nchw,kcrs", "r50_1x1_56",
        "8,256,56,64,1,1,0,1", 400.0, NULL);
  const char *one[4] = {e1, e2, e3, e4};
  write_file(one, 4);
  ctx = tu_context();
  d = conv_desc(4, 256, 56, 56, 64, 1, 1, 0);
  c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_IM2COL && c.source == CLFORGE_CONV_ALGO_FROM_TUNED, "1x1 class (pad 0): %s (%s)",
        clforge_conv_algo_name(c.algo), c.why);
  clforge_context_destroy(ctx);

  /* the faster entry is damaged (a parameter the family lacks) or unfit (a
   * value that is no candidate): passed over, the other one is used */
  const char *bad_params[2] = {"\"NOSUCH\":4", NULL};
  char unfit[600];
  {
    int vals[CLFORGE_MAX_PARAMS];
    clforge__family_default(fd, dev.device_class, 0, vals);
    size_t o = 0;
    for (int i = 0; i < fd->nparams; ++i)
      o += (size_t)snprintf(unfit + o, sizeof unfit - o, "%s\"%s\":%d", i ? "," : "", fd->params[i].name,
                            i == 0 ? 12345 : vals[i]);
    bad_params[1] = unfit;
  }
  for (int b = 0; b < 2; ++b) {
    entry(e3, sizeof e3, fd, "f32,f32,f32", "nchw,kcrs", "r50_3x3_28", SHAPE_3X3_28, 900.0, bad_params[b]);
    entry(e4, sizeof e4, fi, "f32,f32,f32", "nchw,kcrs", "r50_3x3_28", SHAPE_3X3_28, 100.0, NULL);
    entry(ew, sizeof ew, &clforge__family_conv_winograd_2x2, "f32,f32,f32", "nchw,kcrs", "r50_3x3_28", SHAPE_3X3_28,
          50.0, NULL);
    const char *two[3] = {e3, e4, ew};
    write_file(two, 3);
    ctx = tu_context();
    d = layer_3x3();
    c = explain(ctx, &d);
    CHECK(c.algo == CLFORGE_CONV_ALGO_IMPLICIT_GEMM && c.source == CLFORGE_CONV_ALGO_FROM_TUNED,
          "%s entry passed over: %s (%s)", b ? "unfit" : "damaged", clforge_conv_algo_name(c.algo), c.why);
    conv_outcome o = conv_run_case(ctx, &d, 1);
    CHECK(o == CONV_RAN, "the call after a %s entry", b ? "unfit" : "damaged");
    clforge_context_destroy(ctx);
  }
  unlink(file);
}

/* 1 when family f is tuned on class cls. */
static int lists_class(const clforge__family *f, const char *cls) {
  for (const clforge__shape_class *c = f->classes; c && c->name; ++c)
    if (!strcmp(c->name, cls)) return 1;
  return 0;
}

/* A partial tuning file never changes the automatic choice (issue 15): for
 * every class's layer and every other algorithm tuned on it, a file with
 * only that algorithm's entry for the class, however fast, leaves the
 * choice to the heuristic, f32 and f16 calls alike (the case:
 * r50_1x1_56 with only direct measured ran direct at half gemm_1x1's rate);
 * with the heuristic's entry beside it, measured slower, the file's
 * algorithm runs; measured faster, the heuristic's. Explain only: nothing
 * is built. */
static void test_partial_file(void) {
  unlink(file);
  clforge_context ctx = tu_context();
  int checked = 0;
  for (const clforge__shape_class *cls = clforge__conv_all_classes; cls->name; ++cls) {
    const size_t *sh = cls->shape;
    clforge_conv2d_desc d = conv_desc(sh[0], sh[1], sh[2], sh[2], sh[3], sh[4], sh[5], sh[6]), h16 = d;
    d.groups = h16.groups = sh[7];
    h16.x_type = h16.w_type = h16.y_type = CLFORGE_F16;
    char shape[96];
    snprintf(shape, sizeof shape, "%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu", sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], sh[6],
             sh[7]);
    CHECK_OK(ctx, clforge_context_reload_tuning(ctx));
    const clforge_conv_choice none = explain(ctx, &d), none16 = explain(ctx, &h16);
    CHECK(none.source == CLFORGE_CONV_ALGO_FROM_HEURISTIC, "%s without a file: from %d", cls->name, (int)none.source);
    const clforge__conv_algo_impl *hi = clforge__conv_algo_impl_of(none.algo);
    clforge__conv r;
    clforge__conv_resolve(NULL, &d, 0, &r);
    for (int a = 1; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
      const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of((clforge_conv_algo)a);
      char ignored[160], ea[4096], eh[4096];
      if (a == (int)none.algo || !impl->family || !lists_class(impl->family, cls->name) ||
          !impl->supports(ctx, &r, ignored, sizeof ignored))
        continue;
      entry(ea, sizeof ea, impl->family, "f32,f32,f32", "nchw,kcrs", cls->name, shape, 9999.0, NULL);
      const char *only[1] = {ea};
      write_file(only, 1);
      CHECK_OK(ctx, clforge_context_reload_tuning(ctx));
      clforge_conv_choice c = explain(ctx, &d), c16 = explain(ctx, &h16);
      CHECK(c.algo == none.algo && c.source == CLFORGE_CONV_ALGO_FROM_HEURISTIC && strstr(c.why, "not measured in") &&
                c16.algo == none16.algo,
            "%s, only %s measured: %s from %d (%s), f16 %s; without the file %s", cls->name, impl->name,
            clforge_conv_algo_name(c.algo), (int)c.source, c.why, clforge_conv_algo_name(c16.algo),
            clforge_conv_algo_name(none.algo));
      /* the heuristic's family measured too, slower: the file decides */
      entry(eh, sizeof eh, hi->family, "f32,f32,f32", "nchw,kcrs", cls->name, shape, 10.0, NULL);
      const char *pair[2] = {ea, eh};
      write_file(pair, 2);
      CHECK_OK(ctx, clforge_context_reload_tuning(ctx));
      c = explain(ctx, &d);
      CHECK(c.algo == (clforge_conv_algo)a && c.source == CLFORGE_CONV_ALGO_FROM_TUNED,
            "%s, %s 9999 beside the heuristic's %s 10: %s from %d (%s)", cls->name, impl->name, hi->name,
            clforge_conv_algo_name(c.algo), (int)c.source, c.why);
      /* ... faster: the heuristic's, now measured */
      entry(ea, sizeof ea, impl->family, "f32,f32,f32", "nchw,kcrs", cls->name, shape, 5.0, NULL);
      write_file(pair, 2);
      CHECK_OK(ctx, clforge_context_reload_tuning(ctx));
      c = explain(ctx, &d);
      CHECK(c.algo == none.algo && c.source == CLFORGE_CONV_ALGO_FROM_TUNED && strstr(c.why, "heuristic's"),
            "%s, %s 5 beside the heuristic's %s 10: %s from %d (%s)", cls->name, impl->name, hi->name,
            clforge_conv_algo_name(c.algo), (int)c.source, c.why);
      ++checked;
    }
  }
  CHECK(checked >= 20, "only %d (class, algorithm) pairs checked", checked);
  /* the issue's own case, as explain says it */
  clforge_conv2d_desc d = conv_desc(8, 256, 56, 56, 64, 1, 1, 0);
  char ed[4096];
  entry(ed, sizeof ed, &clforge__family_conv_direct, "f32,f32,f32", "nchw,kcrs", "r50_1x1_56", "8,256,56,64,1,1,0,1",
        78.0, NULL);
  const char *only[1] = {ed};
  write_file(only, 1);
  CHECK_OK(ctx, clforge_context_reload_tuning(ctx));
  clforge_conv_choice c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_GEMM_1X1 && strstr(c.why, "gemm_1x1 not measured in r50_1x1_56, direct is"),
        "r50_1x1_56 with direct alone: %s (%s)", clforge_conv_algo_name(c.algo), c.why);
  /* measured faster by less than the margin (10 %): not enough to leave the heuristic's */
  char eg[4096];
  entry(ed, sizeof ed, &clforge__family_conv_direct, "f32,f32,f32", "nchw,kcrs", "r50_1x1_56", "8,256,56,64,1,1,0,1",
        104.0, NULL);
  entry(eg, sizeof eg, &clforge__family_conv_gemm_1x1, "f32,f32,f32", "nchw,kcrs", "r50_1x1_56",
        "8,256,56,64,1,1,0,1", 100.0, NULL);
  const char *close[2] = {ed, eg};
  write_file(close, 2);
  CHECK_OK(ctx, clforge_context_reload_tuning(ctx));
  c = explain(ctx, &d);
  CHECK(c.algo == CLFORGE_CONV_ALGO_GEMM_1X1 && c.source == CLFORGE_CONV_ALGO_FROM_TUNED && strstr(c.why, "within 10%"),
        "direct 104 against gemm_1x1 100: %s (%s)", clforge_conv_algo_name(c.algo), c.why);
  clforge_context_destroy(ctx);
  unlink(file);
}

static void test_calls(clforge_context ctx) {
  /* every algorithm through a caller-owned workspace and prepared weights */
  const clforge_conv2d_desc shapes[3] = {conv_desc(2, 17, 9, 10, 18, 3, 1, 1), conv_desc(1, 9, 6, 7, 10, 1, 1, 0),
                                         conv_desc(1, 3, 30, 30, 5, 7, 2, 3)};
  int prepared = 0;
  for (int call = CONV_CALL_OWN_WORKSPACE; call <= CONV_CALL_PREPARED; ++call)
    for (int s = 0; s < 3; ++s)
      for (int a = 0; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
        conv_case_call = (conv_call)call;
        clforge_conv2d_desc d = shapes[s];
        d.algo = (clforge_conv_algo)a;
        d.beta = s == 1 ? 0.5f : 0.0f;
        d.w_offset = 3;
        conv_outcome o = conv_run_case(ctx, &d, 1);
        prepared += o == CONV_RAN && call == CONV_CALL_PREPARED;
      }
  conv_case_call = CONV_CALL_PLAIN;
  CHECK(prepared >= 3, "prepared weights ran %d cases", prepared);

  /* weights made for one problem refuse another */
  clforge_conv2d_desc d = shapes[0];
  cl_mem w = tu_buffer(ctx, 17 * 18 * 9 * 4), x = tu_buffer(ctx, 2 * 17 * 90 * 4), y = tu_buffer(ctx, 2 * 18 * 90 * 4);
  clforge_conv2d_weights pw;
  CHECK_OK(ctx, clforge_conv2d_weights_create(ctx, &d, w, 0, NULL, &pw));
  clforge_conv2d_desc other = d;
  other.k = 9;
  CHECK_FAILS(ctx, clforge_conv2d_ex(ctx, &other, x, NULL, pw, NULL, y, NULL, 0, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "another problem");
  clforge_context ctx2 = tu_context();
  CHECK_FAILS(ctx2, clforge_conv2d_ex(ctx2, &d, x, NULL, pw, NULL, y, NULL, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "another context");
  clforge_context_destroy(ctx2);
  CHECK_OK(NULL, clforge_conv2d_weights_release(pw));
  clReleaseMemObject(w);
  clReleaseMemObject(x);
  clReleaseMemObject(y);
}

static void test_workspace_fallback(clforge_context ctx) {
  /* an automatic choice that needs scratch memory, with a tiny bound: an
   * algorithm that needs none runs instead; a forced one fails cleanly */
  clforge_conv2d_desc d = conv_desc(1, 32, 40, 40, 32, 3, 1, 1); /* Winograd: 1600 outputs */
  clforge_conv_choice c = explain(ctx, &d);
  if (c.workspace_bytes == 0) {
    printf("skipped: workspace fallback: the automatic choice (%s) needs no workspace\n", clforge_conv_algo_name(c.algo));
    return;
  }
  const clforge_conv_algo first = c.algo;
  ctx->workspace.cap = 256;
  c = explain(ctx, &d);
  CHECK(c.source == CLFORGE_CONV_ALGO_FROM_FALLBACK && c.workspace_bytes <= 256 && c.algo != first,
        "fallback: %s from %d (%s)", clforge_conv_algo_name(c.algo), (int)c.source, c.why);
  CHECK(conv_run_case(ctx, &d, 1) == CONV_RAN, "the fallback's result");
  d.algo = first;
  cl_mem x = tu_buffer(ctx, 32 * 1600 * 4), w = tu_buffer(ctx, 32 * 32 * 9 * 4), y = tu_buffer(ctx, 32 * 1600 * 4);
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, NULL, y, 0, NULL, NULL), CLFORGE_OUT_OF_DEVICE_MEMORY,
              "bytes of workspace");
  ctx->workspace.cap = 0;
  clReleaseMemObject(x);
  clReleaseMemObject(w);
  clReleaseMemObject(y);
}

static void test_validation(clforge_context ctx) {
  clforge_conv2d_desc d = conv_desc(1, 5, 8, 8, 6, 3, 1, 1);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  CHECK(conv_run_case(ctx, &d, 1) == CONV_RAN, "validation mode, right result");
  clforge__test_set_fault(ctx, "conv2d");
  cl_mem x = tu_buffer(ctx, 5 * 64 * 4), w = tu_buffer(ctx, 6 * 5 * 9 * 4), y = tu_buffer(ctx, 6 * 64 * 4);
  float zeros[6 * 64] = {0};
  tu_write(ctx, x, 0, 5 * 64 * 4, zeros);
  tu_write(ctx, w, 0, 6 * 45 * 4, zeros);
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, NULL, y, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "conv2d");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  clReleaseMemObject(x);
  clReleaseMemObject(w);
  clReleaseMemObject(y);
}

static int done_count;
static void on_progress(const clforge_tune_event *e, void *user) {
  (void)user;
  if (e->kind == CLFORGE_TUNE_PROBLEM_DONE) ++done_count;
}

/* The find: tune the r50_3x3_28 and mbv2_1x1_112 classes at batch 1 (NCHW,
 * f32, a couple of candidates per algorithm; the second's shape has a 0, no
 * padding; batch 8's classes would run 8 times the work for the same
 * checks), then a fresh context picks the fastest measured family. */
static void test_find(void) {
  unlink(file);
  clforge_context ctx = tu_context();
  clforge_tune_options o = {.ops = "conv", .shapes = "r50_3x3_28_n1,mbv2_1x1_112_n1", .layouts = "nchw", .budget_s = 90,
                            .max_evals = 2, .file = file, .progress = on_progress};
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  clforge_context_destroy(ctx);
  CHECK(done_count >= 3 && access(file, F_OK) == 0, "find: %d problems done, file %s", done_count,
        access(file, F_OK) ? "missing" : "written");
  ctx = tu_context();
  clforge_conv2d_desc d = layer_3x3();
  d.n = 1;
  clforge_conv_choice c = explain(ctx, &d);
  CHECK(c.source == CLFORGE_CONV_ALGO_FROM_TUNED, "after the find: %s from %d (%s)", clforge_conv_algo_name(c.algo),
        (int)c.source, c.why);
  /* it is the fastest of the families the tuner stored, unless that beat
   * the heuristic's by less than the margin */
  setenv("CLFORGE_TUNING_FILE", "off", 1);
  clforge_context plain = tu_context();
  const clforge_conv_algo heur = explain(plain, &d).algo;
  clforge_context_destroy(plain);
  setenv("CLFORGE_TUNING_FILE", file, 1);
  double heur_rate = 0;
  clforge__conv r;
  clforge__conv_resolve(NULL, &d, 0, &r);
  clforge__conv_key key;
  clforge__conv_make_key(&r, &key);
  double best = 0;
  clforge_conv_algo best_algo = CLFORGE_CONV_ALGO_AUTO;
  for (int a = 1; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
    const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of((clforge_conv_algo)a);
    char ignored[160];
    int v[CLFORGE_MAX_PARAMS];
    clforge_kernel_choice kc;
    if (!impl->supports(ctx, &r, ignored, sizeof ignored) ||
        clforge__family_select(ctx, impl->family, clforge__conv_variant(&r), &key.key, v, &kc) != CLFORGE_SUCCESS ||
        kc.source != CLFORGE_PARAMS_FROM_TUNED)
      continue;
    if (kc.tuned_gflops > best) best = kc.tuned_gflops, best_algo = (clforge_conv_algo)a;
    if (a == (int)heur) heur_rate = kc.tuned_gflops;
  }
  const clforge_conv_algo want = best > heur_rate * CLFORGE__TUNED_MARGIN ? best_algo : heur;
  CHECK(want == c.algo && best > 0 && heur_rate > 0, "chosen %s, fastest stored %s (%.1f GFLOP/s; the heuristic's %s %.1f)",
        clforge_conv_algo_name(c.algo), clforge_conv_algo_name(best_algo), best, clforge_conv_algo_name(heur), heur_rate);
  CHECK(conv_run_case(ctx, &d, 1) == CONV_RAN, "the tuned choice's result");
  d = conv_desc(1, 16, 112, 112, 96, 1, 1, 0);
  c = explain(ctx, &d);
  CHECK(c.source == CLFORGE_CONV_ALGO_FROM_TUNED, "1x1 after the find: %s from %d (%s)", clforge_conv_algo_name(c.algo),
        (int)c.source, c.why);
  clforge_context_destroy(ctx);
  unlink(file);
}

int main(void) {
  const char *home = getenv("HOME");
  snprintf(file, sizeof file, "%s/conv-select-tuning.json", home && *home ? home : ".");
  setenv("CLFORGE_TUNING_FILE", file, 1);
  setenv("CLFORGE_SYSTEM_TUNING_FILE", "off", 1);
  unsetenv("CLFORGE_CONV_ALGO");
  unlink(file);
  /* How a choice is made, not clFFT: the FFT path runs on its test stand-in
   * (plain DFT kernels, the same plans, slicing and workspace), as in
   * test_conv; clFFT's programs, seconds each on PoCL, are test_conv_fft's. */
  clforge__conv_fft_test_dft(1);
  clforge_context ctx = tu_context();
  clforge_context_device_info(ctx, &dev);
  test_heuristic(ctx);
  test_order(ctx);
  test_calls(ctx);
  test_workspace_fallback(ctx);
  test_validation(ctx);
  clforge_context_destroy(ctx);
  test_tuning_file();
  test_partial_file();
  test_find();
  return tu_summary();
}
