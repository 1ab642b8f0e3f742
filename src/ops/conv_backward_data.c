/* clforge_conv2d_backward_data: dx from dy and the filter (also the forward
 * pass of a transposed convolution). Two routes:
 *  - forward: with stride 1 and padding <= dilation * (filter - 1), dx is a
 *    forward convolution of dy (K channels in, C out) with the filter
 *    rotated by 180 degrees and its channels swapped per group, padded by
 *    dilation * (filter - 1) - padding on each side; the rotation goes into
 *    the context's backward scratch and clforge_conv2d_ex runs the rest, so
 *    every forward algorithm (implicit GEMM, 1x1 GEMM, im2col, Winograd,
 *    depthwise, FFT), its tuning entries and its heuristic serve here;
 *  - GEMM + col2im (strides > 1, enough channels): per pass of images a
 *    GEMM writes the column gradient w_g^T dy_g (f32, the forward im2col's
 *    layout) into the convolution scratch, and a gather adds each dx
 *    element's taps from it (cl/conv_backward_data.cl, clforge_conv_col2im);
 *  - direct (cl/conv_backward_data.cl): a gather over the taps that reach
 *    each dx element straight from dy, for every other shape.
 * desc.algo DIRECT forces the gather; IM2COL the GEMM + col2im route with a
 * stride above 1 (the forward route's im2col with stride 1); another
 * algorithm forces the forward route with that forward algorithm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/conv_backward.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "buffer_check.h"
#include "conv_algo.h"
#include "conv_backward.h"
#include "conv_im2col.h"
#include "gemm_launch.h"
#include "launch_chain.h"
#include "op_call.h"

#define OP "conv2d_backward_data"

enum { ROUTE_DIRECT, ROUTE_FORWARD, ROUTE_COL2IM };

typedef struct plan {
  int route;                    /* ROUTE_* */
  int forward;                  /* the forward route */
  clforge__col_plan col;        /* the GEMM + col2im route's passes (f32 columns) */
  int v[CLFORGE_MAX_PARAMS];    /* the gather's parameters */
  clforge_conv2d_desc fwd;      /* the forward route's problem */
  size_t rot_bytes;             /* its rotated filter */
  clforge_conv_choice choice;
} plan;

/* 1 when dx is a forward convolution of dy, else 0 with the reason. */
static int forward_route(const clforge__conv *d, char *why, size_t cap) {
  const size_t span_h = d->dil_h * (d->r - 1), span_w = d->dil_w * (d->s - 1);
  if (d->stride_h != 1 || d->stride_w != 1) {
    snprintf(why, cap, "stride %zu x %zu (the forward route needs stride 1)", d->stride_h, d->stride_w);
    return 0;
  }
  if (d->pad_t > span_h || d->pad_b > span_h || d->pad_l > span_w || d->pad_r > span_w) {
    snprintf(why, cap, "padding beyond dilation x (filter - 1) (the forward route would need negative padding)");
    return 0;
  }
  if (d->k == 0) {
    snprintf(why, cap, "k = 0");
    return 0;
  }
  return 1;
}

/* The forward problem of the route: dy is its input, dx its output. */
static void forward_desc(const clforge__conv *d, clforge_conv_algo algo, clforge_conv2d_desc *f) {
  memset(f, 0, sizeof *f);
  f->kind = CLFORGE_CONV_FORWARD;
  f->n = d->n, f->c = d->k, f->h = d->p, f->w = d->q, f->k = d->c, f->r = d->r, f->s = d->s;
  f->groups = d->groups, f->stride_h = f->stride_w = 1, f->dilation_h = d->dil_h, f->dilation_w = d->dil_w;
  f->pad_top = d->dil_h * (d->r - 1) - d->pad_t, f->pad_bottom = d->dil_h * (d->r - 1) - d->pad_b;
  f->pad_left = d->dil_w * (d->s - 1) - d->pad_l, f->pad_right = d->dil_w * (d->s - 1) - d->pad_r;
  f->x_layout = d->y_layout, f->y_layout = d->x_layout, f->w_layout = CLFORGE_KCRS;
  f->x_type = d->y.type, f->w_type = d->filt.type, f->y_type = d->x.type, f->bias_type = CLFORGE_F32;
  f->x_offset = d->y.offset, f->y_offset = d->x.offset;
  f->alpha = d->alpha, f->alpha_mode = CLFORGE_ALPHA_AS_GIVEN, f->beta = d->beta;
  f->algo = algo;
}

/* The GEMM of group grp in a pass (images n0.., pixels pix0.. of npix):
 * dcol_g = w_g^T dy_g into the f32 columns. */
static clforge_status pass_gemm(clforge_context ctx, const clforge__conv *d, const clforge__col_plan *c, size_t n0,
                                size_t imgs, size_t pix0, size_t npix, size_t grp, clforge__gemm *out) {
  clforge_gemm_desc g = {0};
  g.layout = CLFORGE_ROW_MAJOR;
  g.alpha = 1.0f, g.alpha_mode = CLFORGE_ALPHA_AS_GIVEN;
  g.a_type = d->y.type, g.b_type = d->filt.type, g.c_type = CLFORGE_F32;
  g.k = d->kg;
  if (c->rows) { /* dy NHWC: dcol (pixels x R*S*C) = dy (pixels x K) * w_g (kg x R*S*cg) */
    g.m = imgs * npix, g.n = c->rscg;
    g.lda = d->k, g.a_offset = d->y.offset + n0 * d->y.stride[0] + pix0 * d->k + grp * d->kg;
    g.ldb = c->rscg, g.b_offset = d->filt.offset + grp * d->kg * c->rscg;
    g.ldc = c->rsc, g.c_offset = grp * c->rscg;
  } else { /* dy NCHW, per image: dcol (R*S*cg x pixels) = w_g^T * dy_n,g (kg x pixels) */
    g.a_type = d->filt.type, g.b_type = d->y.type;
    g.m = c->rscg, g.n = npix;
    g.trans_a = CLFORGE_TRANS, g.lda = c->rscg, g.a_offset = d->filt.offset + grp * d->kg * c->rscg;
    g.ldb = c->pq, g.b_offset = d->y.offset + n0 * d->y.stride[0] + grp * d->kg * c->pq + pix0;
    g.stride_b = d->y.stride[0];
    g.ldc = npix, g.c_offset = grp * c->rscg * npix, g.stride_c = c->rsc * npix;
    g.batch = imgs;
  }
  g.compute_type = CLFORGE_COMPUTE_32F; /* the backward runs f32 */
  return clforge__gemm_resolve(ctx, &g, out);
}

/* The GEMM + col2im route: passes as the forward im2col's, of f32 columns. */
static clforge_status plan_col2im(clforge_context ctx, const clforge__conv *d, plan *p) {
  clforge_conv_choice *c = &p->choice;
  clforge__conv d32 = *d;
  d32.x.type = CLFORGE_F32; /* the columns hold f32 sums, whatever dx's storage */
  if (!d->n || !clforge__conv_col_plan(ctx, &d32, NULL, &p->col) || p->col.rsc > INT32_MAX || d->k > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                         OP ": im2col (GEMM + col2im): the column matrix does not fit the workspace bound of %zu "
                         "bytes, or the GEMM exceeds clforge GEMM's limits",
                         clforge__workspace_cap(ctx));
  p->route = ROUTE_COL2IM;
  c->algo = CLFORGE_CONV_ALGO_IM2COL;
  c->source = d->algo == CLFORGE_CONV_ALGO_AUTO ? CLFORGE_CONV_ALGO_FROM_HEURISTIC : CLFORGE_CONV_ALGO_FROM_DESC;
  snprintf(c->why, sizeof c->why, "%s", d->algo == CLFORGE_CONV_ALGO_AUTO
                                            ? "heuristic: stride > 1, K >= 16, C*R*S >= 32: GEMM + col2im"
                                            : "desc.algo = im2col: GEMM + col2im");
  clforge__gemm g;
  if (pass_gemm(ctx, d, &p->col, 0, p->col.imgs, 0, p->col.pix, 0, &g) == CLFORGE_SUCCESS)
    c->nkernels = clforge__gemm_explain_resolved(ctx, &g, c->kernels, 4);
  else
    clforge__clear_error(ctx);
  c->workspace_bytes = p->col.bytes;
  c->p = d->p, c->q = d->q;
  for (int i = 0; i < c->nkernels; ++i) snprintf(c->kernels[i].route, sizeof c->kernels[i].route, "%.47s", c->why);
  return CLFORGE_SUCCESS;
}

static clforge_status make_plan(clforge_context ctx, const clforge__conv *d, plan *p) {
  memset(p, 0, sizeof *p);
  clforge_conv_choice *c = &p->choice;
  char why[160];
  const int can = forward_route(d, why, sizeof why);
  const int strided = d->stride_h > 1 || d->stride_w > 1;
  if (strided && (d->algo == CLFORGE_CONV_ALGO_IM2COL ||
                  (d->algo == CLFORGE_CONV_ALGO_AUTO && d->kg >= 16 && d->cg * d->r * d->s >= 32))) {
    clforge_status st = plan_col2im(ctx, d, p);
    if (st == CLFORGE_SUCCESS || d->algo == CLFORGE_CONV_ALGO_IM2COL) return st;
    clforge__clear_error(ctx); /* the automatic choice: the gather then */
    memset(p, 0, sizeof *p);
  }
  if (d->algo == CLFORGE_CONV_ALGO_DIRECT || (d->algo == CLFORGE_CONV_ALGO_AUTO && !can)) {
    clforge_status st = clforge__family_select(ctx, &clforge__family_conv_bwd_data_direct, clforge__conv_variant(d),
                                               NULL, p->v, &c->kernels[0]);
    if (st != CLFORGE_SUCCESS) return st;
    c->nkernels = 1;
    c->algo = CLFORGE_CONV_ALGO_DIRECT;
    if (d->algo == CLFORGE_CONV_ALGO_DIRECT) {
      c->source = CLFORGE_CONV_ALGO_FROM_DESC;
      snprintf(c->why, sizeof c->why, "desc.algo = direct: dx gathered from dy");
    } else {
      c->source = CLFORGE_CONV_ALGO_FROM_HEURISTIC;
      snprintf(c->why, sizeof c->why, "heuristic: direct gather (%.60s)", why);
    }
  } else {
    if (!can)
      return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                           OP ": %s runs backward data as a forward convolution, which this problem cannot be: %s; "
                              "direct does every shape",
                           clforge_conv_algo_name(d->algo), why);
    p->forward = 1, p->route = ROUTE_FORWARD;
    forward_desc(d, d->algo, &p->fwd);
    clforge__conv fd;
    clforge_status st = clforge__conv_resolve(ctx, &p->fwd, 0, &fd);
    if (st == CLFORGE_SUCCESS) st = clforge__conv_forward_explain(ctx, &fd, c);
    if (st != CLFORGE_SUCCESS) return st;
    char fwhy[sizeof c->why];
    snprintf(fwhy, sizeof fwhy, "%s", c->why);
    snprintf(c->why, sizeof c->why, "forward on dy, rotated filter: %.60s", fwhy);
    if (d->algo != CLFORGE_CONV_ALGO_AUTO) c->source = CLFORGE_CONV_ALGO_FROM_DESC;
    p->rot_bytes = d->filt.count * clforge_dtype_size(d->filt.type);
    c->workspace_bytes += p->rot_bytes;
  }
  c->p = d->p, c->q = d->q;
  for (int i = 0; i < c->nkernels; ++i) snprintf(c->kernels[i].route, sizeof c->kernels[i].route, "%.47s", c->why);
  return CLFORGE_SUCCESS;
}

clforge_status clforge__conv_bwd_data_explain(clforge_context ctx, const clforge__conv *d, clforge_conv_choice *choice) {
  plan p;
  clforge_status st = make_plan(ctx, d, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static clforge_status enqueue_direct(clforge_context ctx, const clforge__conv *d, const plan *p, cl_mem dy, cl_mem w,
                                     cl_mem dx, cl_uint nwait, const cl_event *wait, cl_event *done) {
  const size_t wg = (size_t)p->v[CBD_WG], tc = (size_t)p->v[CBD_TC];
  cl_kernel k;
  clforge_status st = clforge__conv_kernel(ctx, &clforge__family_conv_bwd_data_direct, "clforge_conv_bwd_data_direct",
                                           p->v, d, NULL, wg, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const size_t ctiles = ceil_div(d->cg, tc), pixels = d->h * d->w;
  if (pixels > UINT32_MAX || ctiles * d->groups > UINT32_MAX || d->n > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, OP ": the launch exceeds 2^32 work-items along an axis");
  const size_t global[3] = {ceil_div(pixels, wg) * wg, d->groups * ctiles, d->n}, local[3] = {wg, 1, 1};
  const cl_uint u[] = {(cl_uint)d->h,      (cl_uint)d->w,        (cl_uint)d->p,        (cl_uint)d->q,
                       (cl_uint)d->r,      (cl_uint)d->s,        (cl_uint)d->stride_h, (cl_uint)d->stride_w,
                       (cl_uint)d->dil_h,  (cl_uint)d->dil_w,    (cl_uint)d->pad_t,    (cl_uint)d->pad_l,
                       (cl_uint)d->cg,     (cl_uint)d->kg,       (cl_uint)ctiles};
  const cl_float alpha = d->alpha, beta = d->beta;
  cl_uint a = 0;
  cl_int err = clSetKernelArg(k, a++, sizeof(cl_mem), &dy);
  err |= clforge__conv_tensor_args(k, &a, &d->y, 0xF);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &w);
  err |= clforge__conv_tensor_args(k, &a, &d->filt, 0xF);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &dx);
  err |= clforge__conv_tensor_args(k, &a, &d->x, 0xF);
  for (size_t i = 0; i < sizeof u / sizeof u[0]; ++i) err |= clSetKernelArg(k, a++, sizeof u[i], &u[i]);
  err |= clSetKernelArg(k, a++, sizeof alpha, &alpha);
  err |= clSetKernelArg(k, a++, sizeof beta, &beta);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP " direct)");
  return clforge__launch(ctx, k, 3, global, local, nwait, wait, done, "clEnqueueNDRangeKernel (" OP " direct)");
}

/* The rotated filter into the backward scratch, then the forward call on it. */
static clforge_status enqueue_forward(clforge_context ctx, const clforge__conv *d, const plan *p, cl_mem dy, cl_mem w,
                                      cl_mem dx, cl_uint nwait, const cl_event *wait, cl_event *done) {
  cl_mem ws;
  cl_event busy = NULL;
  clforge_status st = clforge__workspace_get_from(ctx, &ctx->conv_bwd_workspace, p->rot_bytes, &ws, &busy);
  if (st != CLFORGE_SUCCESS) return st;
  char opts[96];
  snprintf(opts, sizeof opts, "-DX_T=%d -DW_T=%d -DY_T=%d -DIDX64=%d", (int)d->x.type, (int)d->filt.type,
           (int)d->y.type, d->idx64);
  cl_kernel k;
  st = clforge__kernel_get(ctx, clforge__family_conv_bwd_data_direct.sources, opts, "clforge_conv_rotate_filter", &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_uint u[] = {(cl_uint)d->cg, (cl_uint)d->kg, (cl_uint)d->r, (cl_uint)d->s};
  cl_uint a = 0;
  cl_int err = clSetKernelArg(k, a++, sizeof(cl_mem), &w);
  err |= clforge__conv_tensor_args(k, &a, &d->filt, 0xF);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &ws);
  for (size_t i = 0; i < sizeof u / sizeof u[0]; ++i) err |= clSetKernelArg(k, a++, sizeof u[i], &u[i]);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP " rotate)");
  clforge__chain ch;
  st = clforge__chain_begin(ctx, OP, &ch, nwait, wait, 1, &busy);
  const size_t global[3] = {ceil_div(d->cg, 16) * 16, ceil_div(d->kg, 16) * 16, d->groups * d->r * d->s};
  const size_t local[3] = {16, 16, 1};
  if (st == CLFORGE_SUCCESS) st = clforge__chain_launch(ctx, &ch, k, 3, global, local, "clEnqueueNDRangeKernel (" OP " rotate)");
  cl_event rot = NULL;
  st = clforge__chain_end(&ch, st, &rot);
  if (st != CLFORGE_SUCCESS) return st;
  st = clforge_conv2d_ex(ctx, &p->fwd, dy, ws, NULL, NULL, dx, NULL, 0, 1, &rot, done);
  /* the scratch is free again once the forward call is done, or (failure) the rotation */
  clforge__workspace_used_by(&ctx->conv_bwd_workspace, st == CLFORGE_SUCCESS ? *done : rot);
  clReleaseEvent(rot);
  return st;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static clforge_status enqueue_col2im(clforge_context ctx, const clforge__conv *d, const plan *p, cl_mem dy, cl_mem w,
                                     cl_mem dx, cl_uint nwait, const cl_event *wait, cl_event *done) {
  const clforge__col_plan *c = &p->col;
  cl_mem cols;
  cl_event busy = NULL;
  clforge_status st = clforge__workspace_get_from(ctx, &ctx->conv_workspace, c->bytes, &cols, &busy);
  if (st != CLFORGE_SUCCESS) return st;
  char opts[128];
  snprintf(opts, sizeof opts, "-DCOL2IM=1 -DX_T=%d -DW_T=%d -DY_T=%d -DIDX64=%d -DROWS=%d -DKRSC=%d", (int)d->x.type,
           (int)d->filt.type, (int)d->y.type, d->idx64, c->rows, d->w_layout == CLFORGE_KRSC);
  cl_kernel k;
  st = clforge__kernel_get(ctx, clforge__family_conv_bwd_data_direct.sources, opts, "clforge_conv_col2im", &k);
  if (st != CLFORGE_SUCCESS) return st;
  if (d->h * d->w > UINT32_MAX || d->c > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, OP ": the launch exceeds 2^32 work-items along an axis");
  clforge__chain ch;
  st = clforge__chain_begin(ctx, OP, &ch, nwait, wait, 1, &busy);
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__gemm_buffers bf = {c->rows ? dy : w, c->rows ? w : dy, cols, NULL, NULL};
  for (size_t n0 = 0; n0 < d->n && st == CLFORGE_SUCCESS; n0 += c->imgs) {
    const size_t imgs = min_size(c->imgs, d->n - n0);
    for (size_t pix0 = 0; pix0 < c->pq && st == CLFORGE_SUCCESS; pix0 += c->pix) {
      const size_t npix = min_size(c->pix, c->pq - pix0);
      for (size_t grp = 0; grp < d->groups && st == CLFORGE_SUCCESS; ++grp) {
        clforge__gemm g;
        cl_event ev = NULL;
        st = pass_gemm(ctx, d, c, n0, imgs, pix0, npix, grp, &g);
        if (st == CLFORGE_SUCCESS)
          st = clforge__gemm_enqueue(ctx, &g, &bf, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
        if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev);
      }
      const cl_uint u[] = {(cl_uint)d->h,     (cl_uint)d->w,     (cl_uint)d->p,        (cl_uint)d->q,
                           (cl_uint)d->r,     (cl_uint)d->s,     (cl_uint)d->stride_h, (cl_uint)d->stride_w,
                           (cl_uint)d->dil_h, (cl_uint)d->dil_w, (cl_uint)d->pad_t,    (cl_uint)d->pad_l,
                           (cl_uint)d->cg,    (cl_uint)n0,       (cl_uint)pix0,        (cl_uint)npix,
                           (cl_uint)c->rsc,   (cl_uint)(pix0 == 0)};
      const cl_float alpha = d->alpha, beta = d->beta;
      cl_uint a = 0;
      cl_int err = clSetKernelArg(k, a++, sizeof(cl_mem), &cols);
      err |= clSetKernelArg(k, a++, sizeof(cl_mem), &dx);
      err |= clforge__conv_tensor_args(k, &a, &d->x, 0xF);
      for (size_t i = 0; i < sizeof u / sizeof u[0]; ++i) err |= clSetKernelArg(k, a++, sizeof u[i], &u[i]);
      err |= clSetKernelArg(k, a++, sizeof alpha, &alpha);
      err |= clSetKernelArg(k, a++, sizeof beta, &beta);
      if (st == CLFORGE_SUCCESS && err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "clSetKernelArg (" OP " col2im)");
      const size_t local[3] = {64, 1, 1}, global[3] = {ceil_div(d->h * d->w, 64) * 64, d->c, imgs};
      if (st == CLFORGE_SUCCESS)
        st = clforge__chain_launch(ctx, &ch, k, 3, global, local, "clEnqueueNDRangeKernel (" OP " col2im)");
    }
  }
  if (ch.last) clforge__workspace_used_by(&ctx->conv_workspace, ch.last);
  return clforge__chain_end(&ch, st, done);
}

static clforge_status validate(clforge_context ctx, const clforge_conv2d_desc *desc, const clforge__conv *d,
                               const plan *p, cl_mem dx, void *hdy, void *hw, void *hdx) {
  clforge_status st = clforge__test_fault_apply(ctx, OP, dx, d->x.offset, d->x.type); /* tests only */
  const size_t n = d->x.extent, es = clforge_dtype_size(d->x.type);
  void *got = st == CLFORGE_SUCCESS ? malloc(n * es) : NULL;
  if (st == CLFORGE_SUCCESS && !got) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(ctx, dx, 0, n * es, got);
  if (st == CLFORGE_SUCCESS) st = clforge_ref_conv2d_backward_data(desc, hdy, hw, hdx);
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, OP, d->x.type, n, got, hdx,
                           p->forward ? clforge__conv_algo_tolerance(p->choice.algo, d->x.type)
                                      : clforge__tolerance_for(d->x.type));
  free(got);
  return st;
}

clforge_status clforge_conv2d_backward_data(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem dy, cl_mem w,
                                            cl_mem dx, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                            cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__conv d;
  st = clforge__conv_resolve(ctx, desc, 0, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.kind != CLFORGE_CONV_BACKWARD_DATA)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": desc.kind is %d; set CLFORGE_CONV_BACKWARD_DATA (1)",
                         (int)d.kind);
  st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.n == 0 || d.c == 0) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  st = clforge__conv_check_tensor(ctx, OP, &d.y, dy, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__conv_check_tensor(ctx, OP, &d.filt, w, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__conv_check_tensor(ctx, OP, &d.x, dx, CLFORGE_ACCESS_WRITE | (d.beta != 0.0f ? CLFORGE_ACCESS_READ : 0));
  if (st == CLFORGE_SUCCESS) {
    const clforge__conv_tensor *t[3] = {&d.x, &d.y, &d.filt};
    const cl_mem b[3] = {dx, dy, w};
    st = clforge__conv_check_overlaps(ctx, OP, t, b, 1, 3, NULL, 0);
  }
  plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  if (st != CLFORGE_SUCCESS) return st;

  void *hdy = NULL, *hw = NULL, *hdx = NULL;
  if (ctx->validate) { /* inputs as they are when the kernels will run */
    clforge_status wst = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (wst != CLFORGE_SUCCESS) return wst;
    st = clforge__conv_read_tensor(ctx, OP, &d.y, dy, &hdy);
    if (st == CLFORGE_SUCCESS) st = clforge__conv_read_tensor(ctx, OP, &d.filt, w, &hw);
    if (st == CLFORGE_SUCCESS) st = clforge__conv_read_tensor(ctx, OP, &d.x, dx, &hdx);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS)
    st = (p.route == ROUTE_FORWARD ? enqueue_forward : p.route == ROUTE_COL2IM ? enqueue_col2im : enqueue_direct)(
        ctx, &d, &p, dy, w, dx, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, OP, done);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, desc, &d, &p, dx, hdy, hw, hdx);
  }
  free(hdy);
  free(hw);
  free(hdx);
  return clforge__call_end(st, done, event);
}
