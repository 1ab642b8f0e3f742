/* clforge_batchnorm_fold: argument and buffer checks (each output apart
 * from every input but its own, in place), one launch
 * (cl/batchnorm_fold.cl), validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../desc/batchnorm_fold_desc.h"
#include "../families/families.h"
#include "buffer_check.h"
#include "op_call.h"

#define OP "batchnorm_fold"

clforge_status clforge_batchnorm_fold_explain(clforge_context ctx, const clforge_batchnorm_fold_desc *desc,
                                              clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, OP "_explain", choice, "choice");
  clforge__bnf d;
  if (st == CLFORGE_SUCCESS) st = clforge__bnf_resolve(ctx, OP "_explain", desc, &d);
  return clforge__explain_plain(ctx, &clforge__family_batchnorm_fold, st, choice);
}

/* Buffers in the order of the call: w, bias, gamma, beta, mean, var, w_out, bias_out. */
enum { W, BIAS, GAMMA, BETA, MEAN, VAR, W_OUT, BIAS_OUT, NBUF };

static clforge_status check_buffers(clforge_context ctx, const clforge__bnf *d, const cl_mem *b) {
  static const char *const names[NBUF] = {"w", "bias", "gamma", "beta", "mean", "var", "w_out", "bias_out"};
  const clforge_dtype t[NBUF] = {d->w_type, d->bias_type, CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, CLFORGE_F32,
                                 d->w_out_type, d->bias_out_type};
  const size_t off[NBUF] = {d->w_offset, d->bias_offset, d->bn_offset, d->bn_offset, d->bn_offset, d->bn_offset,
                            d->w_out_offset, d->bias_out_offset};
  const size_t n[NBUF] = {d->count, d->k, d->k, d->k, d->k, d->k, d->count, d->k};
  clforge__byte_range r[NBUF];
  clforge_status st = CLFORGE_SUCCESS;
  for (int i = 0; i < NBUF && st == CLFORGE_SUCCESS; ++i) {
    if (i == BIAS && !b[i]) continue;
    const size_t es = clforge_dtype_size(t[i]);
    st = clforge__check_buffer(ctx, OP, names[i], b[i], off[i], n[i], es, i >= W_OUT ? CLFORGE_ACCESS_WRITE : CLFORGE_ACCESS_READ);
    if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, b[i], off[i] * es, n[i] * es, &r[i]);
  }
  for (int o = W_OUT; o < NBUF && st == CLFORGE_SUCCESS; ++o)
    for (int i = 0; i < o && st == CLFORGE_SUCCESS; ++i) {
      if (i == BIAS && !b[i]) continue;
      const int mine = (o == W_OUT && i == W) || (o == BIAS_OUT && i == BIAS);
      const int exact = mine && r[i].root == r[o].root && r[i].begin == r[o].begin && r[i].end == r[o].end && t[i] == t[o];
      if (!exact && clforge__ranges_alias(&r[o], &r[i]))
        st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": %s overlaps %s%s", names[o], names[i],
                           mine ? " without being it (in place: the same offset and type)" : "");
    }
  return st;
}

static clforge_status launch(clforge_context ctx, const clforge__bnf *d, const cl_mem *b, cl_uint nwait,
                             const cl_event *wait, cl_event *done) {
  int v[CLFORGE_MAX_PARAMS];
  clforge_status st = clforge__family_select(ctx, &clforge__family_batchnorm_fold, 0, NULL, v, NULL);
  char more[96];
  snprintf(more, sizeof more, "-DW_T=%d -DWO_T=%d -DB_T=%d -DBO_T=%d -DBIAS=%d", (int)d->w_type, (int)d->w_out_type,
           (int)d->bias_type, (int)d->bias_out_type, b[BIAS] != NULL);
  cl_kernel k = NULL;
  if (st == CLFORGE_SUCCESS)
    st = clforge__family_kernel(ctx, OP, &clforge__family_batchnorm_fold, clforge__family_batchnorm_fold.kernel, v,
                                more, (size_t)v[0], &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_mem bias = b[BIAS] ? b[BIAS] : b[GAMMA]; /* unread without a bias */
  const cl_ulong wo = d->w_offset, woo = d->w_out_offset, bo = d->bias_offset, boo = d->bias_out_offset;
  const cl_ulong bno = d->bn_offset, count = d->count, per_k = d->per_k;
  const cl_uint kk = (cl_uint)d->k;
  const cl_float eps = d->eps;
  const void *vals[] = {&b[W], &wo, &b[W_OUT], &woo, &bias, &bo, &b[BIAS_OUT], &boo, &b[GAMMA], &b[BETA], &b[MEAN],
                        &b[VAR], &bno, &count, &per_k, &kk, &eps};
  const size_t m = sizeof(cl_mem), sizes[] = {m, 8, m, 8, m, 8, m, 8, m, m, m, m, 8, 8, 8, 4, 4};
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < 17; ++i) err |= clSetKernelArg(k, i, sizes[i], vals[i]);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
  const size_t local = (size_t)v[0], n = d->count + d->k, global = (n + local - 1) / local * local;
  return clforge__launch(ctx, k, 1, &global, &local, nwait, wait, done, "clEnqueueNDRangeKernel (" OP ")");
}

/* Validation mode: the host copies of the inputs (read before the launch)
 * through the reference, against both outputs. */
static clforge_status validate(clforge_context ctx, const clforge_batchnorm_fold_desc *desc, const clforge__bnf *d,
                               void *const *h, const cl_mem *b, cl_event done) {
  clforge_status st = clforge__call_await_done(ctx, OP, done);
  if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, OP, b[W_OUT], d->w_out_offset, d->w_out_type); /* tests only */
  void *gw = NULL, *gb = NULL;
  void *ww = malloc(d->count * clforge_dtype_size(d->w_out_type) + 1), *wb = malloc(d->k * clforge_dtype_size(d->bias_out_type) + 1);
  if (st == CLFORGE_SUCCESS && (!ww || !wb)) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, b[W_OUT], d->w_out_type, d->w_out_offset, d->count, &gw);
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, b[BIAS_OUT], d->bias_out_type, d->bias_out_offset, d->k, &gb);
  clforge_batchnorm_fold_desc at0 = *desc;
  at0.w_offset = at0.w_out_offset = at0.bias_offset = at0.bias_out_offset = at0.bn_offset = 0;
  if (st == CLFORGE_SUCCESS)
    st = clforge_ref_batchnorm_fold(&at0, h[W], h[BIAS], h[GAMMA], h[BETA], h[MEAN], h[VAR], ww, wb);
  if (st == CLFORGE_SUCCESS) st = clforge__validate(ctx, OP, d->w_out_type, d->count, gw, ww, clforge__tolerance_for(d->w_out_type));
  if (st == CLFORGE_SUCCESS) st = clforge__validate(ctx, OP, d->bias_out_type, d->k, gb, wb, clforge__tolerance_for(d->bias_out_type));
  free(gw), free(gb), free(ww), free(wb);
  return st;
}

clforge_status clforge_batchnorm_fold(clforge_context ctx, const clforge_batchnorm_fold_desc *desc, cl_mem w,
                                      cl_mem bias, cl_mem gamma, cl_mem beta, cl_mem mean, cl_mem var, cl_mem w_out,
                                      cl_mem bias_out, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                      cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__bnf d;
  st = clforge__bnf_resolve(ctx, OP, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.k) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  const cl_mem b[NBUF] = {w, bias, gamma, beta, mean, var, w_out, bias_out};
  st = check_buffers(ctx, &d, b);
  void *h[VAR + 1] = {NULL};
  if (st == CLFORGE_SUCCESS && ctx->validate) { /* the inputs as they are when the kernel will run */
    st = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    const clforge_dtype t[VAR + 1] = {d.w_type, d.bias_type, CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, CLFORGE_F32};
    const size_t off[VAR + 1] = {d.w_offset, d.bias_offset, d.bn_offset, d.bn_offset, d.bn_offset, d.bn_offset};
    for (int i = 0; i <= VAR && st == CLFORGE_SUCCESS; ++i)
      if (b[i]) st = clforge__call_read_elements(ctx, OP, b[i], t[i], off[i], i == W ? d.count : d.k, &h[i]);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &d, b, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) st = validate(ctx, desc, &d, h, b, done);
  for (int i = 0; i <= VAR; ++i) free(h[i]);
  return clforge__call_end(st, done, event);
}
