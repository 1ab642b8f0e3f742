/* clforge_pool: argument and buffer checks, the family's parameters, one
 * launch (cl/pool.cl), validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../desc/pool_desc.h"
#include "../families/families.h"
#include "buffer_check.h"
#include "op_call.h"

#define OP "pool"

clforge_status clforge_pool_explain(clforge_context ctx, const clforge_pool_desc *desc, clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, OP "_explain", choice, "choice");
  clforge__pool d;
  if (st == CLFORGE_SUCCESS) st = clforge__pool_resolve(ctx, OP "_explain", desc, &d);
  return clforge__explain_plain(ctx, &clforge__family_pool, st, choice);
}

static clforge_status get_kernel(clforge_context ctx, const clforge__pool *d, const int *v, cl_kernel *k) {
  char more[96];
  snprintf(more, sizeof more, "-DX_T=%d -DY_T=%d -DKIND=%d -DNHWC=%d -DEXCLUDE=%d -DDIVISOR=%d", (int)d->x_type,
           (int)d->y_type, d->kind, d->nhwc, d->exclude_pad, d->divisor != 0);
  return clforge__family_kernel(ctx, OP, &clforge__family_pool, clforge__family_pool.kernel, v, more, (size_t)v[0], k);
}

static clforge_status launch(clforge_context ctx, const clforge__pool *d, cl_kernel k, const int *v, cl_mem x,
                             cl_mem y, cl_uint nwait, const cl_event *wait, cl_event *done) {
  const size_t wg = (size_t)v[0], per = wg * (size_t)v[1];
  const size_t global = (d->y_count + per - 1) / per * wg;
  const cl_ulong xo = d->x_offset, yo = d->y_offset, total = d->y_count;
  const cl_uint u[13] = {(cl_uint)d->c,  (cl_uint)d->h,  (cl_uint)d->w,  (cl_uint)d->p,  (cl_uint)d->q,
                         (cl_uint)d->kh, (cl_uint)d->kw, (cl_uint)d->sh, (cl_uint)d->sw, (cl_uint)d->ph,
                         (cl_uint)d->pw, (cl_uint)d->dh, (cl_uint)d->dw};
  const cl_float div = (cl_float)d->divisor;
  cl_int err = clSetKernelArg(k, 0, sizeof(cl_mem), &x);
  err |= clSetKernelArg(k, 1, sizeof xo, &xo);
  err |= clSetKernelArg(k, 2, sizeof(cl_mem), &y);
  err |= clSetKernelArg(k, 3, sizeof yo, &yo);
  err |= clSetKernelArg(k, 4, sizeof total, &total);
  for (cl_uint i = 0; i < 13; ++i) err |= clSetKernelArg(k, 5 + i, sizeof(cl_uint), &u[i]);
  err |= clSetKernelArg(k, 18, sizeof div, &div);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
  return clforge__launch(ctx, k, 1, &global, &wg, nwait, wait, done, "clEnqueueNDRangeKernel (" OP ")");
}

/* The buffers' sizes and kinds of access, and y apart from x. */
static clforge_status check_buffers(clforge_context ctx, const clforge__pool *d, cl_mem x, cl_mem y) {
  const size_t xs = clforge_dtype_size(d->x_type), ys = clforge_dtype_size(d->y_type);
  clforge_status st = clforge__check_buffer(ctx, OP, "x", x, d->x_offset, d->x_count, xs, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "y", y, d->y_offset, d->y_count, ys, CLFORGE_ACCESS_WRITE);
  clforge__byte_range rx, ry;
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, x, d->x_offset * xs, d->x_count * xs, &rx);
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, y, d->y_offset * ys, d->y_count * ys, &ry);
  if (st == CLFORGE_SUCCESS && clforge__ranges_alias(&rx, &ry))
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": y overlaps x (pooling is not done in place)");
  return st;
}

/* Validation mode: the reference on the inputs as the kernel read them. */
static clforge_status validate(clforge_context ctx, const clforge_pool_desc *desc, const clforge__pool *d,
                               const void *hx, cl_mem y, cl_event done) {
  clforge_status st = clforge__call_await_done(ctx, OP, done);
  if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, OP, y, d->y_offset, d->y_type); /* tests only */
  void *got = NULL, *want = malloc(d->y_count * clforge_dtype_size(d->y_type) + 1);
  if (st == CLFORGE_SUCCESS && !want) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, y, d->y_type, d->y_offset, d->y_count, &got);
  clforge_pool_desc at0 = *desc; /* the host copies start at the tensors */
  at0.x_offset = at0.y_offset = 0;
  if (st == CLFORGE_SUCCESS) st = clforge_ref_pool(&at0, hx, want);
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, OP, d->y_type, d->y_count, got, want, clforge__tolerance_for(d->y_type));
  free(got), free(want);
  return st;
}

clforge_status clforge_pool(clforge_context ctx, const clforge_pool_desc *desc, cl_mem x, cl_mem y,
                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__pool d;
  st = clforge__pool_resolve(ctx, OP, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.y_count) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &d, x, y);
  int v[CLFORGE_MAX_PARAMS];
  cl_kernel k = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_pool, 0, NULL, v, NULL);
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &d, v, &k);
  if (st != CLFORGE_SUCCESS) return st;
  void *hx = NULL;
  if (ctx->validate) { /* the input as it is when the kernel will run */
    st = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, x, d.x_type, d.x_offset, d.x_count, &hx);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &d, k, v, x, y, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) st = validate(ctx, desc, &d, hx, y, done);
  free(hx);
  return clforge__call_end(st, done, event);
}
