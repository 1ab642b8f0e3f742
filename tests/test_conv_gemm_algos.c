/* The convolution algorithms that run on clforge's GEMM, gemm_1x1 and
 * im2col, forced through desc.algo and compared with clforge_ref_conv2d:
 * odd sizes, pads, strides, dilation, groups 1/2/4, N 1..3, NCHW/NHWC x and
 * y (mixed too), KCRS/KRSC filters, f32/f16/bf16 per tensor, bias, every
 * activation, alpha/beta corners, offsets, guard regions around y (and NaN
 * in an unread y); gemm_1x1's refusals; im2col under small workspace bounds
 * (several passes of images, and of pixels within an image) and with a
 * caller's workspace (too small: CLFORGE_BUFFER_TOO_SMALL, y untouched);
 * every GEMM route through each family's PATH; explain's GEMM kernels.
 * --small: a short run for Oclgrind. Debugging: CLFORGE_TEST_TRACE=1 prints
 * each case before it runs (to place a device checker's report),
 * CLFORGE_TEST_ONLY=gemm_1x1 or im2col runs that algorithm's cases only,
 * CLFORGE_TEST_CASE=i the i-th case only. */
#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "conv_profile.h"
#include "oclgrind_keep.h"
#include "../src/ref/compare.h"
#include "test_util.h"

enum { GUARD = 29 }; /* elements of sentinel before and after y's extent */

typedef struct {
  size_t n, c, h, w, k, r, s, groups, sh, sw, dh, dw, pt, pb, pl, pr;
  clforge_tensor_layout xl, yl;
  clforge_filter_layout wl;
  clforge_dtype xt, wt, yt, bt;
  int bias;
  clforge_activation act;
  float alpha, beta;
  int alpha_zero;      /* alpha = 0 as given: x and w must not count */
  size_t xo, wo, yo, bo;
} ccase;

static unsigned seed = 2024;

static void fill(void *p, clforge_dtype t, size_t n, float scale) {
  float *f = malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = scale * ((float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static void nan_fill(void *p, clforge_dtype t, size_t n) {
  float *f = malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = NAN;
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static clforge_conv2d_desc desc_of(const ccase *c, clforge_conv_algo algo) {
  clforge_conv2d_desc d = {.n = c->n, .c = c->c, .h = c->h, .w = c->w, .k = c->k, .r = c->r, .s = c->s,
                           .groups = c->groups, .stride_h = c->sh, .stride_w = c->sw, .dilation_h = c->dh,
                           .dilation_w = c->dw, .pad_top = c->pt, .pad_bottom = c->pb, .pad_left = c->pl,
                           .pad_right = c->pr, .x_layout = c->xl, .y_layout = c->yl, .w_layout = c->wl,
                           .x_type = c->xt, .w_type = c->wt, .y_type = c->yt, .bias_type = c->bt,
                           .x_offset = c->xo, .w_offset = c->wo, .y_offset = c->yo, .bias_offset = c->bo,
                           .alpha = c->alpha, .beta = c->beta, .activation = c->act, .algo = algo};
  if (c->alpha_zero) d.alpha = 0.0f, d.alpha_mode = CLFORGE_ALPHA_AS_GIVEN;
  return d;
}

static const char *describe(const ccase *c, char *buf, size_t cap) {
  snprintf(buf, cap,
           "n%zu c%zu %zux%zu k%zu %zux%zu g%zu s%zux%zu d%zux%zu pad(%zu,%zu,%zu,%zu) %s->%s %s %s*%s->%s bias%d/%s "
           "act%d a%g%s b%g off(%zu,%zu,%zu,%zu)",
           c->n, c->c, c->h, c->w, c->k, c->r, c->s, c->groups, c->sh, c->sw, c->dh, c->dw, c->pt, c->pb, c->pl, c->pr,
           c->xl ? "nhwc" : "nchw", c->yl ? "nhwc" : "nchw", c->wl ? "krsc" : "kcrs", clforge_dtype_name(c->xt),
           clforge_dtype_name(c->wt), clforge_dtype_name(c->yt), c->bias, clforge_dtype_name(c->bt), (int)c->act,
           (double)c->alpha, c->alpha_zero ? "(as given 0)" : "", (double)c->beta, c->xo, c->wo, c->yo, c->bo);
  return buf;
}

/* Element counts of the tensors (the shape's, without offsets). */
static void counts(const ccase *c, size_t *nx, size_t *nw, size_t *ny, size_t *p, size_t *q) {
  clforge_conv2d_desc d = desc_of(c, CLFORGE_CONV_ALGO_AUTO);
  clforge_conv2d_output_size(&d, p, q);
  *nx = c->n * c->c * c->h * c->w;
  *nw = c->k * (c->c / c->groups) * c->r * c->s;
  *ny = c->n * c->k * *p * *q;
}

/* What run_case does besides the plain call. */
typedef struct {
  cl_mem ws;        /* caller's workspace (clforge_conv2d_ex), or NULL */
  size_t ws_bytes;
  clforge_status want; /* the status expected (SUCCESS: then y is compared) */
} how;

/* One call of `algo` on c; 1 when it passed. */
static int run_case_how(clforge_context ctx, const ccase *c, clforge_conv_algo algo, const how *hw) {
  const char *only = getenv("CLFORGE_TEST_ONLY"); /* debugging: one algorithm's cases */
  if (only && strcmp(only, clforge_conv_algo_name(algo))) return 1;
  static int index; /* debugging: CLFORGE_TEST_CASE=i runs the i-th case only */
  const char *one = getenv("CLFORGE_TEST_CASE");
  if (one && atoi(one) != index++) return 1;
  char buf[512];
  size_t nx, nw, ny, p, q;
  counts(c, &nx, &nw, &ny, &p, &q);
  const size_t xs = clforge_dtype_size(c->xt), wsz = clforge_dtype_size(c->wt), ys = clforge_dtype_size(c->yt),
               bs = clforge_dtype_size(c->bt);
  const size_t xe = c->xo + nx, we = c->wo + nw, be = c->bo + c->k, ye = c->yo + ny + GUARD;
  unsigned char *hx = malloc(xe * xs), *hw_ = malloc(we * wsz), *hb = malloc(be * bs), *hy = malloc(ye * ys),
                *want = malloc(ye * ys), *got = malloc(ye * ys);
  fill(hx, c->xt, xe, 1.0f);
  fill(hw_, c->wt, we, 1.0f);
  fill(hb, c->bt, be, 1.0f);
  fill(hy, c->yt, ye, 1.0f); /* guards: random sentinels */
  if (c->beta == 0.0f) nan_fill(hy + c->yo * ys, c->yt, ny); /* y is not read: its NaN must not leak */
  if (c->alpha_zero) nan_fill(hx + c->xo * xs, c->xt, nx);   /* alpha 0: x does not count, even its NaN */
  memcpy(want, hy, ye * ys);
  clforge_conv2d_desc d = desc_of(c, algo);
  int ok = 1;
  if (getenv("CLFORGE_TEST_TRACE")) { /* which case a device checker's report belongs to */
    printf("case %s: %s\n", clforge_conv_algo_name(algo), describe(c, buf, sizeof buf));
    fflush(stdout);
  }
  if (clforge_ref_conv2d(&d, hx, hw_, c->bias ? hb : NULL, want) != CLFORGE_SUCCESS) {
    fprintf(stderr, "reference failed: %s\n", clforge_last_error(NULL));
    ok = 0;
  }
  cl_mem bx = tu_buffer(ctx, xe * xs), bw = tu_buffer(ctx, we * wsz), bb = tu_buffer(ctx, be * bs),
         by = tu_buffer(ctx, ye * ys);
  tu_write(ctx, bx, 0, xe * xs, hx);
  tu_write(ctx, bw, 0, we * wsz, hw_);
  tu_write(ctx, bb, 0, be * bs, hb);
  tu_write(ctx, by, 0, ye * ys, hy);
  cl_event ev = NULL;
  clforge_status st = hw ? clforge_conv2d_ex(ctx, &d, bx, bw, NULL, c->bias ? bb : NULL, by, hw->ws, hw->ws_bytes, 0,
                                             NULL, &ev)
                         : clforge_conv2d(ctx, &d, bx, bw, c->bias ? bb : NULL, by, 0, NULL, &ev);
  const clforge_status expect = hw ? hw->want : CLFORGE_SUCCESS;
  if (st != expect) {
    fprintf(stderr, "%s: %s -> %s (wanted %s): %s\n", clforge_conv_algo_name(algo), describe(c, buf, sizeof buf),
            clforge_status_name(st), clforge_status_name(expect), clforge_last_error(ctx));
    ok = 0;
  }
  if (ev) {
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
  }
  tu_read(ctx, by, 0, ye * ys, got);
  if (ok && expect != CLFORGE_SUCCESS) { /* a refused call leaves y untouched */
    if (memcmp(got, hy, ye * ys)) {
      fprintf(stderr, "%s: %s: refused, but y changed\n", clforge_conv_algo_name(algo), describe(c, buf, sizeof buf));
      ok = 0;
    }
  } else if (ok) {
    if (memcmp(got, hy, c->yo * ys) || memcmp(got + (c->yo + ny) * ys, hy + (c->yo + ny) * ys, GUARD * ys)) {
      fprintf(stderr, "%s: %s: a guard around y changed\n", clforge_conv_algo_name(algo), describe(c, buf, sizeof buf));
      ok = 0;
    }
    float *gf = malloc(ny * sizeof *gf), *wf = malloc(ny * sizeof *wf);
    clforge_ref_convert(ny, got + c->yo * ys, c->yt, gf, CLFORGE_F32);
    clforge_ref_convert(ny, want + c->yo * ys, c->yt, wf, CLFORGE_F32);
    clforge__error_stats es;
    clforge__compare_f32(ny, gf, wf, &es);
    if (!clforge__within_tolerance(&es, clforge__tolerance_for(c->yt))) {
      size_t i = clforge__worst_index(&es, clforge__tolerance_for(c->yt));
      fprintf(stderr, "%s: %s: nrmse %.3g max_abs %.3g specials %zu; y[%zu] = %g, want %g\n",
              clforge_conv_algo_name(algo), describe(c, buf, sizeof buf), es.nrmse, es.max_abs, es.special_mismatches,
              i, (double)gf[i], (double)wf[i]);
      ok = 0;
    }
    free(gf);
    free(wf);
  }
  keep_release(bx);
  keep_release(bw);
  keep_release(bb);
  keep_release(by);
  free(hx), free(hw_), free(hb), free(hy), free(want), free(got);
  return ok;
}

static int run_case(clforge_context ctx, const ccase *c, clforge_conv_algo algo) {
  return run_case_how(ctx, c, algo, NULL);
}

/* Storage types and epilogues in a few profiles: x, w, y, bias storage,
 * whether there is a bias, activation. Each distinct set builds its own
 * GEMM programs (per transposition and route), so the shapes and layouts
 * all run with profile 0 and each other profile on a few cases (main):
 * every storage type of each tensor, bias in each type and none, every
 * activation, each on both algorithms. */
static const conv_profile profiles[] = {
    {CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, 1, CLFORGE_ACT_NONE},
    {CLFORGE_F16, CLFORGE_F16, CLFORGE_F16, CLFORGE_F16, 1, CLFORGE_ACT_RELU},
    {CLFORGE_BF16, CLFORGE_BF16, CLFORGE_BF16, CLFORGE_BF16, 0, CLFORGE_ACT_GELU_TANH},
    {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16, CLFORGE_F32, 1, CLFORGE_ACT_GELU_ERF},
    {CLFORGE_BF16, CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16, 1, CLFORGE_ACT_NONE},
    {CLFORGE_F16, CLFORGE_BF16, CLFORGE_F32, CLFORGE_F16, 0, CLFORGE_ACT_NONE},
};
enum { NPROFILES = sizeof profiles / sizeof profiles[0] };

static void set_profile(ccase *c, int pr) { CONV_SET_PROFILE(c, profiles[pr]); }

/* The i-th variation of a shape, in profile 0: the x, y and filter layouts
 * are bits 0, 1 and 2 of i (8 consecutive variations hold every triple);
 * alpha/beta and offsets rotate with i as well. */
static ccase vary(ccase c, unsigned i) {
  c.xl = (clforge_tensor_layout)(i & 1);
  c.yl = (clforge_tensor_layout)((i >> 1) & 1);
  c.wl = (clforge_filter_layout)((i >> 2) & 1);
  set_profile(&c, 0);
  static const float alphas[] = {1.0f, 0.5f, -1.25f, 1.0f}, betas[] = {0.0f, 0.0f, 0.75f, -1.0f};
  c.alpha = alphas[(i / 2) % 4], c.beta = betas[i % 4];
  c.alpha_zero = i % 11 == 7;
  c.xo = (i % 4) * 3, c.wo = (i % 3) * 5, c.yo = (i % 5) * 2 + 1, c.bo = i % 7;
  return c;
}

/* Shapes gemm_1x1 can do: 1x1, stride 1, no padding (dilation ignored). */
static const ccase shapes_1x1[] = {
    {.n = 1, .c = 3, .h = 5, .w = 7, .k = 4, .r = 1, .s = 1, .groups = 1},
    {.n = 2, .c = 16, .h = 9, .w = 9, .k = 24, .r = 1, .s = 1, .groups = 1},
    {.n = 3, .c = 8, .h = 3, .w = 11, .k = 12, .r = 1, .s = 1, .groups = 2},
    {.n = 2, .c = 12, .h = 6, .w = 5, .k = 8, .r = 1, .s = 1, .groups = 4},
    {.n = 1, .c = 33, .h = 13, .w = 17, .k = 65, .r = 1, .s = 1, .groups = 1},
    {.n = 2, .c = 8, .h = 4, .w = 4, .k = 8, .r = 1, .s = 1, .groups = 8, .dh = 3, .dw = 2}, /* depthwise 1x1, dilation */
    {.n = 1, .c = 64, .h = 20, .w = 20, .k = 130, .r = 1, .s = 1, .groups = 1},              /* big enough to tile */
};
/* The shape whose GEMM is tiled (tiles and direct edges): its cases write
 * NHWC y, one tiled GEMM program for both algorithms (x NCHW still takes
 * gemm_1x1's packed route), since the transposition of a tiled GEMM is the
 * GEMM tests' matter; the small shapes run every layout. */
enum { BIG_1X1 = 6 };

/* Shapes for im2col: odd sizes, pads, strides, dilation, groups (main
 * shrinks the third for --small). */
static ccase shapes_any[] = {
    {.n = 1, .c = 3, .h = 7, .w = 6, .k = 5, .r = 3, .s = 3, .groups = 1, .pt = 1, .pb = 1, .pl = 1, .pr = 1},
    {.n = 2, .c = 4, .h = 9, .w = 11, .k = 6, .r = 3, .s = 2, .groups = 2, .sh = 2, .sw = 1, .pt = 1, .pb = 0, .pl = 2,
     .pr = 1},
    {.n = 3, .c = 8, .h = 10, .w = 9, .k = 8, .r = 3, .s = 3, .groups = 4, .dh = 2, .dw = 2, .pt = 2, .pb = 2, .pl = 2,
     .pr = 2},
    {.n = 2, .c = 5, .h = 12, .w = 13, .k = 7, .r = 5, .s = 4, .groups = 1, .sh = 3, .sw = 2, .dh = 1, .dw = 2, .pt = 3,
     .pb = 0, .pl = 1, .pr = 4},
    {.n = 1, .c = 16, .h = 14, .w = 14, .k = 32, .r = 3, .s = 3, .groups = 1, .pt = 1, .pb = 1, .pl = 1, .pr = 1},
    {.n = 2, .c = 6, .h = 8, .w = 8, .k = 4, .r = 1, .s = 1, .groups = 2},                      /* 1x1 too */
    {.n = 1, .c = 4, .h = 5, .w = 5, .k = 4, .r = 2, .s = 2, .groups = 4, .sh = 2, .sw = 2},    /* depthwise */
    {.n = 2, .c = 3, .h = 23, .w = 19, .k = 9, .r = 7, .s = 7, .groups = 1, .sh = 2, .sw = 2, .pt = 3, .pb = 3, .pl = 3,
     .pr = 3}, /* stem-like */
    {.n = 1, .c = 32, .h = 9, .w = 9, .k = 40, .r = 3, .s = 3, .groups = 2, .pt = 1, .pb = 1, .pl = 1, .pr = 1},
};

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  /* Oclgrind's false reports (tests/oclgrind_keep.h); --small's largest
   * scratch is 25 KB (im2col's pass of every image: they are small), and
   * each launch on Oclgrind costs with the size of its buffers (16 MiB
   * workspaces made this run several times slower). */
  if (small) keep_start_sized(ctx, (size_t)26 << 10);
  const size_t n1 = small ? 3 : sizeof shapes_1x1 / sizeof shapes_1x1[0];
  const size_t na = small ? 3 : sizeof shapes_any / sizeof shapes_any[0];
  const unsigned per = small ? 8 : 16; /* variations per shape (8 covers every layout triple) */
  /* --small: the dilated, padded, 4-group shape at a 6 x 5 output (a third
   * of the pixels, still a partial work-group of them; each launch is
   * simulated item by item) */
  if (small) shapes_any[2].h = 6, shapes_any[2].w = 5;

  /* gemm_1x1 and im2col on every 1x1 shape; im2col on the others. */
  size_t fails = 0, runs = 0;
  for (size_t i = 0; i < n1; ++i)
    for (unsigned v = 0; v < per; ++v) {
      ccase c = vary(shapes_1x1[i], v + (unsigned)i * 3);
      if (i == BIG_1X1) c.yl = CLFORGE_NHWC;
      fails += !run_case(ctx, &c, CLFORGE_CONV_ALGO_GEMM_1X1), ++runs;
      if (v % 2 == 0) fails += !run_case(ctx, &c, CLFORGE_CONV_ALGO_IM2COL), ++runs;
    }
  for (size_t i = 0; i < na; ++i)
    for (unsigned v = 0; v < per; ++v) {
      const ccase c = vary(shapes_any[i], v + (unsigned)i * 5);
      fails += !run_case(ctx, &c, CLFORGE_CONV_ALGO_IM2COL), ++runs;
    }
  /* The other profiles on both algorithms with y NHWC, where the two share
   * one GEMM program (A = x or its column matrix, B = w); y NCHW swaps the
   * GEMM's operands (A = w): profile 5 (mixed types, no activation: a
   * cheap compile) runs it on both. Groups 2 (without bias: one GEMM
   * batched over the groups); x NHWC for gemm_1x1 (its usual route; NCHW x
   * takes the packed one, profile 0's). */
  {
    static const struct {
      int profile;
      clforge_tensor_layout yl;
      clforge_conv_algo algo;
    } pcases[] = {
        {1, CLFORGE_NHWC, CLFORGE_CONV_ALGO_GEMM_1X1}, {1, CLFORGE_NHWC, CLFORGE_CONV_ALGO_IM2COL},
        {2, CLFORGE_NHWC, CLFORGE_CONV_ALGO_GEMM_1X1}, {2, CLFORGE_NHWC, CLFORGE_CONV_ALGO_IM2COL},
        {3, CLFORGE_NHWC, CLFORGE_CONV_ALGO_GEMM_1X1}, {3, CLFORGE_NHWC, CLFORGE_CONV_ALGO_IM2COL},
        {4, CLFORGE_NHWC, CLFORGE_CONV_ALGO_GEMM_1X1}, {4, CLFORGE_NHWC, CLFORGE_CONV_ALGO_IM2COL},
        {5, CLFORGE_NHWC, CLFORGE_CONV_ALGO_GEMM_1X1}, {5, CLFORGE_NHWC, CLFORGE_CONV_ALGO_IM2COL},
        {5, CLFORGE_NCHW, CLFORGE_CONV_ALGO_GEMM_1X1}, {5, CLFORGE_NCHW, CLFORGE_CONV_ALGO_IM2COL},
    };
    for (unsigned i = 0; i < sizeof pcases / sizeof pcases[0]; ++i) {
      const int one = pcases[i].algo == CLFORGE_CONV_ALGO_GEMM_1X1;
      ccase c = vary(one ? shapes_1x1[2] : shapes_any[1], 3 * i + 1);
      if (one) c.xl = CLFORGE_NHWC;
      c.yl = pcases[i].yl;
      c.wl = (clforge_filter_layout)(c.xt == CLFORGE_BF16); /* one im2col program per x type and y layout */
      set_profile(&c, pcases[i].profile);
      fails += !run_case(ctx, &c, pcases[i].algo), ++runs;
    }
  }
  CHECK(fails == 0, "%zu of %zu cases failed", fails, runs);

  /* gemm_1x1 refuses what is not a plain 1x1. */
  {
    const ccase base = vary(shapes_1x1[1], 0);
    ccase c = base;
    c.r = c.s = 3;
    clforge_conv2d_desc d = desc_of(&c, CLFORGE_CONV_ALGO_GEMM_1X1);
    cl_mem b = tu_buffer(ctx, 1 << 20), b2 = tu_buffer(ctx, 1 << 20), b3 = tu_buffer(ctx, 1 << 20);
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, b, b2, NULL, b3, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "1x1 filter");
    c = base, c.sh = 2;
    d = desc_of(&c, CLFORGE_CONV_ALGO_GEMM_1X1);
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, b, b2, NULL, b3, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "stride 1");
    c = base, c.pl = 1;
    d = desc_of(&c, CLFORGE_CONV_ALGO_GEMM_1X1);
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, b, b2, NULL, b3, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "no padding");
    keep_release(b), keep_release(b2), keep_release(b3);
  }

  /* Every GEMM route through PATH (0 usual, 1 tiled, 2 direct, 3 packed).
   * The layouts are those whose default route the shape's cases above run
   * already on the same GEMM programs: NHWC x for gemm_1x1's usual route,
   * NCHW x (y NCHW for im2col) for the packed one. */
  {
    static const char *const paths[] = {"0", "1", "2", "3"};
    static const unsigned var_1x1[] = {11, 15, 3, 14}, var_any[] = {9, 10, 11, 12};
    size_t pf = 0;
    for (int r = 0; r < 4; ++r) {
      char spec[96];
      snprintf(spec, sizeof spec, "conv_gemm_1x1:PATH=%s;conv_im2col:PATH=%s", paths[r], paths[r]);
      CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
      ccase c = vary(shapes_1x1[small ? 1 : 6], var_1x1[r]);
      pf += !run_case(ctx, &c, CLFORGE_CONV_ALGO_GEMM_1X1);
      c = vary(shapes_any[small ? 0 : 4], var_any[r]);
      pf += !run_case(ctx, &c, CLFORGE_CONV_ALGO_IM2COL);
    }
    CHECK(pf == 0, "%zu route cases failed", pf);
    CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
  }

  /* im2col's parameters: every VW and work-group size, with CHUNK 1. */
  {
    size_t vf = 0;
    static const int vws[] = {1, 2, 4, 8, 16}, wgs[] = {4, 16, 64, 256};
    for (int i = 0; i < 5; ++i) {
      char spec[96];
      snprintf(spec, sizeof spec, "conv_im2col:VW=%d,WG=%d,CHUNK=1", vws[i], wgs[i % 4]);
      CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
      ccase c = vary(shapes_any[(size_t)i % na], 3 + (unsigned)i);
      vf += !run_case(ctx, &c, CLFORGE_CONV_ALGO_IM2COL);
      if (small && i == 2) break;
    }
    CHECK(vf == 0, "%zu parameter cases failed", vf);
    CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
  }

  /* Small workspace bounds: passes of images, then pixel ranges of one
   * image; the workspace asked for stays within the bound. --small: 2
   * images (a pass each under the first bound), a 2 x 3 output and 2 groups
   * (every pass is a launch of im2col and one GEMM per group, each of them
   * slow on a simulator). */
  {
    ccase shape = shapes_any[2]; /* n 3, groups 4 */
    if (small) shape.n = 2, shape.h = 2, shape.w = 3, shape.groups = 2;
    const ccase base = vary(shape, 1);
    size_t nx, nw, ny, p, q;
    counts(&base, &nx, &nw, &ny, &p, &q);
    /* a row of the column matrix in f32 (the largest storage type) */
    const size_t line = base.r * base.s * base.c * 4, image = p * q * line;
    const size_t caps[] = {image + line, image - 1, 5 * line + 3, line};
    size_t cf = 0;
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; ++i) {
      ctx->workspace.cap = caps[i];
      for (unsigned v = 0; v < (small ? 2u : 4u); ++v) {
        ccase c = vary(shape, 1 + v * 2);
        size_t bytes = 0;
        clforge_conv2d_desc d = desc_of(&c, CLFORGE_CONV_ALGO_IM2COL);
        CHECK_OK(ctx, clforge_conv2d_workspace_size(ctx, &d, &bytes));
        CHECK(bytes > 0 && bytes <= caps[i], "cap %zu: im2col asks for %zu bytes", caps[i], bytes);
        cf += !run_case(ctx, &c, CLFORGE_CONV_ALGO_IM2COL);
      }
    }
    ctx->workspace.cap = line / 4 * clforge_dtype_size(base.xt) - 1; /* not even one row fits */
    {
      clforge_conv2d_desc d = desc_of(&base, CLFORGE_CONV_ALGO_IM2COL);
      cl_mem b = tu_buffer(ctx, 1 << 16), b2 = tu_buffer(ctx, 1 << 16), b3 = tu_buffer(ctx, 1 << 16);
      CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, b, b2, NULL, b3, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "workspace bound");
      keep_release(b), keep_release(b2), keep_release(b3);
    }
    ctx->workspace.cap = 0;
    CHECK(cf == 0, "%zu bounded-workspace cases failed", cf);
  }

  /* A caller's workspace: enough (and more) works, too small is refused
   * with y untouched. */
  {
    const ccase c = vary(shapes_any[1], 6);
    clforge_conv2d_desc d = desc_of(&c, CLFORGE_CONV_ALGO_IM2COL);
    size_t bytes = 0;
    CHECK_OK(ctx, clforge_conv2d_workspace_size(ctx, &d, &bytes));
    cl_mem ws = tu_buffer(ctx, bytes + 64);
    how ok_exact = {ws, bytes, CLFORGE_SUCCESS}, ok_more = {ws, bytes + 64, CLFORGE_SUCCESS},
        small_ws = {ws, bytes - 1, CLFORGE_BUFFER_TOO_SMALL};
    CHECK(run_case_how(ctx, &c, CLFORGE_CONV_ALGO_IM2COL, &ok_exact), "caller's workspace of %zu bytes", bytes);
    CHECK(run_case_how(ctx, &c, CLFORGE_CONV_ALGO_IM2COL, &ok_more), "caller's workspace of %zu bytes", bytes + 64);
    CHECK(run_case_how(ctx, &c, CLFORGE_CONV_ALGO_IM2COL, &small_ws), "caller's workspace of %zu bytes", bytes - 1);
    /* gemm_1x1 needs none: a caller's workspace is fine, and none is asked for */
    const ccase c1 = vary(shapes_1x1[2], 3);
    d = desc_of(&c1, CLFORGE_CONV_ALGO_GEMM_1X1);
    CHECK_OK(ctx, clforge_conv2d_workspace_size(ctx, &d, &bytes));
    CHECK(bytes == 0, "gemm_1x1 asks for %zu bytes of workspace", bytes);
    CHECK(run_case_how(ctx, &c1, CLFORGE_CONV_ALGO_GEMM_1X1, &ok_exact), "gemm_1x1 with a caller's workspace");
    keep_release(ws);
  }

  /* Explain: the family first, then the GEMM's kernels (packed route: one
   * gemm_packed choice). */
  {
    const ccase c = vary(shapes_1x1[1], 0);
    clforge_conv2d_desc d = desc_of(&c, CLFORGE_CONV_ALGO_GEMM_1X1);
    clforge_conv_choice ch;
    CHECK_OK(ctx, clforge_context_set_params(ctx, "conv_gemm_1x1:PATH=3;conv_im2col:PATH=3"));
    CHECK_OK(ctx, clforge_conv2d_explain(ctx, &d, &ch));
    CHECK(ch.algo == CLFORGE_CONV_ALGO_GEMM_1X1 && ch.nkernels == 2 && !strcmp(ch.kernels[0].family, "conv_gemm_1x1") &&
              !strcmp(ch.kernels[1].family, "gemm_packed") && ch.workspace_bytes == 0,
          "gemm_1x1 explain: %d kernels, %s, %s", ch.nkernels, ch.kernels[0].family,
          ch.nkernels > 1 ? ch.kernels[1].family : "-");
    const ccase c2 = vary(shapes_any[4], 0);
    d = desc_of(&c2, CLFORGE_CONV_ALGO_IM2COL);
    CHECK_OK(ctx, clforge_conv2d_explain(ctx, &d, &ch));
    CHECK(ch.algo == CLFORGE_CONV_ALGO_IM2COL && ch.nkernels == 2 && !strcmp(ch.kernels[0].family, "conv_im2col") &&
              !strcmp(ch.kernels[1].family, "gemm_packed") && ch.workspace_bytes > 0,
          "im2col explain: %d kernels, %s, %s", ch.nkernels, ch.kernels[0].family,
          ch.nkernels > 1 ? ch.kernels[1].family : "-");
    /* PATH 0, the GEMM's usual route: a small GEMM runs the direct kernel */
    CHECK_OK(ctx, clforge_context_set_params(ctx, "conv_gemm_1x1:PATH=0"));
    const ccase c3 = vary(shapes_1x1[0], 0);
    d = desc_of(&c3, CLFORGE_CONV_ALGO_GEMM_1X1);
    CHECK_OK(ctx, clforge_conv2d_explain(ctx, &d, &ch));
    CHECK(ch.nkernels == 2 && !strcmp(ch.kernels[1].family, "gemm_direct"), "small 1x1 explain: %d kernels, %s",
          ch.nkernels, ch.nkernels > 1 ? ch.kernels[1].family : "-");
    CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
  }

  /* Prepared weights: both read the filter as given (a tight copy), the
   * call's result is the same as with w. Profile 1 (16-bit weights), y and
   * x NHWC: the GEMM programs of profile 1's cases. */
  {
    const clforge_conv_algo algos[2] = {CLFORGE_CONV_ALGO_GEMM_1X1, CLFORGE_CONV_ALGO_IM2COL};
    ccase cs[2] = {vary(shapes_1x1[2], 5), vary(shapes_any[1], 5)};
    for (int a = 0; a < 2; ++a) {
      ccase *c = &cs[a];
      c->xl = c->yl = CLFORGE_NHWC, c->wl = CLFORGE_KCRS;
      set_profile(c, 1);
      size_t nx, nw, ny, p, q;
      counts(c, &nx, &nw, &ny, &p, &q);
      const size_t xs = clforge_dtype_size(c->xt), wsz = clforge_dtype_size(c->wt), ys = clforge_dtype_size(c->yt),
                   bs = clforge_dtype_size(c->bt);
      clforge_conv2d_desc d = desc_of(c, algos[a]);
      d.beta = 0.0f, d.y_offset = 0;
      unsigned char *hx = malloc((c->xo + nx) * xs), *hw_ = malloc((c->wo + nw) * wsz), *hb = malloc((c->bo + c->k) * bs),
                    *y1 = malloc(ny * ys), *y2 = malloc(ny * ys);
      fill(hx, c->xt, c->xo + nx, 1.0f);
      fill(hw_, c->wt, c->wo + nw, 1.0f);
      fill(hb, c->bt, c->bo + c->k, 1.0f);
      cl_mem bx = tu_buffer(ctx, (c->xo + nx) * xs), bw = tu_buffer(ctx, (c->wo + nw) * wsz),
             bb = tu_buffer(ctx, (c->bo + c->k) * bs), by = tu_buffer(ctx, ny * ys);
      tu_write(ctx, bx, 0, (c->xo + nx) * xs, hx);
      tu_write(ctx, bw, 0, (c->wo + nw) * wsz, hw_);
      tu_write(ctx, bb, 0, (c->bo + c->k) * bs, hb);
      clforge_conv2d_weights pw = NULL;
      clforge_conv_algo got = CLFORGE_CONV_ALGO_AUTO;
      CHECK_OK(ctx, clforge_conv2d(ctx, &d, bx, bw, bb, by, 0, NULL, NULL));
      tu_read(ctx, by, 0, ny * ys, y1);
      CHECK_OK(ctx, clforge_conv2d_weights_create(ctx, &d, bw, 0, NULL, &pw));
      CHECK_OK(ctx, clforge_conv2d_weights_algo(pw, &got));
      CHECK(got == algos[a], "weights for %s", clforge_conv_algo_name(got));
      CHECK_OK(ctx, clforge_conv2d_ex(ctx, &d, bx, NULL, pw, bb, by, NULL, 0, 0, NULL, NULL));
      tu_read(ctx, by, 0, ny * ys, y2);
      CHECK(!memcmp(y1, y2, ny * ys), "%s: prepared weights give another result", clforge_conv_algo_name(algos[a]));
      keep_release_weights(ctx, pw);
      keep_release(bx), keep_release(bw), keep_release(bb), keep_release(by);
      free(hx), free(hw_), free(hb), free(y1), free(y2);
    }
  }

  /* The automatic choice takes gemm_1x1 for a plain 1x1. */
  {
    const ccase c = vary(shapes_1x1[1], 0);
    clforge_conv2d_desc d = desc_of(&c, CLFORGE_CONV_ALGO_AUTO);
    clforge_conv_choice ch;
    CHECK_OK(ctx, clforge_conv2d_explain(ctx, &d, &ch));
    CHECK(ch.algo == CLFORGE_CONV_ALGO_GEMM_1X1, "auto chose %s (%s)", clforge_conv_algo_name(ch.algo), ch.why);
  }

  keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
