#include "program.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary_cache.h"
#include "clock.h"
#include "context.h"
#include "embedded_sources.h"
#include "error.h"
#include "../families/family.h"
#include "log.h"
#include "paths.h"
#include "validate.h"

/* MAX_KERNELS: the most one program holds (conv_fft's: nine, with the test
 * DFT's four passes). */
enum { MAX_KERNELS = 12, MAX_SHAPES = 8 };

/* What the process has compiled, for CLFORGE_LOG=info (each context logs
 * its own and these totals when it is destroyed). */
static atomic_ullong process_builds, process_build_us, process_shapes, process_launch_us;

struct clforge__program_entry {
  clforge__program_entry *next;
  const char *const *sources; /* static, NULL-terminated list of source names */
  char *options;
  cl_program program;
  struct {
    const char *name;        /* static string from the op */
    cl_kernel kernel;
    size_t shapes[MAX_SHAPES][3]; /* work-group shapes launched (PoCL compiles each at its first launch) */
    int nshapes;
  } kernels[MAX_KERNELS];
};

/* The prelude shared by every family, ahead of the family's own files. */
static const char *const prelude_name = "common";
enum { MAX_SOURCES = 8 };

void clforge__program_cache_init(clforge_context ctx) {
  clforge__program_cache *c = &ctx->programs;
  memset(c, 0, sizeof *c);
  /* Kernels take faster paths where f32 denormals are kept (cl/common.cl). */
  cl_device_fp_config fp = 0;
  clGetDeviceInfo(ctx->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
  c->fp32_div_rn = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  /* Half arithmetic and packed integer dot products: native where
   * cl_khr_fp16 / cl_khr_integer_dot_product are (cl/gemm_common.cl,
   * cl/gemm_int8.cl), emulated elsewhere (tests). */
  snprintf(c->device_options, sizeof c->device_options,
           "-DCLFORGE_F32_DENORMS=%d -DCLFORGE_HALF_NATIVE=%d -DCLFORGE_INT_DOT_NATIVE=%d", (fp & CL_FP_DENORM) ? 1 : 0,
           (ctx->info.caps & CLFORGE_CAP_FP16) ? 1 : 0, (ctx->info.caps & CLFORGE_CAP_INTEGER_DOT) ? 1 : 0);
  char dir[sizeof c->disk_dir], why[512];
  size_t need;
  int r = clforge__path(CLFORGE_PATH_BINARY_CACHE, dir, sizeof dir, &need);
  if (r == 0 && !strcmp(dir, "off")) {
    clforge__log(CLFORGE_LOG_INFO, "binary cache off");
    return;
  }
  if (clforge__binary_cache_deferred(&ctx->info)) {
    clforge__log(CLFORGE_LOG_INFO, "binary cache: deferred to PoCL's own kernel cache (CLFORGE_CACHE_DIR=DIR uses "
                                   "clforge's too)");
    return;
  }
  if (r != 0) snprintf(why, sizeof why, "cache directory path of %zu bytes is too long", need);
  if (r != 0 || clforge__binary_cache_prepare(dir, why, sizeof why)) {
    /* Said once per process: an unusable directory is a setup issue, not a
     * per-context event, and must never fail a call. */
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
      clforge__log(CLFORGE_LOG_WARN, "binary cache disabled: %s", why);
    return;
  }
  memcpy(c->disk_dir, dir, sizeof dir);
  c->stats.disk_enabled = 1;
}

void clforge__program_cache_report(clforge_context ctx) {
  clforge__program_cache *c = &ctx->programs;
  /* Each first launch's wait between SUBMIT and START: the driver's compile
   * for that work-group shape where it compiles at launch (PoCL), about 0
   * where clBuildProgram did all (GPUs). Needs a profiling queue. */
  double launch_s = 0;
  if (c->nfirst) clFinish(ctx->queue);
  for (size_t i = 0; i < c->nfirst; ++i) {
    const struct clforge__first_launch *f = &c->first_launches[i];
    cl_ulong submit = 0, start = 0;
    double wait = 0;
    if (clGetEventProfilingInfo(f->event, CL_PROFILING_COMMAND_SUBMIT, sizeof submit, &submit, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(f->event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) == CL_SUCCESS &&
        start > submit)
      wait = 1e-9 * (double)(start - submit);
    launch_s += wait;
    /* CLFORGE_LOG=debug: which kernel cost what (a test's costliest builds). */
    if (clforge__log_enabled(CLFORGE_LOG_DEBUG)) {
      char name[128] = "?";
      clGetKernelInfo(f->kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
      const char *options = "";
      for (clforge__program_entry *e = c->head; e && !*options; e = e->next)
        for (int k = 0; k < MAX_KERNELS; ++k)
          if (e->kernels[k].kernel == f->kernel && e->options) options = e->options;
      clforge__log(CLFORGE_LOG_DEBUG, "first launch: %.1f s %s (%zu,%zu,%zu) [%s]", wait, name, f->lws[0], f->lws[1],
                   f->lws[2], options);
    }
    clReleaseEvent(f->event);
    clReleaseKernel(f->kernel);
  }
  free(c->first_launches);
  c->first_launches = NULL, c->nfirst = c->capfirst = 0;
  if (!clforge__log_enabled(CLFORGE_LOG_INFO)) return;
  atomic_fetch_add(&process_launch_us, (unsigned long long)(launch_s * 1e6));
  const clforge_cache_stats *s = &c->stats;
  clforge__log(CLFORGE_LOG_INFO,
               "programs: this context built %llu from source (%.1f s in clBuildProgram), loaded %llu from the binary "
               "cache, first launched %llu kernel work-group shapes (%.1f s waiting to start: the driver's compile "
               "at first launch); this process: %llu built (%.1f s), %llu shapes (%.1f s)",
               (unsigned long long)s->source_builds, c->build_seconds, (unsigned long long)s->disk_hits,
               (unsigned long long)c->launch_shapes, launch_s, (unsigned long long)atomic_load(&process_builds),
               1e-6 * (double)atomic_load(&process_build_us), (unsigned long long)atomic_load(&process_shapes),
               1e-6 * (double)atomic_load(&process_launch_us));
}

void clforge__program_cache_release(clforge__program_cache *cache) {
  clforge__program_entry *e = cache->head;
  while (e) {
    clforge__program_entry *next = e->next;
    for (int i = 0; i < MAX_KERNELS; ++i)
      if (e->kernels[i].kernel) clReleaseKernel(e->kernels[i].kernel);
    if (e->program) clReleaseProgram(e->program);
    free(e->options);
    free(e);
    e = next;
  }
  cache->head = NULL;
}

/* 1 when k has not been launched with this work-group shape before in this
 * context, and remembers it (a few shapes per kernel: the count is a
 * diagnostic, so a kernel launched with more shapes counts only these). */
static int new_shape(clforge_context ctx, cl_kernel k, cl_uint dims, const size_t *lws) {
  size_t shape[3] = {0, 0, 0};
  for (cl_uint d = 0; lws && d < dims && d < 3; ++d) shape[d] = lws[d];
  for (clforge__program_entry *e = ctx->programs.head; e; e = e->next)
    for (int i = 0; i < MAX_KERNELS; ++i) {
      if (e->kernels[i].kernel != k) continue;
      for (int j = 0; j < e->kernels[i].nshapes; ++j)
        if (!memcmp(e->kernels[i].shapes[j], shape, sizeof shape)) return 0;
      if (e->kernels[i].nshapes == MAX_SHAPES) return 0;
      memcpy(e->kernels[i].shapes[e->kernels[i].nshapes++], shape, sizeof shape);
      return 1;
    }
  return 0;
}

/* A first launch's event, kept for the report: on PoCL the time from
 * SUBMIT to START of a kernel's first launch with a shape is its compile. */
static void keep_first_launch(clforge__program_cache *c, cl_event ev, cl_kernel k, cl_uint dims, const size_t *lws) {
  if (c->nfirst == c->capfirst) {
    size_t cap = c->capfirst ? 2 * c->capfirst : 64;
    struct clforge__first_launch *grown = realloc(c->first_launches, cap * sizeof *grown);
    if (!grown) return;
    c->first_launches = grown, c->capfirst = cap;
  }
  clRetainEvent(ev);
  clRetainKernel(k); /* the tuner releases its candidates' programs before the report */
  struct clforge__first_launch *f = &c->first_launches[c->nfirst++];
  f->event = ev, f->kernel = k;
  for (cl_uint d = 0; d < 3; ++d) f->lws[d] = lws && d < dims ? lws[d] : 0;
}

clforge_status clforge__launch(clforge_context ctx, cl_kernel k, cl_uint dims, const size_t *gws, const size_t *lws,
                               cl_uint nwait, const cl_event *wait, cl_event *event, const char *what) {
  const int first = new_shape(ctx, k, dims, lws), timed = first && clforge__log_enabled(CLFORGE_LOG_INFO);
  cl_event own = NULL, *ev = event ? event : timed ? &own : NULL;
  cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, dims, NULL, gws, lws, nwait, nwait ? wait : NULL, ev);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, what);
  if (first) {
    ctx->programs.launch_shapes++;
    atomic_fetch_add(&process_shapes, 1);
  }
  if (timed) keep_first_launch(&ctx->programs, *ev, k, dims, lws);
  if (own) clReleaseEvent(own);
  return CLFORGE_SUCCESS;
}

static void disable_disk(clforge_context ctx, const char *why) {
  clforge__log(CLFORGE_LOG_WARN, "binary cache disabled for this context: %s", why);
  ctx->programs.disk_dir[0] = '\0';
  ctx->programs.stats.disk_enabled = 0;
}

/* Fetch CL_PROGRAM_BINARIES for our single device and store it. Failure to
 * store is logged and disables the disk cache; it never fails the call. */
static void save_binary(clforge_context ctx, cl_program program, clforge__cache_key key) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0)
    return; /* the driver offers no binary: nothing to cache */
  unsigned char *bin = malloc(size);
  if (!bin) return;
  unsigned char *bins[1] = {bin};
  char why[512];
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS) {
    if (clforge__binary_cache_store(ctx->programs.disk_dir, key, bin, size, why, sizeof why))
      disable_disk(ctx, why);
    else
      ctx->programs.stats.disk_writes++;
  }
  free(bin);
}

static cl_program load_binary(clforge_context ctx, clforge__cache_key key, const char *options) {
  unsigned char *bin = NULL;
  size_t len = 0;
  clforge__cache_lookup r = clforge__binary_cache_load(ctx->programs.disk_dir, key, &bin, &len);
  if (r == CLFORGE_CACHE_REJECTED) {
    ctx->programs.stats.disk_rejected++;
    clforge__log(CLFORGE_LOG_WARN, "binary cache: corrupt or foreign file deleted, rebuilding");
    return NULL;
  }
  if (r == CLFORGE_CACHE_MISS) return NULL;
  cl_int err, binstatus;
  const unsigned char *bins[1] = {bin};
  cl_program p = clCreateProgramWithBinary(ctx->cl_ctx, 1, &ctx->device, &len, bins, &binstatus, &err);
  free(bin);
  if (err == CL_SUCCESS && binstatus == CL_SUCCESS)
    err = clBuildProgram(p, 1, &ctx->device, options, NULL, NULL);
  if (err != CL_SUCCESS || binstatus != CL_SUCCESS) {
    /* A verified file the driver refuses as a binary (e.g. a driver updated
     * in place) is dropped; transient failures (out of resources) keep it. */
    if (p) clReleaseProgram(p);
    if (err == CL_INVALID_BINARY || binstatus == CL_INVALID_BINARY || err == CL_BUILD_PROGRAM_FAILURE)
      clforge__binary_cache_remove(ctx->programs.disk_dir, key);
    ctx->programs.stats.disk_rejected++;
    clforge__log(CLFORGE_LOG_WARN, "binary cache: driver refused a cached binary (%d), rebuilding", err);
    return NULL;
  }
  return p;
}

static clforge_status build_from_source(clforge_context ctx, const char **texts,
                                        const size_t *lengths, size_t ntexts, const char *options,
                                        const char *what, cl_program *out) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx->cl_ctx, (cl_uint)ntexts, texts, lengths, &err);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clCreateProgramWithSource");
  ctx->programs.stats.source_builds++;
  const double t0 = clforge__now();
  err = clBuildProgram(p, 1, &ctx->device, options, NULL, NULL);
  const double spent = clforge__now() - t0;
  ctx->programs.build_seconds += spent;
  atomic_fetch_add(&process_builds, 1);
  atomic_fetch_add(&process_build_us, (unsigned long long)(spent * 1e6));
  if (err != CL_SUCCESS) {
    size_t log_size = 0;
    clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
    char *log = malloc(log_size + 1);
    if (log) {
      log[0] = '\0';
      clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
      log[log_size] = '\0';
    }
    clReleaseProgram(p);
    clforge_status st = clforge__fail(ctx, CLFORGE_BUILD_FAILED,
                                      "building %s with options \"%s\" failed (%s); build log:\n%s",
                                      what, options, clforge_status_name(err),
                                      log ? log : "(no memory for the log)");
    free(log);
    return st;
  }
  *out = p;
  return CLFORGE_SUCCESS;
}

/* "cl/a.cl + cl/b.cl" for messages. */
static void describe(const char *const *sources, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; sources[i] && used < cap; ++i) {
    int n = snprintf(buf + used, cap - used, "%scl/%s.cl", i ? " + " : "", sources[i]);
    if (n < 0) break;
    used += (size_t)n;
  }
}

static clforge_status get_program(clforge_context ctx, const char *const *sources, const char *options,
                                  clforge__program_entry **out) {
  clforge__program_cache *c = &ctx->programs;
  for (clforge__program_entry *e = c->head; e; e = e->next)
    if (e->sources == sources && !strcmp(e->options, options)) {
      c->stats.memory_hits++;
      *out = e;
      return CLFORGE_SUCCESS;
    }
  char what[256];
  describe(sources, what, sizeof what);
  const char *names[MAX_SOURCES], *texts[MAX_SOURCES];
  size_t lengths[MAX_SOURCES], ntexts = 0;
  names[ntexts++] = prelude_name;
  for (size_t i = 0; sources[i]; ++i) {
    if (ntexts == MAX_SOURCES) return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "too many sources in %s", what);
    names[ntexts++] = sources[i];
  }
  for (size_t i = 0; i < ntexts; ++i) {
    const clforge__embedded_source *s = clforge__embedded_source_find(names[i]);
    if (!s) return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "no embedded kernel source named \"%s\"", names[i]);
    texts[i] = s->text;
    lengths[i] = s->length;
  }

  char full_options[2048];
  int n = snprintf(full_options, sizeof full_options, "%s %s %s", CLFORGE_COMMON_BUILD_OPTIONS, c->device_options,
                   options);
  if (n < 0 || (size_t)n >= sizeof full_options)
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "build options too long: %s", options);

  clforge__cache_key key = {0, 0};
  cl_program program = NULL;
  if (c->disk_dir[0]) {
    key = clforge__binary_cache_key(texts, lengths, ntexts, full_options, &ctx->info);
    program = load_binary(ctx, key, full_options);
    if (program) {
      c->stats.disk_hits++;
      clforge__log(CLFORGE_LOG_INFO, "binary cache hit: %s [%s]", what, options);
    } else {
      c->stats.disk_misses++;
    }
  }
  if (!program) {
    clforge_status st = build_from_source(ctx, texts, lengths, ntexts, full_options, what, &program);
    if (st != CLFORGE_SUCCESS) return st;
    clforge__log(CLFORGE_LOG_INFO, "built from source: %s [%s]", what, options);
    if (c->disk_dir[0]) save_binary(ctx, program, key);
  }
  clforge__program_entry *e = calloc(1, sizeof *e);
  char *opts = strdup(options);
  if (!e || !opts) {
    free(e);
    free(opts);
    clReleaseProgram(program);
    return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "no memory for the program cache");
  }
  e->sources = sources;
  e->options = opts;
  e->program = program;
  e->next = c->head;
  c->head = e;
  *out = e;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__kernel_get(clforge_context ctx, const char *const *sources, const char *options,
                                   const char *kernel_name, cl_kernel *out) {
  clforge__program_entry *e = NULL;
  char broken[1200];
  if (clforge__test_fault_armed(ctx, "build")) { /* tests only: a source the compiler rejects */
    snprintf(broken, sizeof broken, "%s -DCLFORGE_TEST_BUILD_ERROR", options);
    options = broken;
  }
  clforge_status st = get_program(ctx, sources, options, &e);
  if (st != CLFORGE_SUCCESS) return st;
  int slot = -1;
  for (int i = 0; i < MAX_KERNELS; ++i) {
    if (e->kernels[i].kernel && !strcmp(e->kernels[i].name, kernel_name)) {
      *out = e->kernels[i].kernel;
      return CLFORGE_SUCCESS;
    }
    if (!e->kernels[i].kernel && slot < 0) slot = i;
  }
  if (slot < 0)
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "more than %d kernels in one program (%s)", MAX_KERNELS,
                         kernel_name);
  cl_int err;
  cl_kernel k = clCreateKernel(e->program, kernel_name, &err);
  if (err != CL_SUCCESS) return clforge__fail(ctx, err, "clCreateKernel(%s)", kernel_name);
  e->kernels[slot].name = kernel_name;
  e->kernels[slot].kernel = k;
  *out = k;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__kernel_fits(clforge_context ctx, cl_kernel k, const char *op, const char *family,
                                    const char *options, size_t wgs) {
  size_t kmax = 0;
  if (wgs &&
      clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) == CL_SUCCESS &&
      kmax < wgs)
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                         "%s: the %s kernel built with %s runs at most %zu work-items per group here, not %zu; "
                         "choose smaller tiles with CLFORGE_PARAMS",
                         op, family, options, kmax, wgs);
  return CLFORGE_SUCCESS;
}

clforge_status clforge__family_kernel(clforge_context ctx, const char *op, const clforge__family *f, const char *name,
                                      const int *v, const char *more, size_t wgs, cl_kernel *k) {
  char opts[2048] = "";
  if (v && clforge__family_options(f, v, opts, sizeof opts))
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "%s: build options too long", op);
  if (more) {
    const size_t used = strlen(opts);
    if (snprintf(opts + used, sizeof opts - used, " %s", more) >= (int)(sizeof opts - used))
      return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "%s: build options too long", op);
  }
  clforge_status st = clforge__kernel_get(ctx, f->sources, opts, name, k);
  return st == CLFORGE_SUCCESS ? clforge__kernel_fits(ctx, *k, op, f->name, opts, wgs) : st;
}
