/* Winograd convolution F(2x2,3x3) and F(4x4,3x3) (desc.algo forces each)
 * against clforge_ref_conv2d: odd sizes whose tiles do not divide P and Q,
 * symmetric and asymmetric padding, batches, groups, channel counts off the
 * vector widths, every layout and storage type, bias, activations,
 * alpha/beta corners (alpha 0 must not read x, beta 0 must not read y: both
 * hold NaN then), guard regions around y, prepared weights reused across
 * calls, a small workspace bound forcing several tile passes, both GEMM
 * routes, and the refusal of other filters. The error bound asserted is the
 * one derived in src/ops/conv_winograd.c; the largest measured ratio to it
 * and clforge__validate's statistics (f32) are printed.
 * --small: a short run for Oclgrind. */
#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "../src/ref/compare.h"
#include "conv_profile.h"
#include "oclgrind_keep.h"
#include "test_util.h"

static int small;
static double worst_ratio[2];   /* largest |err| / bound seen, per tile size */
static double worst_nrmse[2], worst_scaled[2]; /* f32 y: clforge__validate's measures */

typedef struct wcase {
  size_t n, c, h, w, k, groups, pt, pb, pl, pr;
  clforge_tensor_layout xl, yl;
  clforge_filter_layout wl;
  clforge_dtype xt, wt, yt, bt;
  int bias, act;
  float alpha, beta;
  int alpha_as_given;
  clforge_conv_algo algo;
  int prepared;           /* calls through clforge_conv2d_weights (run twice) */
  size_t ws_cap;          /* context workspace bound for the call (0: default) */
} wcase;

static float round_to(float v, clforge_dtype t) {
  if (t == CLFORGE_F16) return clforge_ref_f16_to_f32(clforge_ref_f32_to_f16(v));
  if (t == CLFORGE_BF16) return clforge_ref_bf16_to_f32(clforge_ref_f32_to_bf16(v));
  return v;
}

/* n floats (already representable in t) as t's storage. */
static void *to_storage(const float *f, size_t n, clforge_dtype t) {
  void *out = malloc(n * clforge_dtype_size(t) + 4);
  clforge_ref_convert(n, f, CLFORGE_F32, out, t);
  return out;
}

static void fill(float *f, size_t n, clforge_dtype t, unsigned *seed) {
  for (size_t i = 0; i < n; ++i) f[i] = round_to((float)((int)(tu_rand(seed) % 2001) - 1000) / 1000.0f, t);
}

static double unit_roundoff(clforge_dtype t) {
  return t == CLFORGE_F16 ? ldexp(1, -11) : t == CLFORGE_BF16 ? ldexp(1, -8) : 0.0;
}

static const char *dt(clforge_dtype t) { return t == CLFORGE_F16 ? "f16" : t == CLFORGE_BF16 ? "bf16" : "f32"; }

enum { GUARD = 37 };


static int run_case(clforge_context ctx, const wcase *c0) {
  const int fails0 = tu_failed;
  wcase cc = *c0; /* 0 types are f32 */
  const wcase *c = &cc;
  clforge_dtype *ts[4] = {&cc.xt, &cc.wt, &cc.yt, &cc.bt};
  for (int i = 0; i < 4; ++i)
    if (!*ts[i]) *ts[i] = CLFORGE_F32;
  if (getenv("TEST_CONV_VERBOSE")) /* which case a checking device's report belongs to */
    fprintf(stderr, "case %s n=%zu c=%zu h=%zu w=%zu k=%zu groups=%zu ws_cap=%zu prepared=%d\n",
            clforge_conv_algo_name(c->algo), c->n, c->c, c->h, c->w, c->k, c->groups, c->ws_cap, c->prepared);
  clforge_conv2d_desc d = {.n = c->n, .c = c->c, .h = c->h, .w = c->w, .k = c->k, .r = 3, .s = 3,
                           .groups = c->groups, .pad_top = c->pt, .pad_bottom = c->pb, .pad_left = c->pl,
                           .pad_right = c->pr, .x_layout = c->xl, .y_layout = c->yl, .w_layout = c->wl,
                           .x_type = c->xt, .w_type = c->wt, .y_type = c->yt, .bias_type = c->bt,
                           .x_offset = 3, .w_offset = 5, .y_offset = GUARD, .bias_offset = 2,
                           .alpha = c->alpha, .beta = c->beta, .activation = (clforge_activation)c->act,
                           .algo = c->algo};
  if (c->alpha_as_given) d.alpha_mode = CLFORGE_ALPHA_AS_GIVEN;
  size_t p, q;
  CHECK_OK(NULL, clforge_conv2d_output_size(&d, &p, &q));
  const size_t g = c->groups ? c->groups : 1;
  const size_t xn = 3 + c->n * c->c * c->h * c->w, wn = 5 + c->k * (c->c / g) * 9, yc = c->n * c->k * p * q;
  const size_t yn = GUARD + yc + GUARD, bn = 2 + c->k;
  unsigned seed = (unsigned)(c->n * 131 + c->c * 17 + c->h * 7 + c->k * 3 + c->w + 1);
  float *xf = malloc(xn * 4), *wf = malloc(wn * 4), *yf = malloc(yn * 4), *bf = malloc(bn * 4);
  fill(xf, xn, c->xt, &seed), fill(wf, wn, c->wt, &seed), fill(yf, yn, c->yt, &seed), fill(bf, bn, c->bt, &seed);
  const int alpha_zero = c->alpha_as_given && c->alpha == 0.0f;
  if (alpha_zero)
    for (size_t i = 3; i < xn; ++i) xf[i] = NAN; /* x does not count */
  if (c->beta == 0.0f)
    for (size_t i = GUARD; i < GUARD + yc; ++i) yf[i] = NAN; /* y is not read */
  void *xs = to_storage(xf, xn, c->xt), *ws = to_storage(wf, wn, c->wt), *ys = to_storage(yf, yn, c->yt),
       *bs = to_storage(bf, bn, c->bt), *ref = to_storage(yf, yn, c->yt);
  const size_t xe = clforge_dtype_size(c->xt), we = clforge_dtype_size(c->wt), ye = clforge_dtype_size(c->yt),
               be = clforge_dtype_size(c->bt);
  cl_mem xb = tu_buffer(ctx, xn * xe), wb = tu_buffer(ctx, wn * we), yb = tu_buffer(ctx, yn * ye),
         bb = tu_buffer(ctx, bn * be);
  tu_write(ctx, xb, 0, xn * xe, xs), tu_write(ctx, wb, 0, wn * we, ws), tu_write(ctx, yb, 0, yn * ye, ys);
  tu_write(ctx, bb, 0, bn * be, bs);

  /* The reference, and the bound's scale: sum |x||w| per output (the same
   * convolution on absolute values in f32, double accumulation). */
  CHECK_OK(NULL, clforge_ref_conv2d(&d, xs, ws, c->bias ? bs : NULL, ref));
  float *xa = malloc(xn * 4), *wa = malloc(wn * 4), *sa = calloc(yn, 4);
  for (size_t i = 0; i < xn; ++i) xa[i] = alpha_zero ? 0.0f : fabsf(xf[i]);
  for (size_t i = 0; i < wn; ++i) wa[i] = fabsf(wf[i]);
  clforge_conv2d_desc da = d;
  da.x_type = da.w_type = da.y_type = CLFORGE_F32, da.alpha = 1.0f, da.beta = 0.0f, da.activation = CLFORGE_ACT_NONE;
  da.alpha_mode = 0;
  CHECK_OK(NULL, clforge_ref_conv2d(&da, xa, wa, NULL, sa));

  size_t saved_cap = ctx->workspace.cap;
  if (c->ws_cap) ctx->workspace.cap = c->ws_cap;
  clforge_conv2d_weights pw = NULL;
  if (c->prepared) CHECK_OK(ctx, clforge_conv2d_weights_create(ctx, &d, wb, 0, NULL, &pw));
  const int calls = c->prepared ? 2 : 1;
  for (int call = 0; call < calls && tu_failed == fails0; ++call) {
    if (call) tu_write(ctx, yb, 0, yn * ye, ys); /* the same y again: beta reads it */
    clforge_status st = pw ? clforge_conv2d_ex(ctx, &d, xb, NULL, pw, c->bias ? bb : NULL, yb, NULL, 0, 0, NULL, NULL)
                           : clforge_conv2d(ctx, &d, xb, wb, c->bias ? bb : NULL, yb, 0, NULL, NULL);
    CHECK(st == CLFORGE_SUCCESS, "conv2d -> %s: %s", clforge_status_name(st), clforge_last_error(ctx));
    if (st != CLFORGE_SUCCESS) break;
    void *got = malloc(yn * ye);
    tu_read(ctx, yb, 0, yn * ye, got);
    float *gf = malloc(yn * 4), *rf = malloc(yn * 4);
    clforge_ref_convert(yn, got, c->yt, gf, CLFORGE_F32);
    clforge_ref_convert(yn, ref, c->yt, rf, CLFORGE_F32);
    CHECK(!memcmp(got, ys, GUARD * ye) && !memcmp((char *)got + (GUARD + yc) * ye, (char *)ys + (GUARD + yc) * ye,
                                                  GUARD * ye),
          "guard region around y changed");
    /* The bound (src/ops/conv_winograd.c). */
    const int m4 = c->algo == CLFORGE_CONV_ALGO_WINOGRAD_4X4;
    const double tau = (m4 ? 2 * 256.0 : 2 * 7.12) * sqrt((double)(c->c / g) + 14) * ldexp(1, -24);
    const double uy = unit_roundoff(c->yt);
    const float alpha = c->alpha_as_given || c->alpha != 0.0f ? c->alpha : 1.0f;
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t i = GUARD; i < GUARD + yc; ++i) {
      /* bias and y of this element: indices from the layout */
      size_t kk;
      const size_t e = i - GUARD;
      if (c->yl == CLFORGE_NCHW) kk = (e / (p * q)) % c->k;
      else kk = e % c->k;
      double s = fabs(alpha) * sa[i] + (c->bias ? fabs(bf[2 + kk]) : 0) + (c->beta != 0 ? fabs(c->beta * yf[i]) : 0);
      double bound = 1.2 * (tau + uy) * s + 2 * uy * fabs(rf[i]) + 1e-30;
      double err = fabs((double)gf[i] - rf[i]);
      if (!(err <= bound)) {
        if (!bad) first = i;
        ++bad;
      }
      if (err / bound > worst) worst = err / bound;
    }
    if (worst > worst_ratio[m4]) worst_ratio[m4] = worst;
    if (c->yt == CLFORGE_F32 && !alpha_zero) {
      clforge__error_stats es;
      clforge__compare_f32(yc, gf + GUARD, rf + GUARD, &es);
      if (es.nrmse > worst_nrmse[m4]) worst_nrmse[m4] = es.nrmse;
      double sc = es.max_want > 0 ? es.max_abs / es.max_want : es.max_abs;
      if (sc > worst_scaled[m4]) worst_scaled[m4] = sc;
    }
    CHECK(!bad, "%zu of %zu outputs beyond the bound, first y[%zu] = %g, want %g", bad, yc, first - GUARD,
          gf[first], rf[first]);
    free(got), free(gf), free(rf);
  }
  if (tu_failed != fails0)
    fprintf(stderr,
            "  case: %s n=%zu c=%zu h=%zu w=%zu k=%zu groups=%zu pad=%zu,%zu,%zu,%zu %s/%s/%s x=%s w=%s y=%s bias=%d "
            "act=%d alpha=%g beta=%g prepared=%d ws_cap=%zu\n",
            clforge_conv_algo_name(c->algo), c->n, c->c, c->h, c->w, c->k, g, c->pt, c->pb, c->pl, c->pr,
            c->xl ? "nhwc" : "nchw", c->yl ? "nhwc" : "nchw", c->wl ? "krsc" : "kcrs", dt(c->xt), dt(c->wt),
            dt(c->yt), c->bias, c->act, c->alpha, c->beta, c->prepared, c->ws_cap);
  if (pw) keep_release_weights(ctx, pw);
  ctx->workspace.cap = saved_cap;
  keep_release(xb), keep_release(wb), keep_release(yb), keep_release(bb);
  free(xf), free(wf), free(yf), free(bf), free(xs), free(ws), free(ys), free(bs), free(ref), free(xa), free(wa),
      free(sa);
  return tu_failed == fails0;
}

static const clforge_conv_algo algos[2] = {CLFORGE_CONV_ALGO_WINOGRAD_2X2, CLFORGE_CONV_ALGO_WINOGRAD_4X4};

/* The storage types and epilogues of the cases. Each set is a program of
 * its own per tile size (and VW), so there are few: together they hold
 * every storage type of x, of w and of y, bias in each type and none, and
 * every activation, and each runs on both tile sizes. A tensor's type only
 * changes that tensor's loads or stores (the transforms and the GEMM run
 * in f32), so each type per tensor, not each mix, is what they cover. */
static const conv_profile profiles[] = {
    {CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, 1, CLFORGE_ACT_NONE}, /* the corners' and parameters' */
    {CLFORGE_F16, CLFORGE_BF16, CLFORGE_F32, CLFORGE_BF16, 1, CLFORGE_ACT_RELU},
    {CLFORGE_BF16, CLFORGE_F16, CLFORGE_F16, CLFORGE_F16, 1, CLFORGE_ACT_GELU_TANH},
    {CLFORGE_F32, CLFORGE_F32, CLFORGE_BF16, CLFORGE_F32, 0, CLFORGE_ACT_GELU_ERF},
};
enum { NPROFILES = sizeof profiles / sizeof profiles[0] };

static void set_profile(wcase *c, int p) { CONV_SET_PROFILE(c, profiles[p]); }

/* Sizes 1..17 with every padding; case i has tile size i & 1, profile
 * (i >> 1) % 4 and the x, y and filter layouts of bits 3, 4 and 5, so the
 * 64 cases hold each combination once. --small runs 6 of them: both tile
 * sizes, every profile and both values of each layout (and groups, alpha,
 * beta and prepared weights once). */
static void sweep(clforge_context ctx) {
  static const int small_cases[] = {0, 59, 12, 55, 34, 29};
  unsigned seed = 12345;
  const int cases = small ? (int)(sizeof small_cases / sizeof small_cases[0]) : 64;
  for (int n = 0; n < cases; ++n) {
    const int i = small ? small_cases[n] : n;
    wcase c = {0};
    c.algo = algos[i & 1];
    c.n = 1 + tu_rand(&seed) % 3;
    c.h = 1 + tu_rand(&seed) % 17, c.w = 1 + tu_rand(&seed) % 17;
    if (small) c.h = 1 + tu_rand(&seed) % 9, c.w = 1 + tu_rand(&seed) % 9;
    c.pt = tu_rand(&seed) % 3, c.pb = tu_rand(&seed) % 3, c.pl = tu_rand(&seed) % 3, c.pr = tu_rand(&seed) % 3;
    if (c.h + c.pt + c.pb < 3) c.pb += 3 - (c.h + c.pt + c.pb);
    if (c.w + c.pl + c.pr < 3) c.pr += 3 - (c.w + c.pl + c.pr);
    c.groups = (i % 7 == 3) ? 2 : 1;
    c.c = c.groups * (1 + tu_rand(&seed) % (small ? 5 : 19));
    c.k = c.groups * (1 + tu_rand(&seed) % (small ? 5 : 21));
    set_profile(&c, (i >> 1) % NPROFILES);
    c.xl = (clforge_tensor_layout)((i >> 3) & 1), c.yl = (clforge_tensor_layout)((i >> 4) & 1);
    c.wl = (clforge_filter_layout)((i >> 5) & 1);
    c.alpha = (i % 5 == 2) ? -0.75f : 1.0f;
    c.beta = (i % 4 == 1) ? 0.5f : 0.0f;
    c.prepared = i % 6 == 5;
    run_case(ctx, &c);
  }
}

/* Corners: alpha 0 (x NaN), beta 0 (y NaN), prepared weights, passes
 * (profile 0 unless said). */
static void corners(clforge_context ctx) {
  for (int a = 0; a < 2; ++a) {
    wcase base = {.n = 2, .c = 5, .h = 9, .w = 11, .k = 7, .pt = 1, .pb = 1, .pl = 1, .pr = 1, .bias = 1,
                  .alpha = 1.0f, .algo = algos[a]};
    wcase c = base;
    c.alpha_as_given = 1, c.alpha = 0.0f, c.beta = 0.5f;
    run_case(ctx, &c); /* alpha 0: bias + beta*y only, x never read */
    c = base, c.beta = 1.0f;
    set_profile(&c, 1); /* relu, 16-bit x and w */
    run_case(ctx, &c);
    c = base, c.prepared = 1, c.beta = 0.25f, c.xl = CLFORGE_NHWC;
    run_case(ctx, &c); /* the transformed filter serves two calls */
    /* A bound holding a few tiles: several passes, the last one partial
     * (60 tiles for 2x2, 18 for 4x4; --small: two passes, each is three
     * launches, slow on a simulator). */
    const size_t t = a ? 36 : 16, tiles_fit = small ? (a ? 16 : 32) : 5;
    for (int l = 0; l < 4; ++l) {
      c = base, c.xl = (clforge_tensor_layout)(l & 1), c.yl = (clforge_tensor_layout)(l >> 1);
      c.ws_cap = (t * base.c * base.k + tiles_fit * t * (base.c + base.k)) * 4 + 8;
      c.prepared = l == 3;
      run_case(ctx, &c);
    }
    c = base, c.pt = 0, c.pb = 2, c.pl = 2, c.pr = 0, c.groups = 1, c.c = 16, c.k = 17, c.n = 1;
    set_profile(&c, 1); /* f16 x, bf16 w */
    run_case(ctx, &c);
  }
}

/* Every GEMM route, vector width, work-group size, and passes of PASS tiles. */
static void params(clforge_context ctx) {
  const char *specs[] = {"conv_winograd_2x2:PATH=3,VW=16,WG=16;conv_winograd_4x4:PATH=3,VW=4,WG=16",
                         "conv_winograd_2x2:PATH=1,VW=8,WG=8,PASS=64;conv_winograd_4x4:PATH=2,VW=8,WG=32,PASS=64",
                         "conv_winograd_2x2:PATH=0,VW=4,WG=1;conv_winograd_4x4:PATH=0,VW=16,WG=4,PASS=1024"};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; ++s) {
    CHECK_OK(ctx, clforge_context_set_params(ctx, specs[s]));
    for (int a = 0; a < 2; ++a)
      for (int l = 0; l < 2; ++l) {
        wcase c = {.n = 2, .c = small ? 8 : 33, .h = small ? 7 : 21, .w = small ? 6 : 19, .k = small ? 9 : 40,
                   .pt = 1, .pb = 1, .pl = 1, .pr = 1, .bias = 1, .alpha = 1.0f, .algo = algos[a],
                   .xl = (clforge_tensor_layout)l, .yl = (clforge_tensor_layout)l, .beta = 0.5f};
        run_case(ctx, &c);
      }
  }
  CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
}

/* What Winograd cannot do fails with the reason; explain names the GEMM. */
static void refusals(clforge_context ctx) {
  cl_mem b = tu_buffer(ctx, 1 << 16), y = tu_buffer(ctx, 1 << 14);
  for (int a = 0; a < 2; ++a) {
    clforge_conv2d_desc d = {.n = 1, .c = 4, .h = 12, .w = 12, .k = 4, .r = 5, .s = 5, .algo = algos[a]};
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, b, b, NULL, y, 0, NULL, NULL), CLFORGE_UNSUPPORTED,
                "3x3 filter");
    d.r = d.s = 3, d.stride_h = d.stride_w = 2;
    clforge_conv_choice ch;
    CHECK_FAILS(ctx, clforge_conv2d_explain(ctx, &d, &ch), CLFORGE_UNSUPPORTED, "stride 1");
    d.stride_h = d.stride_w = 1, d.dilation_h = d.dilation_w = 2;
    CHECK_FAILS(ctx, clforge_conv2d_explain(ctx, &d, &ch), CLFORGE_UNSUPPORTED, "dilation 1");
    d.dilation_h = d.dilation_w = 1;
    CHECK_OK(ctx, clforge_conv2d_explain(ctx, &d, &ch));
    CHECK(ch.algo == algos[a] && ch.nkernels >= 2 && strstr(ch.kernels[1].family, "gemm"),
          "explain: %s with %d kernels (%s)", clforge_conv_algo_name(ch.algo), ch.nkernels,
          ch.nkernels > 1 ? ch.kernels[1].family : "");
    CHECK(ch.workspace_bytes > 0, "explain: no workspace");
  }
  keep_release(b), keep_release(y);
}

int main(int argc, char **argv) {
  small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  /* Oclgrind's false reports (tests/oclgrind_keep.h); --small's largest
   * scratch is 80 KB (the transforms') and 36 KB (the GEMM's on PoCL, 18
   * on Oclgrind), and each launch on Oclgrind costs with the size of its
   * buffers (16 MiB workspaces made this run several times slower). */
  if (small) keep_start_sizes(ctx, (size_t)81 << 10, (size_t)36 << 10);
  refusals(ctx);
  corners(ctx);
  sweep(ctx);
  params(ctx);
  for (int m = 0; m < 2; ++m)
    printf("%s: largest |err| / bound %.3g; f32 y: nrmse %.3g, max_abs_scaled %.3g\n",
           clforge_conv_algo_name(algos[m]), worst_ratio[m], worst_nrmse[m], worst_scaled[m]);
  keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
