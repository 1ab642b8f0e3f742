/* The direct and depthwise convolution algorithms (desc.algo forced)
 * against clforge_ref_conv2d through the public clforge_conv2d: odd sizes,
 * every padding/stride/dilation kind, groups 1/2/4/C, depthwise multipliers
 * 1 and 2, both layouts of x and y independently, both filter layouts,
 * every storage type, bias/activation/beta, alpha/beta corners, offsets,
 * guard regions around y (values outside y stay untouched), NaN in an
 * unread y and in x with alpha 0; depthwise refused when groups != C; a
 * sample of each family's parameter space (clforge_context_set_params).
 * --small: tiny cases only (Oclgrind). */
#include <math.h>

#include "../src/conv_desc.h"
#include "../src/kernels/conv_depthwise.h"
#include "../src/kernels/conv_direct.h"
#include "../src/kernels/families.h"
#include "../src/ref/compare.h"
#include "test_util.h"

typedef struct {
  size_t n, c, h, w, k, r, s, groups, sh, sw, dh, dw, pt, pb, pl, pr;
  int xl, yl, wl;                /* 1: NHWC / KRSC */
  clforge_dtype xt, wt, yt, bt;  /* 0 = f32 */
  int bias, act;
  float alpha, beta;             /* alpha 0 with as_given: x and w do not count */
  int as_given, x_nan;           /* x_nan: NaN in x (with alpha 0 it must not show) */
  size_t xo, wo, yo, bo;
} ccase;

enum { GUARD = 37 }; /* elements of y's buffer before the offset's start and after y */

static unsigned seed = 12345;
static float frand(void) { return (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f; }

static const char *dtn(clforge_dtype t) { return clforge_dtype_name(t ? t : CLFORGE_F32); }

static void describe(const ccase *c, const char *algo, char *buf, size_t cap) {
  snprintf(buf, cap,
           "%s n%zu c%zu %zux%zu k%zu f%zux%zu g%zu s%zux%zu d%zux%zu pad%zu,%zu,%zu,%zu %s-%s %s %s/%s/%s bias%d "
           "act%d a%g b%g off%zu,%zu,%zu",
           algo, c->n, c->c, c->h, c->w, c->k, c->r, c->s, c->groups, c->sh, c->sw, c->dh, c->dw, c->pt, c->pb, c->pl,
           c->pr, c->xl ? "nhwc" : "nchw", c->yl ? "nhwc" : "nchw", c->wl ? "krsc" : "kcrs", dtn(c->xt), dtn(c->wt),
           dtn(c->yt), c->bias, c->act, c->alpha, c->beta, c->xo, c->wo, c->yo);
}

static clforge_conv2d_desc make_desc(const ccase *c, clforge_conv_algo algo) {
  clforge_conv2d_desc d = {.n = c->n, .c = c->c, .h = c->h, .w = c->w, .k = c->k, .r = c->r, .s = c->s,
                           .groups = c->groups, .stride_h = c->sh, .stride_w = c->sw, .dilation_h = c->dh,
                           .dilation_w = c->dw, .pad_top = c->pt, .pad_bottom = c->pb, .pad_left = c->pl,
                           .pad_right = c->pr, .x_layout = (clforge_tensor_layout)c->xl,
                           .y_layout = (clforge_tensor_layout)c->yl, .w_layout = (clforge_filter_layout)c->wl,
                           .x_type = c->xt, .w_type = c->wt, .y_type = c->yt, .bias_type = c->bt,
                           .x_offset = c->xo, .w_offset = c->wo, .y_offset = c->yo + GUARD, .bias_offset = c->bo,
                           .alpha = c->alpha, .beta = c->beta,
                           .alpha_mode = c->as_given ? CLFORGE_ALPHA_AS_GIVEN : CLFORGE_ALPHA_DEFAULT_ONE,
                           .activation = (clforge_activation)c->act, .algo = algo};
  return d;
}

/* A host array of `extent` elements of type t: NaN before `offset` (a kernel
 * that ignores the offset reads it), then `count` random values. */
static void *host_tensor(clforge_dtype t, size_t offset, size_t count, int nan_at_0) {
  const size_t es = clforge_dtype_size(t ? t : CLFORGE_F32), extent = offset + count;
  float *f = malloc((extent ? extent : 1) * sizeof *f);
  for (size_t i = 0; i < extent; ++i) f[i] = i < offset ? NAN : frand();
  if (nan_at_0 && count) f[offset + count / 2] = NAN;
  void *out = malloc((extent ? extent : 1) * es);
  clforge_ref_convert(extent, f, CLFORGE_F32, out, t ? t : CLFORGE_F32);
  free(f);
  return out;
}

static void widen(clforge_dtype t, size_t n, const void *src, float *dst) {
  clforge_ref_convert(n, src, t ? t : CLFORGE_F32, dst, CLFORGE_F32);
}

/* Run c with algo; 1 when y matches the reference and nothing around it changed. */
static int run_case(clforge_context ctx, const ccase *c, clforge_conv_algo algo) {
  clforge_conv2d_desc desc = make_desc(c, algo);
  clforge__conv d;
  char label[384];
  describe(c, clforge_conv_algo_name(algo), label, sizeof label);
  if (clforge__conv_resolve(NULL, &desc, c->bias, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: does not resolve: %s", label, clforge_last_error(NULL));
    return 0;
  }
  const size_t xs = clforge_dtype_size(d.x.type), ws = clforge_dtype_size(d.w_.type);
  const size_t ys = clforge_dtype_size(d.y.type), bs = clforge_dtype_size(d.bias.type);
  void *hx = host_tensor(d.x.type, d.x.offset, d.x.count, c->x_nan);
  void *hw = host_tensor(d.w_.type, d.w_.offset, d.w_.count, 0);
  void *hb = c->bias ? host_tensor(d.bias.type, d.bias.offset, d.k, 0) : NULL;
  /* y: guards of a sentinel, then y (random when read, NaN when not), then guards. */
  const size_t ytotal = d.y.extent + GUARD;
  float *yf = malloc(ytotal * sizeof *yf);
  for (size_t i = 0; i < ytotal; ++i)
    yf[i] = i < d.y.offset || i >= d.y.extent ? 777.0f : (c->beta != 0.0f ? frand() : NAN);
  void *hy = malloc(ytotal * ys), *href = malloc(ytotal * ys), *hgot = malloc(ytotal * ys);
  clforge_ref_convert(ytotal, yf, CLFORGE_F32, hy, d.y.type);
  memcpy(href, hy, ytotal * ys);

  cl_mem bx = tu_buffer(ctx, d.x.extent * xs), bw = tu_buffer(ctx, d.w_.extent * ws);
  cl_mem by = tu_buffer(ctx, ytotal * ys), bb = c->bias ? tu_buffer(ctx, d.bias.extent * bs) : NULL;
  tu_write(ctx, bx, 0, d.x.extent * xs, hx);
  tu_write(ctx, bw, 0, d.w_.extent * ws, hw);
  tu_write(ctx, by, 0, ytotal * ys, hy);
  if (bb) tu_write(ctx, bb, 0, d.bias.extent * bs, hb);

  int ok = 1;
  clforge_status st = clforge_conv2d(ctx, &desc, bx, bw, bb, by, 0, NULL, NULL);
  if (st != CLFORGE_SUCCESS) {
    CHECK(0, "%s: %s: %s", label, clforge_status_name(st), clforge_last_error(ctx));
    ok = 0;
  } else {
    tu_read(ctx, by, 0, ytotal * ys, hgot);
    clforge_ref_conv2d(&desc, hx, hw, hb, href);
    float *got = malloc(ytotal * sizeof *got), *want = malloc(ytotal * sizeof *want);
    widen(d.y.type, ytotal, hgot, got);
    widen(d.y.type, ytotal, href, want);
    size_t bad_guard = 0;
    for (size_t i = 0; i < ytotal; ++i)
      if ((i < d.y.offset || i >= d.y.extent) && memcmp((char *)hgot + i * ys, (char *)href + i * ys, ys)) ++bad_guard;
    CHECK(!bad_guard, "%s: %zu elements outside y changed", label, bad_guard);
    clforge__error_stats es;
    clforge__compare_f32(d.y.count, got + d.y.offset, want + d.y.offset, &es);
    const clforge__tolerance tol = clforge__tolerance_for(d.y.type);
    const int within = clforge__within_tolerance(&es, tol);
    if (!within) {
      size_t wi = clforge__worst_index(&es, tol);
      CHECK(0, "%s: y[%zu] = %g, want %g (nrmse %g, max_abs %g of %g, %zu special)", label, wi,
            (double)got[d.y.offset + wi], (double)want[d.y.offset + wi], es.nrmse, es.max_abs, es.max_want,
            es.special_mismatches);
    } else {
      CHECK(1, "ok");
    }
    ok = within && !bad_guard;
    free(got);
    free(want);
  }
  clReleaseMemObject(bx);
  clReleaseMemObject(bw);
  clReleaseMemObject(by);
  if (bb) clReleaseMemObject(bb);
  free(hx), free(hw), free(hb), free(yf), free(hy), free(href), free(hgot);
  return ok;
}

/* A plain case: defaults filled in. */
static ccase base(size_t n, size_t c, size_t h, size_t w, size_t k, size_t r, size_t s) {
  ccase x = {.n = n, .c = c, .h = h, .w = w, .k = k, .r = r, .s = s, .groups = 1, .sh = 1, .sw = 1, .dh = 1, .dw = 1};
  return x;
}

static const clforge_dtype dts[3] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};

/* The geometry table: shapes both algorithms must get right (direct runs
 * all; depthwise those with groups == C). */
static size_t geometry(ccase *out, int small) {
  size_t n = 0;
  /* 1x1, H = W = 1, tiny */
  out[n++] = base(1, 1, 1, 1, 1, 1, 1);
  out[n++] = base(2, 3, 1, 1, 5, 1, 1);
  out[n++] = base(1, 3, 5, 7, 5, 1, 1);
  { ccase c = base(1, 2, 1, 1, 3, 3, 3); c.pt = c.pb = c.pl = c.pr = 1; out[n++] = c; } /* H = W = 1 with pads */
  /* 3x3 with odd channel counts, pad 1 */
  { ccase c = base(2, 5, 7, 9, 7, 3, 3); c.pt = c.pb = c.pl = c.pr = 1; out[n++] = c; }
  /* asymmetric pads, pads up to R */
  { ccase c = base(1, 3, 6, 5, 4, 3, 2); c.pt = 0, c.pb = 3, c.pl = 2, c.pr = 0; out[n++] = c; }
  { ccase c = base(3, 2, 4, 4, 3, 2, 3); c.pt = 2, c.pb = 1, c.pl = 3, c.pr = 3; out[n++] = c; }
  /* stride 1..4, incl stride > R */
  { ccase c = base(1, 3, 11, 13, 5, 3, 3); c.sh = 2, c.sw = 2, c.pt = c.pl = 1; out[n++] = c; }
  { ccase c = base(2, 2, 9, 10, 3, 2, 2); c.sh = 3, c.sw = 4; out[n++] = c; }
  { ccase c = base(1, 3, 17, 15, 2, 1, 1); c.sh = 4, c.sw = 3; out[n++] = c; }
  /* dilation 2..3, with stride */
  { ccase c = base(1, 2, 13, 11, 3, 3, 3); c.dh = 2, c.dw = 3, c.pt = 2, c.pb = 1, c.pl = 3, c.pr = 2; out[n++] = c; }
  { ccase c = base(2, 3, 12, 14, 4, 2, 3); c.dh = 3, c.dw = 2, c.sh = 2, c.sw = 3, c.pl = 1; out[n++] = c; }
  /* non-square filters */
  { ccase c = base(1, 3, 8, 9, 5, 1, 5); c.pl = 2, c.pr = 2; out[n++] = c; }
  { ccase c = base(1, 2, 9, 6, 3, 5, 1); c.pt = 2; out[n++] = c; }
  /* groups 2 and 4, odd per-group counts */
  { ccase c = base(2, 6, 7, 7, 10, 3, 3); c.groups = 2, c.pt = c.pb = c.pl = c.pr = 1; out[n++] = c; }
  { ccase c = base(1, 12, 5, 9, 4, 3, 1); c.groups = 4, c.pt = 1, c.sh = 2; out[n++] = c; }
  /* depthwise: multiplier 1 and 2, and with stride / dilation / odd pads */
  { ccase c = base(2, 5, 9, 11, 5, 3, 3); c.groups = 5, c.pt = c.pb = c.pl = c.pr = 1; out[n++] = c; }
  { ccase c = base(1, 3, 8, 7, 6, 3, 3); c.groups = 3, c.sh = 2, c.sw = 2, c.pt = 1, c.pr = 1; out[n++] = c; }
  { ccase c = base(3, 7, 6, 13, 14, 2, 3); c.groups = 7, c.dh = 2, c.dw = 3, c.pl = 3, c.pb = 2; out[n++] = c; }
  { ccase c = base(1, 17, 5, 5, 17, 5, 5); c.groups = 17, c.pt = 2, c.pb = 2, c.pl = 2, c.pr = 2; out[n++] = c; }
  { ccase c = base(1, 1, 7, 9, 2, 3, 3); c.groups = 1, c.pl = 1; out[n++] = c; } /* C = 1 = groups, multiplier 2 */
  if (!small) {
    /* ~60, multiples of nothing, several tiles in every direction */
    { ccase c = base(1, 9, 61, 59, 19, 3, 3); c.pt = c.pb = c.pl = c.pr = 1; out[n++] = c; }
    { ccase c = base(2, 33, 60, 62, 33, 3, 3); c.groups = 33, c.pt = c.pl = 1, c.pb = c.pr = 1; out[n++] = c; }
    { ccase c = base(1, 24, 57, 58, 48, 3, 3); c.groups = 24, c.sh = 2, c.sw = 2, c.pt = c.pl = 1; out[n++] = c; }
    { ccase c = base(3, 3, 29, 31, 17, 7, 7); c.sh = 2, c.sw = 2, c.pt = c.pb = c.pl = c.pr = 3; out[n++] = c; }
    { ccase c = base(1, 16, 17, 17, 40, 1, 1); out[n++] = c; }
    { ccase c = base(2, 8, 15, 16, 12, 3, 3); c.groups = 4, c.dh = c.dw = 2, c.pt = c.pb = c.pl = c.pr = 2;
      out[n++] = c; }
  }
  return n;
}

/* The storage / epilogue configurations the sweeps rotate through: each is
 * one kernel build per algorithm and x layout, so the test builds few
 * programs (alpha, beta and offsets are arguments, not build options). */
static void configure(ccase *c, size_t i) {
  switch (i % 4) {
  case 0: c->xt = CLFORGE_F32, c->wt = CLFORGE_F32, c->yt = CLFORGE_F32, c->bias = 0, c->act = 0; break;
  case 1:
    c->xt = CLFORGE_F16, c->wt = CLFORGE_F32, c->yt = CLFORGE_F32, c->bias = 1, c->bt = CLFORGE_F32, c->act = 1;
    break;
  case 2:
    c->xt = CLFORGE_BF16, c->wt = CLFORGE_BF16, c->yt = CLFORGE_F16, c->bias = 1, c->bt = CLFORGE_BF16, c->act = 2;
    break;
  default: c->xt = CLFORGE_F32, c->wt = CLFORGE_F16, c->yt = CLFORGE_BF16, c->bias = 0, c->act = 3; break;
  }
}

/* Each geometry case in every layout of x, y and w, with a configuration,
 * alpha/beta and offsets rotating. */
static void geometry_sweep(clforge_context ctx, clforge_conv_algo algo, int small) {
  ccase cs[64];
  const size_t n = geometry(cs, small);
  size_t rot = 0;
  for (size_t i = 0; i < n; ++i) {
    if (algo == CLFORGE_CONV_ALGO_DEPTHWISE && cs[i].groups != cs[i].c) continue;
    for (int lay = 0; lay < 8; ++lay) {
      if (small && lay % 3) continue;
      ccase c = cs[i];
      c.xl = lay & 1, c.yl = (lay >> 1) & 1, c.wl = (lay >> 2) & 1;
      ++rot;
      configure(&c, rot);
      c.beta = rot % 3 == 1 ? 0.5f : 0.0f;
      c.alpha = rot % 5 == 2 ? -1.5f : 0.0f; /* 0: default one */
      c.xo = rot % 4 == 3 ? 5 : 0, c.wo = rot % 3 == 2 ? 3 : 0, c.yo = rot % 2 ? 11 : 0, c.bo = rot % 3;
      run_case(ctx, &c, algo);
    }
  }
}

/* alpha / beta corners on one shape (two configurations). */
static void corners(clforge_context ctx, clforge_conv_algo algo, const ccase *shape) {
  const float alphas[3] = {0.0f, 1.0f, -0.75f}, betas[3] = {0.0f, 1.0f, 2.5f};
  int i = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b, ++i) {
      ccase c = *shape;
      configure(&c, (size_t)(i % 2));
      c.alpha = alphas[a], c.as_given = 1, c.beta = betas[b];
      c.x_nan = a == 0; /* alpha 0: x does not count */
      run_case(ctx, &c, algo);
    }
}

/* Every x and w storage type, and every y type, on one shape. */
static void dtype_sweep(clforge_context ctx, clforge_conv_algo algo, const ccase *shape) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      ccase c = *shape;
      const int y = (a + b) % 3;
      c.xt = dts[a], c.wt = dts[b], c.yt = dts[y], c.bias = 1, c.bt = dts[(a + 2 * b) % 3], c.beta = 0.25f;
      c.xl = (a + b) % 2, c.yl = b % 2;
      run_case(ctx, &c, algo);
    }
}

typedef struct {
  clforge_context ctx;
  const clforge__family *f;
  clforge_conv_algo algo;
  size_t index, every;
  const ccase *shapes;
  size_t nshapes;
} sweep;

static int count_visit(const int *v, void *user) {
  (void)v, (void)user;
  return 0;
}

static int sweep_visit(const int *v, void *user) {
  sweep *s = user;
  if (s->index++ % s->every) return 0;
  char spec[256];
  size_t used = (size_t)snprintf(spec, sizeof spec, "%s:", s->f->name);
  for (int p = 0; p < s->f->nparams; ++p)
    used += (size_t)snprintf(spec + used, sizeof spec - used, "%s%s=%d", p ? "," : "", s->f->params[p].name, v[p]);
  CHECK_OK(s->ctx, clforge_context_set_params(s->ctx, spec));
  ccase c = s->shapes[(s->index / s->every) % s->nshapes];
  c.xl = (int)(s->index % 2), c.yl = (int)((s->index / 2) % 2), c.wl = (int)((s->index / 4) % 2);
  configure(&c, s->index);
  c.beta = 0.5f;
  if (!run_case(s->ctx, &c, s->algo)) fprintf(stderr, "  with params %s\n", spec);
  clforge_context_set_params(s->ctx, NULL);
  return 0;
}

static void param_sweep(clforge_context ctx, const clforge__family *f, clforge_conv_algo algo, const ccase *shapes,
                        size_t nshapes, size_t samples) {
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  const size_t total = clforge__family_enumerate(f, &dev, count_visit, NULL);
  CHECK(total > 0, "%s: no parameter set allowed", f->name);
  sweep s = {ctx, f, algo, 0, total / samples ? total / samples : 1, shapes, nshapes};
  clforge__family_enumerate(f, &dev, sweep_visit, &s);
  printf("%s: %zu of %zu parameter sets run\n", f->name, (total + s.every - 1) / s.every, total);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();

  geometry_sweep(ctx, CLFORGE_CONV_ALGO_DIRECT, small);
  geometry_sweep(ctx, CLFORGE_CONV_ALGO_DEPTHWISE, small);

  ccase sq = base(2, 4, 7, 9, 6, 3, 3);
  sq.pt = sq.pb = sq.pl = sq.pr = 1;
  ccase dw = base(2, 6, 9, 7, 12, 3, 3);
  dw.groups = 6, dw.pt = 1, dw.pl = 2, dw.sh = 2;
  corners(ctx, CLFORGE_CONV_ALGO_DIRECT, &sq);
  corners(ctx, CLFORGE_CONV_ALGO_DEPTHWISE, &dw);
  if (!small) {
    dtype_sweep(ctx, CLFORGE_CONV_ALGO_DIRECT, &sq);
    dtype_sweep(ctx, CLFORGE_CONV_ALGO_DEPTHWISE, &dw);
  }

  /* depthwise refuses groups != C, saying why */
  {
    ccase c = base(1, 4, 5, 5, 4, 3, 3);
    clforge_conv2d_desc desc = make_desc(&c, CLFORGE_CONV_ALGO_DEPTHWISE);
    clforge__conv d; /* buffers for groups 1, the biggest filter */
    CHECK_OK(NULL, clforge__conv_resolve(NULL, &desc, 0, &d));
    c.groups = 2;
    desc = make_desc(&c, CLFORGE_CONV_ALGO_DEPTHWISE);
    cl_mem bx = tu_buffer(ctx, d.x.extent * 4), bw = tu_buffer(ctx, d.w_.extent * 4);
    cl_mem by = tu_buffer(ctx, d.y.extent * 4);
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &desc, bx, bw, NULL, by, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "groups");
    c.groups = 1;
    desc = make_desc(&c, CLFORGE_CONV_ALGO_DEPTHWISE);
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &desc, bx, bw, NULL, by, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "groups");
    clReleaseMemObject(bx), clReleaseMemObject(bw), clReleaseMemObject(by);
  }

  /* parameter sets of each family on edge-heavy shapes */
  ccase ps[3] = {base(1, 3, 5, 19, 5, 3, 3), base(2, 5, 4, 37, 9, 2, 3), base(1, 2, 3, 23, 21, 1, 1)};
  ps[0].pt = ps[0].pl = 1, ps[0].pr = 2;
  ps[1].sw = 2, ps[1].groups = 1, ps[1].pl = 1;
  ps[2].dw = 2;
  ccase pd[3] = {base(1, 5, 5, 19, 5, 3, 3), base(2, 3, 4, 37, 6, 2, 3), base(1, 17, 3, 9, 17, 1, 1)};
  pd[0].groups = 5, pd[0].pt = pd[0].pl = 1, pd[0].pr = 2;
  pd[1].groups = 3, pd[1].sw = 2, pd[1].pl = 1;
  pd[2].groups = 17;
  param_sweep(ctx, &clforge__family_conv_direct, CLFORGE_CONV_ALGO_DIRECT, ps, 3, small ? 3 : 16);
  param_sweep(ctx, &clforge__family_conv_depthwise, CLFORGE_CONV_ALGO_DEPTHWISE, pd, 3, small ? 3 : 16);

  clforge_context_destroy(ctx);
  return tu_summary();
}
