/* The convolution tests' shared harness: random inputs in each tensor's
 * storage type, guard regions around y, one clforge_conv2d call (or _ex),
 * the result against clforge_ref_conv2d (whole, or at sampled outputs for
 * big shapes) with the algorithm's tolerance, the guards unchanged. */
#ifndef CLFORGE_TESTS_CONV_CASES_H
#define CLFORGE_TESTS_CONV_CASES_H

#include <math.h>
#include <stdint.h>

#include "../src/desc/conv_desc.h"
#include "../src/ops/conv_algo.h"
#include "../src/ref/compare.h"
#include "../src/ref/conv.h"
#include "test_util.h"

enum { CONV_GUARD = 37 };             /* elements of y's storage type before and after y */
#define CONV_FULL_CHECK_FLOPS 4.0e7   /* above: sampled outputs */
enum { CONV_SAMPLES = 3000 };

static unsigned conv_seed = 4242;

static void conv_fill(void *p, clforge_dtype t, size_t n) { tu_fill(p, t, n, &conv_seed); }

static float conv_get(const void *p, clforge_dtype t, size_t i) {
  float v;
  clforge_ref_convert(1, (const char *)p + i * clforge_dtype_size(t), t, &v, CLFORGE_F32);
  return v;
}

static const char *conv_describe(const clforge_conv2d_desc *d, int bias, char *buf, size_t cap) {
  snprintf(buf, cap,
           "%s n=%zu c=%zu h=%zu w=%zu k=%zu r=%zu s=%zu g=%zu st=%zux%zu dil=%zux%zu pad=%zu,%zu,%zu,%zu x=%s y=%s "
           "w=%s types=%s,%s,%s bias=%d act=%d alpha=%g beta=%g",
           clforge_conv_algo_name(d->algo), d->n, d->c, d->h, d->w, d->k, d->r, d->s, d->groups, d->stride_h,
           d->stride_w, d->dilation_h, d->dilation_w, d->pad_top, d->pad_bottom, d->pad_left, d->pad_right,
           d->x_layout ? "nhwc" : "nchw", d->y_layout ? "nhwc" : "nchw", d->w_layout ? "krsc" : "kcrs",
           clforge_dtype_name(d->x_type ? d->x_type : CLFORGE_F32), clforge_dtype_name(d->w_type ? d->w_type : CLFORGE_F32),
           clforge_dtype_name(d->y_type ? d->y_type : CLFORGE_F32), bias, (int)d->activation, d->alpha, d->beta);
  return buf;
}

typedef enum { CONV_RAN = 0, CONV_REFUSED = 1, CONV_FAILED = 2 } conv_outcome;

/* How conv_run_case calls: clforge_conv2d; clforge_conv2d_ex with a
 * workspace of the queried size that the test owns; or with weights
 * prepared once and used by two calls (the second one checked). */
typedef enum { CONV_CALL_PLAIN = 0, CONV_CALL_OWN_WORKSPACE = 1, CONV_CALL_PREPARED = 2 } conv_call;
static conv_call conv_case_call = CONV_CALL_PLAIN;

static clforge_status conv_call_op(clforge_context ctx, const clforge_conv2d_desc *d, cl_mem x, cl_mem w, cl_mem b,
                                   cl_mem y) {
  if (conv_case_call == CONV_CALL_PLAIN) return clforge_conv2d(ctx, d, x, w, b, y, 0, NULL, NULL);
  if (conv_case_call == CONV_CALL_OWN_WORKSPACE) {
    size_t bytes = 0;
    clforge_status st = clforge_conv2d_workspace_size(ctx, d, &bytes);
    if (st != CLFORGE_SUCCESS) return st;
    cl_mem ws = bytes ? tu_buffer(ctx, bytes) : NULL;
    st = clforge_conv2d_ex(ctx, d, x, w, NULL, b, y, ws, bytes, 0, NULL, NULL);
    if (ws) clReleaseMemObject(ws);
    return st;
  }
  clforge_conv2d_weights pw = NULL;
  clforge_status st = clforge_conv2d_weights_create(ctx, d, w, 0, NULL, &pw);
  if (st != CLFORGE_SUCCESS) return st;
  clforge_conv_algo a;
  CHECK_OK(NULL, clforge_conv2d_weights_algo(pw, &a));
  CHECK(d->algo == CLFORGE_CONV_ALGO_AUTO || a == d->algo, "weights prepared for %s, asked %s",
        clforge_conv_algo_name(a), clforge_conv_algo_name(d->algo));
  /* Two calls on the same weights; the second's result is checked. With
   * beta != 0 the first would be accumulated into it: then one call. */
  if (d->beta == 0.0f) st = clforge_conv2d_ex(ctx, d, x, NULL, pw, b, y, NULL, 0, 0, NULL, NULL);
  if (st == CLFORGE_SUCCESS) st = clforge_conv2d_ex(ctx, d, x, NULL, pw, b, y, NULL, 0, 0, NULL, NULL);
  clforge_conv2d_weights_release(pw);
  return st;
}

/* Run desc (bias: with a bias of desc's bias type) and check it. A forced
 * algorithm that refuses the shape must say CLFORGE_UNSUPPORTED and leave y
 * alone: CONV_REFUSED. Anything else wrong counts as a failed check. */
static conv_outcome conv_run_case(clforge_context ctx, const clforge_conv2d_desc *desc, int bias) {
  char what[400];
  conv_describe(desc, bias, what, sizeof what);
  clforge__conv d;
  if (clforge__conv_resolve(NULL, desc, bias, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: does not resolve: %s", what, clforge_last_error(NULL));
    return CONV_FAILED;
  }
  const size_t xs = clforge_dtype_size(d.x.type), ws = clforge_dtype_size(d.filt.type);
  const size_t ys = clforge_dtype_size(d.y.type), bs = clforge_dtype_size(d.bias.type);
  const size_t ytot = d.y.extent + 2 * CONV_GUARD;
  void *hx = malloc(d.x.extent * xs), *hw = malloc(d.filt.extent * ws), *hb = malloc((d.k + d.bias.offset + 1) * bs);
  void *hy0 = malloc(ytot * ys), *hy = malloc(ytot * ys), *want = malloc(ytot * ys);
  conv_fill(hx, d.x.type, d.x.extent);
  conv_fill(hw, d.filt.type, d.filt.extent);
  conv_fill(hb, d.bias.type, d.k + d.bias.offset + 1);
  conv_fill(hy0, d.y.type, ytot); /* the guards and y's old values (beta) */
  cl_mem x = tu_buffer(ctx, d.x.extent * xs), w = tu_buffer(ctx, d.filt.extent * ws);
  cl_mem b = tu_buffer(ctx, (d.k + d.bias.offset + 1) * bs), y = tu_buffer(ctx, ytot * ys);
  tu_write(ctx, x, 0, d.x.extent * xs, hx);
  tu_write(ctx, w, 0, d.filt.extent * ws, hw);
  tu_write(ctx, b, 0, (d.k + d.bias.offset + 1) * bs, hb);
  tu_write(ctx, y, 0, ytot * ys, hy0);
  /* y's guards: the first CONV_GUARD elements are before y_offset */
  clforge_conv2d_desc run = *desc;
  run.y_offset += CONV_GUARD;
  clforge_status st = conv_call_op(ctx, &run, x, w, bias ? b : NULL, y);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", clforge_last_error(ctx)); /* before the read-back's own calls clear it */
  conv_outcome out = CONV_RAN;
  tu_read(ctx, y, 0, ytot * ys, hy);
  if (st == CLFORGE_UNSUPPORTED && desc->algo != CLFORGE_CONV_ALGO_AUTO) {
    CHECK(memcmp(hy, hy0, ytot * ys) == 0, "%s: refused, but y changed", what);
    CHECK(strlen(msg) > 10, "%s: refused without a reason", what);
    out = CONV_REFUSED;
  } else if (st != CLFORGE_SUCCESS) {
    CHECK(0, "%s -> %s: %s", what, clforge_status_name(st), msg);
    out = CONV_FAILED;
  } else {
    memcpy(want, hy0, ytot * ys);
    clforge__conv rd;
    clforge__conv_resolve(NULL, &run, bias, &rd);
    const clforge__tolerance tol = clforge__conv_algo_tolerance(desc->algo, d.y.type);
    clforge__error_stats es;
    size_t nchk = 0;
    float *g = malloc(CONV_SAMPLES * sizeof *g), *e = malloc(CONV_SAMPLES * sizeof *e);
    size_t *at = malloc(CONV_SAMPLES * sizeof *at);
    if (d.flops <= CONV_FULL_CHECK_FLOPS) {
      CHECK_OK(NULL, clforge_ref_conv2d(&run, hx, hw, bias ? hb : NULL, want));
      float *gf = malloc(d.y.count * sizeof *gf), *wf = malloc(d.y.count * sizeof *wf);
      clforge_ref_convert(d.y.count, (char *)hy + rd.y.offset * ys, d.y.type, gf, CLFORGE_F32);
      clforge_ref_convert(d.y.count, (char *)want + rd.y.offset * ys, d.y.type, wf, CLFORGE_F32);
      clforge__compare_f32(d.y.count, gf, wf, &es);
      nchk = d.y.count;
      if (!clforge__within_tolerance(&es, tol)) {
        size_t i = clforge__worst_index(&es, tol);
        CHECK(0, "%s: nrmse %.3g max_abs %.3g (max %.3g); worst y[%zu] = %g, want %g", what, es.nrmse, es.max_abs,
              es.max_want, i, gf[i], wf[i]);
        out = CONV_FAILED;
      } else {
        ++tu_passed;
      }
      free(gf);
      free(wf);
    } else { /* sampled outputs: every image, spread over channels and borders */
      for (size_t i = 0; i < CONV_SAMPLES; ++i) {
        size_t nn = i % d.n, kk = (i * 37) % d.k, pp = (i * 101 + i / 7) % d.p, qq = (i * 53 + i / 3) % d.q;
        if (i % 10 == 0) pp = (i / 10) % 2 ? d.p - 1 : 0;
        if (i % 10 == 1) qq = (i / 10) % 2 ? d.q - 1 : 0;
        size_t yi = rd.y.offset + nn * rd.y.stride[0] + kk * rd.y.stride[1] + pp * rd.y.stride[2] + qq * rd.y.stride[3];
        float v = (float)clforge__ref_conv2d_at(&rd, hx, hw, bias ? hb : NULL, hy0, nn, kk, pp, qq);
        unsigned char raw[4];
        clforge_ref_convert(1, &v, CLFORGE_F32, raw, d.y.type);
        e[nchk] = conv_get(raw, d.y.type, 0);
        g[nchk] = conv_get(hy, d.y.type, yi);
        at[nchk++] = yi;
      }
      clforge__compare_f32(nchk, g, e, &es);
      if (!clforge__within_tolerance(&es, tol)) {
        size_t i = clforge__worst_index(&es, tol);
        CHECK(0, "%s (sampled): nrmse %.3g max_abs %.3g; worst y[%zu] = %g, want %g", what, es.nrmse, es.max_abs, at[i],
              g[i], e[i]);
        out = CONV_FAILED;
      } else {
        ++tu_passed;
      }
    }
    free(g);
    free(e);
    free(at);
    /* guards: before y and after its extent, bit for bit */
    CHECK(!memcmp(hy, hy0, rd.y.offset * ys) &&
              !memcmp((char *)hy + rd.y.extent * ys, (char *)hy0 + rd.y.extent * ys, (ytot - rd.y.extent) * ys),
          "%s: a guard element around y changed", what);
  }
  clReleaseMemObject(x);
  clReleaseMemObject(w);
  clReleaseMemObject(b);
  clReleaseMemObject(y);
  free(hx);
  free(hw);
  free(hb);
  free(hy0);
  free(hy);
  free(want);
  return out;
}

/* A descriptor with the usual fields: square filter, symmetric padding. */
static clforge_conv2d_desc conv_desc(size_t n, size_t c, size_t h, size_t w, size_t k, size_t r, size_t stride,
                                     size_t pad) {
  clforge_conv2d_desc d = {.n = n, .c = c, .h = h, .w = w, .k = k, .r = r, .s = r, .stride_h = stride,
                           .stride_w = stride, .pad_top = pad, .pad_bottom = pad, .pad_left = pad, .pad_right = pad};
  return d;
}

#endif
