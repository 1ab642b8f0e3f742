/* clforge_conv2d_quantized: an int8 convolution as the int8 GEMM (one per
 * group; a depthwise layer runs its own kernel, below). The
 * filter is first transposed to [R*S*C][K] (the GEMM's vector loads run
 * along K; read transposed they gather). A 1x1 filter at stride 1
 * without padding reads x in place; any other shape writes the int8 column
 * matrix first with the im2col algorithm's kernel and passes
 * (src/ops/conv_im2col.c: padding reads x's zero point), each pass's GEMM
 * waiting for its columns and the next pass's columns for that GEMM (they
 * share the workspace). Validation mode checks y against
 * clforge_ref_conv2d_quantized bit for bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../desc/conv_quant_desc.h"
#include "../core/error.h"
#include "../core/dtype.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "buffer_check.h"
#include "conv_algo.h"
#include "conv_im2col.h"
#include "gemm_quantized.h"
#include "quant_check.h"
#include "launch_chain.h"
#include "op_call.h"

#define OP "conv2d_quantized"

/* Prepared weights: the filter transposed once ([R*S*C][K]). */
struct clforge_conv2d_quantized_weights_s {
  clforge_context ctx;
  size_t k, cg, r, s; /* the filter: K rows of R*S*C/groups */
  clforge_dtype type;
  clforge_filter_layout layout;
  cl_mem buf;   /* [R*S*C][K] */
  cl_event ready; /* the transpose */
  void *host_w; /* the filter as given, tight (validation mode's reference) */
};
typedef struct clforge_conv2d_quantized_weights_s prepared;

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Every buffer holds its elements with the access it needs, and y shares no
 * byte with anything read. */
static clforge_status check_buffers(clforge_context ctx, const clforge__conv_q *q, const clforge_conv_quant *quant,
                                    cl_mem x, cl_mem w, const prepared *pw, cl_mem y, cl_mem bias) {
  const clforge__conv *d = &q->d;
  const int scaled = d->y.type != CLFORGE_S32;
  const size_t ws = quant->w_scheme == CLFORGE_QUANT_PER_ROW ? d->k : 1;
  const clforge__conv_tensor *t[3] = {&d->x, &d->filt, &d->bias};
  const cl_mem in[5] = {x, w, d->has_bias ? bias : NULL, scaled ? quant->x_scale : NULL, scaled ? quant->w_scale : NULL};
  const char *name[5] = {"x", "w", "bias", "x_scale", "w_scale"};
  const size_t off[5] = {d->x.offset, d->filt.offset, d->bias.offset, quant->x_scale_offset, quant->w_scale_offset};
  const size_t count[5] = {d->x.count, d->filt.count, d->k, 1, ws};
  size_t es[5];
  for (int i = 0; i < 3; ++i) es[i] = clforge_dtype_size(t[i]->type);
  es[3] = es[4] = sizeof(float);
  const size_t yes = clforge_dtype_size(d->y.type);
  clforge_status st = clforge__check_buffer(ctx, OP, "y", y, d->y.offset, d->y.count, yes,
                                            CLFORGE_ACCESS_WRITE | (d->beta != 0.0f ? CLFORGE_ACCESS_READ : 0));
  clforge__byte_range ry, r;
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, y, d->y.offset * yes, d->y.count * yes, &ry);
  for (int i = 0; i < 5 && st == CLFORGE_SUCCESS; ++i) {
    if (i == 1 && pw) continue; /* the prepared filter: checked when it was made */
    if (i >= 2 && !in[i]) {
      if (i >= 3 && scaled)
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": x_scale and w_scale are needed for an %s y",
                             clforge_dtype_name(d->y.type));
      continue;
    }
    st = clforge__check_buffer(ctx, OP, name[i], in[i], off[i], count[i], es[i], CLFORGE_ACCESS_READ);
    if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, in[i], off[i] * es[i], count[i] * es[i], &r);
    if (st == CLFORGE_SUCCESS && clforge__ranges_alias(&ry, &r))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": y overlaps %s", name[i]);
  }
  return st;
}

/* ------------------------------------------------------------- validation */

typedef struct {
  void *x, *w, *y, *bias;
  float *xs, *ws;
} copies;

static clforge_status read_inputs(clforge_context ctx, const clforge__conv_q *q, const clforge_conv_quant *quant,
                                  cl_mem x, cl_mem w, const prepared *pw, cl_mem y, cl_mem bias, copies *h) {
  const clforge__conv *d = &q->d;
  const int scaled = d->y.type != CLFORGE_S32;
  clforge_status st = clforge__quant_read_copy(ctx, OP, x, d->x.offset, d->x.count, 1, &h->x);
  if (st == CLFORGE_SUCCESS) st = clforge__quant_read_copy(ctx, OP, pw ? NULL : w, d->filt.offset, d->filt.count, 1, &h->w);
  if (st == CLFORGE_SUCCESS && pw) memcpy((char *)h->w + d->filt.offset, pw->host_w, d->filt.count); /* as the call sees it */
  if (st == CLFORGE_SUCCESS) /* y as it was: beta reads it */
    st = clforge__quant_read_copy(ctx, OP, d->beta != 0.0f ? y : NULL, d->y.offset, d->y.count, clforge_dtype_size(d->y.type), &h->y);
  if (st == CLFORGE_SUCCESS && d->has_bias)
    st = clforge__quant_read_copy(ctx, OP, bias, d->bias.offset, d->k, clforge_dtype_size(d->bias.type), &h->bias);
  if (st == CLFORGE_SUCCESS && scaled)
    st = clforge__quant_read_copy(ctx, OP, quant->x_scale, quant->x_scale_offset, 1, sizeof(float), (void **)&h->xs);
  if (st == CLFORGE_SUCCESS && scaled)
    st = clforge__quant_read_copy(ctx, OP, quant->w_scale, quant->w_scale_offset,
                   quant->w_scheme == CLFORGE_QUANT_PER_ROW ? d->k : 1, sizeof(float), (void **)&h->ws);
  return st;
}

static clforge_status validate(clforge_context ctx, const clforge_conv2d_desc *desc, const clforge__conv_q *q,
                               const clforge_conv_quant *quant, cl_mem y, copies *h) {
  const clforge__conv *d = &q->d;
  const size_t es = clforge_dtype_size(d->y.type), n = d->y.count;
  clforge_status st = clforge__quant_fault(ctx, OP, y, d->y.offset * es); /* tests only */
  void *got = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__quant_read_copy(ctx, OP, y, d->y.offset, n, es, &got);
  if (st == CLFORGE_SUCCESS)
    st = clforge_ref_conv2d_quantized(desc, quant, h->x, h->w, d->has_bias ? h->bias : NULL, h->y, h->xs, h->ws);
  if (st != CLFORGE_SUCCESS && !clforge_last_error(ctx)[0])
    st = clforge__fail(ctx, st, OP " validation: the reference failed: %s", clforge_last_error(NULL));
  const int gelu = d->act == CLFORGE_ACT_GELU_TANH || d->act == CLFORGE_ACT_GELU_ERF;
  if (st == CLFORGE_SUCCESS)
    st = clforge__quant_compare(ctx, OP, "y", d->y.type, gelu, n, (const unsigned char *)got + d->y.offset * es,
                                (const unsigned char *)h->y + d->y.offset * es);
  free(got);
  return st;
}

/* ------------------------------------------------------------------- call */

/* The filter transposed into ws ([R*S*C][K]): the im2col kernel on w seen
 * as one 1 x K image of R*S*C channels, whose column matrix in the
 * channels-first layout is exactly that. */
static clforge_status transpose_filter(clforge_context ctx, const clforge__conv_q *q, const int *v, cl_mem w,
                                       cl_mem ws, cl_uint nwait, const cl_event *wait, cl_event *done) {
  const clforge__conv *d = &q->d;
  clforge__conv t = *d;
  t.n = t.h = t.r = t.s = t.p = 1, t.w = t.q = d->k, t.c = t.cg = q->rsc, t.k = t.kg = 1, t.groups = 1;
  t.stride_h = t.stride_w = t.dil_h = t.dil_w = 1, t.pad_t = t.pad_b = t.pad_l = t.pad_r = 0;
  t.x_layout = CLFORGE_NHWC, t.y_layout = CLFORGE_NCHW, t.w_layout = CLFORGE_KRSC;
  t.x = d->filt;
  t.x.stride[0] = t.x.stride[2] = q->rsc * d->k, t.x.stride[1] = 1, t.x.stride[3] = q->rsc; /* (n, c, h, w) */
  clforge__col_plan tp;
  memset(&tp, 0, sizeof tp);
  tp.rows = 0, tp.pq = d->k, tp.rsc = tp.rscg = q->rsc, tp.es = 1, tp.imgs = 1, tp.pix = d->k;
  tp.bytes = d->k * q->rsc;
  cl_kernel kern;
  clforge_status st = clforge__conv_col_kernel(ctx, &t, v, &tp, &kern);
  if (st == CLFORGE_SUCCESS)
    st = clforge__conv_col_launch(ctx, kern, &t, v, &tp, w, ws, 0, 1, 0, d->k, nwait, wait, done);
  return st;
}

/* The GEMMs of every group over images n0 .. n0 + imgs, pixels pix0 ..
 * pix0 + npix (A: x in place, or the pass's column matrix), one after
 * another from *prev (replaced by the last one's event; released). */
static clforge_status group_gemms(clforge_context ctx, const clforge__conv_q *q, const clforge_conv_quant *quant,
                                  cl_mem a, cl_mem wb, int wt, cl_mem y, cl_mem bias, size_t n0, size_t imgs,
                                  size_t pix0, size_t npix, cl_uint nwait, const cl_event *wait, cl_event *prev) {
  clforge_status st = CLFORGE_SUCCESS;
  for (size_t grp = 0; grp < q->d.groups && st == CLFORGE_SUCCESS; ++grp) {
    clforge_gemm_desc g;
    clforge_gemm_quant gq;
    clforge__conv_q_gemm(q, quant, n0, imgs, pix0, npix, grp, wt, &g, &gq);
    cl_event ev = NULL;
    st = *prev ? clforge_gemm_quantized(ctx, &g, &gq, a, wb, y, bias, 1, prev, &ev)
               : clforge_gemm_quantized(ctx, &g, &gq, a, wb, y, bias, nwait, wait, &ev);
    if (*prev) clReleaseEvent(*prev);
    *prev = ev;
  }
  return st;
}

/* A depthwise layer (groups == C): the direct int8 kernel over x and the
 * transposed filter wb ([R*S][K]) instead of one GEMM per channel. */
static int is_depthwise(const clforge__conv *d) { return d->groups > 1 && d->cg == 1; }

static clforge_status depthwise_kernel(clforge_context ctx, const clforge__conv_q *q, int *v, cl_kernel *k) {
  const clforge__conv *d = &q->d;
  clforge_status st = clforge__family_select(ctx, &clforge__family_conv_depthwise_int8, 0, NULL, v, NULL);
  if (st != CLFORGE_SUCCESS) return st;
  char more[256];
  snprintf(more, sizeof more, "-DX_T=%d -DW_T=%d -DC_T=%d -DBIAS=%d -DBIAS_T=%d -DACT=%d -DIDX64=%d -DMULT=%zu",
           (int)d->x.type, (int)d->filt.type, (int)d->y.type, d->has_bias, d->has_bias ? (int)d->bias.type : 1, d->act,
           d->idx64, d->kg);
  return clforge__family_kernel(ctx, OP, &clforge__family_conv_depthwise_int8, "clforge_conv_depthwise_int8", v, more,
                                (size_t)v[CDWI8_WG], k);
}

static clforge_status depthwise_launch(clforge_context ctx, const clforge__conv_q *q, const clforge_conv_quant *quant,
                                       const int *v, cl_kernel k, cl_mem x, cl_mem wb, cl_mem y, cl_mem bias,
                                       cl_uint nwait, const cl_event *wait, cl_event *done) {
  const clforge__conv *d = &q->d;
  const int scaled = d->y.type != CLFORGE_S32;
  const cl_mem xs = scaled ? quant->x_scale : y, ws = scaled ? quant->w_scale : y, bb = d->has_bias ? bias : y;
  const cl_uint u[14] = {(cl_uint)d->h,        (cl_uint)d->w,        (cl_uint)d->c,       (cl_uint)d->k,
                         (cl_uint)d->p,        (cl_uint)d->q,        (cl_uint)d->r,       (cl_uint)d->s,
                         (cl_uint)d->stride_h, (cl_uint)d->stride_w, (cl_uint)d->dil_h,   (cl_uint)d->dil_w,
                         (cl_uint)d->pad_t,    (cl_uint)d->pad_l};
  const cl_ulong xo = d->x.offset, yo = d->y.offset, bo = d->bias.offset, xso = quant->x_scale_offset,
                 wso = quant->w_scale_offset;
  const cl_int wper = quant->w_scheme == CLFORGE_QUANT_PER_ROW, zpx = quant->x_zero_point, zpw = quant->w_zero_point,
               zpc = quant->y_zero_point;
  /* requantization's 1 / y_scale: one f32 division, as the int8 GEMM's (src/desc/gemm_quant_desc.c) */
  const cl_float alpha = d->alpha, beta = d->beta,
                 inv_c = clforge__dtype_is_int8(d->y.type) ? 1.0f / quant->y_scale : 0.0f;
  cl_uint a = 0;
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 14; ++i) err |= clSetKernelArg(k, a++, sizeof u[i], &u[i]);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &x);
  err |= clSetKernelArg(k, a++, sizeof xo, &xo);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &wb);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &y);
  err |= clSetKernelArg(k, a++, sizeof yo, &yo);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &bb);
  err |= clSetKernelArg(k, a++, sizeof bo, &bo);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &xs);
  err |= clSetKernelArg(k, a++, sizeof xso, &xso);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &ws);
  err |= clSetKernelArg(k, a++, sizeof wso, &wso);
  err |= clSetKernelArg(k, a++, sizeof wper, &wper);
  err |= clSetKernelArg(k, a++, sizeof zpx, &zpx);
  err |= clSetKernelArg(k, a++, sizeof zpw, &zpw);
  err |= clSetKernelArg(k, a++, sizeof alpha, &alpha);
  err |= clSetKernelArg(k, a++, sizeof beta, &beta);
  err |= clSetKernelArg(k, a++, sizeof inv_c, &inv_c);
  err |= clSetKernelArg(k, a++, sizeof zpc, &zpc);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP " depthwise)");
  const size_t vw = (size_t)v[CDWI8_VW], wg = (size_t)v[CDWI8_WG], nk = (d->k + vw - 1) / vw;
  const size_t global[3] = {(nk + wg - 1) / wg * wg, d->q, d->n * d->p};
  const size_t local[3] = {wg, 1, 1};
  return clforge__launch(ctx, k, 3, global, local, nwait, wait, done, "clEnqueueNDRangeKernel (" OP " depthwise)");
}

/* The column matrix of each pass, then its GEMMs (pass by pass: they share
 * the workspace), after `wait`. */
static clforge_status run_passes(clforge_context ctx, const clforge__conv_q *q, const clforge_conv_quant *quant,
                                 const int *v, const clforge__col_plan *p, cl_kernel kern, cl_mem x, cl_mem wb, int wt,
                                 cl_mem col, cl_mem y, cl_mem bias, cl_uint nwait, const cl_event *wait,
                                 cl_event *done) {
  const clforge__conv *d = &q->d;
  clforge_status st = CLFORGE_SUCCESS;
  cl_event prev = NULL;
  for (size_t n0 = 0; n0 < d->n && st == CLFORGE_SUCCESS; n0 += p->imgs) {
    const size_t imgs = min_size(p->imgs, d->n - n0);
    for (size_t pix0 = 0; pix0 < p->pq && st == CLFORGE_SUCCESS; pix0 += p->pix) {
      const size_t npix = min_size(p->pix, p->pq - pix0);
      cl_event ev = NULL;
      st = clforge__conv_col_launch(ctx, kern, d, v, p, x, col, n0, imgs, pix0, npix, prev ? 1 : nwait,
                                    prev ? &prev : wait, &ev);
      if (prev) clReleaseEvent(prev);
      prev = ev;
      if (st != CLFORGE_SUCCESS) break;
      st = group_gemms(ctx, q, quant, col, wb, wt, y, bias, n0, imgs, pix0, npix, 0, NULL, &prev);
    }
  }
  if (st == CLFORGE_SUCCESS) *done = prev;
  else if (prev) clReleaseEvent(prev);
  return st;
}

/* Every GEMM of the call checked and built before anything is enqueued
 * (the passes have two shapes at most: a full one and the last; the groups
 * differ only in offsets: the first's and the last's checked), so an error
 * leaves y untouched. wb: the filter the GEMMs read. */
static clforge_status check_gemms(clforge_context ctx, const clforge__conv_q *q, const clforge_conv_quant *quant,
                                  const clforge__col_plan *p, int wt, cl_mem x, cl_mem wb, cl_mem wsc, cl_mem y,
                                  cl_mem bias) {
  const clforge__conv *d = &q->d;
  clforge_gemm_desc g;
  clforge_gemm_quant gq;
  const size_t last_g = d->groups - 1;
  clforge_status st = CLFORGE_SUCCESS;
  if (q->in_place) {
    for (int gi = 0; gi < 2 && st == CLFORGE_SUCCESS; ++gi) {
      clforge__conv_q_gemm(q, quant, 0, d->n, 0, d->p * d->q, gi ? last_g : 0, wt, &g, &gq);
      st = clforge__gemm_quantized_check(ctx, OP, &g, &gq, x, wb, y, bias);
    }
    return st;
  }
  const size_t last_n = (d->n - 1) / p->imgs * p->imgs, last_pix = (p->pq - 1) / p->pix * p->pix;
  const size_t shapes[2][4] = {{0, p->imgs < d->n ? p->imgs : d->n, 0, p->pix},
                               {last_n, d->n - last_n, last_pix, p->pq - last_pix}};
  for (int i = 0; i < 4 && st == CLFORGE_SUCCESS; ++i) {
    const size_t *sh = shapes[i / 2];
    clforge__conv_q_gemm(q, quant, sh[0], sh[1], sh[2], sh[3], i % 2 ? last_g : 0, wt, &g, &gq);
    st = clforge__gemm_quantized_check(ctx, OP, &g, &gq, wsc, wb, y, bias);
  }
  return st;
}

/* The whole call after the wait list: the filter transposed (when it fits
 * the workspace bound: else the GEMM reads it transposed, slower), then x
 * in place or the passes of column matrices, each GEMM after its inputs. */
static clforge_status run(clforge_context ctx, const clforge__conv_q *q, const clforge_conv_quant *quant, cl_mem x,
                          cl_mem w, const prepared *pw, cl_mem y, cl_mem bias, cl_uint nwait, const cl_event *wait,
                          cl_event *done) {
  const clforge__conv *d = &q->d;
  int v[CLFORGE_MAX_PARAMS];
  clforge_status st = clforge__family_select(ctx, &clforge__family_conv_im2col, 0, NULL, v, NULL);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__col_plan p;
  memset(&p, 0, sizeof p);
  cl_kernel kern = NULL;
  const int dw = is_depthwise(d);
  int vdw[CLFORGE_MAX_PARAMS];
  if (dw) { /* (checked and built before anything is enqueued) */
    if (d->k * q->rsc > clforge__workspace_cap(ctx) && !pw)
      return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY,
                           OP ": the depthwise filter (%zu bytes) exceeds the workspace bound of %zu bytes", d->k * q->rsc,
                           clforge__workspace_cap(ctx));
    st = depthwise_kernel(ctx, q, vdw, &kern);
  } else if (!q->in_place) {
    if (!clforge__conv_col_plan(ctx, d, v, &p))
      return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY,
                           OP ": a row of the column matrix (%zu bytes) exceeds the workspace bound of %zu bytes",
                           q->rsc, clforge__workspace_cap(ctx));
    /* padding reads x's zero point (its bits in x's type) */
    p.pad = d->x.type == CLFORGE_S8 ? (int)(int8_t)(quant->x_zero_point & 0xFF) : quant->x_zero_point;
    st = clforge__conv_col_kernel(ctx, d, v, &p, &kern);
  }
  /* The transposed filter lives in the GEMM workspace (the int8 GEMM uses
   * none), the column matrix in convolution's; prepared weights hold their
   * own. */
  const int wt = pw || d->k * q->rsc <= clforge__workspace_cap(ctx);
  cl_mem wsw = pw ? pw->buf : NULL, wsc = NULL;
  cl_event busy_w = pw ? pw->ready : NULL, busy_c = NULL;
  if (st == CLFORGE_SUCCESS && wt && !pw) st = clforge__workspace_get(ctx, d->k * q->rsc, &wsw, &busy_w);
  if (st == CLFORGE_SUCCESS && !q->in_place && !dw)
    st = clforge__workspace_get_from(ctx, &ctx->conv_workspace, p.bytes, &wsc, &busy_c);
  if (st == CLFORGE_SUCCESS && !dw) st = check_gemms(ctx, q, quant, &p, wt, x, wt ? wsw : w, wsc, y, bias);
  /* the caller's list and the scratch buffers' last users */
  const cl_event busy[2] = {busy_w, busy_c};
  clforge__chain ch;
  if (st == CLFORGE_SUCCESS) st = clforge__chain_begin(ctx, OP, &ch, nwait, wait, 2, busy);
  if (st != CLFORGE_SUCCESS) return st;
  cl_event after = NULL, last = NULL;
  if (wt && !pw) st = transpose_filter(ctx, q, v, w, wsw, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &after);
  const cl_uint na = after ? 1 : clforge__chain_nwait(&ch);
  const cl_event *wa = after ? &after : clforge__chain_wait(&ch);
  if (st == CLFORGE_SUCCESS && dw) {
    st = depthwise_launch(ctx, q, quant, vdw, kern, x, wsw, y, bias, na, wa, &last);
  } else if (st == CLFORGE_SUCCESS && q->in_place) {
    st = group_gemms(ctx, q, quant, x, wt ? wsw : w, wt, y, bias, 0, d->n, 0, d->p * d->q, na, wa, &last);
  } else if (st == CLFORGE_SUCCESS) {
    st = run_passes(ctx, q, quant, v, &p, kern, x, wt ? wsw : w, wt, wsc, y, bias, na, wa, &last);
  }
  clforge__chain_end(&ch, CLFORGE_SUCCESS, NULL);
  if (after && st != CLFORGE_SUCCESS) clforge__workspace_used(ctx, after); /* the transpose may still run */
  if (after) clReleaseEvent(after);
  if (st == CLFORGE_SUCCESS) {
    if (wt && !pw) clforge__workspace_used(ctx, last);
    if (!q->in_place && !dw) clforge__workspace_used_by(&ctx->conv_workspace, last);
    *done = last;
  } else if (last) {
    clReleaseEvent(last);
  }
  return st;
}

clforge_status clforge_conv2d_quantized(clforge_context ctx, const clforge_conv2d_desc *desc,
                                        const clforge_conv_quant *quant, cl_mem x, cl_mem w, cl_mem bias, cl_mem y,
                                        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                        cl_event *event) {
  return clforge_conv2d_quantized_ex(ctx, desc, quant, x, w, NULL, bias, y, num_events_in_wait_list, event_wait_list,
                                     event);
}

clforge_status clforge_conv2d_quantized_ex(clforge_context ctx, const clforge_conv2d_desc *desc,
                                           const clforge_conv_quant *quant, cl_mem x, cl_mem w,
                                           clforge_conv2d_quantized_weights weights, cl_mem bias, cl_mem y,
                                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                           cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__conv_q q;
  st = clforge__conv_q_resolve(ctx, OP, desc, quant, bias != NULL, &q);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st == CLFORGE_SUCCESS && weights &&
      (weights->ctx != ctx || weights->k != q.d.k || weights->cg != q.d.cg || weights->r != q.d.r ||
       weights->s != q.d.s || weights->type != q.d.filt.type || weights->layout != q.d.w_layout))
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                       OP ": the prepared weights are for %s K=%zu C/groups=%zu R=%zu S=%zu %s on %s context, the "
                          "call has K=%zu C/groups=%zu R=%zu S=%zu %s",
                       clforge_dtype_name(weights->type), weights->k, weights->cg, weights->r, weights->s,
                       weights->layout == CLFORGE_KRSC ? "KRSC" : "KCRS", weights->ctx == ctx ? "this" : "another",
                       q.d.k, q.d.cg, q.d.r, q.d.s, q.d.w_layout == CLFORGE_KRSC ? "KRSC" : "KCRS");
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__conv *d = &q.d;
  if (d->n == 0 || d->k == 0) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &q, quant, x, w, weights, y, bias);
  if (st != CLFORGE_SUCCESS) return st;
  copies h;
  memset(&h, 0, sizeof h);
  if (ctx->validate) {
    st = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = read_inputs(ctx, &q, quant, x, w, weights, y, bias, &h);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS)
    st = run(ctx, &q, quant, x, w, weights, y, bias, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, OP, done);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, desc, &q, quant, y, &h);
  }
  free(h.x), free(h.w), free(h.y), free(h.bias), free(h.xs), free(h.ws);
  return clforge__call_end(st, done, event);
}

/* ------------------------------------------------------- prepared weights */

clforge_status clforge_conv2d_quantized_weights_create(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem w,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list,
                                                       clforge_conv2d_quantized_weights *weights) {
  static const char *const op = OP "_weights_create";
  clforge_status st = clforge__call_begin(ctx, op, NULL);
  if (st != CLFORGE_SUCCESS) return st;
  if (!weights) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: weights is NULL", op);
  *weights = NULL;
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  /* only the filter matters: y as raw sums, no epilogue */
  clforge_conv2d_desc fd = *desc;
  fd.y_type = CLFORGE_S32, fd.bias_type = 0, fd.activation = CLFORGE_ACT_NONE, fd.beta = 0.0f;
  fd.alpha = 0.0f, fd.alpha_mode = CLFORGE_ALPHA_DEFAULT_ONE;
  const clforge_conv_quant none = {0};
  clforge__conv_q q;
  st = clforge__conv_q_resolve(ctx, op, &fd, &none, 0, &q);
  if (st == CLFORGE_SUCCESS && q.d.k == 0)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: the filter is empty (k is 0)", op);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, op, num_events_in_wait_list, event_wait_list);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, op, "w", w, q.d.filt.offset, q.d.filt.count, 1, CLFORGE_ACCESS_READ);
  int v[CLFORGE_MAX_PARAMS];
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_conv_im2col, 0, NULL, v, NULL);
  if (st != CLFORGE_SUCCESS) return st;
  prepared *pw = calloc(1, sizeof *pw);
  if (!pw) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: no memory", op);
  pw->ctx = ctx, pw->k = q.d.k, pw->cg = q.d.cg, pw->r = q.d.r, pw->s = q.d.s;
  pw->type = q.d.filt.type, pw->layout = q.d.w_layout;
  pw->host_w = malloc(q.d.filt.count);
  if (!pw->host_w) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: no memory", op);
  if (st == CLFORGE_SUCCESS && num_events_in_wait_list) {
    cl_int err = clWaitForEvents(num_events_in_wait_list, event_wait_list);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "conv2d_quantized_weights_create: waiting for the wait list");
  }
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(ctx, w, q.d.filt.offset, q.d.filt.count, pw->host_w);
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) pw->buf = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, q.d.k * q.rsc, NULL, &err);
  if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "clCreateBuffer (conv2d_quantized prepared weights)");
  if (st == CLFORGE_SUCCESS) st = transpose_filter(ctx, &q, v, w, pw->buf, 0, NULL, &pw->ready);
  if (st != CLFORGE_SUCCESS) {
    clforge_conv2d_quantized_weights_release(pw);
    return st;
  }
  *weights = pw;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_conv2d_quantized_weights_release(clforge_conv2d_quantized_weights weights) {
  if (!weights) return CLFORGE_SUCCESS;
  clforge__conv_weights_free(weights->ctx, weights->ready, weights->buf, weights->host_w);
  free(weights);
  return CLFORGE_SUCCESS;
}
