/* clforge_conv2d_backward_filter: dw (and dbias) from x and dy. Routes:
 *  - DIRECT (cl/conv_backward_filter.cl): the N*P*Q sum split in chunks
 *    across work-items, partial sums in the context's backward scratch, one
 *    reduce kernel adding them in a fixed order and applying alpha and beta
 *    (dw and dbias in their storage types); dbias fused into the chunks;
 *  - IM2COL: the forward im2col's passes (src/ops/conv_im2col.c) write x's
 *    columns, GEMMs add dy x columns^T into an f32 sum in the scratch (one
 *    per pass and group, or per image and group for NCHW dy, each after the
 *    last: a fixed order), then the same reduce kernel finishes dw; dbias
 *    from the direct kernel's bias-only launch;
 *  - GEMM_1X1: the same GEMMs on x itself (1x1, stride 1, no padding, x and
 *    dy in one layout).
 * Deterministic: no atomics, every sum in an order fixed by the shape. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/conv_backward.h"
#include "../families/conv_im2col.h"
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

#define OP "conv2d_backward_filter"

typedef struct plan {
  clforge_conv_algo algo;      /* DIRECT, IM2COL or GEMM_1X1 */
  int v[CLFORGE_MAX_PARAMS];   /* the direct family's values (the GEMM routes' dbias too) */
  int cv[CLFORGE_MAX_PARAMS];  /* conv_im2col's values (IM2COL) */
  clforge__col_plan col;       /* passes (the GEMM routes) */
  size_t crs, npq, chunk, splits;
  size_t sum_floats;           /* scratch floats before the bias partials: split partials or the GEMMs' sum */
  size_t part_bytes, col_bytes;
  clforge_conv_choice choice;
} plan;

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static int one_by_one(const clforge__conv *d) {
  return d->r == 1 && d->s == 1 && d->stride_h == 1 && d->stride_w == 1 && !d->pad_t && !d->pad_b && !d->pad_l &&
         !d->pad_r && d->x_layout == d->y_layout;
}

/* 1 when algo can compute d, else 0 with the reason. */
static int supports(clforge_context ctx, const clforge__conv *d, clforge_conv_algo algo, char *why, size_t cap) {
  switch (algo) {
    case CLFORGE_CONV_ALGO_DIRECT: return 1;
    case CLFORGE_CONV_ALGO_GEMM_1X1:
      if (!one_by_one(d)) {
        snprintf(why, cap, "gemm_1x1 needs a 1x1 filter, stride 1, no padding and x and dy in one layout");
        return 0;
      }
      if (d->k > INT32_MAX || d->c > INT32_MAX || d->p * d->q > INT32_MAX) {
        snprintf(why, cap, "gemm_1x1: the GEMM exceeds clforge GEMM's limits");
        return 0;
      }
      return 1;
    case CLFORGE_CONV_ALGO_IM2COL: return clforge__conv_im2col_supports(ctx, d, why, cap);
    default:
      snprintf(why, cap, "%s has no backward-filter route (direct, im2col and gemm_1x1 do)",
               clforge_conv_algo_name(algo));
      return 0;
  }
}

/* The forward table's GEMM rows, read for this pass: 1x1 on x itself;
 * im2col where the GEMM is large enough for its tiles (C*R*S >= 32,
 * K >= 16); the direct kernel else (depthwise, tiny channel counts). */
static int heuristic(clforge_context ctx, const void *dv, char *why, size_t cap) {
  const clforge__conv *d = dv;
  char ignored[160];
  if (d->n && supports(ctx, d, CLFORGE_CONV_ALGO_GEMM_1X1, ignored, sizeof ignored)) {
    snprintf(why, cap, "heuristic: 1x1, stride 1, no padding: GEMMs on x");
    return CLFORGE_CONV_ALGO_GEMM_1X1;
  }
  if (d->n && d->cg * d->r * d->s >= 32 && d->kg >= 16 &&
      supports(ctx, d, CLFORGE_CONV_ALGO_IM2COL, ignored, sizeof ignored)) {
    snprintf(why, cap, "heuristic: C*R*S >= 32, K >= 16: im2col + GEMM");
    return CLFORGE_CONV_ALGO_IM2COL;
  }
  snprintf(why, cap, "heuristic: direct (split N*P*Q)");
  return CLFORGE_CONV_ALGO_DIRECT;
}

static const char *algo_name(int a) { return clforge_conv_algo_name((clforge_conv_algo)a); }

static int supported(clforge_context ctx, const void *d, int a, char *why, size_t cap) {
  return supports(ctx, d, (clforge_conv_algo)a, why, cap);
}

/* desc.algo, then the heuristic: no environment variable, no tuning-file
 * step (the tuner measures this pass's parameters, not its algorithm). */
static const clforge__algo_table bwd_filter_algos = {OP, NULL, CLFORGE_CONV_ALGO_COUNT, algo_name, NULL, supported,
                                                     NULL, heuristic};

static clforge_status make_plan(clforge_context ctx, const clforge__conv *d, plan *p) {
  memset(p, 0, sizeof *p);
  clforge_conv_choice *c = &p->choice;
  clforge__algo_pick pick;
  clforge_status cst = clforge__algo_choose(ctx, &bwd_filter_algos, d, (int)d->algo, NULL, &pick);
  if (cst != CLFORGE_SUCCESS) return cst;
  clforge_conv_algo algo = (clforge_conv_algo)pick.algo;
  c->source = pick.from == CLFORGE__ALGO_FROM_DESC ? CLFORGE_CONV_ALGO_FROM_DESC : CLFORGE_CONV_ALGO_FROM_HEURISTIC;
  snprintf(c->why, sizeof c->why, "%.*s", (int)sizeof c->why - 1, pick.why);
  if (!d->n && algo != CLFORGE_CONV_ALGO_DIRECT) { /* no products: the reduce alone writes beta * dw */
    algo = CLFORGE_CONV_ALGO_DIRECT;
    snprintf(c->why, sizeof c->why, "n = 0: dw = beta * dw (direct's reduce)");
  }
  p->algo = c->algo = algo;
  clforge_status st = clforge__family_select(ctx, &clforge__family_conv_bwd_filter_direct, clforge__conv_variant(d),
                                             NULL, p->v, &c->kernels[0]);
  if (st != CLFORGE_SUCCESS) return st;
  c->nkernels = algo == CLFORGE_CONV_ALGO_DIRECT || d->has_bias;
  p->crs = d->cg * d->r * d->s;
  p->npq = d->n * d->p * d->q;
  /* Direct splits (or the bias-only launch's): CHUNK positions each, more
   * when the partial sums would pass the scratch bound. */
  const size_t cap = clforge__workspace_cap(ctx) / sizeof(float);
  const size_t per_split = (algo == CLFORGE_CONV_ALGO_DIRECT ? d->k * p->crs : 0) + (d->has_bias ? d->k : 0);
  p->chunk = (size_t)p->v[CBF_CHUNK];
  const size_t fixed = algo == CLFORGE_CONV_ALGO_DIRECT ? 0 : d->k * p->crs; /* the GEMMs' f32 sum */
  if (fixed >= cap)
    return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY, OP ": dw's f32 sum (%zu floats) exceeds the workspace bound",
                         fixed);
  if (per_split && ceil_div(p->npq, p->chunk) > (cap - fixed) / per_split) {
    const size_t most = (cap - fixed) / per_split;
    if (!most) return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY, OP ": the partial sums exceed the workspace bound");
    p->chunk = ceil_div(p->npq, most);
  }
  p->splits = per_split ? ceil_div(p->npq, p->chunk) : 0;
  p->sum_floats = algo == CLFORGE_CONV_ALGO_DIRECT ? p->splits * d->k * p->crs : fixed;
  p->part_bytes = (p->sum_floats + (d->has_bias ? p->splits * d->k : 0)) * sizeof(float);
  if (algo == CLFORGE_CONV_ALGO_IM2COL) {
    clforge__conv_key key;
    clforge__conv_make_key(d, &key);
    st = clforge__family_select(ctx, &clforge__family_conv_im2col, clforge__conv_variant(d), &key.key, p->cv,
                                &c->kernels[c->nkernels]);
    if (st != CLFORGE_SUCCESS) return st;
    c->nkernels++;
    clforge__conv_col_plan(ctx, d, p->cv, &p->col);
    p->col_bytes = p->col.bytes;
  } else if (algo == CLFORGE_CONV_ALGO_GEMM_1X1) {
    p->col.rows = d->y_layout == CLFORGE_NHWC;
    p->col.pq = d->p * d->q, p->col.rsc = d->c, p->col.rscg = d->cg;
    p->col.imgs = p->col.pq ? min_size(d->n, INT32_MAX / p->col.pq) : 1, p->col.pix = p->col.pq;
  }
  c->p = d->p, c->q = d->q;
  c->workspace_bytes = p->part_bytes + p->col_bytes;
  for (int i = 0; i < c->nkernels; ++i) snprintf(c->kernels[i].route, sizeof c->kernels[i].route, "%.47s", c->why);
  return CLFORGE_SUCCESS;
}

clforge_status clforge__conv_bwd_filter_explain(clforge_context ctx, const clforge__conv *d,
                                                clforge_conv_choice *choice) {
  plan p;
  clforge_status st = make_plan(ctx, d, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}

/* The direct kernel: every position (jn = cg*R*S) or the bias alone (1). */
static clforge_status launch_direct(clforge_context ctx, const clforge__conv *d, const plan *p, cl_mem x, cl_mem dy,
                                    cl_mem part, size_t jn, size_t b_off, cl_uint nwait, const cl_event *wait,
                                    cl_event *ev) {
  const size_t wg = (size_t)p->v[CBF_WG], tk = (size_t)p->v[CBF_TK];
  char extra[32];
  snprintf(extra, sizeof extra, "-DDBIAS=%d", d->has_bias);
  cl_kernel k;
  clforge_status st = clforge__conv_kernel(ctx, &clforge__family_conv_bwd_filter_direct,
                                           "clforge_conv_bwd_filter_direct", p->v, d, extra, wg, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const size_t ktiles = ceil_div(d->kg, tk);
  if (p->crs > UINT32_MAX || ktiles * d->groups > UINT32_MAX || p->splits > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, OP ": the launch exceeds 2^32 work-items along an axis");
  const size_t global[3] = {ceil_div(jn, wg) * wg, d->groups * ktiles, p->splits}, local[3] = {wg, 1, 1};
  const cl_uint u[] = {(cl_uint)d->h,     (cl_uint)d->w,     (cl_uint)d->p,        (cl_uint)d->q,
                       (cl_uint)d->r,     (cl_uint)d->s,     (cl_uint)d->stride_h, (cl_uint)d->stride_w,
                       (cl_uint)d->dil_h, (cl_uint)d->dil_w, (cl_uint)d->pad_t,    (cl_uint)d->pad_l,
                       (cl_uint)d->cg,    (cl_uint)d->kg,    (cl_uint)ktiles,      (cl_uint)d->k};
  const cl_ulong npq = p->npq, chunk = p->chunk, boff = b_off;
  const cl_uint ujn = (cl_uint)jn;
  cl_uint a = 0;
  cl_int err = clSetKernelArg(k, a++, sizeof(cl_mem), &x);
  err |= clforge__conv_tensor_args(k, &a, &d->x, 0xF);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &dy);
  err |= clforge__conv_tensor_args(k, &a, &d->y, 0xF);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &part);
  for (size_t i = 0; i < sizeof u / sizeof u[0]; ++i) err |= clSetKernelArg(k, a++, sizeof u[i], &u[i]);
  err |= clSetKernelArg(k, a++, sizeof npq, &npq);
  err |= clSetKernelArg(k, a++, sizeof chunk, &chunk);
  err |= clSetKernelArg(k, a++, sizeof ujn, &ujn);
  err |= clSetKernelArg(k, a++, sizeof boff, &boff);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP " direct)");
  return clforge__launch(ctx, k, 3, global, local, nwait, wait, ev, "clEnqueueNDRangeKernel (" OP " direct)");
}

/* out (tensor t: dw, or dbias) = alpha * the sum of nsplit partials + beta * out.
 * The partials are in (k, c, r, s) order, or (dense: the GEMMs' sum) in t's
 * own storage order (the im2col columns follow the filter's layout). */
static clforge_status launch_reduce(clforge_context ctx, const clforge__conv *d, const clforge__conv_tensor *t,
                                    int dense, cl_mem part, size_t part_off, size_t nsplit, size_t split_stride,
                                    cl_mem out, cl_uint nwait, const cl_event *wait, cl_event *ev) {
  char opts[64];
  snprintf(opts, sizeof opts, "-DOUT_T=%d -DIDX64=%d", (int)t->type, d->idx64);
  cl_kernel k;
  clforge_status st =
      clforge__kernel_get(ctx, clforge__family_conv_bwd_filter_direct.sources, opts, "clforge_conv_bwd_reduce", &k);
  if (st != CLFORGE_SUCCESS) return st;
  const int bias = t == &d->bias || dense;
  const cl_ulong poff = part_off, sstride = split_stride, count = t->count;
  const cl_uint ns = (cl_uint)nsplit, d1 = bias ? 1 : (cl_uint)d->cg, d2 = bias ? 1 : (cl_uint)d->r,
                d3 = bias ? 1 : (cl_uint)d->s;
  const cl_float alpha = d->alpha, beta = d->beta;
  cl_uint a = 0;
  cl_int err = clSetKernelArg(k, a++, sizeof(cl_mem), &part);
  err |= clSetKernelArg(k, a++, sizeof poff, &poff);
  err |= clSetKernelArg(k, a++, sizeof ns, &ns);
  err |= clSetKernelArg(k, a++, sizeof sstride, &sstride);
  err |= clSetKernelArg(k, a++, sizeof count, &count);
  err |= clSetKernelArg(k, a++, sizeof d1, &d1);
  err |= clSetKernelArg(k, a++, sizeof d2, &d2);
  err |= clSetKernelArg(k, a++, sizeof d3, &d3);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &out);
  if (dense) {
    clforge__conv_tensor flat = *t;
    flat.stride[0] = 1, flat.stride[1] = flat.stride[2] = flat.stride[3] = 0;
    err |= clforge__conv_tensor_args(k, &a, &flat, 0xF);
  } else {
    err |= clforge__conv_tensor_args(k, &a, t, 0xF);
  }
  err |= clSetKernelArg(k, a++, sizeof alpha, &alpha);
  err |= clSetKernelArg(k, a++, sizeof beta, &beta);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP " reduce)");
  const size_t local = 64, global = ceil_div(t->count, local) * local;
  return clforge__launch(ctx, k, 1, &global, &local, nwait, wait, ev, "clEnqueueNDRangeKernel (" OP " reduce)");
}

/* The GEMM adding one pass's (or, NCHW dy, one image's) products of group
 * grp into the f32 sum: sum (kg x rscg) += dy_g (kg x pixels) * col_g^T. */
static clforge_status pass_gemm(clforge_context ctx, const clforge__conv *d, const plan *p, size_t n0, size_t imgs,
                                size_t pix0, size_t npix, size_t img, size_t grp, int first, clforge__gemm *out) {
  const clforge__col_plan *c = &p->col;
  const int direct_x = p->algo == CLFORGE_CONV_ALGO_GEMM_1X1;
  clforge_gemm_desc g = {0};
  g.layout = CLFORGE_ROW_MAJOR;
  g.alpha = 1.0f, g.alpha_mode = CLFORGE_ALPHA_AS_GIVEN, g.beta = first ? 0.0f : 1.0f;
  g.m = d->kg, g.n = c->rscg;
  g.a_type = d->y.type, g.b_type = d->x.type, g.c_type = CLFORGE_F32;
  g.c_offset = grp * d->kg * c->rscg, g.ldc = c->rscg;
  if (c->rows) { /* dy NHWC: pixels x K; columns pixels x R*S*C */
    g.k = imgs * npix;
    g.trans_a = CLFORGE_TRANS, g.lda = d->k, g.a_offset = d->y.offset + n0 * d->y.stride[0] + pix0 * d->k + grp * d->kg;
    g.ldb = c->rsc;
    g.b_offset = direct_x ? d->x.offset + n0 * d->x.stride[0] + pix0 * d->c + grp * d->cg : grp * c->rscg;
  } else { /* dy NCHW: image n0 + img, K x pixels; columns R*S*C x pixels */
    g.k = npix;
    g.lda = c->pq, g.a_offset = d->y.offset + (n0 + img) * d->y.stride[0] + grp * d->kg * c->pq + pix0;
    g.trans_b = CLFORGE_TRANS;
    g.ldb = direct_x ? c->pq : npix;
    g.b_offset = direct_x ? d->x.offset + (n0 + img) * d->x.stride[0] + grp * d->cg * c->pq + pix0
                          : img * c->rsc * npix + grp * c->rscg * npix;
  }
  g.compute_type = CLFORGE_COMPUTE_32F; /* the backward runs f32 */
  return clforge__gemm_resolve(ctx, &g, out);
}

static clforge_status enqueue_gemms(clforge_context ctx, const clforge__conv *d, const plan *p, cl_mem x, cl_mem dy,
                                    cl_mem part, cl_mem cols, clforge__chain *ch) {
  const clforge__col_plan *c = &p->col;
  cl_kernel kern = NULL;
  clforge_status st = CLFORGE_SUCCESS;
  if (p->algo == CLFORGE_CONV_ALGO_IM2COL) st = clforge__conv_col_kernel(ctx, d, p->cv, c, &kern);
  const clforge__gemm_buffers bf = {dy, p->algo == CLFORGE_CONV_ALGO_IM2COL ? cols : x, part, NULL, NULL};
  for (size_t n0 = 0; n0 < d->n && st == CLFORGE_SUCCESS; n0 += c->imgs) {
    const size_t imgs = min_size(c->imgs, d->n - n0);
    for (size_t pix0 = 0; pix0 < c->pq && st == CLFORGE_SUCCESS; pix0 += c->pix) {
      const size_t npix = min_size(c->pix, c->pq - pix0);
      cl_event ev = NULL;
      if (kern) {
        st = clforge__conv_col_launch(ctx, kern, d, p->cv, c, x, cols, n0, imgs, pix0, npix, clforge__chain_nwait(ch), clforge__chain_wait(ch),
                                      &ev);
        if (st == CLFORGE_SUCCESS) clforge__chain_add(ch, ev);
      }
      for (size_t grp = 0; grp < d->groups && st == CLFORGE_SUCCESS; ++grp)
        for (size_t img = 0; img < (c->rows ? 1 : imgs) && st == CLFORGE_SUCCESS; ++img) {
          clforge__gemm g;
          /* each group's first product sets its sum, the rest add to it */
          st = pass_gemm(ctx, d, p, n0, imgs, pix0, npix, img, grp, n0 == 0 && pix0 == 0 && img == 0, &g);
          ev = NULL;
          if (st == CLFORGE_SUCCESS) st = clforge__gemm_enqueue(ctx, &g, &bf, clforge__chain_nwait(ch), clforge__chain_wait(ch), &ev);
          if (st == CLFORGE_SUCCESS) clforge__chain_add(ch, ev);
        }
    }
  }
  return st;
}

static clforge_status enqueue(clforge_context ctx, const clforge__conv *d, const plan *p, cl_mem x, cl_mem dy, cl_mem dw,
                              cl_mem dbias, cl_uint nwait, const cl_event *wait, cl_event *done) {
  cl_mem part = NULL, cols = NULL;
  cl_event busy_p = NULL, busy_c = NULL;
  clforge_status st = CLFORGE_SUCCESS;
  if (p->part_bytes) st = clforge__workspace_get_from(ctx, &ctx->conv_bwd_workspace, p->part_bytes, &part, &busy_p);
  if (st == CLFORGE_SUCCESS && p->col_bytes)
    st = clforge__workspace_get_from(ctx, &ctx->conv_workspace, p->col_bytes, &cols, &busy_c);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_event busy[2] = {busy_p, busy_c};
  clforge__chain ch;
  st = clforge__chain_begin(ctx, OP, &ch, nwait, wait, 2, busy);
  if (st != CLFORGE_SUCCESS) return st;
  cl_event ev = NULL;
  const size_t bias_off = p->sum_floats;
  if (p->algo == CLFORGE_CONV_ALGO_DIRECT) {
    if (p->splits) st = launch_direct(ctx, d, p, x, dy, part, p->crs, bias_off, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
    if (st == CLFORGE_SUCCESS && p->splits) clforge__chain_add(&ch, ev);
    if (st == CLFORGE_SUCCESS)
      st = launch_reduce(ctx, d, &d->filt, 0, part, 0, p->splits, d->k * p->crs, dw, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  } else {
    st = enqueue_gemms(ctx, d, p, x, dy, part, cols, &ch);
    if (st == CLFORGE_SUCCESS && d->has_bias && p->splits)
      st = launch_direct(ctx, d, p, x, dy, part, 1, bias_off, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
    if (st == CLFORGE_SUCCESS && d->has_bias && p->splits) clforge__chain_add(&ch, ev);
    if (st == CLFORGE_SUCCESS) st = launch_reduce(ctx, d, &d->filt, 1, part, 0, 1, 0, dw, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  }
  if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev);
  if (st == CLFORGE_SUCCESS && d->has_bias)
    st = launch_reduce(ctx, d, &d->bias, 0, part, bias_off, p->splits, d->k, dbias, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  if (st == CLFORGE_SUCCESS && d->has_bias) clforge__chain_add(&ch, ev);
  if (ch.last) { /* the scratch is free again after the last command (or what ran before a failure) */
    if (part) clforge__workspace_used_by(&ctx->conv_bwd_workspace, ch.last);
    if (cols) clforge__workspace_used_by(&ctx->conv_workspace, ch.last);
  }
  return clforge__chain_end(&ch, st, done);
}

static clforge_status validate(clforge_context ctx, const clforge_conv2d_desc *desc, const clforge__conv *d, cl_mem dw,
                               cl_mem dbias, void *hx, void *hdy, void *hdw, void *hdb) {
  clforge_status st = clforge__test_fault_apply(ctx, OP, dw, d->filt.offset, d->filt.type); /* tests only */
  void *got_w = NULL, *got_b = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__conv_read_tensor(ctx, OP, &d->filt, dw, &got_w);
  if (st == CLFORGE_SUCCESS && dbias) st = clforge__conv_read_tensor(ctx, OP, &d->bias, dbias, &got_b);
  if (st == CLFORGE_SUCCESS) st = clforge_ref_conv2d_backward_filter(desc, hx, hdy, hdw, dbias ? hdb : NULL);
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, OP, d->filt.type, d->filt.extent, got_w, hdw, clforge__tolerance_for(d->filt.type));
  if (st == CLFORGE_SUCCESS && dbias)
    st = clforge__validate(ctx, OP " (dbias)", d->bias.type, d->bias.extent, got_b, hdb,
                           clforge__tolerance_for(d->bias.type));
  free(got_w);
  free(got_b);
  return st;
}

clforge_status clforge_conv2d_backward_filter(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem x, cl_mem dy,
                                              cl_mem dw, cl_mem dbias, cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__conv d;
  st = clforge__conv_resolve(ctx, desc, dbias != NULL, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.kind != CLFORGE_CONV_BACKWARD_FILTER)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": desc.kind is %d; set CLFORGE_CONV_BACKWARD_FILTER (2)",
                         (int)d.kind);
  st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.k == 0) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  const int rd = d.beta != 0.0f ? CLFORGE_ACCESS_READ : 0;
  st = clforge__conv_check_tensor(ctx, OP, &d.x, x, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__conv_check_tensor(ctx, OP, &d.y, dy, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__conv_check_tensor(ctx, OP, &d.filt, dw, CLFORGE_ACCESS_WRITE | rd);
  if (st == CLFORGE_SUCCESS && dbias) st = clforge__conv_check_tensor(ctx, OP, &d.bias, dbias, CLFORGE_ACCESS_WRITE | rd);
  if (st == CLFORGE_SUCCESS) {
    const clforge__conv_tensor *t[4] = {&d.filt, &d.bias, &d.x, &d.y};
    const cl_mem b[4] = {dw, dbias, x, dy};
    st = clforge__conv_check_overlaps(ctx, OP, t, b, 2, 4, NULL, 0);
  }
  plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  if (st != CLFORGE_SUCCESS) return st;

  void *hx = NULL, *hdy = NULL, *hdw = NULL, *hdb = NULL;
  if (ctx->validate) { /* inputs as they are when the kernels will run */
    clforge_status wst = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (wst != CLFORGE_SUCCESS) return wst;
    st = clforge__conv_read_tensor(ctx, OP, &d.x, x, &hx);
    if (st == CLFORGE_SUCCESS) st = clforge__conv_read_tensor(ctx, OP, &d.y, dy, &hdy);
    if (st == CLFORGE_SUCCESS) st = clforge__conv_read_tensor(ctx, OP, &d.filt, dw, &hdw);
    if (st == CLFORGE_SUCCESS && dbias) st = clforge__conv_read_tensor(ctx, OP, &d.bias, dbias, &hdb);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS)
    st = enqueue(ctx, &d, &p, x, dy, dw, dbias, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, OP, done);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, desc, &d, dw, dbias, hx, hdy, hdw, hdb);
  }
  free(hx);
  free(hdy);
  free(hdw);
  free(hdb);
  return clforge__call_end(st, done, event);
}
