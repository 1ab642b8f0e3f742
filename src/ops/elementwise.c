/* clforge_elementwise: argument and buffer checks (in place only where y is
 * an input exactly), the family's parameters, one launch
 * (cl/elementwise.cl), validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../desc/elementwise_desc.h"
#include "../families/families.h"
#include "buffer_check.h"
#include "op_call.h"

#define OP "elementwise"

clforge_status clforge_elementwise_explain(clforge_context ctx, const clforge_elementwise_desc *desc,
                                           clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, OP "_explain", choice, "choice");
  clforge__ew d;
  if (st == CLFORGE_SUCCESS) st = clforge__ew_resolve(ctx, OP "_explain", desc, &d);
  return clforge__explain_plain(ctx, &clforge__family_elementwise, st, choice);
}

static clforge_status get_kernel(clforge_context ctx, const clforge__ew *d, const int *v, cl_kernel *k) {
  char more[96];
  snprintf(more, sizeof more, "-DA_T=%d -DB_T=%d -DY_T=%d -DOP=%d -DACT=%d -DND=%d", (int)d->a_type,
           (int)(d->op ? d->b_type : d->a_type), (int)d->y_type, d->op, d->act, d->nd);
  return clforge__family_kernel(ctx, OP, &clforge__family_elementwise, clforge__family_elementwise.kernel, v, more,
                                (size_t)v[0], k);
}

static clforge_status launch(clforge_context ctx, const clforge__ew *d, cl_kernel k, const int *v, cl_mem a, cl_mem b,
                             cl_mem y, cl_uint nwait, const cl_event *wait, cl_event *done) {
  const size_t wg = (size_t)v[0], per = wg * (size_t)v[1];
  const size_t global = (d->count + per - 1) / per * wg;
  const cl_ulong ao = d->a_offset, bo = d->b_offset, yo = d->y_offset, n = d->count;
  cl_ulong8 shape = {{0}}, as = {{0}}, bs = {{0}};
  for (int i = 0; i < d->nd; ++i) shape.s[i] = d->shape[i], as.s[i] = d->as[i], bs.s[i] = d->bs[i];
  const cl_mem bb = d->op ? b : a; /* never read without an op */
  cl_int err = clSetKernelArg(k, 0, sizeof(cl_mem), &a);
  err |= clSetKernelArg(k, 1, sizeof ao, &ao);
  err |= clSetKernelArg(k, 2, sizeof(cl_mem), &bb);
  err |= clSetKernelArg(k, 3, sizeof bo, &bo);
  err |= clSetKernelArg(k, 4, sizeof(cl_mem), &y);
  err |= clSetKernelArg(k, 5, sizeof yo, &yo);
  err |= clSetKernelArg(k, 6, sizeof n, &n);
  err |= clSetKernelArg(k, 7, sizeof shape, &shape);
  err |= clSetKernelArg(k, 8, sizeof as, &as);
  err |= clSetKernelArg(k, 9, sizeof bs, &bs);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
  return clforge__launch(ctx, k, 1, &global, &wg, nwait, wait, done, "clEnqueueNDRangeKernel (" OP ")");
}

/* y apart from the inputs, unless it is one exactly (same bytes and type,
 * y's shape: each element is read by the item that writes it, before). */
static clforge_status check_overlap(clforge_context ctx, const clforge__ew *d, cl_mem a, cl_mem b, cl_mem y) {
  const size_t ys = clforge_dtype_size(d->y_type);
  clforge__byte_range ry, r;
  clforge_status st = clforge__buffer_range(ctx, y, d->y_offset * ys, d->count * ys, &ry);
  const cl_mem in[2] = {a, d->op ? b : NULL};
  const clforge_dtype t[2] = {d->a_type, d->b_type};
  const size_t off[2] = {d->a_offset, d->b_offset}, cnt[2] = {d->a_count, d->b_count};
  const int full[2] = {d->a_full, d->b_full};
  for (int i = 0; i < 2 && st == CLFORGE_SUCCESS; ++i) {
    if (!in[i]) continue;
    const size_t es = clforge_dtype_size(t[i]);
    st = clforge__buffer_range(ctx, in[i], off[i] * es, cnt[i] * es, &r);
    if (st != CLFORGE_SUCCESS || !clforge__ranges_alias(&ry, &r)) continue;
    const int same = r.root == ry.root && r.begin == ry.begin && r.end == ry.end && t[i] == d->y_type && full[i];
    if (!same)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           OP ": y overlaps %s without being it (in place needs the same elements, type and shape)",
                           i ? "b" : "a");
  }
  return st;
}

static clforge_status check_buffers(clforge_context ctx, const clforge__ew *d, cl_mem a, cl_mem b, cl_mem y) {
  clforge_status st = clforge__check_buffer(ctx, OP, "a", a, d->a_offset, d->a_count, clforge_dtype_size(d->a_type),
                                            CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && d->op)
    st = clforge__check_buffer(ctx, OP, "b", b, d->b_offset, d->b_count, clforge_dtype_size(d->b_type),
                               CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "y", y, d->y_offset, d->count, clforge_dtype_size(d->y_type),
                               CLFORGE_ACCESS_WRITE);
  return st == CLFORGE_SUCCESS ? check_overlap(ctx, d, a, b, y) : st;
}

/* Validation mode: the reference on the inputs as the kernel read them. */
static clforge_status validate(clforge_context ctx, const clforge_elementwise_desc *desc, const clforge__ew *d,
                               const void *ha, const void *hb, cl_mem y, cl_event done) {
  clforge_status st = clforge__call_await_done(ctx, OP, done);
  if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, OP, y, d->y_offset, d->y_type); /* tests only */
  void *got = NULL, *want = malloc(d->count * clforge_dtype_size(d->y_type) + 1);
  if (st == CLFORGE_SUCCESS && !want) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, y, d->y_type, d->y_offset, d->count, &got);
  clforge_elementwise_desc at0 = *desc; /* the host copies start at the tensors */
  at0.a_offset = at0.b_offset = at0.y_offset = 0;
  if (st == CLFORGE_SUCCESS) st = clforge_ref_elementwise(&at0, ha, hb, want);
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, OP, d->y_type, d->count, got, want, clforge__tolerance_for(d->y_type));
  free(got), free(want);
  return st;
}

clforge_status clforge_elementwise(clforge_context ctx, const clforge_elementwise_desc *desc, cl_mem a, cl_mem b,
                                   cl_mem y, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                   cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__ew d;
  st = clforge__ew_resolve(ctx, OP, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.count) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &d, a, b, y);
  int v[CLFORGE_MAX_PARAMS];
  cl_kernel k = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_elementwise, 0, NULL, v, NULL);
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &d, v, &k);
  if (st != CLFORGE_SUCCESS) return st;
  void *ha = NULL, *hb = NULL;
  if (ctx->validate) { /* the inputs as they are when the kernel will run */
    st = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, a, d.a_type, d.a_offset, d.a_count, &ha);
    if (st == CLFORGE_SUCCESS && d.op)
      st = clforge__call_read_elements(ctx, OP, b, d.b_type, d.b_offset, d.b_count, &hb);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &d, k, v, a, b, y, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) st = validate(ctx, desc, &d, ha, hb, y, done);
  free(ha), free(hb);
  return clforge__call_end(st, done, event);
}
