/* clforge_activation_backward: argument and buffer checks, the family's
 * parameters, one launch, validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../desc/activation_backward_desc.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "activation.h"
#include "buffer_check.h"
#include "op_call.h"

#define OP "activation_backward"

static clforge_status select_params(clforge_context ctx, const clforge__actb *a, int *v, clforge_kernel_choice *c) {
  (void)a; /* one variant: elementwise, memory-bound */
  return clforge__family_select(ctx, &clforge__family_activation_backward, 0, NULL, v, c);
}

clforge_status clforge_activation_backward_explain(clforge_context ctx, const clforge_activation_backward_desc *desc,
                                                   clforge_kernel_choice *choice) {
  clforge_status st = clforge__call_begin(ctx, OP "_explain", NULL);
  if (st != CLFORGE_SUCCESS) return st;
  if (!choice) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP "_explain: choice is NULL");
  clforge__actb a;
  int v[CLFORGE_MAX_PARAMS];
  st = clforge__actb_resolve(ctx, OP "_explain", desc, &a);
  return st == CLFORGE_SUCCESS ? select_params(ctx, &a, v, choice) : st;
}

/* dx may be z or dy exactly (same bytes, same type: each element is read
 * before the same work-item writes it); no partial overlap. */
static clforge_status check_overlap(clforge_context ctx, const clforge__actb *a, cl_mem z, cl_mem dy, cl_mem dx) {
  clforge__byte_range rx, r;
  const size_t xs = clforge_dtype_size(a->dx_type);
  clforge_status st = clforge__buffer_range(ctx, dx, a->dx_offset * xs, a->count * xs, &rx);
  const cl_mem in[2] = {dy, a->act != CLFORGE_ACT_NONE ? z : NULL};
  const clforge_dtype t[2] = {a->dy_type, a->z_type};
  const size_t off[2] = {a->dy_offset, a->z_offset};
  const char *name[2] = {"dy", "z"};
  for (int i = 0; i < 2 && st == CLFORGE_SUCCESS; ++i) {
    if (!in[i]) continue;
    const size_t es = clforge_dtype_size(t[i]);
    st = clforge__buffer_range(ctx, in[i], off[i] * es, a->count * es, &r);
    const int same = r.root == rx.root && r.begin == rx.begin && r.end == rx.end && t[i] == a->dx_type;
    if (st != CLFORGE_SUCCESS || !clforge__ranges_alias(&rx, &r)) continue;
    if (i == 1) /* z is read after dx may be written (the header allows dy alone in place) */
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": dx overlaps z (only dy may be dx, in place)");
    if (!same)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           OP ": dx overlaps %s without being it (in place needs the same elements and type)", name[i]);
  }
  return st;
}

static clforge_status get_kernel(clforge_context ctx, const clforge__actb *a, int fwd, const int *v, cl_kernel *k) {
  char more[96];
  snprintf(more, sizeof more, "-DZ_T=%d -DDY_T=%d -DDX_T=%d -DACT=%d -DBETA=%d -DFWD=%d", (int)a->z_type,
           (int)a->dy_type, (int)a->dx_type, a->act, a->beta != 0.0f, fwd);
  return clforge__family_kernel(ctx, OP, &clforge__family_activation_backward,
                                clforge__family_activation_backward.kernel, v, more, (size_t)v[0], k);
}

/* One launch of k over a's elements after the wait list. */
static clforge_status launch(clforge_context ctx, const clforge__actb *a, cl_kernel k, const int *v, cl_mem z, cl_mem dy,
                             cl_mem dx, cl_uint nwait, const cl_event *wait, cl_event *done) {
  const size_t wg = (size_t)v[0], per = wg * (size_t)v[1];
  const size_t global = (a->count + per - 1) / per * wg;
  const cl_ulong zo = a->z_offset, yo = a->dy_offset, xo = a->dx_offset, n = a->count;
  const cl_float beta = a->beta;
  const cl_mem zb = a->act != CLFORGE_ACT_NONE ? z : dy; /* never read without ACT */
  cl_int err = clSetKernelArg(k, 0, sizeof(cl_mem), &zb);
  err |= clSetKernelArg(k, 1, sizeof zo, &zo);
  err |= clSetKernelArg(k, 2, sizeof(cl_mem), &dy);
  err |= clSetKernelArg(k, 3, sizeof yo, &yo);
  err |= clSetKernelArg(k, 4, sizeof(cl_mem), &dx);
  err |= clSetKernelArg(k, 5, sizeof xo, &xo);
  err |= clSetKernelArg(k, 6, sizeof n, &n);
  err |= clSetKernelArg(k, 7, sizeof beta, &beta);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
  return clforge__launch(ctx, k, 1, &global, &wg, nwait, wait, done, "clEnqueueNDRangeKernel (" OP ")");
}

clforge_status clforge__activation_forward(clforge_context ctx, clforge_activation act, size_t count, cl_mem buf,
                                           clforge_dtype type, size_t offset, cl_uint nwait, const cl_event *wait,
                                           cl_event *done) {
  const clforge_activation_backward_desc desc = {.count = count, .activation = act, .z_type = type,
                                                 .dy_type = type, .dx_type = type, .z_offset = offset,
                                                 .dy_offset = offset, .dx_offset = offset};
  clforge__actb a;
  int v[CLFORGE_MAX_PARAMS];
  cl_kernel k = NULL;
  clforge_status st = clforge__actb_resolve(ctx, OP, &desc, &a);
  if (st == CLFORGE_SUCCESS) st = select_params(ctx, &a, v, NULL);
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &a, 1, v, &k);
  a.act = CLFORGE_ACT_NONE; /* the forward reads dy alone (in place) */
  return st == CLFORGE_SUCCESS ? launch(ctx, &a, k, v, buf, buf, buf, nwait, wait, done) : st;
}

clforge_status clforge_activation_backward(clforge_context ctx, const clforge_activation_backward_desc *desc, cl_mem z,
                                           cl_mem dy, cl_mem dx, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__actb a;
  st = clforge__actb_resolve(ctx, OP, desc, &a);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (a.count == 0) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  if (a.act != CLFORGE_ACT_NONE)
    st = clforge__check_buffer(ctx, OP, "z", z, a.z_offset, a.count, clforge_dtype_size(a.z_type), CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "dy", dy, a.dy_offset, a.count, clforge_dtype_size(a.dy_type),
                               CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "dx", dx, a.dx_offset, a.count, clforge_dtype_size(a.dx_type),
                               CLFORGE_ACCESS_WRITE | (a.beta != 0.0f ? CLFORGE_ACCESS_READ : 0));
  if (st == CLFORGE_SUCCESS) st = check_overlap(ctx, &a, z, dy, dx);
  int v[CLFORGE_MAX_PARAMS];
  cl_kernel k = NULL;
  if (st == CLFORGE_SUCCESS) st = select_params(ctx, &a, v, NULL);
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &a, 0, v, &k);
  if (st != CLFORGE_SUCCESS) return st;

  void *hz = NULL, *hdy = NULL, *hdx = NULL;
  if (ctx->validate) { /* inputs as they are when the kernel will run */
    clforge_status wst = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (wst != CLFORGE_SUCCESS) return wst;
    if (a.act != CLFORGE_ACT_NONE) st = clforge__call_read_elements(ctx, OP, z, a.z_type, a.z_offset, a.count, &hz);
    if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, dy, a.dy_type, a.dy_offset, a.count, &hdy);
    if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, dx, a.dx_type, a.dx_offset, a.count, &hdx);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &a, k, v, z, dy, dx, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, OP, done);
    if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, OP, dx, a.dx_offset, a.dx_type); /* tests only */
    void *got = NULL;
    if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, dx, a.dx_type, a.dx_offset, a.count, &got);
    clforge_activation_backward_desc at0 = *desc; /* the host copies start at the tensors */
    at0.z_offset = at0.dy_offset = at0.dx_offset = 0;
    if (st == CLFORGE_SUCCESS) st = clforge_ref_activation_backward(&at0, hz, hdy, hdx);
    if (st == CLFORGE_SUCCESS) st = clforge__validate(ctx, OP, a.dx_type, a.count, got, hdx, clforge__tolerance_for(a.dx_type));
    free(got);
  }
  free(hz), free(hdy), free(hdx);
  return clforge__call_end(st, done, event);
}
