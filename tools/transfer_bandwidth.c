/* Host<->device transfer bandwidth for `clforge info` (transfer_bandwidth.h). */
#include "transfer_bandwidth.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "stats.h" /* bench/ */
#include "timer.h"

enum { BW_MIN_REPS = 5, BW_MAX_REPS = 15 };
#define BW_TIME_BUDGET_S 0.25 /* after BW_MIN_REPS, stop once this much was spent */

static void bw_fail(bw_number *n, cl_int err, const char *what) {
  n->ok = 0;
  snprintf(n->why, sizeof n->why, "%s in %s", clforge_status_name(err), what);
}

static void bw_fail_msg(bw_number *n, const char *msg) {
  n->ok = 0;
  snprintf(n->why, sizeof n->why, "%s", msg);
}

/* One warm-up, then BW_MIN_REPS..BW_MAX_REPS blocking transfers; median. */
static void time_transfers(cl_command_queue q, cl_mem dbuf, void *host, size_t bytes, int to_device,
                           bw_number *out) {
  double t[BW_MAX_REPS];
  int n = 0;
  double total = 0;
  for (int i = -1; i < BW_MAX_REPS; ++i) {
    double t0 = clforge_bench_now();
    cl_int err = to_device ? clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                           : clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    double dt = clforge_bench_now() - t0;
    if (err != CL_SUCCESS) {
      bw_fail(out, err, to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer");
      return;
    }
    if (i < 0) continue; /* warm-up */
    t[n++] = dt;
    total += dt;
    if (n >= BW_MIN_REPS && total > BW_TIME_BUDGET_S) break;
  }
  clforge_bench_stats st;
  if (clforge_bench_summarize(t, (size_t)n, &st)) {
    bw_fail_msg(out, "no host memory");
    return;
  }
  double median = st.median < 1e-9 ? 1e-9 : st.median;
  out->ok = 1;
  out->gbps = (double)bytes / median / 1e9;
}

void transfer_bandwidth_measure(cl_device_id dev, const clforge_device_info *info, unsigned long long requested,
                                bw_report *r) {
  memset(r, 0, sizeof *r);
  r->measured = 1;
  unsigned long long bytes = requested;
  if (info && info->max_alloc_bytes / 2 > 0 && bytes > info->max_alloc_bytes / 2) bytes = info->max_alloc_bytes / 2;
  if (bytes > (unsigned long long)SIZE_MAX / 2) bytes = (unsigned long long)SIZE_MAX / 2;
  r->bytes = bytes;
  size_t n = (size_t)bytes;
  bw_number *all[] = {&r->pageable_h2d, &r->pageable_d2h, &r->pinned_h2d, &r->pinned_d2h};

  cl_int err = CL_SUCCESS;
  cl_platform_id platform = NULL;
  cl_context ctx = NULL;
  cl_command_queue q = NULL;
  cl_mem dbuf = NULL, pinned = NULL;
  const char *what = "clGetDeviceInfo(CL_DEVICE_PLATFORM)";
  err = clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
  if (err == CL_SUCCESS) {
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    what = "clCreateContext";
    ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    if (err == CL_SUCCESS && !ctx) err = CL_INVALID_CONTEXT;
  }
  if (err == CL_SUCCESS) {
    what = "clCreateCommandQueue";
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (err == CL_SUCCESS && !q) err = CL_INVALID_COMMAND_QUEUE;
  }
  if (err == CL_SUCCESS) {
    what = "clCreateBuffer";
    dbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    if (err == CL_SUCCESS && !dbuf) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  }
  if (err != CL_SUCCESS) {
    for (size_t i = 0; i < CLI_COUNT(all); ++i) bw_fail(all[i], err, what);
    goto done;
  }

  /* Pageable: an ordinary malloc'd buffer, touched so its pages exist. */
  {
    void *host = malloc(n);
    if (!host) {
      bw_fail_msg(&r->pageable_h2d, "no host memory");
      bw_fail_msg(&r->pageable_d2h, "no host memory");
    } else {
      memset(host, 0x5A, n);
      time_transfers(q, dbuf, host, n, 1, &r->pageable_h2d);
      time_transfers(q, dbuf, host, n, 0, &r->pageable_d2h);
      free(host);
    }
  }

  /* Pinned: a CL_MEM_ALLOC_HOST_PTR buffer, mapped; its pointer is the host side. */
  pinned = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
  if (err == CL_SUCCESS && !pinned) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  if (err != CL_SUCCESS) {
    bw_fail(&r->pinned_h2d, err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    bw_fail(&r->pinned_d2h, err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    goto done;
  }
  {
    void *p = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS && !p) err = CL_MAP_FAILURE;
    if (err != CL_SUCCESS) {
      bw_fail(&r->pinned_h2d, err, "clEnqueueMapBuffer");
      bw_fail(&r->pinned_d2h, err, "clEnqueueMapBuffer");
      goto done;
    }
    memset(p, 0xA5, n);
    time_transfers(q, dbuf, p, n, 1, &r->pinned_h2d);
    time_transfers(q, dbuf, p, n, 0, &r->pinned_d2h);
    clEnqueueUnmapMemObject(q, pinned, p, 0, NULL, NULL);
    clFinish(q);
  }

done:
  if (pinned) clReleaseMemObject(pinned);
  if (dbuf) clReleaseMemObject(dbuf);
  if (q) clReleaseCommandQueue(q);
  if (ctx) clReleaseContext(ctx);
}
