/* The implicit-GEMM convolution (desc.algo = IMPLICIT_GEMM) against
 * clforge_ref_conv2d: a table of shapes (odd sizes, asymmetric pads,
 * strides 1..4, dilations 1..3, groups, 1x1, H = W = 1, C and K that are
 * not multiples of the vector widths), every x/y/filter layout mix, every
 * storage type per tensor, the epilogue (bias, activations, alpha/beta,
 * beta = 0 with NaN in y), offsets and guard regions around y; parameter
 * sets (small tiles so the cases span several blocks) that take every value
 * the sampled sets took; and one ResNet-50 layer checked at sampled outputs.
 * A kernel build costs seconds on PoCL (shapes, strides, alpha/beta and
 * offsets are arguments): the cases share 11 builds, each parameter set
 * carrying one storage mix and epilogue (builds[]).
 * --small: tiny cases only (Oclgrind). */
#include <math.h>
#include <stdint.h>

#include "../src/desc/conv_desc.h"
#include "../src/families/conv_implicit_gemm.h"
#include "../src/families/families.h"
#include "../src/ref/compare.h"
#include "../src/ref/conv.h"
#include "test_util.h"

enum { GUARD = 29 }; /* elements of sentinel after y's extent (and its offset before) */

typedef struct {
  size_t n, c, h, w, k, r, s, groups, sh, sw, dh, dw, pt, pb, pl, pr;
} shape;

typedef struct {
  shape sh;
  clforge_tensor_layout xl, yl;
  clforge_filter_layout wl;
  clforge_dtype xt, wt, yt, bt;
  int bias;
  clforge_activation act;
  float alpha, beta;
  size_t xoff, woff, yoff, boff;
} ccase;

static unsigned seed = 4242;

static void fill(void *p, clforge_dtype t, size_t n, float scale) {
  float *f = malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = scale * ((float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static void widen(const void *p, clforge_dtype t, size_t n, float *out) { clforge_ref_convert(n, p, t, out, CLFORGE_F32); }

static clforge_conv2d_desc make_desc(const ccase *c) {
  const shape *s = &c->sh;
  clforge_conv2d_desc d = {.n = s->n, .c = s->c, .h = s->h, .w = s->w, .k = s->k, .r = s->r, .s = s->s,
                           .groups = s->groups, .stride_h = s->sh, .stride_w = s->sw, .dilation_h = s->dh,
                           .dilation_w = s->dw, .pad_top = s->pt, .pad_bottom = s->pb, .pad_left = s->pl,
                           .pad_right = s->pr, .x_layout = c->xl, .y_layout = c->yl, .w_layout = c->wl,
                           .x_type = c->xt, .w_type = c->wt, .y_type = c->yt, .bias_type = c->bt,
                           .x_offset = c->xoff, .w_offset = c->woff, .y_offset = c->yoff, .bias_offset = c->boff,
                           .alpha = c->alpha, .beta = c->beta, .alpha_mode = CLFORGE_ALPHA_AS_GIVEN,
                           .activation = c->act, .algo = CLFORGE_CONV_ALGO_IMPLICIT_GEMM};
  return d;
}

static const char *describe(const ccase *c, char *buf, size_t cap) {
  const shape *s = &c->sh;
  snprintf(buf, cap,
           "n%zu c%zu %zux%zu k%zu %zux%zu g%zu stride %zu,%zu dil %zu,%zu pad %zu,%zu,%zu,%zu %s-%s,%s %s*%s->%s "
           "bias%d/%s act%d a%g b%g off(%zu,%zu,%zu,%zu)",
           s->n, s->c, s->h, s->w, s->k, s->r, s->s, s->groups, s->sh, s->sw, s->dh, s->dw, s->pt, s->pb, s->pl,
           s->pr, c->xl ? "nhwc" : "nchw", c->yl ? "nhwc" : "nchw", c->wl ? "krsc" : "kcrs",
           clforge_dtype_name(c->xt), clforge_dtype_name(c->wt), clforge_dtype_name(c->yt), c->bias,
           clforge_dtype_name(c->bt), (int)c->act, (double)c->alpha, (double)c->beta, c->xoff, c->woff, c->yoff,
           c->boff);
  return buf;
}

static cl_mem upload(clforge_context ctx, const void *p, size_t bytes) {
  cl_mem m = tu_buffer(ctx, bytes ? bytes : 4);
  if (bytes) tu_write(ctx, m, 0, bytes, p);
  return m;
}

/* Run one case on the device and the reference; 1 when they agree and the
 * guard regions of y are untouched. */
static int run_case(clforge_context ctx, const ccase *c) {
  char name[400];
  clforge_conv2d_desc desc = make_desc(c);
  clforge__conv d;
  clforge_status st = clforge__conv_resolve(NULL, &desc, c->bias, &d);
  CHECK(st == CLFORGE_SUCCESS, "resolve %s: %s", describe(c, name, sizeof name), clforge_last_error(NULL));
  if (st != CLFORGE_SUCCESS) return 0;
  const size_t xs = clforge_dtype_size(c->xt), ws = clforge_dtype_size(c->wt), ys = clforge_dtype_size(c->yt),
               bs = clforge_dtype_size(c->bt);
  const size_t xn = d.x.extent, wn = d.filt.extent, yn = d.y.extent + GUARD, bn = c->bias ? d.bias.extent : 0;
  void *hx = malloc(xn * xs + 1), *hw = malloc(wn * ws + 1), *hb = malloc(bn * bs + 1);
  void *hy = malloc(yn * ys), *ry = malloc(yn * ys), *gy = malloc(yn * ys);
  fill(hx, c->xt, xn, 1.0f);
  fill(hw, c->wt, wn, 1.0f);
  fill(hb, c->bt, bn, 1.0f);
  if (c->beta != 0.0f) fill(hy, c->yt, yn, 1.0f);
  else memset(hy, 0xFF, yn * ys); /* NaN in every storage type: must not leak */
  memcpy(ry, hy, yn * ys);
  CHECK_OK(NULL, clforge_ref_conv2d(&desc, hx, hw, c->bias ? hb : NULL, ry));

  cl_mem bx = upload(ctx, hx, xn * xs), bw = upload(ctx, hw, wn * ws), by = upload(ctx, hy, yn * ys);
  cl_mem bb = c->bias ? upload(ctx, hb, bn * bs) : NULL;
  st = clforge_conv2d(ctx, &desc, bx, bw, bb, by, 0, NULL, NULL);
  int ok = st == CLFORGE_SUCCESS;
  CHECK(ok, "%s: %s: %s", describe(c, name, sizeof name), clforge_status_name(st), clforge_last_error(ctx));
  if (ok) {
    tu_read(ctx, by, 0, yn * ys, gy);
    /* Outside the tensor's elements (before the offset, the guard after): bits unchanged. */
    const size_t lo = d.y.offset * ys, hi = (d.y.offset + d.y.count) * ys;
    int guards = !memcmp(gy, hy, lo) && !memcmp((char *)gy + hi, (char *)hy + hi, yn * ys - hi);
    CHECK(guards, "%s: a guard region of y was written", describe(c, name, sizeof name));
    float *g = malloc(d.y.count * sizeof *g), *r = malloc(d.y.count * sizeof *r);
    widen((char *)gy + lo, c->yt, d.y.count, g);
    widen((char *)ry + lo, c->yt, d.y.count, r);
    clforge__error_stats es;
    clforge__compare_f32(d.y.count, g, r, &es);
    int within = clforge__within_tolerance(&es, clforge__tolerance_for(c->yt));
    if (!within) {
      size_t i = clforge__worst_index(&es, clforge__tolerance_for(c->yt));
      CHECK(within, "%s: nrmse %g max_abs %g special %zu; element %zu: got %g want %g", describe(c, name, sizeof name),
            es.nrmse, es.max_abs, es.special_mismatches, i, (double)g[i], (double)r[i]);
    } else {
      CHECK(within, "ok");
    }
    ok = guards && within;
    free(g);
    free(r);
  }
  clReleaseMemObject(bx);
  clReleaseMemObject(bw);
  clReleaseMemObject(by);
  if (bb) clReleaseMemObject(bb);
  free(hx), free(hw), free(hb), free(hy), free(ry), free(gy);
  return ok;
}

#define SH(n, c, h, w, k, r, s, g, sh, sw, dh, dw, pt, pb, pl, pr) \
  { n, c, h, w, k, r, s, g, sh, sw, dh, dw, pt, pb, pl, pr }

/* Tiny shapes: every feature, a few hundred outputs each. */
static const shape tiny[] = {
    SH(1, 3, 5, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),   /* odd sizes, same padding */
    SH(2, 4, 6, 5, 6, 3, 2, 2, 2, 1, 1, 2, 0, 2, 1, 0),   /* groups 2, asymmetric pads, stride 2x1, dilation */
    SH(1, 8, 4, 4, 8, 1, 1, 4, 1, 1, 1, 1, 0, 0, 0, 0),   /* 1x1, groups 4 */
    SH(3, 5, 1, 1, 7, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0),   /* H = W = 1, N = 3 */
    SH(1, 2, 9, 8, 3, 3, 3, 1, 3, 4, 3, 2, 2, 3, 0, 1),   /* stride 3x4, dilation 3x2 */
    SH(1, 4, 5, 5, 4, 3, 3, 4, 1, 1, 1, 1, 1, 1, 1, 1),   /* depthwise */
};

/* Bigger: several blocks of the default tiles, odd C and K. */
static const shape mid[] = {
    SH(2, 19, 13, 11, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
    SH(1, 70, 9, 10, 33, 3, 3, 1, 1, 1, 1, 1, 2, 0, 0, 2),
    SH(3, 12, 17, 15, 20, 5, 5, 2, 2, 2, 1, 1, 2, 2, 2, 2),
    SH(1, 3, 31, 29, 64, 7, 7, 1, 2, 2, 1, 1, 3, 3, 3, 3), /* the ResNet stem, small */
    SH(2, 33, 8, 8, 65, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0),
    SH(1, 16, 12, 12, 24, 3, 3, 4, 4, 3, 2, 3, 1, 3, 2, 0),
    SH(1, 130, 7, 6, 70, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0), /* C over two 64-channel blocks */
};

/* Case i of a shape with the default parameters: layouts (all 8 mixes over
 * i = 0..7), alpha/beta and offsets rotate with i; f32 storage, no bias, no
 * activation, so that every such case shares one of two kernel builds (y's
 * channel stride 1 or not: YC1), and those are test_conv's too. The other
 * storage types, the bias and the activations come with the parameter sets
 * (builds[]). */
static ccase vary(const shape *s, unsigned i) {
  ccase c = {.sh = *s, .alpha = 1.0f, .xt = CLFORGE_F32, .wt = CLFORGE_F32, .yt = CLFORGE_F32, .bt = CLFORGE_F32,
             .bias = 0, .act = CLFORGE_ACT_NONE};
  c.xl = (clforge_tensor_layout)(i & 1), c.yl = (clforge_tensor_layout)((i >> 1) & 1);
  c.wl = (clforge_filter_layout)((i >> 2) & 1);
  const float alphas[4] = {1.0f, 0.5f, 1.0f, 0.0f}, betas[4] = {0.0f, 0.0f, 0.75f, 1.0f};
  c.alpha = alphas[(i / 4) % 4], c.beta = betas[(i / 3) % 4];
  c.xoff = (i % 5) * 3, c.woff = (i % 7), c.yoff = (i % 4) * 5, c.boff = i % 3;
  return c;
}

#define F32_ CLFORGE_F32
#define F16_ CLFORGE_F16
#define BF16_ CLFORGE_BF16
/* A kernel build besides the default f32 ones: a parameter set (small
 * tiles so the cases span many blocks, VW 1 and unaligned widths, big
 * ones; together every value of each parameter that the sets took before
 * they were merged into these nine, the default taking MC=24; the widest
 * MR and NR with the fewest rows, columns and unrolling beside them: PoCL's
 * code generation grows with MR*(NR/VW)*KU and 16-bit conversions, and
 * MR=16 KU=4, MR=4 NR=64 and MR=8 NR=48 took 19-27 s each) with one
 * storage mix and epilogue: x, w, y and bias types (7 of the 27 triples,
 * every type in every role), bias, activation (each, with a bias), y in
 * NHWC (YC1, vector stores). `ocl`: Oclgrind's checkers crash (a segfault
 * inside Oclgrind, no report) on the others; plain Oclgrind and PoCL run
 * them. `dtype`: the set also runs the storage-type cases. */
static const struct {
  const char *params;
  clforge_dtype xt, wt, yt, bt;
  int bias;
  clforge_activation act;
  int ynhwc, dtype, ocl;
} builds[] = {
    {"conv_implicit_gemm:MR=1,NR=4,VW=1,MC=4,NC=8,KC=4,KU=1,DMR=1,DNR=1,DVW=4", F32_, F32_, F32_, F32_, 0, 0, 1, 0, 1},
    {"conv_implicit_gemm:MR=2,NR=8,VW=4,MC=8,NC=16,KC=8,KU=2,DMR=5,DNR=3,DVW=4", F32_, F32_, F32_, F32_, 0, 0, 0, 0, 1},
    {"conv_implicit_gemm:MR=4,NR=16,VW=8,MC=16,NC=32,KC=16,KU=4,DMR=2,DNR=8,DVW=8", F32_, BF16_, BF16_, F16_, 1, 0,
     1, 1, 1},
    {"conv_implicit_gemm:MR=6,NR=16,VW=16,MC=12,NC=16,KC=32,KU=2,DMR=6,DNR=4,DVW=16", F32_, F32_, F32_, F16_, 1, 0,
     1, 1, 1},
    {"conv_implicit_gemm:MR=2,NR=48,VW=16,MC=64,NC=96,KC=8,KU=1", F16_, F16_, F32_, BF16_, 0, 1, 0, 1, 1},
    {"conv_implicit_gemm:MR=4,NR=8,VW=2,MC=24,NC=8,KC=64,KU=4", BF16_, BF16_, F32_, F32_, 1, 1, 1, 1, 1},
    {"conv_implicit_gemm:MR=16,NR=16,VW=16,MC=32,NC=64,KC=128,KU=1,DMR=8,DNR=2,DVW=4", F32_, F16_, F16_, F16_, 1, 2,
     0, 1, 0},
    {"conv_implicit_gemm:MR=1,NR=64,VW=16,MC=96,NC=128,KC=16,KU=1", F16_, BF16_, F16_, BF16_, 0, 0, 1, 1, 0},
    {"conv_implicit_gemm:MR=8,NR=32,VW=16,MC=48,NC=256,KC=32,KU=2", BF16_, F32_, BF16_, F32_, 1, 3, 0, 1, 0},
};
#undef F32_
#undef F16_
#undef BF16_
enum { NBUILDS = sizeof builds / sizeof builds[0] };

/* s as case i with build b's storage mix, epilogue and y layout. */
static ccase with_build(const shape *s, unsigned i, size_t b) {
  ccase c = vary(s, i);
  c.xt = builds[b].xt, c.wt = builds[b].wt, c.yt = builds[b].yt, c.bt = builds[b].bt;
  c.bias = builds[b].bias, c.act = builds[b].act;
  c.yl = builds[b].ynhwc ? CLFORGE_NHWC : CLFORGE_NCHW;
  return c;
}

/* The contiguous-channel kernel's layouts (NHWC x, KRSC w; C/groups >= DVW on the shape). */
static ccase dot_layouts(ccase c) {
  c.xl = CLFORGE_NHWC, c.wl = CLFORGE_KRSC;
  return c;
}

/* Build b's cases: three mid shapes (the staged kernel with NCHW x, then
 * NHWC x, then the contiguous-channel kernel), or one tiny one; with
 * `dtype`, the storage mix on a tiny shape (staged kernel) and on the
 * contiguous-channel case's shape, and with a bias its activation on tiny[0] with
 * beta. --small: the storage cases (the first mix of each y type, and the
 * activations) run with the default parameters instead. */
static void build_cases(clforge_context ctx, size_t b, int small) {
  static const size_t dot_mids[4] = {0, 1, 4, 6}; /* C/groups >= 16 */
  const int set = !small || builds[b].ocl;
  if (set) {
    CHECK_OK(ctx, clforge_context_set_params(ctx, builds[b].params));
    for (unsigned j = 0; j < (small ? 1u : 3u); ++j) {
      const size_t nmid = sizeof mid / sizeof mid[0], ntiny = sizeof tiny / sizeof tiny[0];
      const shape *s = small ? &tiny[(b + j) % ntiny] : j == 2 ? &mid[dot_mids[b % 4]] : &mid[(b * 3 + j) % nmid];
      ccase c = with_build(s, (unsigned)(b * 3 + j), b);
      c.xl = j == 0 ? CLFORGE_NCHW : CLFORGE_NHWC;
      if (j == 2) c = dot_layouts(c);
      if (!run_case(ctx, &c)) fprintf(stderr, "  with %s\n", builds[b].params);
    }
  }
  int first_y = 1; /* --small: the first storage mix of each y type */
  for (size_t o = 0; o < b; ++o) first_y &= !(builds[o].dtype && builds[o].yt == builds[b].yt);
  if (builds[b].dtype && (!small || first_y)) {
    if (small && set) CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
    ccase c = with_build(&tiny[1], (unsigned)b, b);
    if (!run_case(ctx, &c)) fprintf(stderr, "  with %s\n", small ? "the defaults" : builds[b].params);
    if (!small) { /* the shape of the set's contiguous-channel case: one local size, one compile */
      ccase e = dot_layouts(with_build(&mid[dot_mids[b % 4]], 3, b));
      if (!run_case(ctx, &e)) fprintf(stderr, "  with %s\n", builds[b].params);
    }
  }
  if (builds[b].dtype && builds[b].bias) { /* every activation, with a bias and beta */
    if (small) CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
    ccase c = with_build(&tiny[0], 2, b);
    c.beta = 0.5f;
    if (!run_case(ctx, &c)) fprintf(stderr, "  with %s\n", small ? "the defaults" : builds[b].params);
  }
  CHECK_OK(ctx, clforge_context_set_params(ctx, NULL));
}

/* A ResNet-50 layer (3x3 64->64 at 28x28, N = 2, NHWC) checked at sampled
 * outputs (with beta; no bias or activation: vary()'s builds). */
static void big_sampled(clforge_context ctx, int nhwc) {
  ccase c = {.sh = SH(2, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), .alpha = 1.0f, .beta = 0.5f};
  c.xl = c.yl = nhwc ? CLFORGE_NHWC : CLFORGE_NCHW, c.wl = nhwc ? CLFORGE_KRSC : CLFORGE_KCRS;
  clforge_conv2d_desc desc = make_desc(&c);
  clforge__conv d;
  CHECK_OK(NULL, clforge__conv_resolve(NULL, &desc, 0, &d));
  float *hx = malloc(d.x.extent * 4), *hw = malloc(d.filt.extent * 4);
  float *hy = malloc(d.y.extent * 4), *gy = malloc(d.y.extent * 4);
  fill(hx, CLFORGE_F32, d.x.extent, 1.0f);
  fill(hw, CLFORGE_F32, d.filt.extent, 1.0f);
  fill(hy, CLFORGE_F32, d.y.extent, 1.0f);
  cl_mem bx = upload(ctx, hx, d.x.extent * 4), bw = upload(ctx, hw, d.filt.extent * 4);
  cl_mem by = upload(ctx, hy, d.y.extent * 4);
  CHECK_OK(ctx, clforge_conv2d(ctx, &desc, bx, bw, NULL, by, 0, NULL, NULL));
  tu_read(ctx, by, 0, d.y.extent * 4, gy);
  size_t bad = 0;
  for (int i = 0; i < 500; ++i) {
    size_t n = tu_rand(&seed) % d.n, k = tu_rand(&seed) % d.k, p = tu_rand(&seed) % d.p, q = tu_rand(&seed) % d.q;
    if (i < 4) p = i & 1 ? d.p - 1 : 0, q = i & 2 ? d.q - 1 : 0; /* the corners: padding */
    double want = clforge__ref_conv2d_at(&d, hx, hw, NULL, hy, n, k, p, q);
    size_t yi = d.y.offset + n * d.y.stride[0] + k * d.y.stride[1] + p * d.y.stride[2] + q * d.y.stride[3];
    if (fabs(gy[yi] - want) > 1e-4 * (1.0 + fabs(want))) {
      if (!bad) fprintf(stderr, "big %s: y[%zu,%zu,%zu,%zu] = %g, want %g\n", nhwc ? "nhwc" : "nchw", n, k, p, q,
                        (double)gy[yi], want);
      ++bad;
    }
  }
  CHECK(bad == 0, "big sampled %s: %zu of 500 outputs wrong", nhwc ? "nhwc" : "nchw", bad);
  clReleaseMemObject(bx), clReleaseMemObject(bw), clReleaseMemObject(by);
  free(hx), free(hw), free(hy), free(gy);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();

  /* Every tiny shape with 8 variations (all layout mixes), default parameters. */
  const unsigned per_tiny = small ? 2 : 8;
  for (size_t s = 0; s < sizeof tiny / sizeof tiny[0]; ++s)
    for (unsigned i = 0; i < per_tiny; ++i) {
      ccase c = vary(&tiny[s], (unsigned)(small ? s + i * 3 : s * 8 + i));
      run_case(ctx, &c);
    }
  /* The other builds: parameter sets, storage mixes, epilogues. */
  for (size_t b = 0; b < NBUILDS; ++b) build_cases(ctx, b, small);

  if (!small) {
    for (size_t s = 0; s < sizeof mid / sizeof mid[0]; ++s)
      for (unsigned i = 0; i < 2; ++i) {
        ccase c = vary(&mid[s], (unsigned)(s * 2 + i * 5));
        run_case(ctx, &c);
      }
    big_sampled(ctx, 1);
    big_sampled(ctx, 0);
  }

  /* What it says about itself: the family's default on this device, no workspace. */
  clforge_conv_choice ch;
  ccase c = vary(&tiny[0], 0);
  clforge_conv2d_desc desc = make_desc(&c);
  CHECK_OK(ctx, clforge_conv2d_explain(ctx, &desc, &ch));
  CHECK(ch.algo == CLFORGE_CONV_ALGO_IMPLICIT_GEMM && ch.workspace_bytes == 0 && ch.nkernels == 1 &&
            !strcmp(ch.kernels[0].family, "conv_implicit_gemm"),
        "explain: algo %d, workspace %zu, %d kernels", (int)ch.algo, ch.workspace_bytes, ch.nkernels);

  clforge_context_destroy(ctx);
  return tu_summary();
}
