/* The depthwise convolution algorithm (cl/conv_depthwise.cl): groups == C,
 * any channel multiplier K/C, no workspace, the filter read as given. One
 * launch; the kernel's axes follow x's layout (vectors along its contiguous
 * axis: W for NCHW, C for NHWC). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/conv_depthwise.h"
#include "../families/families.h"
#include "../core/validate.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx;
  if (d->groups != d->c) {
    snprintf(why, cap, "depthwise needs groups == C (groups %zu, C %zu)", d->groups, d->c);
    return 0;
  }
  return 1;
}

/* Prepared weights for NHWC x: the filter as R S K (channels innermost), so
 * that a vector of VW channels' taps is one load, not VW gathers K R S
 * apart. NCHW reads one channel's taps per work-item: the filter as given. */
static size_t weights_bytes(const clforge__conv *d, const int *v) {
  (void)v;
  return d->x_layout == CLFORGE_NHWC ? d->k * d->r * d->s * clforge_dtype_size(d->filt.type) : 0;
}

/* The transform on the host: done once per prepared filter, K R S elements,
 * so no kernel is built for it. */
static clforge_status prepare_weights(const clforge__conv_exec *e, cl_mem out) {
  const clforge__conv *d = e->d;
  const size_t es = clforge_dtype_size(d->filt.type), rs = d->r * d->s;
  const size_t span = d->filt.extent - d->filt.offset, bytes = d->k * rs * es;
  const size_t span_bytes = span * es;
  unsigned char *src = malloc(span_bytes ? span_bytes : 1), *dst = malloc(bytes ? bytes : 1);
  clforge_status st = src && dst ? CLFORGE_SUCCESS
                                 : clforge__fail(e->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "conv2d depthwise: no memory for the weights");
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(e->ctx, e->w, d->filt.offset * es, span_bytes, src);
  if (st == CLFORGE_SUCCESS) {
    for (size_t k = 0; k < d->k; ++k)
      for (size_t r = 0; r < d->r; ++r)
        for (size_t s = 0; s < d->s; ++s)
          memcpy(dst + ((r * d->s + s) * d->k + k) * es, src + (k * d->filt.stride[0] + r * d->filt.stride[2] + s * d->filt.stride[3]) * es, es);
    cl_int err = clEnqueueWriteBuffer(e->ctx->queue, out, CL_TRUE, 0, bytes, dst, e->nwait, e->wait, e->event);
    if (err != CL_SUCCESS) st = clforge__fail_cl(e->ctx, err, "clEnqueueWriteBuffer (conv2d depthwise weights)");
  }
  free(src);
  free(dst);
  return st;
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t round_up(size_t a, size_t b) { return ceil_div(a, b) * b; }

static int wide_coords(const clforge__conv *d) {
  const double lim = (double)INT32_MAX;
  const double hh = (double)d->h + (double)d->pad_t + (double)d->pad_b + (double)d->dil_h * (double)d->r;
  const double ww = (double)d->w + (double)d->pad_l + (double)d->pad_r + (double)d->dil_w * (double)d->s;
  const double pq = ((double)d->p + 128.0) * (double)d->stride_h + ((double)d->q + 128.0) * (double)d->stride_w;
  return hh >= lim || ww >= lim || pq >= lim;
}

static clforge_status enqueue(const clforge__conv_exec *e) {
  clforge_context ctx = e->ctx;
  const clforge__conv *d = e->d;
  const int *v = e->v;
  const size_t vw = (size_t)v[CONVDW_VW], tp = (size_t)v[CONVDW_TP], nv = (size_t)v[CONVDW_NV];
  const size_t wg0 = (size_t)v[CONVDW_WG0];
  const size_t wg1 = (size_t)v[CONVDW_WG1];
  const size_t mult = d->k / d->c;
  const int cinner = d->x_layout == CLFORGE_NHWC;
  const int xunit = cinner ? d->x.stride[1] == 1 && mult == 1 : d->x.stride[3] == 1 && d->stride_w == 1;
  const int yunit = cinner ? d->y.stride[1] == 1 : d->y.stride[3] == 1;
  /* The filter: prepared (R S K, see weights_bytes) or as given. */
  clforge__conv_tensor wt = d->filt;
  if (e->pw) wt.offset = 0, wt.stride[0] = 1, wt.stride[3] = d->k, wt.stride[2] = d->s * d->k;
  const cl_mem wbuf = e->pw ? e->pw : e->w;
  const int wunit = cinner && wt.stride[0] == 1;
  char extra[112];
  snprintf(extra, sizeof extra, "-DCINNER=%d -DXUNIT=%d -DYUNIT=%d -DWUNIT=%d -DWIDE=%d", cinner, xunit, yunit, wunit,
           wide_coords(d));
  cl_kernel k;
  clforge_status st = clforge__conv_kernel(ctx, &clforge__family_conv_depthwise, "clforge_conv_depthwise", v, d,
                                           extra, wg0 * wg1, &k);
  if (st != CLFORGE_SUCCESS) return st;

  size_t global[3];
  if (cinner) {
    global[0] = round_up(ceil_div(d->k, vw), wg0), global[1] = round_up(ceil_div(d->q, tp * nv), wg1);
    global[2] = d->n * d->p;
  } else {
    global[0] = round_up(ceil_div(d->q, vw * nv), wg0), global[1] = round_up(ceil_div(d->p, tp), wg1);
    global[2] = d->n * d->k;
  }
  const size_t local[3] = {wg0, wg1, 1};
  if ((global[0] + 1) * vw * nv > UINT32_MAX || (global[1] + 1) * tp * nv > UINT32_MAX || global[2] > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED,
                         "conv2d depthwise: the launch exceeds 2^32 work-items along an axis");

  const cl_uint u[] = {(cl_uint)d->k,     (cl_uint)mult,        (cl_uint)d->h,     (cl_uint)d->w,
                       (cl_uint)d->p,     (cl_uint)d->q,        (cl_uint)d->r,     (cl_uint)d->s,
                       (cl_uint)d->stride_h, (cl_uint)d->stride_w, (cl_uint)d->dil_h, (cl_uint)d->dil_w,
                       (cl_uint)d->pad_t, (cl_uint)d->pad_l};
  /* the filter's k, r, s strides: one channel per group */
  return clforge__conv_set_args_launch(e, k, wbuf, &wt, 0xD, u, sizeof u / sizeof u[0], global, local,
                                       "conv2d depthwise");
}

const clforge__conv_algo_impl clforge__conv_depthwise = {
    .algo = CLFORGE_CONV_ALGO_DEPTHWISE,
    .name = "depthwise",
    .family = &clforge__family_conv_depthwise,
    .supports = supports,
    .weights_bytes = weights_bytes,
    .prepare_weights = prepare_weights,
    .enqueue = enqueue,
};
