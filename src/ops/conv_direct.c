/* The direct convolution algorithm (cl/conv_direct.cl): every shape the
 * descriptor allows, no workspace, the filter read as given. One launch:
 * dimension 0 covers a row's chunks of pixels (border and interior runs),
 * dimension 1
 * the groups times their channel tiles, dimension 2 the N*P output rows. */
#include <stdint.h>
#include <stdio.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/conv_direct.h"
#include "../families/families.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx, (void)d, (void)why, (void)cap;
  return 1;
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* 1 when a coordinate (input row/column with padding and the filter's span)
 * may pass 2^31 - 1: the kernel then computes coordinates in 64 bits. */
static int wide_coords(const clforge__conv *d) {
  const double lim = (double)INT32_MAX;
  const double hh = (double)d->h + (double)d->pad_t + (double)d->pad_b + (double)d->dil_h * (double)d->r;
  const double ww = (double)d->w + (double)d->pad_l + (double)d->pad_r + (double)d->dil_w * (double)d->s;
  const double qq = (double)d->q * (double)d->stride_w + 64.0 * 8 * 16 * (double)d->stride_w;
  return hh >= lim || ww >= lim || qq >= lim;
}

static clforge_status enqueue(const clforge__conv_exec *e) {
  clforge_context ctx = e->ctx;
  const clforge__conv *d = e->d;
  const int *v = e->v;
  const size_t tq = (size_t)v[CONVD_TQ], tk = (size_t)v[CONVD_TK], wgq = (size_t)v[CONVD_WGQ];
  const size_t wgk = (size_t)v[CONVD_WGK], vw = (size_t)v[CONVD_VW];
  char extra[64];
  snprintf(extra, sizeof extra, "-DXUNIT=%d -DWIDE=%d", d->x.stride[3] == 1 && d->stride_w == 1, wide_coords(d));
  cl_kernel k;
  clforge_status st =
      clforge__conv_kernel(ctx, &clforge__family_conv_direct, "clforge_conv_direct", v, d, extra, wgq * wgk, &k);
  if (st != CLFORGE_SUCCESS) return st;

  /* The row's chunks (cl/conv_direct.cl, chunk_of): left border [0, qlo)
   * (whole chunks from 0: they cost no extra chunk), interior [qlo, qhi)
   * where every tap of every pixel is inside x, right border [qhi, Q). An
   * interior shorter than a chunk is border too. */
  const size_t span = (d->s - 1) * d->dil_w;
  size_t qlo = ceil_div(ceil_div(d->pad_l, d->stride_w), vw) * vw, qhi = 0;
  if (qlo > d->q) qlo = d->q;
  if (d->w - 1 + d->pad_l >= span) qhi = (d->w - 1 + d->pad_l - span) / d->stride_w + 1;
  if (qhi > d->q) qhi = d->q;
  if (qhi < qlo + vw) qhi = qlo;
  const size_t nl = ceil_div(qlo, vw), ni = ceil_div(qhi - qlo, vw), nr = ceil_div(d->q - qhi, vw);
  const size_t ktiles = ceil_div(d->kg, wgk * tk);
  const size_t qgroups = ceil_div(nl + ni + nr, wgq * tq);
  const size_t global[3] = {qgroups * wgq, d->groups * ktiles * wgk, d->n * d->p};
  const size_t local[3] = {wgq, wgk, 1};
  if (ktiles * d->groups > UINT32_MAX || d->n * d->p > UINT32_MAX || (qgroups * wgq * tq + 1) * vw > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED,
                         "conv2d direct: the launch exceeds 2^32 work-items along an axis");

  const cl_uint u[] = {(cl_uint)d->p,        (cl_uint)d->cg,       (cl_uint)d->kg,    (cl_uint)ktiles,
                       (cl_uint)d->h,        (cl_uint)d->w,        (cl_uint)d->q,     (cl_uint)d->r,
                       (cl_uint)d->s,        (cl_uint)d->stride_h, (cl_uint)d->stride_w, (cl_uint)d->dil_h,
                       (cl_uint)d->dil_w,    (cl_uint)d->pad_t,    (cl_uint)d->pad_l,    (cl_uint)qlo,
                       (cl_uint)qhi,         (cl_uint)nl,          (cl_uint)ni};
  return clforge__conv_set_args_launch(e, k, e->w, &d->filt, 0xF, u, sizeof u / sizeof u[0], global, local,
                                       "conv2d direct");
}

const clforge__conv_algo_impl clforge__conv_direct = {
    .algo = CLFORGE_CONV_ALGO_DIRECT,
    .name = "direct",
    .family = &clforge__family_conv_direct,
    .supports = supports,
    .enqueue = enqueue,
};
