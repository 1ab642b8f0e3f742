/* The device's peak, the denominators of `clforge bench` (peak_bench.c is
 * the command): multiply-add throughput and streaming bandwidth of
 * the context's device, from bench/peak.cl built with plain OpenCL on the
 * context's own OpenCL context and queue (the library's programs are not
 * reachable from here, and these kernels are no op of the library).
 *
 * Each kernel is timed with the bench timer (marker brackets on the
 * profiling queue) and the best run counts: a peak is what the device can
 * do, and on a shared machine slower runs are other tenants' interference. */
#include "peak.h"

#include <CL/cl_ext.h> /* CL_DEVICE_HALF_FP_CONFIG */
#include <stdlib.h>
#include <string.h>

#include "bench_sources.h"
#include "host_fma.h"
#include "stats.h"
#include "timer.h"

/* Many short runs: one of them likely has the machine to itself. The FMA
 * kernel's and the host loop's alternate in blocks (measure_fma). */
enum { PEAK_RUNS = CLFORGE_BENCH_PEAK_RUNS, FMA_BLOCKS = 2, FMA_BLOCK_RUNS = PEAK_RUNS / FMA_BLOCKS };
#define FMA_TARGET_S 0.01 /* per timed FMA run: long beside a launch, short in all */
#define MIN_STREAM_BYTES (128ull << 20) /* per buffer; also 4x the device's cache, see stream_bytes */
#define FMA_A 0.999f /* x = a * x + b converges to b / (1 - a) = 1 */
#define FMA_B 0.001f

/* The kernels' shape for a device. FMA: see clforge_bench_peak_fma_shapes;
 * CPUs keep 16 chains per work-item (two FMA units of 4-cycle latency need 8
 * in flight; 16 leave slack). Streaming on CPUs in contiguous 16 KiB blocks
 * per work-item (work-groups of 1). Others (GPUs): fewer registers per
 * work-item, many work-items, coalesced float4 streams. */
typedef struct {
  int chains, mvw, items;
  size_t mem_local; /* 0: the driver's choice */
  clforge_bench_peak_shape fma[CLFORGE_BENCH_PEAK_MAX_SHAPES];
  int n_fma;
} peak_shape;

/* Work-items per group in the one-lane shape: a multiple of 16 (a zmm of
 * floats, 32 halves), and of the 128 Intel's runtime reports as its
 * preferred multiple. */
#define X1_GROUP 128

int clforge_bench_peak_fma_shapes(cl_device_type type, cl_uint pref, cl_uint compute_units, size_t max_group,
                                  clforge_bench_peak_shape *out) {
  int vw = 1;
  while (vw < 16 && (cl_uint)(2 * vw) <= pref) vw *= 2;
  const size_t cu = compute_units ? compute_units : 1;
  if (!(type & CL_DEVICE_TYPE_CPU)) {
    out[0] = (clforge_bench_peak_shape){vw, cu * 2048, 0, 0, 0};
    return 1;
  }
  /* 64 work-groups per core in both: with only 8 PoCL's threads often split
   * them unevenly and about half the runs measured one core (288 instead of
   * 573 GFLOP/s here); with 64 the split evens out. A one-lane group holds
   * as many lanes as a vector one of 16-lane work-items (128 = 16 x 8). */
  out[0] = (clforge_bench_peak_shape){vw < 4 ? 4 : vw, cu * 512, 8, 0, 0};
  size_t group = X1_GROUP;
  while (max_group && group > max_group) group /= 2;
  out[1] = (clforge_bench_peak_shape){1, cu * 64 * group, group, 0, 0};
  return 2;
}

static peak_shape shape_for(cl_device_id dev, const clforge_device_info *info) {
  /* The vector shape's width: the larger of the preferred and the native
   * one (Intel's runtime prefers 1, meaning "vectorized across work-items",
   * and reports 16 native). */
  cl_uint pref = 0, native = 0;
  if (clGetDeviceInfo(dev, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof pref, &pref, NULL) != CL_SUCCESS) pref = 4;
  if ((info->type & CL_DEVICE_TYPE_CPU) &&
      clGetDeviceInfo(dev, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof native, &native, NULL) == CL_SUCCESS &&
      native > pref)
    pref = native;
  peak_shape s;
  if (info->type & CL_DEVICE_TYPE_CPU) {
    s = (peak_shape){16, 16, 256, 1, {{0}}, 0};
  } else {
    s = (peak_shape){8, 4, 16, 256, {{0}}, 0};
    if (info->max_work_group_size && s.mem_local > info->max_work_group_size) s.mem_local = info->max_work_group_size;
  }
  s.n_fma = clforge_bench_peak_fma_shapes(info->type, pref, info->compute_units, info->max_work_group_size, s.fma);
  return s;
}

typedef struct {
  cl_kernel kernel;
  size_t global, local; /* local 0: the driver's choice */
} launch;

static int enqueue_launch(void *user, cl_command_queue queue) {
  const launch *l = user;
  return clEnqueueNDRangeKernel(queue, l->kernel, 1, NULL, &l->global, l->local ? &l->local : NULL, 0, NULL, NULL);
}

/* Shortest of `runs` timed launches after `warmup`, in seconds; -1 and
 * `err` on failure. */
static double best_seconds(cl_command_queue q, launch *l, const char *what, int warmup, int runs,
                           clforge_bench_peak *p) {
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(q, enqueue_launch, l, warmup, runs, &t, &where);
  if (rc != 0) {
    if (!p->error[0])
      snprintf(p->error, sizeof p->error, "%s: %s failed (%s)", what, strcmp(where, "the operation") ? where : "launch",
               clforge_status_name(rc));
    return -1;
  }
  clforge_bench_stats st;
  int bad = clforge_bench_summarize(t.seconds, (size_t)t.runs, &st);
  if (!p->timer || t.timer == CLFORGE_BENCH_TIMER_WALL) p->timer = clforge_bench_timer_name(t.timer);
  clforge_bench_timing_free(&t);
  if (bad) {
    if (!p->error[0]) snprintf(p->error, sizeof p->error, "%s: out of host memory", what);
    return -1;
  }
  return st.min > 1e-9 ? st.min : 1e-9;
}

static void fail_cl(clforge_bench_peak *p, const char *what, cl_int err) {
  if (!p->error[0]) snprintf(p->error, sizeof p->error, "%s failed (%s)", what, clforge_status_name(err));
}

/* One FMA kernel ready to launch: its output buffer and an iteration count
 * that makes a run take about FMA_TARGET_S. */
typedef struct {
  launch l;
  cl_mem out;
  cl_int iters;
  double flops; /* per run */
} fma_kernel;

static void fma_release(fma_kernel *k) {
  if (k->out) clReleaseMemObject(k->out);
  if (k->l.kernel) clReleaseKernel(k->l.kernel);
  memset(k, 0, sizeof *k);
}

/* Create, set the arguments, and size the runs with a short one (the first
 * launch also builds the work-group function). 0, or -1 with p->error. */
static int fma_prepare(cl_command_queue q, cl_program prog, cl_context cl, const char *name, int chains,
                       const clforge_bench_peak_shape *s, clforge_bench_peak *p, fma_kernel *k) {
  cl_int err;
  memset(k, 0, sizeof *k);
  k->l = (launch){clCreateKernel(prog, name, &err), s->work_items, s->work_group};
  if (err == CL_SUCCESS) k->out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, s->work_items * sizeof(float), NULL, &err);
  k->iters = 16;
  const float a = FMA_A, b = FMA_B;
  if (err == CL_SUCCESS) err = clSetKernelArg(k->l.kernel, 0, sizeof k->out, &k->out);
  if (err == CL_SUCCESS) err = clSetKernelArg(k->l.kernel, 1, sizeof a, &a);
  if (err == CL_SUCCESS) err = clSetKernelArg(k->l.kernel, 2, sizeof b, &b);
  if (err == CL_SUCCESS) err = clSetKernelArg(k->l.kernel, 3, sizeof k->iters, &k->iters);
  if (err != CL_SUCCESS) {
    fail_cl(p, name, err);
    fma_release(k);
    return -1;
  }
  double t = best_seconds(q, &k->l, name, 1, 1, p);
  if (t <= 0) {
    fma_release(k);
    return -1;
  }
  double scaled = k->iters * FMA_TARGET_S / t;
  k->iters = scaled > (1 << 24) ? (1 << 24) : scaled < 16 ? 16 : (cl_int)scaled;
  err = clSetKernelArg(k->l.kernel, 3, sizeof k->iters, &k->iters);
  if (err != CL_SUCCESS) {
    fail_cl(p, name, err);
    fma_release(k);
    return -1;
  }
  k->flops = 2.0 * 16 * chains * s->vector_width * (double)k->iters * (double)s->work_items;
  return 0;
}

/* The shortest of `runs` runs of the host loop, seconds; -1 on failure. */
static double host_best_of(int threads, long long iters, int runs) {
  double best = -1;
  for (int r = 0; r < runs; ++r) {
    const double t = clforge_bench_host_fma_run(threads, iters);
    if (t <= 0) return -1;
    if (best < 0 || t < best) best = t;
  }
  return best;
}

/* The host loop sized like the kernel's runs, on one thread per compute
 * unit; 0 with p->host_note where it is not run. */
static long long host_prepare(const clforge_device_info *info, clforge_bench_peak *p) {
  const char *why = "";
  if (!(info->type & CL_DEVICE_TYPE_CPU)) {
    snprintf(p->host_note, sizeof p->host_note, "not a CPU device: no host loop to compare with");
    return 0;
  }
  if (!clforge_bench_host_fma_usable(&why)) {
    snprintf(p->host_note, sizeof p->host_note, "%s", why);
    return 0;
  }
  p->host_threads = info->compute_units ? (int)info->compute_units : 1;
  long long iters = 256;
  double t = 0;
  /* The best of 3 at each size: one run stretched by another tenant (or by
   * the threads' start) stopped the growth early, and the timed runs were
   * then so short that starting the threads dominated them (host loop
   * 1-60 GFLOP/s beside a kernel at 230 on a busy machine). */
  while ((t = host_best_of(p->host_threads, iters, 3)) > 0 && t < FMA_TARGET_S / 8 && iters < (1ll << 40))
    iters *= 8;
  if (t <= 0) {
    snprintf(p->host_note, sizeof p->host_note, "could not start %d threads", p->host_threads);
    return 0;
  }
  const double scaled = (double)iters * FMA_TARGET_S / t;
  return scaled < 16 ? 16 : (long long)scaled;
}

/* GFLOP/s of one FMA kernel in every shape of s, the best of p->runs runs
 * each, kept in the shape (f16: its f16_gflops); returns the best shape's
 * index, -1 where none ran. For f32 on a CPU device the host loop's best
 * too, in blocks that alternate with the kernels', so that a stretch when
 * another tenant holds a core costs all alike. The loop's threads are
 * placed by the scheduler, as PoCL's are: pinned, they kept both cores
 * where PoCL's two threads had been left on one, and the ratio read
 * 0.5-0.75 on a busy machine for no fault of the kernel. */
static int measure_fma(cl_command_queue q, cl_program prog, cl_context cl, const char *base, peak_shape *s,
                       const clforge_device_info *info, int f16, clforge_bench_peak *p) {
  fma_kernel k[CLFORGE_BENCH_PEAK_MAX_SHAPES];
  double best[CLFORGE_BENCH_PEAK_MAX_SHAPES] = {0};
  int ready[CLFORGE_BENCH_PEAK_MAX_SHAPES] = {0}, any = 0;
  for (int i = 0; i < s->n_fma; ++i) {
    char name[64];
    /* Shape 0 is the VW kernel, the others the one-lane one (peak.cl). */
    snprintf(name, sizeof name, "%s%s", base, i ? "_x1" : "");
    ready[i] = fma_prepare(q, prog, cl, name, s->chains, &s->fma[i], p, &k[i]) == 0;
    any |= ready[i];
  }
  if (!any) return -1;
  const long long host_iters = f16 ? 0 : host_prepare(info, p);
  double host_best = 0;
  for (int b = 0; b < FMA_BLOCKS; ++b) {
    for (int i = 0; i < s->n_fma; ++i)
      for (int r = 0; ready[i] && r < FMA_BLOCK_RUNS; ++r) {
        const double t = best_seconds(q, &k[i].l, base, 0, 1, p);
        if (t <= 0) break;
        if (best[i] == 0 || t < best[i]) best[i] = t;
      }
    for (int r = 0; host_iters > 0 && r < FMA_BLOCK_RUNS; ++r) {
      const double th = clforge_bench_host_fma_run(p->host_threads, host_iters);
      if (th > 0 && (host_best == 0 || th < host_best)) host_best = th;
    }
  }
  if (host_best > 0) p->host_gflops = clforge_bench_host_fma_flops(p->host_threads, host_iters) / host_best * 1e-9;
  int win = -1;
  for (int i = 0; i < s->n_fma; ++i) {
    const double g = ready[i] && best[i] > 0 ? k[i].flops / best[i] * 1e-9 : 0;
    if (f16) s->fma[i].f16_gflops = g;
    else s->fma[i].f32_gflops = g;
    if (g > 0 && (win < 0 || g > (f16 ? s->fma[win].f16_gflops : s->fma[win].f32_gflops))) win = i;
    if (ready[i]) fma_release(&k[i]);
  }
  return win;
}

/* Buffers well beyond the last-level cache: at least MIN_STREAM_BYTES and 4x
 * the device's global-memory cache, within its allocation limit and a
 * quarter of its memory (two buffers), whole blocks of the read kernel. */
static unsigned long long stream_bytes(unsigned long long cache, const clforge_device_info *info,
                                       const peak_shape *s) {
  unsigned long long bytes = MIN_STREAM_BYTES;
  if (4ull * cache > bytes) bytes = 4ull * cache;
  if (info->max_alloc_bytes && bytes > info->max_alloc_bytes) bytes = info->max_alloc_bytes;
  if (info->global_mem_bytes && bytes > info->global_mem_bytes / 4) bytes = info->global_mem_bytes / 4;
  unsigned long long block = (unsigned long long)s->mvw * sizeof(float) * (unsigned long long)s->items * s->mem_local;
  return bytes / block * block;
}

/* Read and copy bandwidth over two buffers of p->bytes. */
static void measure_stream(cl_command_queue q, cl_program prog, cl_context cl, const peak_shape *s,
                           clforge_bench_peak *p) {
  cl_int err = CL_SUCCESS, e2 = CL_SUCCESS, e3 = CL_SUCCESS;
  const size_t bytes = (size_t)p->bytes;
  const size_t items_total = bytes / ((size_t)s->mvw * sizeof(float)) / (size_t)s->items;
  cl_mem src = NULL, dst = NULL, sums = NULL;
  launch rd = {NULL, items_total, s->mem_local}, cp = {NULL, items_total, s->mem_local};
  if (bytes == 0) {
    snprintf(p->error, sizeof p->error, "the device's memory is too small for the streaming buffers");
    return;
  }
  src = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  dst = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &e2);
  sums = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, items_total * sizeof(float), NULL, &e3);
  if (err == CL_SUCCESS) err = e2 != CL_SUCCESS ? e2 : e3;
  if (err != CL_SUCCESS) {
    fail_cl(p, "clCreateBuffer (streaming buffers)", err);
    goto done;
  }
  /* Written once before timing, so that every page exists (first touch). */
  const float one = 1.0f;
  err = clEnqueueFillBuffer(q, src, &one, sizeof one, 0, bytes, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clEnqueueFillBuffer(q, dst, &one, sizeof one, 0, bytes, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clFinish(q);
  if (err != CL_SUCCESS) {
    fail_cl(p, "clEnqueueFillBuffer", err);
    goto done;
  }
  const cl_int items = s->items;
  rd.kernel = clCreateKernel(prog, "peak_read", &err);
  if (err == CL_SUCCESS) cp.kernel = clCreateKernel(prog, "peak_copy", &err);
  if (err == CL_SUCCESS) err = clSetKernelArg(rd.kernel, 0, sizeof src, &src);
  if (err == CL_SUCCESS) err = clSetKernelArg(rd.kernel, 1, sizeof sums, &sums);
  if (err == CL_SUCCESS) err = clSetKernelArg(rd.kernel, 2, sizeof items, &items);
  if (err == CL_SUCCESS) err = clSetKernelArg(cp.kernel, 0, sizeof src, &src);
  if (err == CL_SUCCESS) err = clSetKernelArg(cp.kernel, 1, sizeof dst, &dst);
  if (err == CL_SUCCESS) err = clSetKernelArg(cp.kernel, 2, sizeof items, &items);
  if (err != CL_SUCCESS) {
    fail_cl(p, "peak_read/peak_copy", err);
    goto done;
  }
  double t = best_seconds(q, &rd, "peak_read", 1, p->runs, p);
  if (t > 0) p->read_gbps = (double)bytes / t * 1e-9;
  t = best_seconds(q, &cp, "peak_copy", 1, p->runs, p);
  if (t > 0) p->copy_gbps = 2.0 * (double)bytes / t * 1e-9;
done:
  if (rd.kernel) clReleaseKernel(rd.kernel);
  if (cp.kernel) clReleaseKernel(cp.kernel);
  if (src) clReleaseMemObject(src);
  if (dst) clReleaseMemObject(dst);
  if (sums) clReleaseMemObject(sums);
}

/* Whether the device's `which` (CL_DEVICE_SINGLE_FP_CONFIG, _HALF_) has a
 * fused multiply-add. */
static int has_fma(cl_device_id dev, cl_device_info which) {
  cl_device_fp_config fp = 0;
  return clGetDeviceInfo(dev, which, sizeof fp, &fp, NULL) == CL_SUCCESS && (fp & CL_FP_FMA);
}

static cl_program build(cl_context cl, cl_device_id dev, const peak_shape *s, int fp16, clforge_bench_peak *p) {
  const clforge_bench_embedded_source *src = clforge_bench_embedded_source_find("peak");
  if (!src) {
    snprintf(p->error, sizeof p->error, "the peak kernels are not embedded (build error)");
    return NULL;
  }
  cl_int err;
  const char *text = src->text;
  cl_program prog = clCreateProgramWithSource(cl, 1, &text, &src->length, &err);
  if (err != CL_SUCCESS) {
    fail_cl(p, "clCreateProgramWithSource", err);
    return NULL;
  }
  char options[192];
  const int fma = has_fma(dev, CL_DEVICE_SINGLE_FP_CONFIG);
  p->fma_op = fma ? "fma" : "mad";
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DVW=%d -DCHAINS=%d -DMVW=%d -DPEAK_FMA=%d%s",
           s->fma[0].vector_width, s->chains, s->mvw, fma,
           fp16 ? (has_fma(dev, CL_DEVICE_HALF_FP_CONFIG) ? " -DPEAK_F16 -DPEAK_FMA_F16=1" : " -DPEAK_F16") : "");
  err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[384] = "";
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    snprintf(p->error, sizeof p->error, "building bench/peak.cl (%s) failed (%s): %s", options,
             clforge_status_name(err), log);
    clReleaseProgram(prog);
    return NULL;
  }
  return prog;
}

int clforge_bench_peak_measure(clforge_context ctx, clforge_bench_peak *p) {
  memset(p, 0, sizeof *p);
  p->runs = PEAK_RUNS;
  cl_context cl;
  cl_device_id dev;
  cl_command_queue q;
  clforge_device_info info;
  clforge_status st = clforge_context_cl_context(ctx, &cl);
  if (st == CLFORGE_SUCCESS) st = clforge_context_device(ctx, &dev);
  if (st == CLFORGE_SUCCESS) st = clforge_context_queue(ctx, &q);
  if (st == CLFORGE_SUCCESS) st = clforge_context_device_info(ctx, &info);
  if (st != CLFORGE_SUCCESS) {
    snprintf(p->error, sizeof p->error, "%s", clforge_last_error(ctx));
    return -1;
  }
  peak_shape s = shape_for(dev, &info);
  const int fp16 = (info.caps & CLFORGE_CAP_FP16) != 0;
  p->chains = s.chains;
  cl_ulong cache = 0;
  if (clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL) != CL_SUCCESS) cache = 0;
  p->cache_bytes = cache;
  p->bytes = stream_bytes(cache, &info, &s);
  if (!fp16) snprintf(p->f16_note, sizeof p->f16_note, "no cl_khr_fp16: f16 is storage only on this device");
  cl_program prog = build(cl, dev, &s, fp16, p);
  if (!prog) return -1;
  /* The peak is a maximum: the faster shape's rate, f32 and f16 apart. */
  const int w32 = measure_fma(q, prog, cl, "peak_fma_f32", &s, &info, 0, p);
  const int w16 = fp16 ? measure_fma(q, prog, cl, "peak_fma_f16", &s, &info, 1, p) : -1;
  const clforge_bench_peak_shape *win = &s.fma[w32 < 0 ? 0 : w32];
  p->vector_width = win->vector_width;
  p->fma_work_items = win->work_items;
  p->fma_work_group = win->work_group;
  if (w32 >= 0) p->f32_gflops = win->f32_gflops;
  if (w16 >= 0) p->f16_gflops = s.fma[w16].f16_gflops;
  memcpy(p->shapes, s.fma, sizeof s.fma);
  p->n_shapes = s.n_fma;
  if (fp16 && !(p->f16_gflops > 0)) snprintf(p->f16_note, sizeof p->f16_note, "the f16 kernel failed");
  measure_stream(q, prog, cl, &s, p);
  clReleaseProgram(prog);
  return p->f32_gflops > 0 && p->read_gbps > 0 && p->copy_gbps > 0 ? 0 : -1;
}

double clforge_bench_peak_gflops(const clforge_bench_peak *p) { return p->f32_gflops; }

double clforge_bench_peak_gbps(const clforge_bench_peak *p) {
  return p->read_gbps > p->copy_gbps ? p->read_gbps : p->copy_gbps;
}

void clforge_bench_peak_denominators(const clforge_bench_peak *p, clforge_bench_peaks *out) {
  *out = (clforge_bench_peaks){clforge_bench_peak_gflops(p), clforge_bench_peak_gbps(p), p->host_gflops,
                               p->cache_bytes, p->f16_gflops > 0 ? p->f16_gflops : 0};
}

int clforge_bench_peak_recheck(clforge_context ctx, clforge_bench_peaks *pk, double gflops, double gbps, double bytes,
                               char *msg, size_t cap) {
  const int fits = pk->cache_bytes > 0 && bytes > 0 && bytes < 4.0 * (double)pk->cache_bytes;
  if (!(gflops > pk->gflops) && (fits || !(gbps > pk->gbps))) return 0;
  clforge_bench_peak p;
  if (clforge_bench_peak_measure(ctx, &p)) return 0;
  const double g = clforge_bench_peak_gflops(&p), b = clforge_bench_peak_gbps(&p);
  snprintf(msg, cap,
           "ran at %.1f GFLOP/s, %.1f GB/s, above the peak measured before (%.1f GFLOP/s, %.1f GB/s): the device "
           "was busy then; measured again: %.1f GFLOP/s, %.1f GB/s (the larger are used from this row on)",
           gflops, gbps, pk->gflops, pk->gbps, g, b);
  if (g > pk->gflops) pk->gflops = g;
  if (b > pk->gbps) pk->gbps = b;
  if (p.host_gflops > pk->host_gflops) pk->host_gflops = p.host_gflops;
  return 1;
}

double clforge_bench_peak_host_ratio(const clforge_bench_peak *p) {
  return p->f32_gflops > 0 && p->host_gflops > 0 ? p->f32_gflops / p->host_gflops : 0;
}

int clforge_bench_peak_shortfall(const clforge_bench_peak *p, char *msg, size_t cap) {
  const double r = clforge_bench_peak_host_ratio(p);
  if (!(r > 0) || r >= CLFORGE_BENCH_PEAK_HOST_MIN) return 0;
  snprintf(msg, cap,
           "the OpenCL f32 peak (%.1f GFLOP/s) is %.2fx the host's own FMA loop (%.1f GFLOP/s on %d threads, "
           "interleaved with it): the kernel fell short of the machine, so %% peak reads high",
           p->f32_gflops, r, p->host_gflops, p->host_threads);
  return 1;
}
