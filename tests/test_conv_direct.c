/* The direct and depthwise convolution algorithms (desc.algo forced)
 * against clforge_ref_conv2d through the public clforge_conv2d: odd sizes,
 * every padding/stride/dilation kind, groups 1/2/4/C, depthwise multipliers
 * 1 and 2, both layouts of x and y independently, both filter layouts,
 * all nine x/w storage pairs with every y and bias type,
 * bias/activation/beta, alpha/beta corners, offsets, guard regions around y
 * (values outside y stay untouched), NaN in an unread y and in x with alpha
 * 0; depthwise refused when groups != C; a sample of each family's
 * parameter space that takes every value of every parameter
 * (clforge_context_set_params). Cases share kernel builds (a build costs
 * seconds on PoCL; shapes, strides, alpha/beta and offsets are arguments):
 * see mixes[]. --small: tiny cases only (Oclgrind). */
#include <math.h>

#include "../src/desc/conv_desc.h"
#include "../src/families/conv_depthwise.h"
#include "../src/families/conv_direct.h"
#include "../src/families/families.h"
#include "../src/ops/conv_algo.h"
#include "../src/ref/compare.h"
#include "param_cover.h"
#include "test_util.h"

typedef struct {
  size_t n, c, h, w, k, r, s, groups, sh, sw, dh, dw, pt, pb, pl, pr;
  int xl, yl, wl;                /* 1: NHWC / KRSC */
  clforge_dtype xt, wt, yt, bt;  /* 0 = f32 */
  int bias, act;
  float alpha, beta;             /* alpha 0 with as_given: x and w do not count */
  int as_given, x_nan;           /* x_nan: NaN in x (with alpha 0 it must not show) */
  size_t xo, wo, yo, bo;
  int prepared;                  /* through clforge_conv2d_weights_create and clforge_conv2d_ex */
} ccase;

enum { GUARD = 37 }; /* elements of y's buffer before the offset's start and after y */

static unsigned seed = 12345;
static float frand(void) { return (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f; }

static const char *dtn(clforge_dtype t) { return clforge_dtype_name(t ? t : CLFORGE_F32); }

static void describe(const ccase *c, const char *algo, char *buf, size_t cap) {
  snprintf(buf, cap,
           "%s n%zu c%zu %zux%zu k%zu f%zux%zu g%zu s%zux%zu d%zux%zu pad%zu,%zu,%zu,%zu %s-%s %s %s/%s/%s bias%d "
           "act%d a%g b%g off%zu,%zu,%zu%s",
           algo, c->n, c->c, c->h, c->w, c->k, c->r, c->s, c->groups, c->sh, c->sw, c->dh, c->dw, c->pt, c->pb, c->pl,
           c->pr, c->xl ? "nhwc" : "nchw", c->yl ? "nhwc" : "nchw", c->wl ? "krsc" : "kcrs", dtn(c->xt), dtn(c->wt),
           dtn(c->yt), c->bias, c->act, c->alpha, c->beta, c->xo, c->wo, c->yo, c->prepared ? " prepared" : "");
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
  const size_t xs = clforge_dtype_size(d.x.type), ws = clforge_dtype_size(d.filt.type);
  const size_t ys = clforge_dtype_size(d.y.type), bs = clforge_dtype_size(d.bias.type);
  void *hx = host_tensor(d.x.type, d.x.offset, d.x.count, c->x_nan);
  void *hw = host_tensor(d.filt.type, d.filt.offset, d.filt.count, 0);
  void *hb = c->bias ? host_tensor(d.bias.type, d.bias.offset, d.k, 0) : NULL;
  /* y: guards of a sentinel, then y (random when read, NaN when not), then guards. */
  const size_t ytotal = d.y.extent + GUARD;
  float *yf = malloc(ytotal * sizeof *yf);
  for (size_t i = 0; i < ytotal; ++i)
    yf[i] = i < d.y.offset || i >= d.y.extent ? 777.0f : (c->beta != 0.0f ? frand() : NAN);
  void *hy = malloc(ytotal * ys), *href = malloc(ytotal * ys), *hgot = malloc(ytotal * ys);
  clforge_ref_convert(ytotal, yf, CLFORGE_F32, hy, d.y.type);
  memcpy(href, hy, ytotal * ys);

  cl_mem bx = tu_buffer(ctx, d.x.extent * xs), bw = tu_buffer(ctx, d.filt.extent * ws);
  cl_mem by = tu_buffer(ctx, ytotal * ys), bb = c->bias ? tu_buffer(ctx, d.bias.extent * bs) : NULL;
  tu_write(ctx, bx, 0, d.x.extent * xs, hx);
  tu_write(ctx, bw, 0, d.filt.extent * ws, hw);
  tu_write(ctx, by, 0, ytotal * ys, hy);
  if (bb) tu_write(ctx, bb, 0, d.bias.extent * bs, hb);

  int ok = 1;
  clforge_status st;
  if (c->prepared) {
    clforge_conv2d_weights pw = NULL;
    st = clforge_conv2d_weights_create(ctx, &desc, bw, 0, NULL, &pw);
    /* The prepared weights stand alone: the filter's buffer may change. */
    void *zero = calloc(d.filt.extent ? d.filt.extent : 1, ws);
    if (st == CLFORGE_SUCCESS) tu_write(ctx, bw, 0, d.filt.extent * ws, zero);
    free(zero);
    if (st == CLFORGE_SUCCESS) st = clforge_conv2d_ex(ctx, &desc, bx, NULL, pw, bb, by, NULL, 0, 0, NULL, NULL);
    clforge_conv2d_weights_release(pw);
  } else {
    st = clforge_conv2d(ctx, &desc, bx, bw, bb, by, 0, NULL, NULL);
  }
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

/* Storage / epilogue mixes (x, w, y, bias and its type, activation): all
 * nine x/w pairs, every y and bias type, no bias, every activation. A mix
 * is one kernel build per algorithm, build class (below) and parameter
 * set, so the cases share few builds: M0..M3 run the geometry sweeps and
 * the corners with the default parameters, each in the classes of
 * geometry_mixes(); the dtype sweep runs all nine, M4..M8 each with one of
 * the sampled parameter sets. */
typedef struct {
  clforge_dtype xt, wt, yt;
  int bias;
  clforge_dtype bt;
  int act;
} mix;

#define F32_ CLFORGE_F32
#define F16_ CLFORGE_F16
#define BF16_ CLFORGE_BF16
static const mix mixes[9] = {
    {F32_, F32_, F32_, 0, F32_, 0},   {F16_, F32_, F32_, 1, F32_, 1},   {BF16_, BF16_, F16_, 1, BF16_, 2},
    {F32_, F16_, BF16_, 0, F32_, 3},  {F32_, BF16_, BF16_, 1, F16_, 1}, {F16_, F16_, BF16_, 1, F32_, 2},
    {F16_, BF16_, F32_, 1, BF16_, 3}, {BF16_, F32_, BF16_, 1, BF16_, 0}, {BF16_, F16_, F32_, 1, F16_, 0},
};
#undef F32_
#undef F16_
#undef BF16_

static void apply_mix(ccase *c, int m) {
  const mix *x = &mixes[m];
  c->xt = x->xt, c->wt = x->wt, c->yt = x->yt, c->bias = x->bias, c->bt = x->bt, c->act = x->act;
}

/* The build options a case's layouts and shape choose besides the mix
 * (src/ops/conv_direct.c, conv_depthwise.c). Direct: x in NHWC (its own
 * default tiles on CPUs) * 2 + XUNIT. Depthwise: CINNER * 4 + XUNIT * 2 +
 * YUNIT. -1 when the case does not resolve. */
static int build_class(const ccase *c, clforge_conv_algo algo) {
  clforge_conv2d_desc desc = make_desc(c, algo);
  clforge__conv d;
  if (clforge__conv_resolve(NULL, &desc, c->bias, &d) != CLFORGE_SUCCESS) return -1;
  if (algo == CLFORGE_CONV_ALGO_DIRECT) return c->xl * 2 + (d.x.stride[3] == 1 && d.stride_w == 1);
  const int cinner = c->xl, mult1 = d.k == d.c;
  const int xunit = cinner ? d.x.stride[1] == 1 && mult1 : d.x.stride[3] == 1 && d.stride_w == 1;
  const int yunit = cinner ? d.y.stride[1] == 1 : d.y.stride[3] == 1;
  return cinner * 4 + xunit * 2 + yunit;
}

/* The mixes the geometry sweep rotates through in each build class. */
static int geometry_mixes(clforge_conv_algo algo, int cls, const int **list) {
  static const int d_nchw_gather[] = {3}, d_nchw_vec[] = {1, 2}, d_nhwc[] = {0};
  static const int dw_m0[] = {0}, dw_m1[] = {1}, dw_m2[] = {2}, dw_m3[] = {3};
  if (algo == CLFORGE_CONV_ALGO_DIRECT) {
    *list = cls == 0 ? d_nchw_gather : cls == 1 ? d_nchw_vec : d_nhwc;
    return cls == 1 ? 2 : 1;
  }
  /* M0 where test_conv's cases build the same; f16 x on NCHW's vector loads,
   * bf16 on NHWC's, M3 gathering NHWC for NCHW y. */
  *list = cls == 2 ? dw_m1 : cls == 6 ? dw_m2 : cls == 4 ? dw_m3 : dw_m0;
  return 1;
}

/* c with its x/y/w layouts (tried from the layout index `from` on), and
 * where needed stride_w and the channel multiplier, changed so that its
 * build class is cls; 0 when none is. */
static int place(ccase *c, clforge_conv_algo algo, int cls, int from) {
  const size_t sws[3] = {c->sw, 1, 2}, ks[3] = {c->k, c->c, 2 * c->c};
  const int nk = algo == CLFORGE_CONV_ALGO_DEPTHWISE ? 3 : 1;
  for (int l = 0; l < 8; ++l)
    for (int si = 0; si < 3; ++si)
      for (int ki = 0; ki < nk; ++ki) {
        ccase t = *c;
        const int lay = (from + l) % 8;
        t.xl = lay & 1, t.yl = (lay >> 1) & 1, t.wl = (lay >> 2) & 1, t.sw = sws[si], t.k = ks[ki];
        if (build_class(&t, algo) == cls) {
          *c = t;
          return 1;
        }
      }
  return 0;
}

/* Each geometry case in every layout of x, y and w, with the mixes of its
 * build class, alpha/beta and offsets rotating. */
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
      const int *ms;
      const int nm = geometry_mixes(algo, build_class(&c, algo), &ms);
      apply_mix(&c, ms[rot % (size_t)nm]);
      c.beta = rot % 3 == 1 ? 0.5f : 0.0f;
      c.alpha = rot % 5 == 2 ? -1.5f : 0.0f; /* 0: default one */
      c.xo = rot % 4 == 3 ? 5 : 0, c.wo = rot % 3 == 2 ? 3 : 0, c.yo = rot % 2 ? 11 : 0, c.bo = rot % 3;
      run_case(ctx, &c, algo);
    }
  }
}

/* alpha / beta corners on one shape (the mixes of its build class). */
static void corners(clforge_context ctx, clforge_conv_algo algo, const ccase *shape) {
  const float alphas[3] = {0.0f, 1.0f, -0.75f}, betas[3] = {0.0f, 1.0f, 2.5f};
  const int *ms;
  const int nm = geometry_mixes(algo, build_class(shape, algo), &ms);
  int i = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b, ++i) {
      ccase c = *shape;
      apply_mix(&c, ms[i % nm]);
      c.alpha = alphas[a], c.as_given = 1, c.beta = betas[b];
      c.x_nan = a == 0; /* alpha 0: x does not count */
      run_case(ctx, &c, algo);
    }
}

/* Mix m on one shape, with a bias and beta, placed in a build class that
 * runs m. */
static void dtype_case(clforge_context ctx, clforge_conv_algo algo, const ccase *shape, int m, int cls) {
  ccase c = *shape;
  apply_mix(&c, m);
  c.bias = mixes[m].bias, c.beta = 0.25f;
  CHECK(place(&c, algo, cls, m), "mix %d: no layout of the shape has build class %d", m, cls);
  run_case(ctx, &c, algo);
}

/* M0..M3 with the default parameters, each in a class the geometry runs it in. */
static void dtype_sweep(clforge_context ctx, clforge_conv_algo algo, const ccase *shape) {
  for (int m = 0; m < 4; ++m)
    for (int cls = 0; cls < 8; ++cls) {
      const int *ms;
      const int nm = geometry_mixes(algo, cls, &ms);
      int has = 0;
      for (int j = 0; j < nm; ++j) has |= ms[j] == m;
      ccase probe = *shape;
      if (has && place(&probe, algo, cls, m)) {
        dtype_case(ctx, algo, shape, m, cls);
        break;
      }
    }
}

/* Accumulators and work-group size: the sampled sets' build time. */
static int direct_cost(const int *v) {
  return v[CONVD_TQ] * v[CONVD_TK] * v[CONVD_VW] * 4 + v[CONVD_WGQ] * v[CONVD_WGK];
}
static int depthwise_cost(const int *v) {
  return v[CONVDW_VW] * v[CONVDW_TP] * 4 + v[CONVDW_NV] + v[CONVDW_WG0] * v[CONVDW_WG1];
}

/* A sample of the family's parameter sets that takes every value
 * (tests/param_cover.h), each set on `nshapes` edge-heavy shapes in one
 * build class (rotating over `classes`) with one mix; set j < 5 also runs
 * the dtype sweep's mix M4+j on dshape (not with --small). */
static void param_sweep(clforge_context ctx, const clforge__family *f, clforge_conv_algo algo, const ccase *shapes,
                        size_t nshapes, const ccase *dshape, const int *classes, int nclasses, int small) {
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  param_set given[2], sets[24];
  clforge__family_default(f, dev.device_class, 0, given[0].v);
  clforge__family_default(f, dev.device_class, CLFORGE__CONV_VARIANT_NHWC, given[1].v);
  const int n = (int)cover_sample_given(f, &dev, 777, NULL, 0, 0, given, 2,
                                        algo == CLFORGE_CONV_ALGO_DIRECT ? direct_cost : depthwise_cost, sets, 24);
  CHECK(n > 0, "%s: no parameter set sampled", f->name);
  param_set all[26];
  memcpy(all, given, sizeof given);
  memcpy(all + 2, sets, (size_t)n * sizeof *sets);
  CHECK(cover_complete(f, &dev, all, 2 + (size_t)n), "%s: the sample and the defaults miss values", f->name);
  for (int j = 0; j < n; ++j) {
    char spec[256] = "";
    cover_spec(f, &sets[j], spec, sizeof spec);
    CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
    const int cls = classes[j % nclasses], m = 4 + j % 5;
    for (size_t i = 0; i < (small ? 1 : nshapes); ++i) {
      ccase c = shapes[(i + (size_t)j) % nshapes];
      apply_mix(&c, m);
      c.beta = 0.5f;
      c.alpha = i % 2 ? -1.5f : 0.0f;
      c.xo = i, c.wo = 2 * i, c.yo = 3 * i, c.bo = i % 3;
      CHECK(place(&c, algo, cls, (int)i + j), "%s set %d: no layout of shape %zu has build class %d", f->name, j, i,
            cls);
      if (!run_case(ctx, &c, algo)) fprintf(stderr, "  with params %s\n", spec);
    }
    if (!small && j < 5) dtype_case(ctx, algo, dshape, m, cls);
    clforge_context_set_params(ctx, NULL);
  }
  printf("%s: %d parameter sets run (every value of every parameter)\n", f->name, n);
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

  /* Prepared weights: NHWC x reads them as R S K (one vector load of VW
   * channels' taps, WUNIT), NCHW as given; the NHWC interior tiles' 3-wide
   * window with prepared and with given weights. Partial vectors (37, 20
   * channels), a channel multiplier, strides, dilation, both filter
   * layouts, a filter offset, 16-bit filters, in build classes the geometry
   * sweep compiles (only WUNIT is new). */
  {
    ccase pc[4] = {base(2, 37, 9, 11, 37, 3, 3), base(1, 6, 7, 9, 12, 3, 3), base(1, 20, 11, 7, 20, 5, 5),
                   base(1, 16, 4, 18, 16, 3, 3)};
    pc[0].groups = 37, pc[0].pt = pc[0].pb = pc[0].pl = pc[0].pr = 1;
    pc[1].groups = 6, pc[1].sh = pc[1].sw = 2, pc[1].pl = 1;
    pc[2].groups = 20, pc[2].dh = 2, pc[2].pt = 2, pc[2].pr = 2;
    /* 18 wide, 16 channels: interior tiles of 8 pixels, the 3-wide window */
    pc[3].groups = 16, pc[3].pt = pc[3].pb = pc[3].pl = pc[3].pr = 1;
    const int lays[7][5] = {{0, 1, 1, 0, 1}, {0, 1, 0, 1, 1}, {1, 1, 1, 0, 1}, {2, 1, 1, 1, 1},
                            {0, 0, 0, 0, 1}, {3, 1, 1, 0, 1}, {3, 1, 1, 1, 0}}; /* case, xl, yl, wl, prepared */
    for (int i = 0; i < 7; ++i) {
      if (small && i >= 2 && i < 5) continue;
      ccase c = pc[lays[i][0]];
      c.xl = lays[i][1], c.yl = lays[i][2], c.wl = lays[i][3], c.prepared = lays[i][4], c.wo = (size_t)i % 2 * 3;
      const int *ms;
      geometry_mixes(CLFORGE_CONV_ALGO_DEPTHWISE, build_class(&c, CLFORGE_CONV_ALGO_DEPTHWISE), &ms);
      apply_mix(&c, ms[0]);
      c.beta = i == 3 ? 0.5f : 0.0f;
      run_case(ctx, &c, CLFORGE_CONV_ALGO_DEPTHWISE);
    }
  }

  /* depthwise refuses groups != C, saying why */
  {
    ccase c = base(1, 4, 5, 5, 4, 3, 3);
    clforge_conv2d_desc desc = make_desc(&c, CLFORGE_CONV_ALGO_DEPTHWISE);
    clforge__conv d; /* buffers for groups 1, the biggest filter */
    CHECK_OK(NULL, clforge__conv_resolve(NULL, &desc, 0, &d));
    c.groups = 2;
    desc = make_desc(&c, CLFORGE_CONV_ALGO_DEPTHWISE);
    cl_mem bx = tu_buffer(ctx, d.x.extent * 4), bw = tu_buffer(ctx, d.filt.extent * 4);
    cl_mem by = tu_buffer(ctx, d.y.extent * 4);
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &desc, bx, bw, NULL, by, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "groups");
    c.groups = 1;
    desc = make_desc(&c, CLFORGE_CONV_ALGO_DEPTHWISE);
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &desc, bx, bw, NULL, by, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "groups");
    clReleaseMemObject(bx), clReleaseMemObject(bw), clReleaseMemObject(by);
  }

  /* parameter sets of each family on edge-heavy shapes */
  ccase ps[4] = {base(1, 3, 5, 19, 5, 3, 3), base(2, 5, 4, 37, 9, 2, 3), base(1, 2, 3, 23, 21, 1, 1),
                 base(1, 4, 6, 29, 7, 3, 2)};
  ps[0].pt = ps[0].pl = 1, ps[0].pr = 2;
  ps[1].sw = 2, ps[1].groups = 1, ps[1].pl = 1;
  ps[2].dw = 2;
  ps[3].pb = 1, ps[3].pr = 1, ps[3].sh = 2;
  ccase pd[4] = {base(1, 5, 5, 19, 5, 3, 3), base(2, 3, 4, 37, 6, 2, 3), base(1, 17, 3, 9, 17, 1, 1),
                 base(1, 4, 7, 27, 4, 3, 2)};
  pd[0].groups = 5, pd[0].pt = pd[0].pl = 1, pd[0].pr = 2;
  pd[1].groups = 3, pd[1].sw = 2, pd[1].pl = 1;
  pd[2].groups = 17;
  pd[3].groups = 4, pd[3].dh = 2, pd[3].pt = 2, pd[3].pl = 1;
  /* --small runs one shape a set: the first with 3 channels of 3 rows, its
   * 19 columns and pads as ever (the set with NV 32 simulates all 32 tiles
   * of every work-item) */
  if (small) pd[0].c = pd[0].k = pd[0].groups = 3, pd[0].h = 3;
  /* Direct: NCHW with XUNIT (the vector loads), NHWC, NCHW gathering.
   * Depthwise: (CINNER, XUNIT, YUNIT) = 011, 111, 010, 101, 001, 110. */
  const int dclasses[3] = {1, 2, 0}, dwclasses[6] = {3, 7, 2, 5, 1, 6};
  param_sweep(ctx, &clforge__family_conv_direct, CLFORGE_CONV_ALGO_DIRECT, ps, 4, &sq, dclasses, 3, small);
  param_sweep(ctx, &clforge__family_conv_depthwise, CLFORGE_CONV_ALGO_DEPTHWISE, pd, 4, &dw, dwclasses, 6, small);

  clforge_context_destroy(ctx);
  return tu_summary();
}
