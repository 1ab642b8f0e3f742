/* clforge_rope: argument and buffer checks (in place only where y is x
 * exactly), the family's work-group, one launch (cl/rope.cl), validation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../desc/rope_desc.h"
#include "../families/families.h"
#include "../ref/element.h"
#include "buffer_check.h"
#include "op_call.h"

#define OP "rope"

clforge_status clforge_rope_explain(clforge_context ctx, const clforge_rope_desc *desc, clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, OP "_explain", choice, "choice");
  clforge__rope d;
  if (st == CLFORGE_SUCCESS) st = clforge__rope_resolve(ctx, OP "_explain", desc, &d);
  return clforge__explain_plain(ctx, &clforge__family_rope, st, choice);
}

/* In place: y is x exactly (every element is read by the item that writes it, first). */
static int in_place(const clforge__rope *d, cl_mem x, cl_mem y) {
  return x == y && d->x.offset == d->y.offset && d->x.token_stride == d->y.token_stride &&
         d->x.head_stride == d->y.head_stride && d->x.type == d->y.type;
}

static clforge_status check_buffers(clforge_context ctx, const clforge__rope *d, cl_mem x, cl_mem pos, cl_mem y) {
  const size_t xs = clforge_dtype_size(d->x.type), ys = clforge_dtype_size(d->y.type);
  clforge_status st = clforge__check_buffer(ctx, OP, "x", x, d->x.offset, d->x.extent - d->x.offset, xs, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "positions", pos, d->pos_offset, d->tokens, 4, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "y", y, d->y.offset, d->y.extent - d->y.offset, ys, CLFORGE_ACCESS_WRITE);
  clforge__byte_range rx, ry, rp;
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, x, d->x.offset * xs, (d->x.extent - d->x.offset) * xs, &rx);
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, y, d->y.offset * ys, (d->y.extent - d->y.offset) * ys, &ry);
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, pos, d->pos_offset * 4, d->tokens * 4, &rp);
  if (st != CLFORGE_SUCCESS) return st;
  if (clforge__ranges_alias(&rp, &ry)) /* in place too: items would read positions others overwrote */
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": y overlaps positions");
  if (!in_place(d, x, y) && clforge__ranges_alias(&rx, &ry))
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                       OP ": y overlaps x or positions (in place needs y to be x exactly: offset, strides, type)");
  return st;
}

static clforge_status launch(clforge_context ctx, const clforge__rope *d, int wg, cl_mem x, cl_mem pos, cl_mem y,
                             cl_uint nwait, const cl_event *wait, cl_event *done) {
  const int copy = !in_place(d, x, y) && d->rot < d->d;
  char more[64];
  snprintf(more, sizeof more, "-DX_T=%d -DY_T=%d -DNEOX=%d -DCOPY=%d", (int)d->x.type, (int)d->y.type, d->neox, copy);
  int v[CLFORGE_MAX_PARAMS] = {wg};
  cl_kernel k;
  clforge_status st = clforge__family_kernel(ctx, OP, &clforge__family_rope, clforge__family_rope.kernel, v, more,
                                             (size_t)wg, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_uint tokens = (cl_uint)d->tokens, heads = (cl_uint)d->heads, half = (cl_uint)(d->rot / 2);
  const cl_uint items = half + (copy ? (cl_uint)(d->d - d->rot) : 0);
  const cl_ulong xo = d->x.offset, xt = d->x.token_stride, xh = d->x.head_stride, yo = d->y.offset;
  const cl_ulong yt = d->y.token_stride, yh = d->y.head_stride, po = d->pos_offset;
  const cl_float step = (cl_float)(2.0 * log2(d->theta) / (double)d->rot);
  const void *vals[] = {&x, &xo, &xt, &xh, &y, &yo, &yt, &yh, &pos, &po, &tokens, &heads, &items, &half, &step};
  const size_t sizes[] = {sizeof x, 8, 8, 8, sizeof y, 8, 8, 8, sizeof pos, 8, 4, 4, 4, 4, 4};
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < 15; ++i) err |= clSetKernelArg(k, i, sizes[i], vals[i]);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
  const size_t local = (size_t)wg, n = (size_t)tokens * items, global = (n ? (n + local - 1) / local : 1) * local;
  return clforge__launch(ctx, k, 1, &global, &local, nwait, wait, done, "clEnqueueNDRangeKernel (" OP ")");
}

/* Validation mode: every element of y's heads against the reference on the
 * inputs as the kernel read them, within clforge__rope_bound (its own
 * position's angle error: one large position widens no other token's). */
static clforge_status validate(clforge_context ctx, const clforge_rope_desc *desc, const clforge__rope *d,
                               const void *hx, const int32_t *hp, cl_mem y, cl_event done) {
  const size_t ny = d->y.extent - d->y.offset;
  clforge_status st = clforge__call_await_done(ctx, OP, done);
  if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, OP, y, d->y.offset, d->y.type); /* tests only */
  void *got = NULL, *want = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, y, d->y.type, d->y.offset, ny, &got);
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, y, d->y.type, d->y.offset, ny, &want);
  clforge_rope_desc at0 = *desc;
  at0.x_offset = at0.y_offset = at0.positions_offset = 0;
  if (st == CLFORGE_SUCCESS) st = clforge_ref_rope(&at0, hx, hp, want);
  size_t bad = 0, worst_at = 0;
  double worst = 0;
  for (size_t t = 0; st == CLFORGE_SUCCESS && t < d->tokens; ++t)
    for (size_t h = 0; h < d->heads; ++h) {
      const size_t xb = t * d->x.token_stride + h * d->x.head_stride, yb = t * d->y.token_stride + h * d->y.head_stride;
      for (size_t i = 0; i < d->d; ++i) {
        const size_t j = i >= d->rot ? i : d->neox ? (i < d->rot / 2 ? i + d->rot / 2 : i - d->rot / 2) : i ^ 1;
        const double a = fabs(clforge__ref_load(hx, d->x.type, xb + i));
        const double pair = a + (j != i ? fabs(clforge__ref_load(hx, d->x.type, xb + j)) : 0.0);
        const double w = clforge__ref_load(want, d->y.type, yb + i), g = clforge__ref_load(got, d->y.type, yb + i);
        const double e = fabs(g - w) / clforge__rope_bound(pair, hp[t], w, d->y.type);
        if (!(e <= 1.0)) ++bad;
        if (!(e <= worst)) worst = e, worst_at = yb + i;
      }
    }
  if (st == CLFORGE_SUCCESS && bad)
    st = clforge__fail(ctx, CLFORGE_VALIDATION_FAILED,
                       OP ": validation failed: %zu elements past the f32 angle's bound (worst %.3g times it, y[%zu])",
                       bad, worst, d->y.offset + worst_at);
  free(got), free(want);
  return st;
}

clforge_status clforge_rope(clforge_context ctx, const clforge_rope_desc *desc, cl_mem x, cl_mem positions, cl_mem y,
                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__rope d;
  st = clforge__rope_resolve(ctx, OP, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.tokens) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &d, x, positions, y);
  int v[CLFORGE_MAX_PARAMS];
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_rope, 0, NULL, v, NULL);
  if (st != CLFORGE_SUCCESS) return st;
  void *hx = NULL, *hp = NULL;
  if (ctx->validate) { /* the inputs as they are when the kernel will run */
    st = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, x, d.x.type, d.x.offset, d.x.extent - d.x.offset, &hx);
    if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, positions, CLFORGE_S32, d.pos_offset, d.tokens, &hp);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &d, v[0], x, positions, y, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) st = validate(ctx, desc, &d, hx, hp, y, done);
  free(hx), free(hp);
  return clforge__call_end(st, done, event);
}
