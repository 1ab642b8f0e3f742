#include "softmax_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../families/softmax.h"
#include "../families/softmax_classes.h"
#include "../core/validate.h"
#include "op_call.h"

clforge_status clforge__softmax_plan_make(clforge_context ctx, const clforge__softmax *d, const clforge__family *f,
                                          clforge__softmax_plan *p) {
  memset(p, 0, sizeof *p);
  char dtypes[32];
  clforge__softmax_dtypes_key(d, dtypes, sizeof dtypes);
  clforge__problem_key key = {dtypes, "rows", clforge__softmax_shape_class(d->rows, d->n), CLFORGE_SOFTMAX_NDIMS,
                              {d->rows, d->n}, CLFORGE_COMPUTE_DEFAULT};
  const int variant = d->n <= 512 ? SOFTMAX_VAR_SHORT : 0;
  clforge_status st = clforge__family_select(ctx, f, variant, &key, p->v, &p->choice);
  if (st == CLFORGE_SUCCESS)
    snprintf(p->choice.route, sizeof p->choice.route, "rows of %zu: class %s", d->n, key.shape_class);
  return st;
}

clforge_status clforge__softmax_check_tensor(clforge_context ctx, const clforge__softmax *d,
                                             const clforge__softmax_tensor *t, cl_mem buf, int access) {
  return clforge__check_buffer(ctx, d->op, t->name, buf, t->offset, t->extent - t->offset, clforge_dtype_size(t->type),
                               access);
}

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

clforge_status clforge__softmax_check_alias(clforge_context ctx, const clforge__softmax *d,
                                            const clforge__softmax_tensor *out, cl_mem ob,
                                            const clforge__softmax_tensor *in, cl_mem ib, int in_place_ok) {
  clforge__byte_range ri, ro;
  clforge_status st = range_of(ctx, in, ib, &ri);
  if (st == CLFORGE_SUCCESS) st = range_of(ctx, out, ob, &ro);
  if (st != CLFORGE_SUCCESS || ri.root != ro.root) return st;
  const clforge__footprint fo = placed(d, out, &ro), fi = placed(d, in, &ri);
  if (!clforge__footprints_overlap(&fi, &fo)) return CLFORGE_SUCCESS;
  if (!in_place_ok)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s overlaps the %s (they share bytes of one buffer)",
                         d->op, out->name, in->name);
  if (ri.begin == ro.begin && in->type == out->type && in->stride == out->stride) return CLFORGE_SUCCESS;
  return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                       "%s: %s overlaps %s without being the same elements (in place needs the same buffer bytes, "
                       "dtype and row stride: %s at byte %zu, %s, stride %zu; %s at byte %zu, %s, stride %zu)",
                       d->op, out->name, in->name, in->name, ri.begin, clforge_dtype_name(in->type), in->stride,
                       out->name, ro.begin, clforge_dtype_name(out->type), out->stride);
}


static clforge_status read_tensor(clforge_context ctx, const clforge__softmax *d, const clforge__softmax_tensor *t,
                                  cl_mem buf, void **out) {
  const size_t bytes = t->extent * clforge_dtype_size(t->type);
  *out = malloc(bytes ? bytes : 1);
  if (!*out)
    return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s validation: no memory for %s", d->op, t->name);
  return clforge__read_buffer(ctx, buf, 0, bytes, *out);
}

/* The reference on the inputs as they were, into the copy of the output as
 * it was (so elements between its rows must be unchanged), against the
 * output now. */
static clforge_status validate(clforge_context ctx, const clforge__softmax_run *r, void *const *host) {
  const clforge__softmax_tensor *out = r->t[r->ntensors - 1];
  const cl_mem ob = r->buf[r->ntensors - 1];
  const size_t es = clforge_dtype_size(out->type), n = out->extent;
  clforge_status st = clforge__test_fault_apply(ctx, r->d->op, ob, out->offset, out->type); /* tests only */
  if (st != CLFORGE_SUCCESS) return st;
  void *got = malloc(n * es);
  if (!got) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s validation: no memory for %s", r->d->op, out->name);
  st = clforge__read_buffer(ctx, ob, 0, n * es, got);
  if (st == CLFORGE_SUCCESS) st = r->reference(r->desc, r->ntensors, host);
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, r->d->op, out->type, n, got, host[r->ntensors - 1], clforge__tolerance_for(out->type));
  free(got);
  return st;
}

clforge_status clforge__softmax_execute(clforge_context ctx, const clforge__softmax_run *r, cl_uint nwait,
                                        const cl_event *wait, cl_event *event) {
  void *host[3] = {NULL, NULL, NULL};
  clforge_status st = CLFORGE_SUCCESS;
  if (ctx->validate) { /* the inputs as they are when the kernel runs */
    st = clforge__call_await_inputs(ctx, r->d->op, nwait, wait);
    if (st != CLFORGE_SUCCESS) return st;
    for (int i = 0; i < r->ntensors && st == CLFORGE_SUCCESS; ++i)
      st = read_tensor(ctx, r->d, r->t[i], r->buf[i], &host[i]);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = r->launch(r->user, nwait, wait, event || ctx->validate ? &done : NULL);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, r->d->op, done);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, r, host);
  }
  for (int i = 0; i < 3; ++i) free(host[i]);
  return clforge__call_end(st, done, event);
}

void clforge__softmax_grid(clforge_context ctx, size_t rows, int wg, int rpw, int rpi_max, size_t global[2],
                           size_t local[2], cl_uint *rpi) {
  const size_t want = (size_t)rpw * 4 * (ctx->info.compute_units ? ctx->info.compute_units : 1);
  size_t r = rows / want;
  if (r < 1) r = 1;
  if (r > (size_t)rpi_max) r = (size_t)rpi_max;
  const size_t items = (rows + r - 1) / r;
  local[0] = (size_t)wg, local[1] = (size_t)rpw;
  global[0] = (size_t)wg, global[1] = (items + (size_t)rpw - 1) / (size_t)rpw * (size_t)rpw;
  *rpi = (cl_uint)r;
}

size_t clforge__softmax_params_options(const clforge__family *f, const int *v, int skip, char *opts, size_t cap) {
  size_t used = 0;
  opts[0] = '\0';
  for (int i = 0; i < f->nparams && used < cap; ++i)
    if (i != skip)
      used += (size_t)snprintf(opts + used, cap - used, "%s-D%s=%d", used ? " " : "", f->params[i].name, v[i]);
  return used < cap ? used : cap - 1;
}

clforge_status clforge__softmax_launch(void *user, cl_uint nwait, const cl_event *wait, cl_event *event) {
  const clforge__softmax_launch_args *la = user;
  clforge_context ctx = la->ctx;
  const clforge__softmax *d = la->d;
  const cl_kernel k = la->k;
  size_t global[2], local[2];
  cl_uint rpi;
  clforge__softmax_grid(ctx, d->rows, la->wg, la->rpw, la->rpi_max, global, local, &rpi);
  const cl_ulong rows = d->rows, n64 = d->n;
  const cl_uint n32 = (cl_uint)d->n;
  const float scale = d->scale;
  cl_uint a = 0;
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 3 && err == CL_SUCCESS; ++i) {
    const cl_ulong off = la->t[i]->offset, stride = la->t[i]->stride;
    err = clSetKernelArg(k, a++, sizeof la->buf[i], &la->buf[i]);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof off, &off);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof stride, &stride);
  }
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof rows, &rows);
  if (err == CL_SUCCESS)
    err = d->idx64 ? clSetKernelArg(k, a++, sizeof n64, &n64) : clSetKernelArg(k, a++, sizeof n32, &n32);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof scale, &scale);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, a++, sizeof rpi, &rpi);
  char what[64];
  if (err != CL_SUCCESS) {
    snprintf(what, sizeof what, "clSetKernelArg (%s)", la->op);
    return clforge__fail_cl(ctx, err, what);
  }
  snprintf(what, sizeof what, "clEnqueueNDRangeKernel (%s)", la->op);
  return clforge__launch(ctx, k, 2, global, local, nwait, wait, event, what);
}
