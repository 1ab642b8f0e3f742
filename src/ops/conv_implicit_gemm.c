/* The implicit-GEMM convolution algorithm (cl/conv_implicit_gemm.cl): output
 * pixels x filter taps times filter taps x output channels with the im2col
 * gather fused into the loads. Two kernels of one family: the
 * contiguous-channel one (NHWC x, KRSC w, C/groups >= DVW) and the staged
 * one (every other layout, few channels). No workspace; the
 * filter is read as given (any layout), so prepared weights only keep a
 * copy. Any non-empty shape, depthwise included (slow: one channel per tap). */
#include <stdio.h>

#include "../core/error.h"
#include "../families/conv_implicit_gemm.h"
#include "../families/families.h"
#include "../core/context.h"
#include "conv_algo.h"

/* Geometry is passed to the kernel as uint (idx_t for element offsets). */
static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx;
  const size_t lim = (size_t)1 << 30;
  const size_t dims[] = {d->p, d->q, d->h, d->w, d->r, d->s, d->cg, d->kg, d->stride_h, d->stride_w, d->dil_h,
                         d->dil_w, d->pad_t, d->pad_l, d->p * d->q, d->r * d->s, d->r * d->dil_h, d->s * d->dil_w};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; ++i)
    if (dims[i] >= lim) {
      snprintf(why, cap, "implicit_gemm needs sizes, strides, pads and P*Q below 2^30");
      return 0;
    }
  if (d->p * d->stride_h >= lim || d->q * d->stride_w >= lim) {
    snprintf(why, cap, "implicit_gemm needs P*stride and Q*stride below 2^30");
    return 0;
  }
  return 1;
}

static clforge_status set_args(clforge_context ctx, cl_kernel k, const clforge__conv_exec *e) {
  const clforge__conv *d = e->d;
  cl_ulong u[6];
  cl_uint a = 0;
  cl_int err = CL_SUCCESS;
#define ARG(v) (err |= clSetKernelArg(k, a++, sizeof(v), &(v)))
#define ARGS_TENSOR(buf, t)                                                            \
  do {                                                                                 \
    ARG(buf);                                                                          \
    u[0] = (t).offset, u[1] = (t).stride[0], u[2] = (t).stride[1], u[3] = (t).stride[2], \
    u[4] = (t).stride[3];                                                              \
    for (int i_ = 0; i_ < 5; ++i_) ARG(u[i_]);                                         \
  } while (0)
  cl_mem w = e->pw ? e->pw : e->w;
  ARGS_TENSOR(e->x, d->x);
  ARGS_TENSOR(w, d->filt);
  ARGS_TENSOR(e->y, d->y);
  /* No bias: any valid buffer stands in (the kernel does not read it). */
  cl_mem bias = e->bias ? e->bias : e->y;
  ARG(bias);
  u[5] = d->has_bias ? d->bias.offset : 0;
  ARG(u[5]);
  cl_ulong m = (cl_ulong)d->n * d->p * d->q;
  ARG(m);
  cl_uint g[14] = {(cl_uint)d->p,        (cl_uint)d->q,        (cl_uint)d->h,     (cl_uint)d->w,
                   (cl_uint)d->r,        (cl_uint)d->s,        (cl_uint)d->cg,    (cl_uint)d->kg,
                   (cl_uint)d->stride_h, (cl_uint)d->stride_w, (cl_uint)d->dil_h, (cl_uint)d->dil_w,
                   (cl_uint)d->pad_t,    (cl_uint)d->pad_l};
  for (int i = 0; i < 14; ++i) ARG(g[i]);
  float alpha = d->alpha, beta = d->beta;
  ARG(alpha);
  ARG(beta);
#undef ARG
#undef ARGS_TENSOR
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, "clSetKernelArg (conv implicit_gemm)");
}

/* The contiguous-channel kernel applies: x's and w's channels are contiguous
 * (NHWC x, KRSC filter) and there is at least one full vector of them (its
 * zero-padded tail alone ran the 3-channel ResNet stem slower than the
 * staged kernel). */
static int use_dot(const clforge__conv *d, const int *v) {
  return d->x.stride[1] == 1 && d->filt.stride[1] == 1 && d->cg >= (size_t)v[CIG_DVW];
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

static clforge_status enqueue(const clforge__conv_exec *e) {
  const clforge__conv *d = e->d;
  const int *v = e->v;
  const int dot = use_dot(d, v);
  const size_t m = d->n * d->p * d->q;
  size_t gws[3], lws[3];
  if (dot) {
    /* Rows fastest (PoCL runs a work-group's work-items as a loop along
     * dimension 0 first): neighbours share the filter rows of their columns
     * in L1, and a work-group's x rows stay in L2 across its columns. The
     * group is 8 x 16 whatever the problem (the best measured, see
     * docs/performance.md): a shape cut to a small problem would be a new
     * compile per shape on drivers that compile per work-group shape; the
     * kernel skips the rows and columns past the end. */
    const size_t cols = (d->kg + (size_t)v[CIG_DNR] - 1) / (size_t)v[CIG_DNR], rows = (m + (size_t)v[CIG_DMR] - 1) / (size_t)v[CIG_DMR];
    lws[0] = 8, lws[1] = 16;
    gws[0] = round_up(rows, lws[0]), gws[1] = round_up(cols, lws[1]);
  } else {
    lws[0] = (size_t)(v[CIG_NC] / v[CIG_NR]), lws[1] = (size_t)(v[CIG_MC] / v[CIG_MR]);
    gws[0] = (d->kg + (size_t)v[CIG_NC] - 1) / (size_t)v[CIG_NC] * lws[0];
    gws[1] = (m + (size_t)v[CIG_MC] - 1) / (size_t)v[CIG_MC] * lws[1];
  }
  gws[2] = d->groups, lws[2] = 1;
  const char *extra = d->y.stride[1] == 1 ? "-DYC1=1" : "-DYC1=0";
  cl_kernel k;
  const char *name = dot ? "clforge_conv_implicit_gemm_dot" : clforge__family_conv_implicit_gemm.kernel;
  clforge_status st = clforge__conv_kernel(e->ctx, &clforge__family_conv_implicit_gemm, name, v, d, extra,
                                           lws[0] * lws[1], &k);
  if (st != CLFORGE_SUCCESS) return st;
  st = set_args(e->ctx, k, e);
  if (st != CLFORGE_SUCCESS) return st;
  return clforge__launch(e->ctx, k, 3, gws, lws, e->nwait, e->wait, e->event, "clEnqueueNDRangeKernel (conv implicit_gemm)");
}

const clforge__conv_algo_impl clforge__conv_implicit_gemm = {
    .algo = CLFORGE_CONV_ALGO_IMPLICIT_GEMM,
    .name = "implicit_gemm",
    .family = &clforge__family_conv_implicit_gemm,
    .supports = supports,
    .enqueue = enqueue,
};
