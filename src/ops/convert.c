/* clforge_convert: argument checks, parameter choice, enqueue, validation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "buffer_check.h"
#include "op_call.h"

/* Run the reference on what src holds now and compare with dst. */
static clforge_status validate(clforge_context ctx, size_t n, cl_mem src, size_t src_offset, clforge_dtype st,
                               cl_mem dst, size_t dst_offset, clforge_dtype dt) {
  size_t ss = clforge_dtype_size(st), ds = clforge_dtype_size(dt);
  if (clforge__test_fault_armed(ctx, "convert")) { /* tests only: make the device result wrong */
    unsigned char byte;
    clforge_status r = clforge__read_buffer(ctx, dst, dst_offset * ds, 1, &byte);
    if (r != CLFORGE_SUCCESS) return r;
    byte ^= 0x01; /* lowest mantissa bit of element 0 (little-endian) */
    cl_int err = clEnqueueWriteBuffer(ctx->queue, dst, CL_TRUE, dst_offset * ds, 1, &byte, 0, NULL, NULL);
    if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "test fault injection");
  }
  void *in = malloc(n * ss), *got = malloc(n * ds), *want = malloc(n * ds);
  clforge_status r = CLFORGE_SUCCESS;
  if (!in || !got || !want)
    r = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "validation of convert: no memory for %zu elements", n);
  if (r == CLFORGE_SUCCESS) r = clforge__read_buffer(ctx, src, src_offset * ss, n * ss, in);
  if (r == CLFORGE_SUCCESS) r = clforge__read_buffer(ctx, dst, dst_offset * ds, n * ds, got);
  if (r == CLFORGE_SUCCESS) r = clforge_ref_convert(n, in, st, want, dt);
  if (r == CLFORGE_SUCCESS) r = clforge__validate(ctx, "convert", dt, n, got, want, clforge__tolerance_exact());
  free(in);
  free(got);
  free(want);
  return r;
}

static clforge_status enqueue_kernel(clforge_context ctx, size_t n, cl_mem src, size_t src_offset, clforge_dtype st,
                                     cl_mem dst, size_t dst_offset, clforge_dtype dt, cl_uint nwait,
                                     const cl_event *wait, cl_event *event) {
  const clforge__family *f = &clforge__family_convert;
  int v[CLFORGE_MAX_PARAMS];
  clforge_status r = clforge__family_select(ctx, f, 0, NULL, v, NULL); /* not tuned: memory-bound */
  if (r != CLFORGE_SUCCESS) return r;
  /* WGS is a launch size only: left out of the build options, so that every
   * work-group size shares one program (a new size costs a new launch shape,
   * not a new build). */
  char opts[128];
  snprintf(opts, sizeof opts, "-DVW=%d -DSRC_T=%d -DDST_T=%d", v[0], (int)st, (int)dt); /* v: VW, WGS */
  cl_kernel k;
  r = clforge__kernel_get(ctx, f->sources, opts, f->kernel, &k);
  if (r != CLFORGE_SUCCESS) return r;
  /* Shrink WGS to what this kernel supports on this device rather than fail. */
  size_t vw = (size_t)v[0], wgs = (size_t)v[1], kmax = 0;
  if (clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) == CL_SUCCESS)
    while (wgs > 1 && wgs > kmax) wgs /= 2;
  size_t items = n / vw + (n % vw != 0);
  size_t global = (items + wgs - 1) / wgs * wgs;
  cl_ulong a_off = src_offset, b_off = dst_offset, count = n;
  cl_int err = clSetKernelArg(k, 0, sizeof src, &src);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof a_off, &a_off);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, 2, sizeof dst, &dst);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, 3, sizeof b_off, &b_off);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, 4, sizeof count, &count);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (convert)");
  return clforge__launch(ctx, k, 1, &global, &wgs, nwait, wait, event, "clEnqueueNDRangeKernel (convert)");
}

clforge_status clforge_convert(clforge_context ctx, size_t n, cl_mem src, size_t src_offset, clforge_dtype src_type,
                               cl_mem dst, size_t dst_offset, clforge_dtype dst_type, cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, "convert", event);
  if (st != CLFORGE_SUCCESS) return st;
  size_t ss = clforge__float_dtype_size(src_type), ds = clforge__float_dtype_size(dst_type);
  if (!ss || !ds)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "convert: unknown dtype or not a float one (src_type %d, dst_type %d)",
                         (int)src_type, (int)dst_type);
  clforge_status wst = clforge__check_wait_list(ctx, "convert", num_events_in_wait_list, event_wait_list);
  if (wst != CLFORGE_SUCCESS) return wst;
  int same_range = 0;
  if (n > 0) {
    clforge_status r = clforge__check_buffer(ctx, "convert", "src", src, src_offset, n, ss, CLFORGE_ACCESS_READ);
    if (r == CLFORGE_SUCCESS) r = clforge__check_buffer(ctx, "convert", "dst", dst, dst_offset, n, ds, CLFORGE_ACCESS_WRITE);
    clforge__byte_range in, out;
    if (r == CLFORGE_SUCCESS) r = clforge__buffer_range(ctx, src, src_offset * ss, n * ss, &in);
    if (r == CLFORGE_SUCCESS) r = clforge__buffer_range(ctx, dst, dst_offset * ds, n * ds, &out);
    if (r != CLFORGE_SUCCESS) return r;
    /* Aliasing is judged in the root buffer, so sub-buffers are seen through. */
    same_range = in.root == out.root && in.begin == out.begin && in.end == out.end;
    if (same_range && src_type != dst_type)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "convert: in-place conversion between %s and %s",
                           clforge_dtype_name(src_type), clforge_dtype_name(dst_type));
    if (!same_range && clforge__ranges_alias(&in, &out))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "convert: src and dst ranges overlap");
  }

  cl_event done = NULL;
  cl_int err = CL_SUCCESS;
  clforge_status r = CLFORGE_SUCCESS;
  cl_event *out = (event || ctx->validate) ? &done : NULL;
  if (n == 0 || (same_range && src_type == dst_type)) {
    r = clforge__call_marker(ctx, "convert", num_events_in_wait_list, event_wait_list, out);
  } else if (src_type == dst_type) { /* a copy keeps every bit */
    err = clEnqueueCopyBuffer(ctx->queue, src, dst, src_offset * ss, dst_offset * ds, n * ss,
                              num_events_in_wait_list, event_wait_list, out);
  } else {
    r = enqueue_kernel(ctx, n, src, src_offset, src_type, dst, dst_offset, dst_type, num_events_in_wait_list,
                       event_wait_list, out);
  }
  if (err != CL_SUCCESS) r = clforge__fail_cl(ctx, err, "convert: enqueue");
  if (r == CLFORGE_SUCCESS && ctx->validate && n > 0) {
    r = clforge__call_await_done(ctx, "convert", done);
    if (r == CLFORGE_SUCCESS) r = validate(ctx, n, src, src_offset, src_type, dst, dst_offset, dst_type);
  }
  return clforge__call_end(r, done, event);
}
