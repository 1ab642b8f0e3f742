/* clforge_softmax and clforge_softmax_explain: argument, buffer and overlap
 * checks, the family's parameters (tuning file, defaults, overrides), the
 * launch of cl/softmax.cl and validation mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../context.h"
#include "../error.h"
#include "../kernels/families.h"
#include "../kernels/softmax.h"
#include "../kernels/softmax_classes.h"
#include "../program.h"
#include "../ref/compare.h"
#include "../softmax_desc.h"
#include "../validate.h"
#include "buffer_check.h"

typedef struct {
  int v[CLFORGE_MAX_PARAMS];
  clforge_kernel_choice choice;
} softmax_plan;

/* The family's values for d: tuning key "x,y" / "rows" / the class. */
static clforge_status make_plan(clforge_context ctx, const clforge__softmax *d, softmax_plan *p) {
  memset(p, 0, sizeof *p);
  char dtypes[32];
  clforge__softmax_dtypes_key(d, dtypes, sizeof dtypes);
  clforge__problem_key key = {dtypes, "rows", clforge__softmax_shape_class(d->rows, d->n), CLFORGE_SOFTMAX_NDIMS,
                              {d->rows, d->n}};
  const int variant = d->n <= 512 ? SOFTMAX_VAR_SHORT : 0;
  clforge_status st = clforge__family_select(ctx, &clforge__family_softmax, variant, &key, p->v, &p->choice);
  if (st == CLFORGE_SUCCESS)
    snprintf(p->choice.route, sizeof p->choice.route, "rows of %zu: class %s", d->n, key.shape_class);
  return st;
}

/* ----------------------------------------------------------------- checks */

static clforge_status range_of(clforge_context ctx, const clforge__softmax_tensor *t, cl_mem buf,
                               clforge__byte_range *r) {
  const size_t es = clforge_dtype_size(t->type);
  return clforge__buffer_range(ctx, buf, t->offset * es, (t->extent - t->offset) * es, r);
}

/* The footprint of t placed in its root buffer (r from range_of). */
static clforge__footprint placed(const clforge__softmax *d, const clforge__softmax_tensor *t,
                                 const clforge__byte_range *r) {
  clforge__footprint f = clforge__softmax_footprint(d, t);
  f.begin = r->begin;
  return f;
}

/* y is x exactly (in place), or shares no byte with x or the mask. */
static clforge_status check_aliasing(clforge_context ctx, const clforge__softmax *d, cl_mem x, cl_mem mask, cl_mem y) {
  clforge__byte_range rx, ry, rm;
  clforge_status st = range_of(ctx, &d->x, x, &rx);
  if (st == CLFORGE_SUCCESS) st = range_of(ctx, &d->y, y, &ry);
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__footprint fy = placed(d, &d->y, &ry);
  if (rx.root == ry.root) {
    const int same = rx.begin == ry.begin && d->x.type == d->y.type && d->x.stride == d->y.stride;
    const clforge__footprint fx = placed(d, &d->x, &rx);
    if (!same && clforge__footprints_overlap(&fx, &fy))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "softmax: y overlaps x without being the same elements (in place needs the same buffer "
                           "bytes, dtype and row stride: x at byte %zu, %s, stride %zu; y at byte %zu, %s, stride %zu)",
                           rx.begin, clforge_dtype_name(d->x.type), d->x.stride, ry.begin,
                           clforge_dtype_name(d->y.type), d->y.stride);
  }
  if (mask) {
    st = range_of(ctx, &d->mask, mask, &rm);
    if (st != CLFORGE_SUCCESS) return st;
    const clforge__footprint fm = placed(d, &d->mask, &rm);
    if (rm.root == ry.root && clforge__footprints_overlap(&fm, &fy))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "softmax: y overlaps the mask (they share bytes of one buffer)");
  }
  return CLFORGE_SUCCESS;
}

static clforge_status check_buffers(clforge_context ctx, const clforge__softmax *d, cl_mem x, cl_mem mask, cl_mem y) {
  clforge_status st = clforge__check_buffer(ctx, "softmax", "x", x, d->x.offset, d->x.extent - d->x.offset,
                                            clforge_dtype_size(d->x.type), CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, "softmax", "y", y, d->y.offset, d->y.extent - d->y.offset,
                               clforge_dtype_size(d->y.type), CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && mask)
    st = clforge__check_buffer(ctx, "softmax", "mask", mask, d->mask.offset, d->mask.extent - d->mask.offset,
                               clforge_dtype_size(d->mask.type), CLFORGE_ACCESS_READ);
  return st == CLFORGE_SUCCESS ? check_aliasing(ctx, d, x, mask, y) : st;
}

/* ----------------------------------------------------------------- launch */

static clforge_status get_kernel(clforge_context ctx, const clforge__softmax *d, const softmax_plan *p,
                                 cl_kernel *k) {
  const clforge__family *f = &clforge__family_softmax;
  /* Only what the kernel reads is built in, so that calls differing in the
   * rest share a program: RPI is the host's (the kernel takes the count as
   * its argument rpi), STASH acts only in two-pass softmax into f32 y, and
   * the mask's type only with a mask (cl/softmax.cl). */
  const int log = d->kind == CLFORGE_LOG_SOFTMAX;
  const int stash = p->v[SOFTMAX_STASH] && !p->v[SOFTMAX_ONLINE] && !log && d->y.type == CLFORGE_F32;
  char opts[512];
  size_t used = 0;
  opts[0] = '\0';
  for (int i = 0; i < f->nparams; ++i)
    if (i != SOFTMAX_RPI)
      used += (size_t)snprintf(opts + used, sizeof opts - used, "%s-D%s=%d", used ? " " : "", f->params[i].name,
                               i == SOFTMAX_STASH ? stash : p->v[i]);
  snprintf(opts + used, sizeof opts - used, " -DX_T=%d -DY_T=%d -DMASK_T=%d -DHAS_MASK=%d -DLOG=%d -DIDX64=%d",
           (int)d->x.type, (int)d->y.type, d->has_mask ? (int)d->mask.type : (int)CLFORGE_F32, d->has_mask, log,
           d->idx64);
  clforge_status st = clforge__kernel_get(ctx, f->sources, opts, f->kernel, k);
  const size_t wgs = (size_t)p->v[SOFTMAX_WG] * (size_t)p->v[SOFTMAX_RPW];
  return st == CLFORGE_SUCCESS ? clforge__kernel_fits(ctx, *k, "softmax", f->name, opts, wgs) : st;
}

static clforge_status enqueue(clforge_context ctx, const clforge__softmax *d, const softmax_plan *p, cl_kernel k,
                              cl_mem x, cl_mem mask, cl_mem y, cl_uint nwait, const cl_event *wait, cl_event *event) {
  const size_t wg = (size_t)p->v[SOFTMAX_WG], rpw = (size_t)p->v[SOFTMAX_RPW];
  /* Rows per item up to RPI, while there are 4 work-groups per compute
   * unit to balance the load. */
  size_t want = rpw * 4 * (ctx->info.compute_units ? ctx->info.compute_units : 1), rpi = d->rows / want;
  if (rpi < 1) rpi = 1;
  if (rpi > (size_t)p->v[SOFTMAX_RPI]) rpi = (size_t)p->v[SOFTMAX_RPI];
  const size_t items = (d->rows + rpi - 1) / rpi;
  const size_t local[2] = {wg, rpw}, global[2] = {wg, (items + rpw - 1) / rpw * rpw};
  const cl_uint rpi32 = (cl_uint)rpi;
  const cl_ulong xo = d->x.offset, xs = d->x.stride, mo = d->mask.offset, ms = d->mask.stride;
  const cl_ulong yo = d->y.offset, ys = d->y.stride, rows = d->rows;
  const cl_ulong n64 = d->n;
  const cl_uint n32 = (cl_uint)d->n;
  const float scale = d->scale;
  const cl_mem m = d->has_mask ? mask : NULL;
  cl_uint a = 0;
  cl_int err = clSetKernelArg(k, a++, sizeof x, &x);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof xo, &xo);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof xs, &xs);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof m, &m);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof mo, &mo);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof ms, &ms);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof y, &y);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof yo, &yo);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof ys, &ys);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof rows, &rows);
  if (err == CL_SUCCESS)
    err = d->idx64 ? clSetKernelArg(k, a++, sizeof n64, &n64) : clSetKernelArg(k, a++, sizeof n32, &n32);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof scale, &scale);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof rpi32, &rpi32);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (softmax)");
  return clforge__launch(ctx, k, 2, global, local, nwait, wait, event, "clEnqueueNDRangeKernel (softmax)");
}

/* ------------------------------------------------------------- validation */

typedef struct {
  void *x, *mask, *y;
} host_copies;

static clforge_status read_tensor(clforge_context ctx, const clforge__softmax_tensor *t, cl_mem buf, void **out) {
  const size_t bytes = t->extent * clforge_dtype_size(t->type);
  *out = malloc(bytes ? bytes : 1);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "softmax validation: no memory for %s", t->name);
  return clforge__read_buffer(ctx, buf, 0, bytes, *out);
}

static void free_copies(host_copies *h) {
  free(h->x);
  free(h->mask);
  free(h->y);
}

/* The reference on the inputs as they were, into the copy of y as it was
 * (so elements between y's rows must be unchanged), against y now. */
static clforge_status validate(clforge_context ctx, const clforge_softmax_desc *desc, const clforge__softmax *d,
                               cl_mem y, host_copies *h) {
  const size_t ys = clforge_dtype_size(d->y.type), n = d->y.extent;
  clforge_status fault = clforge__test_fault_apply(ctx, "softmax", y, d->y.offset, d->y.type); /* tests only */
  if (fault != CLFORGE_SUCCESS) return fault;
  void *got = malloc(n * ys);
  if (!got) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "softmax validation: no memory for y");
  clforge_status st = clforge__read_buffer(ctx, y, 0, n * ys, got);
  if (st == CLFORGE_SUCCESS) st = clforge_ref_softmax(desc, h->x, d->has_mask ? h->mask : NULL, h->y);
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, "softmax", d->y.type, n, got, h->y, clforge__tolerance_for(d->y.type));
  free(got);
  return st;
}

/* ------------------------------------------------------------------- call */

clforge_status clforge_softmax(clforge_context ctx, const clforge_softmax_desc *desc, cl_mem x, cl_mem mask, cl_mem y,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "softmax: context is NULL");
  clforge__clear_error(ctx);
  if (event) *event = NULL;
  clforge__softmax d;
  clforge_status st = clforge__softmax_resolve(ctx, desc, mask != NULL, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, "softmax", num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.rows || !d.n) {
    if (!event) return CLFORGE_SUCCESS;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_events_in_wait_list, event_wait_list, event);
    return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, "clEnqueueMarkerWithWaitList (softmax)");
  }
  st = check_buffers(ctx, &d, x, mask, y);
  softmax_plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  cl_kernel k = NULL;
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &d, &p, &k); /* built before anything is enqueued */
  if (st != CLFORGE_SUCCESS) return st;

  host_copies h = {NULL, NULL, NULL};
  if (ctx->validate) { /* the inputs as they are when the kernel runs */
    cl_int err = num_events_in_wait_list ? clWaitForEvents(num_events_in_wait_list, event_wait_list) : CL_SUCCESS;
    if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "softmax validation: waiting for the wait list");
    st = read_tensor(ctx, &d.x, x, &h.x);
    if (st == CLFORGE_SUCCESS && d.has_mask) st = read_tensor(ctx, &d.mask, mask, &h.mask);
    if (st == CLFORGE_SUCCESS) st = read_tensor(ctx, &d.y, y, &h.y);
    if (st != CLFORGE_SUCCESS) {
      free_copies(&h);
      return st;
    }
  }
  cl_event done = NULL;
  st = enqueue(ctx, &d, &p, k, x, mask, y, num_events_in_wait_list, event_wait_list,
               event || ctx->validate ? &done : NULL);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    cl_int err = clWaitForEvents(1, &done);
    st = err == CL_SUCCESS ? validate(ctx, desc, &d, y, &h)
                           : clforge__fail_cl(ctx, err, "softmax: waiting for the result to validate");
  }
  free_copies(&h);
  if (event && st == CLFORGE_SUCCESS) *event = done;
  else if (done) clReleaseEvent(done);
  return st;
}

clforge_status clforge_softmax_explain(clforge_context ctx, const clforge_softmax_desc *desc,
                                       clforge_kernel_choice *choice) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "softmax_explain: context is NULL");
  clforge__clear_error(ctx);
  if (!choice) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "softmax_explain: choice is NULL");
  clforge__softmax d;
  clforge_status st = clforge__softmax_resolve(ctx, desc, 0, &d);
  softmax_plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}
