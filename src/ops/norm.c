/* clforge_norm and clforge_norm_backward: argument and buffer checks, the
 * family's work-group size, the launches (cl/norm.cl), validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../desc/norm_desc.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "buffer_check.h"
#include "launch_chain.h"
#include "op_call.h"

static clforge_status check_rows(clforge_context ctx, const char *op, const clforge__norm_tensor *t, size_t rows,
                                 cl_mem buf, int access) {
  if (!rows) return CLFORGE_SUCCESS;
  return clforge__check_buffer(ctx, op, t->name, buf, t->offset, t->extent - t->offset, clforge_dtype_size(t->type),
                               access);
}

static clforge_status check_vec(clforge_context ctx, const char *op, const char *name, cl_mem buf, size_t off,
                                size_t n, clforge_dtype t, int access) {
  return buf ? clforge__check_buffer(ctx, op, name, buf, off, n, clforge_dtype_size(t), access) : CLFORGE_SUCCESS;
}

static clforge_status range(clforge_context ctx, cl_mem buf, size_t off, size_t n, clforge_dtype t,
                            clforge__byte_range *r) {
  const size_t es = clforge_dtype_size(t);
  return clforge__buffer_range(ctx, buf, off * es, n * es, r);
}

/* out (rows x n, or a vector) must not share bytes with the inputs, but
 * for `same` (the one input it may be exactly: same bytes and type). */
static clforge_status no_overlap(clforge_context ctx, const char *op, const char *oname, const clforge__byte_range *o,
                                 clforge_dtype ot, const clforge__byte_range *in, const clforge_dtype *it,
                                 const char *const *names, int nin, int same) {
  for (int i = 0; i < nin; ++i) {
    if (!in[i].root) continue;
    const int exact = i == same && in[i].root == o->root && in[i].begin == o->begin && in[i].end == o->end && it[i] == ot;
    if (!exact && clforge__ranges_alias(o, &in[i]))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s overlaps %s", op, oname, names[i]);
  }
  return CLFORGE_SUCCESS;
}

/* The family's WG and a kernel of cl/norm.cl with `opts` besides it. */
static clforge_status kernel(clforge_context ctx, const char *op, const char *name, const char *opts, int *wg,
                             cl_kernel *k) {
  int v[CLFORGE_MAX_PARAMS];
  clforge_status st = clforge__family_select(ctx, &clforge__family_norm, 0, NULL, v, NULL);
  if (st != CLFORGE_SUCCESS) return st;
  *wg = v[0];
  return clforge__family_kernel(ctx, op, &clforge__family_norm, name, v, opts, (size_t)v[0], k);
}

static cl_int set_args(cl_kernel k, const void *const *vals, const size_t *sizes, int n) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n; ++i) err |= clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
  return err;
}

/* The forward kernel: y (write_y) and/or the statistics into stats. */
static clforge_status enqueue_fwd(clforge_context ctx, const char *op, const clforge__norm *d, cl_mem x, cl_mem w,
                                  cl_mem b, cl_mem y, cl_mem stats, size_t stats_off, int write_y, cl_uint nwait,
                                  const cl_event *wait, cl_event *ev) {
  char opts[160];
  snprintf(opts, sizeof opts, "-DKIND=%d -DX_T=%d -DY_T=%d -DP_T=%d -DWEIGHT=%d -DBIAS=%d -DSTATS=%d -DWRITE_Y=%d",
           d->kind, (int)d->x.type, (int)d->y.type, (int)d->param_type, w != NULL, b != NULL, stats != NULL, write_y);
  cl_kernel k;
  int wg;
  clforge_status st = kernel(ctx, op, "clforge_norm_fwd", opts, &wg, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_mem yb = write_y ? y : x, wb = w ? w : x, bb = b ? b : x, sb = stats ? stats : x; /* unread when absent */
  const cl_ulong xo = d->x.offset, xs = d->x.stride, yo = d->y.offset, ys = d->y.stride, wo = d->weight_offset,
                 bo = d->bias_offset, so = stats_off;
  const cl_uint n = (cl_uint)d->n;
  const cl_float eps = d->eps;
  const void *vals[] = {&x, &xo, &xs, &yb, &yo, &ys, &wb, &wo, &bb, &bo, &sb, &so, &n, &eps};
  const size_t sizes[] = {sizeof x, 8, 8, sizeof yb, 8, 8, sizeof wb, 8, sizeof bb, 8, sizeof sb, 8, 4, 4};
  if (set_args(k, vals, sizes, 14) != CL_SUCCESS) return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "%s: kernel arguments", op);
  const size_t local = (size_t)wg, global = d->rows * local;
  return clforge__launch(ctx, k, 1, &global, &local, nwait, wait, ev, "clEnqueueNDRangeKernel (norm)");
}

static clforge_status read_rows(clforge_context ctx, cl_mem buf, const clforge__norm_tensor *t, void **out) {
  const size_t bytes = t->extent * clforge_dtype_size(t->type);
  *out = malloc(bytes + 1);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "norm validation: no memory");
  return clforge__read_buffer(ctx, buf, 0, bytes, *out);
}

static clforge_status read_vec(clforge_context ctx, cl_mem buf, size_t off, size_t n, clforge_dtype t, void **out) {
  *out = NULL;
  if (!buf) return CLFORGE_SUCCESS;
  const size_t es = clforge_dtype_size(t);
  *out = calloc(off + n + 1, es);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "norm validation: no memory");
  return clforge__read_buffer(ctx, buf, off * es, n * es, (char *)*out + off * es);
}

/* The calls' common start: context, descriptor and wait list checked;
 * *empty when there are no rows (the call is then a marker, and the
 * backward writes no gradient). */
static clforge_status begin(clforge_context ctx, const char *op, const clforge_norm_desc *desc, clforge__norm *d,
                            cl_uint nwait, const cl_event *wait, cl_event *event, int *empty) {
  *empty = 0;
  clforge_status st = clforge__call_begin(ctx, op, event);
  if (st != CLFORGE_SUCCESS) return st;
  st = clforge__norm_resolve(ctx, op, desc, d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, op, nwait, wait);
  if (st == CLFORGE_SUCCESS && !d->rows) {
    *empty = 1;
    st = clforge__call_marker(ctx, op, nwait, wait, event);
  }
  return st;
}

clforge_status clforge_norm(clforge_context ctx, const clforge_norm_desc *desc, cl_mem x, cl_mem weight, cl_mem bias,
                            cl_mem y, cl_mem stats, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                            cl_event *event) {
  static const char op[] = "norm";
  clforge__norm d;
  int empty;
  clforge_status st = begin(ctx, op, desc, &d, num_events_in_wait_list, event_wait_list, event, &empty);
  if (st != CLFORGE_SUCCESS || empty) return st;
  st = check_rows(ctx, op, &d.x, d.rows, x, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = check_rows(ctx, op, &d.y, d.rows, y, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS) st = check_vec(ctx, op, "weight", weight, d.weight_offset, d.n, d.param_type, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = check_vec(ctx, op, "bias", bias, d.bias_offset, d.n, d.param_type, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = check_vec(ctx, op, "stats", stats, d.stats_offset, 2 * d.rows, CLFORGE_F32, CLFORGE_ACCESS_WRITE);
  /* y: x exactly (in place) or apart from x, weight, bias, stats; stats apart from all */
  clforge__byte_range ry, rs, in[3] = {{0}};
  const clforge_dtype it[3] = {d.x.type, d.param_type, d.param_type};
  const char *names[3] = {"x", "weight", "bias"};
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, y, d.y.offset * clforge_dtype_size(d.y.type),
                                                        (d.y.extent - d.y.offset) * clforge_dtype_size(d.y.type), &ry);
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, x, d.x.offset * clforge_dtype_size(d.x.type),
                                                        (d.x.extent - d.x.offset) * clforge_dtype_size(d.x.type), &in[0]);
  if (st == CLFORGE_SUCCESS && weight) st = range(ctx, weight, d.weight_offset, d.n, d.param_type, &in[1]);
  if (st == CLFORGE_SUCCESS && bias) st = range(ctx, bias, d.bias_offset, d.n, d.param_type, &in[2]);
  /* in place needs the same rows: the same stride (and, checked there, bytes and type) */
  if (st == CLFORGE_SUCCESS) st = no_overlap(ctx, op, "y", &ry, d.y.type, in, it, names, 3, d.x.stride == d.y.stride ? 0 : -1);
  if (st == CLFORGE_SUCCESS && stats) {
    st = range(ctx, stats, d.stats_offset, 2 * d.rows, CLFORGE_F32, &rs);
    const clforge__byte_range all[4] = {in[0], in[1], in[2], ry};
    const clforge_dtype at[4] = {d.x.type, d.param_type, d.param_type, d.y.type};
    const char *an[4] = {"x", "weight", "bias", "y"};
    if (st == CLFORGE_SUCCESS) st = no_overlap(ctx, op, "stats", &rs, CLFORGE_F32, all, at, an, 4, -1);
  }
  if (st != CLFORGE_SUCCESS) return st;

  void *hx = NULL, *hw = NULL, *hb = NULL;
  if (ctx->validate) {
    st = clforge__call_await_inputs(ctx, "norm", num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = read_rows(ctx, x, &d.x, &hx);
    if (st == CLFORGE_SUCCESS) st = read_vec(ctx, weight, d.weight_offset, d.n, d.param_type, &hw);
    if (st == CLFORGE_SUCCESS) st = read_vec(ctx, bias, d.bias_offset, d.n, d.param_type, &hb);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS)
    st = enqueue_fwd(ctx, op, &d, x, weight, bias, y, stats, d.stats_offset, 1, num_events_in_wait_list,
                     event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, "norm", done);
    if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, op, y, d.y.offset, d.y.type); /* tests only */
    void *got = NULL, *want = NULL;
    if (st == CLFORGE_SUCCESS) st = read_rows(ctx, y, &d.y, &got);
    if (st == CLFORGE_SUCCESS) st = read_rows(ctx, y, &d.y, &want); /* outside the rows: as on the device */
    if (st == CLFORGE_SUCCESS) st = clforge_ref_norm(desc, hx, hw, hb, want, NULL);
    if (st == CLFORGE_SUCCESS)
      st = clforge__validate(ctx, op, d.y.type, d.y.extent, got, want, clforge__tolerance_for(d.y.type));
    free(got), free(want);
  }
  free(hx), free(hw), free(hb);
  return clforge__call_end(st, done, event);
}

/* The backward's buffers (absent ones NULL). */
typedef struct {
  cl_mem x, weight, stats, dy, dx, dweight, dbias;
} bwd_buffers;

/* Every buffer; the outputs apart from every input and each other; dx may be dy exactly. */
static clforge_status check_backward(clforge_context ctx, const char *op, const clforge__norm *d, const bwd_buffers *b) {
  clforge_status st = check_rows(ctx, op, &d->x, d->rows, b->x, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = check_rows(ctx, op, &d->dy, d->rows, b->dy, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = check_rows(ctx, op, &d->dx, d->rows, b->dx, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS)
    st = check_vec(ctx, op, "weight", b->weight, d->weight_offset, d->n, d->param_type, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = check_vec(ctx, op, "stats", b->stats, d->stats_offset, 2 * d->rows, CLFORGE_F32, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = check_vec(ctx, op, "dweight", b->dweight, d->dweight_offset, d->n, d->param_type, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS)
    st = check_vec(ctx, op, "dbias", b->dbias, d->dbias_offset, d->n, d->param_type, CLFORGE_ACCESS_WRITE);
  clforge__byte_range in[4] = {{0}}, rdx, rdw = {0}, rdb = {0};
  const clforge_dtype it[4] = {d->dy.type, d->x.type, d->param_type, CLFORGE_F32};
  const char *names[4] = {"dy", "x", "weight", "stats"};
  if (st == CLFORGE_SUCCESS) st = range(ctx, b->dy, d->dy.offset, d->dy.extent - d->dy.offset, d->dy.type, &in[0]);
  if (st == CLFORGE_SUCCESS) st = range(ctx, b->x, d->x.offset, d->x.extent - d->x.offset, d->x.type, &in[1]);
  if (st == CLFORGE_SUCCESS && b->weight) st = range(ctx, b->weight, d->weight_offset, d->n, d->param_type, &in[2]);
  if (st == CLFORGE_SUCCESS && b->stats) st = range(ctx, b->stats, d->stats_offset, 2 * d->rows, CLFORGE_F32, &in[3]);
  if (st == CLFORGE_SUCCESS) st = range(ctx, b->dx, d->dx.offset, d->dx.extent - d->dx.offset, d->dx.type, &rdx);
  if (st == CLFORGE_SUCCESS)
    st = no_overlap(ctx, op, "dx", &rdx, d->dx.type, in, it, names, 4, d->dx.stride == d->dy.stride ? 0 : -1);
  if (st == CLFORGE_SUCCESS && b->dweight) {
    st = range(ctx, b->dweight, d->dweight_offset, d->n, d->param_type, &rdw);
    const clforge__byte_range all[5] = {in[0], in[1], in[2], in[3], rdx};
    const clforge_dtype at[5] = {d->dy.type, d->x.type, d->param_type, CLFORGE_F32, d->dx.type};
    const char *an[5] = {"dy", "x", "weight", "stats", "dx"};
    if (st == CLFORGE_SUCCESS) st = no_overlap(ctx, op, "dweight", &rdw, d->param_type, all, at, an, 5, -1);
  }
  if (st == CLFORGE_SUCCESS && b->dbias) {
    st = range(ctx, b->dbias, d->dbias_offset, d->n, d->param_type, &rdb);
    const clforge__byte_range all[6] = {in[0], in[1], in[2], in[3], rdx, rdw};
    const clforge_dtype at[6] = {d->dy.type, d->x.type, d->param_type, CLFORGE_F32, d->dx.type, d->param_type};
    const char *an[6] = {"dy", "x", "weight", "stats", "dx", "dweight"};
    if (st == CLFORGE_SUCCESS) st = no_overlap(ctx, op, "dbias", &rdb, d->param_type, all, at, an, 6, -1);
  }
  return st;
}

/* The statistics when not given (into sbuf at 0), the parameter gradients
 * (they read dy, which dx may overwrite), then dx: one chain. */
static clforge_status enqueue_backward(clforge_context ctx, const char *op, const clforge__norm *d, const bwd_buffers *b,
                                       cl_kernel kd, cl_kernel kp, int wg, cl_mem sbuf, size_t soff,
                                       clforge__chain *ch) {
  cl_event ev = NULL;
  clforge_status st = CLFORGE_SUCCESS;
  if (!b->stats)
    st = enqueue_fwd(ctx, op, d, b->x, b->weight, NULL, NULL, sbuf, 0, 0, clforge__chain_nwait(ch),
                     clforge__chain_wait(ch), &ev);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(ch, ev);
  const cl_ulong xo = d->x.offset, xs = d->x.stride, wo = d->weight_offset, so = soff, yo = d->dy.offset,
                 ys = d->dy.stride, dxo = d->dx.offset, dxs = d->dx.stride, dwo = d->dweight_offset,
                 dbo = d->dbias_offset;
  const cl_uint n = (cl_uint)d->n, rows = (cl_uint)d->rows;
  const cl_mem x = b->x, dy = b->dy, dx = b->dx, wb = b->weight ? b->weight : x;
  if (st == CLFORGE_SUCCESS && kp) {
    const cl_mem dwb = b->dweight ? b->dweight : x, dbb = b->dbias ? b->dbias : x; /* unwritten when absent */
    const void *vals[] = {&x, &xo, &xs, &sbuf, &so, &dy, &yo, &ys, &dwb, &dwo, &dbb, &dbo, &n, &rows};
    const size_t sizes[] = {sizeof x, 8, 8, sizeof sbuf, 8, sizeof dy, 8, 8, sizeof dwb, 8, sizeof dbb, 8, 4, 4};
    if (set_args(kp, vals, sizes, 14) != CL_SUCCESS) st = clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "%s: kernel arguments", op);
    const size_t local = 64, global = (d->n + 63) / 64 * 64;
    if (st == CLFORGE_SUCCESS)
      st = clforge__chain_launch(ctx, ch, kp, 1, &global, &local, "clEnqueueNDRangeKernel (norm parameter gradients)");
  }
  if (st == CLFORGE_SUCCESS) {
    const void *vals[] = {&x, &xo, &xs, &wb, &wo, &sbuf, &so, &dy, &yo, &ys, &dx, &dxo, &dxs, &n};
    const size_t sizes[] = {sizeof x, 8, 8, sizeof wb, 8, sizeof sbuf, 8, sizeof dy, 8, 8, sizeof dx, 8, 8, 4};
    if (set_args(kd, vals, sizes, 14) != CL_SUCCESS) st = clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "%s: kernel arguments", op);
    const size_t local = (size_t)wg, global = d->rows * local;
    if (st == CLFORGE_SUCCESS)
      st = clforge__chain_launch(ctx, ch, kd, 1, &global, &local, "clEnqueueNDRangeKernel (norm backward)");
  }
  return st;
}

/* The device's dx (and dweight, dbias) against clforge_ref_norm_backward on
 * the inputs read before (hdx: dx as it was). */
static clforge_status validate_backward(clforge_context ctx, const char *op, const clforge_norm_desc *desc,
                                        const clforge__norm *d, const bwd_buffers *b, void *const h[4]) {
  void *got = NULL, *hdw = NULL, *hdb = NULL, *gv = NULL;
  clforge_status st = clforge__test_fault_apply(ctx, op, b->dx, d->dx.offset, d->dx.type); /* tests only */
  if (st == CLFORGE_SUCCESS) st = read_rows(ctx, b->dx, &d->dx, &got);
  if (st == CLFORGE_SUCCESS && b->dweight) hdw = calloc(d->dweight_offset + d->n + 1, clforge_dtype_size(d->param_type));
  if (st == CLFORGE_SUCCESS && b->dbias) hdb = calloc(d->dbias_offset + d->n + 1, clforge_dtype_size(d->param_type));
  if (st == CLFORGE_SUCCESS) st = clforge_ref_norm_backward(desc, h[0], h[1], h[2], h[3], hdw, hdb);
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, op, d->dx.type, d->dx.extent, got, h[3], clforge__tolerance_for(d->dx.type));
  const size_t ps = clforge_dtype_size(d->param_type);
  if (st == CLFORGE_SUCCESS && b->dweight) st = read_vec(ctx, b->dweight, d->dweight_offset, d->n, d->param_type, &gv);
  if (st == CLFORGE_SUCCESS && b->dweight)
    st = clforge__validate(ctx, "norm_backward (dweight)", d->param_type, d->n, (char *)gv + d->dweight_offset * ps,
                           (char *)hdw + d->dweight_offset * ps, clforge__tolerance_for(d->param_type));
  free(gv), gv = NULL;
  if (st == CLFORGE_SUCCESS && b->dbias) st = read_vec(ctx, b->dbias, d->dbias_offset, d->n, d->param_type, &gv);
  if (st == CLFORGE_SUCCESS && b->dbias)
    st = clforge__validate(ctx, "norm_backward (dbias)", d->param_type, d->n, (char *)gv + d->dbias_offset * ps,
                           (char *)hdb + d->dbias_offset * ps, clforge__tolerance_for(d->param_type));
  free(gv), free(got), free(hdw), free(hdb);
  return st;
}

clforge_status clforge_norm_backward(clforge_context ctx, const clforge_norm_desc *desc, cl_mem x, cl_mem weight,
                                     cl_mem stats, cl_mem dy, cl_mem dx, cl_mem dweight, cl_mem dbias,
                                     cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                     cl_event *event) {
  static const char op[] = "norm_backward";
  clforge__norm d;
  int empty;
  clforge_status st = begin(ctx, op, desc, &d, num_events_in_wait_list, event_wait_list, event, &empty);
  if (st != CLFORGE_SUCCESS || empty) return st;
  const bwd_buffers b = {x, weight, stats, dy, dx, dweight, dbias};
  st = check_backward(ctx, op, &d, &b);
  if (st != CLFORGE_SUCCESS) return st;

  char opts[160];
  snprintf(opts, sizeof opts, "-DKIND=%d -DX_T=%d -DDY_T=%d -DDX_T=%d -DP_T=%d -DWEIGHT=%d -DWANT_DW=%d -DWANT_DB=%d", d.kind,
           (int)d.x.type, (int)d.dy.type, (int)d.dx.type, (int)d.param_type, weight != NULL, dweight != NULL,
           dbias != NULL);
  cl_kernel kd, kp = NULL;
  int wg;
  st = kernel(ctx, op, "clforge_norm_bwd", opts, &wg, &kd);
  if (st == CLFORGE_SUCCESS && (dweight || dbias)) st = kernel(ctx, op, "clforge_norm_bwd_params", opts, &wg, &kp);
  if (st != CLFORGE_SUCCESS) return st;
  /* statistics: the caller's, or recomputed into scratch */
  cl_mem sbuf = stats, ws = NULL;
  cl_event busy = NULL;
  size_t soff = d.stats_offset;
  if (!stats) {
    st = clforge__workspace_get(ctx, 2 * d.rows * sizeof(float), &ws, &busy);
    sbuf = ws, soff = 0;
  }
  if (st != CLFORGE_SUCCESS) return st;

  void *h[4] = {NULL, NULL, NULL, NULL}; /* x, weight, dy, dx as they are when the kernels run */
  if (ctx->validate) {
    st = clforge__call_await_inputs(ctx, "norm_backward", num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = read_rows(ctx, x, &d.x, &h[0]);
    if (st == CLFORGE_SUCCESS) st = read_vec(ctx, weight, d.weight_offset, d.n, d.param_type, &h[1]);
    if (st == CLFORGE_SUCCESS) st = read_rows(ctx, dy, &d.dy, &h[2]);
    if (st == CLFORGE_SUCCESS) st = read_rows(ctx, dx, &d.dx, &h[3]);
  }
  clforge__chain ch = {NULL, 0, NULL};
  if (st == CLFORGE_SUCCESS) st = clforge__chain_begin(ctx, op, &ch, num_events_in_wait_list, event_wait_list, 1, &busy);
  if (st == CLFORGE_SUCCESS) st = enqueue_backward(ctx, op, &d, &b, kd, kp, wg, sbuf, soff, &ch);
  if (ws && ch.last) clforge__workspace_used(ctx, ch.last);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, "norm_backward", ch.last);
    if (st == CLFORGE_SUCCESS) st = validate_backward(ctx, op, desc, &d, &b, h);
  }
  for (int i = 0; i < 4; ++i) free(h[i]);
  return clforge__chain_end(&ch, st, event);
}
