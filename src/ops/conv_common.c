/* What the convolution op and its algorithms share: the algorithm table and
 * names, the tuning key of a call (its shape class), the problem's build
 * options and kernel building. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/conv_classes.h"
#include "../families/registry.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "buffer_check.h"
#include "conv_algo.h"

/* The names are the registry's (src/families/registry.h). */
const char *clforge_conv_algo_name(clforge_conv_algo algo) {
  const char *name = clforge__registry_name(CLFORGE_REGISTRY_CONV_ALGOS, (int)algo);
  return name ? name : "?";
}

clforge_status clforge_conv_algo_from_name(const char *name, clforge_conv_algo *algo) {
  clforge__clear_error(NULL);
  if (!name || !algo) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv_algo_from_name: name or algo is NULL");
  for (int i = 0; i < CLFORGE_CONV_ALGO_COUNT; ++i)
    if (!strcasecmp(name, clforge_conv_algo_name((clforge_conv_algo)i))) {
      *algo = (clforge_conv_algo)i;
      return CLFORGE_SUCCESS;
    }
  char names[256];
  return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv algorithm \"%s\" is unknown: use %s", name,
                       clforge__registry_text(CLFORGE_REGISTRY_CONV_ALGOS, ", ", " or ", names, sizeof names));
}

const char *clforge_conv_algo_source_name(clforge_conv_algo_source source) {
  static const char *const names[] = {"?", "desc", "env", "tuned", "nearest", "heuristic", "tuner", "weights",
                                      "fallback"};
  return (unsigned)source < sizeof names / sizeof names[0] ? names[source] : "?";
}

void clforge__conv_weights_free(clforge_context ctx, cl_event ready, cl_mem buf, void *host_w) {
  if (ctx) clFinish(ctx->queue);
  if (ready) clReleaseEvent(ready);
  if (buf) clReleaseMemObject(buf);
  free(host_w);
}

const clforge__conv_algo_impl *clforge__conv_algo_impl_of(clforge_conv_algo algo) {
  static const clforge__conv_algo_impl *const table[CLFORGE_CONV_ALGO_COUNT] = {
      NULL,
      &clforge__conv_direct,
      &clforge__conv_implicit_gemm,
      &clforge__conv_gemm_1x1,
      &clforge__conv_im2col,
      &clforge__conv_winograd_2x2,
      &clforge__conv_winograd_4x4,
      &clforge__conv_fft,
      &clforge__conv_depthwise,
  };
  return (unsigned)algo < CLFORGE_CONV_ALGO_COUNT ? table[algo] : NULL;
}

static int depthwise_shape(size_t groups, size_t c) { return groups > 1 && groups == c; }

/* The call's shape: N, C, H, K, R, stride, pad, groups (conv_classes.h). */
static void call_shape(const clforge__conv *d, size_t *s) {
  s[CONV_DIM_N] = d->n, s[CONV_DIM_C] = d->c, s[CONV_DIM_H] = d->h, s[CONV_DIM_K] = d->k, s[CONV_DIM_R] = d->r;
  s[CONV_DIM_STRIDE] = d->stride_h, s[CONV_DIM_PAD] = d->pad_t, s[CONV_DIM_GROUPS] = d->groups;
}

static double log_dist(const size_t *a, const size_t *b) {
  double t = 0;
  for (int i = 0; i < CLFORGE_CONV_NDIMS; ++i) {
    double u = log(a[i] ? (double)a[i] : 1.0) - log(b[i] ? (double)b[i] : 1.0);
    t += u * u;
  }
  return t;
}

int clforge__conv_shape_near(const size_t *call, const size_t *tuned) {
  static const int dims[3] = {CONV_DIM_C, CONV_DIM_K, CONV_DIM_H};
  for (int i = 0; i < 3; ++i) {
    const double a = call[dims[i]] ? (double)call[dims[i]] : 1.0, b = tuned[dims[i]] ? (double)tuned[dims[i]] : 1.0;
    if (a > CLFORGE__CONV_NEAR_FACTOR * b || b > CLFORGE__CONV_NEAR_FACTOR * a) return 0;
  }
  return 1;
}

void clforge__conv_make_key(const clforge__conv *d, clforge__conv_key *k) {
  memset(k, 0, sizeof *k);
  clforge__conv_dtypes_key(d, k->dtypes, sizeof k->dtypes);
  clforge__conv_layout_key(d, k->layout, sizeof k->layout);
  size_t s[CLFORGE_CONV_NDIMS];
  call_shape(d, s);
  /* The class of the same category (depthwise or not, square filter size,
   * stride) whose shape is nearest among those near enough to stand for it
   * (clforge__conv_shape_near); "conv" when none is. */
  const char *best = "conv";
  double bd = INFINITY;
  const int dw = depthwise_shape(d->groups, d->c), square = d->r == d->s && d->stride_h == d->stride_w;
  for (const clforge__shape_class *c = clforge__conv_all_classes; c->name; ++c) {
    const size_t *cs = c->shape;
    if (!square || dw != depthwise_shape(cs[CONV_DIM_GROUPS], cs[CONV_DIM_C]) || cs[CONV_DIM_R] != d->r ||
        cs[CONV_DIM_STRIDE] != d->stride_h)
      continue;
    double t = log_dist(cs, s);
    if (t < bd && clforge__conv_shape_near(s, cs)) bd = t, best = c->name;
  }
  snprintf(k->shape_class, sizeof k->shape_class, "%s", best);
  k->key.dtypes = k->dtypes, k->key.layout = k->layout, k->key.shape_class = k->shape_class;
  k->key.ndims = CLFORGE_CONV_NDIMS;
  memcpy(k->key.shape, s, sizeof s);
}

int clforge__conv_variant(const clforge__conv *d) {
  int v = 0;
  if (d->x_layout == CLFORGE_NHWC) v |= CLFORGE__CONV_VARIANT_NHWC;
  if (d->x.type != CLFORGE_F32 || d->filt.type != CLFORGE_F32) v |= CLFORGE__CONV_VARIANT_HALF;
  if (d->r == 1 && d->s == 1) v |= CLFORGE__CONV_VARIANT_1X1;
  return v;
}

void clforge__conv_problem_options(const clforge__conv *d, char *buf, size_t cap) {
  size_t used = strlen(buf);
  if (used >= cap) return;
  snprintf(buf + used, cap - used, " -DX_T=%d -DW_T=%d -DY_T=%d -DBIAS=%d -DBIAS_T=%d -DACT=%d -DIDX64=%d",
           (int)d->x.type, (int)d->filt.type, (int)d->y.type, d->has_bias, (int)d->bias.type, d->act, d->idx64);
}

clforge_status clforge__conv_kernel(clforge_context ctx, const clforge__family *f, const char *name, const int *v,
                                    const clforge__conv *d, const char *extra, size_t wgs, cl_kernel *k) {
  char more[1024] = "";
  clforge__conv_problem_options(d, more, sizeof more);
  if (extra) {
    const size_t used = strlen(more);
    snprintf(more + used, sizeof more - used, " %s", extra);
  }
  return clforge__family_kernel(ctx, "conv2d", f, name, v, more, wgs, k);
}

clforge__tolerance clforge__conv_algo_tolerance(clforge_conv_algo algo, clforge_dtype dtype) {
  clforge__tolerance t = clforge__tolerance_for(dtype);
  if (dtype != CLFORGE_F32) return t; /* the storage rounding dominates */
  switch (algo) {
    /* F(4x4,3x3) measured nrmse <= 3.6e-6 and max_abs_scaled <= 1.4e-5 on ResNet layers up to C = 512,
     * growing as sqrt(C) (src/ops/conv_winograd.c): a margin for C in the thousands. */
    case CLFORGE_CONV_ALGO_WINOGRAD_4X4: t.nrmse = 3e-5, t.max_abs_scaled = 2e-4; break;
    /* FFT: round-off grows with log2 of the tile (about 4e-7 per doubling, measured in
     * tests/test_conv_fft.c); tiles up to 2^18 points add < 1e-5 to the plain bound. */
    case CLFORGE_CONV_ALGO_FFT: t.nrmse = 2e-5, t.max_abs_scaled = 2e-4; break;
    default: break;
  }
  return t;
}

clforge__tolerance clforge__conv_tolerance(const clforge__family *f, clforge_dtype dtype) {
  for (int a = 1; f && a < CLFORGE_CONV_ALGO_COUNT; ++a) {
    const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of((clforge_conv_algo)a);
    if (impl && impl->family == f) return clforge__conv_algo_tolerance((clforge_conv_algo)a, dtype);
  }
  return clforge__tolerance_for(dtype);
}

cl_int clforge__conv_tensor_args(cl_kernel k, cl_uint *a, const clforge__conv_tensor *t, unsigned axes) {
  const cl_ulong off = t->offset;
  cl_int err = clSetKernelArg(k, (*a)++, sizeof off, &off);
  for (int i = 0; i < 4; ++i)
    if (axes & (1u << i)) {
      const cl_ulong st = t->stride[i];
      err |= clSetKernelArg(k, (*a)++, sizeof st, &st);
    }
  return err;
}

clforge_status clforge__conv_set_args_launch(const clforge__conv_exec *e, cl_kernel k, cl_mem w,
                                             const clforge__conv_tensor *wt, unsigned w_axes, const cl_uint *u,
                                             size_t nu, const size_t global[3], const size_t local[3],
                                             const char *what) {
  const clforge__conv *d = e->d;
  const cl_mem bias = e->bias ? e->bias : e->y; /* never read without BIAS */
  const cl_ulong bo = d->bias.offset;
  const cl_float alpha = d->alpha, beta = d->beta;
  cl_uint a = 0;
  const cl_ulong xlen = d->x.extent; /* elements of x's buffer the kernel may read (edge vectors) */
  cl_int err = clSetKernelArg(k, a++, sizeof(cl_mem), &e->x);
  err |= clSetKernelArg(k, a++, sizeof xlen, &xlen);
  err |= clforge__conv_tensor_args(k, &a, &d->x, 0xF);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &w);
  err |= clforge__conv_tensor_args(k, &a, wt, w_axes);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &e->y);
  err |= clforge__conv_tensor_args(k, &a, &d->y, 0xF);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &bias);
  err |= clSetKernelArg(k, a++, sizeof bo, &bo);
  for (size_t i = 0; i < nu; ++i) err |= clSetKernelArg(k, a++, sizeof u[i], &u[i]);
  err |= clSetKernelArg(k, a++, sizeof alpha, &alpha);
  err |= clSetKernelArg(k, a++, sizeof beta, &beta);
  char msg[96];
  if (err != CL_SUCCESS) {
    snprintf(msg, sizeof msg, "clSetKernelArg (%s)", what);
    return clforge__fail_cl(e->ctx, err, msg);
  }
  snprintf(msg, sizeof msg, "clEnqueueNDRangeKernel (%s)", what);
  return clforge__launch(e->ctx, k, 3, global, local, e->nwait, e->wait, e->event, msg);
}

clforge_status clforge__conv_check_tensor(clforge_context ctx, const char *op, const clforge__conv_tensor *t, cl_mem buf,
                                          int access) {
  if (!t->count) return CLFORGE_SUCCESS;
  return clforge__check_buffer(ctx, op, t->name, buf, t->offset, t->count, clforge_dtype_size(t->type), access);
}

static clforge_status range_of(clforge_context ctx, const clforge__conv_tensor *t, cl_mem buf, clforge__byte_range *r) {
  const size_t es = clforge_dtype_size(t->type);
  return clforge__buffer_range(ctx, buf, t->offset * es, t->count * es, r);
}

clforge_status clforge__conv_check_overlaps(clforge_context ctx, const char *op, const clforge__conv_tensor *const *t,
                                            const cl_mem *b, int nout, int nall, cl_mem ws, size_t ws_bytes) {
  clforge_status st = CLFORGE_SUCCESS;
  for (int i = 0; i < nout && st == CLFORGE_SUCCESS; ++i) {
    clforge__byte_range ro, r;
    if (!b[i] || !t[i]->count) continue;
    st = range_of(ctx, t[i], b[i], &ro);
    for (int j = 0; j < nall && st == CLFORGE_SUCCESS; ++j) {
      if (j == i || (j < i && j < nout) || !b[j] || !t[j]->count) continue; /* output pairs once */
      st = range_of(ctx, t[j], b[j], &r);
      if (st == CLFORGE_SUCCESS && clforge__ranges_alias(&ro, &r))
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s overlaps %s (they share bytes of one buffer)", op,
                             t[i]->name, t[j]->name);
    }
  }
  if (st == CLFORGE_SUCCESS && ws) {
    clforge__byte_range rw, r;
    st = clforge__buffer_range(ctx, ws, 0, ws_bytes, &rw);
    for (int i = 0; i < nall && st == CLFORGE_SUCCESS; ++i) {
      if (!b[i] || !t[i]->count) continue;
      st = range_of(ctx, t[i], b[i], &r);
      if (st == CLFORGE_SUCCESS && clforge__ranges_alias(&rw, &r))
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: the workspace overlaps %s", op, t[i]->name);
    }
  }
  return st;
}

clforge_status clforge__conv_read_tensor(clforge_context ctx, const char *op, const clforge__conv_tensor *t, cl_mem buf,
                                         void **out) {
  *out = NULL;
  if (!t->count || !buf) return CLFORGE_SUCCESS;
  size_t bytes = t->extent * clforge_dtype_size(t->type);
  *out = malloc(bytes);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s validation: no memory for %s", op, t->name);
  return clforge__read_buffer(ctx, buf, 0, bytes, *out);
}

