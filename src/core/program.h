/* Programs: embedded kernel source + build options -> cl_program / cl_kernel,
 * through the context's memory cache and the on-disk binary cache. */
#ifndef CLFORGE_SRC_PROGRAM_H
#define CLFORGE_SRC_PROGRAM_H

#include "clforge/clforge.h"

typedef struct clforge__program_entry clforge__program_entry;

/* A (kernel, work-group shape) pair's first launch: its event and, for the
 * debug report, which kernel and shape it was. */
struct clforge__first_launch {
  cl_event event;
  cl_kernel kernel;
  size_t lws[3];
};

typedef struct clforge__program_cache {
  clforge__program_entry *head;
  char disk_dir[4096];      /* "" when the on-disk cache is off */
  char device_options[128]; /* build options every program gets on this device */
  int fp32_div_rn;          /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: -cl-fp32-correctly-rounded-divide-sqrt builds */
  clforge_cache_stats stats;
  double build_seconds;     /* spent in clBuildProgram (CLFORGE_LOG=info reports it) */
  uint64_t launch_shapes;   /* distinct (kernel, work-group shape) pairs launched */
  struct clforge__first_launch *first_launches; /* kept while CLFORGE_LOG=info (the report times them) */
  size_t nfirst, capfirst;
} clforge__program_cache;

/* Set up the caches of a fresh context (resolves the disk directory). */
void clforge__program_cache_init(clforge_context ctx);
/* CLFORGE_LOG=info: what the context compiled (programs, their build time,
 * launch shapes — PoCL compiles a kernel again for each work-group shape at
 * its first launch), and the process's totals so far. */
void clforge__program_cache_report(clforge_context ctx);
/* Release every program and kernel of the context. */
void clforge__program_cache_release(clforge__program_cache *cache);

/* The kernel `kernel_name` of the program made of cl/common.cl and the
 * embedded sources `sources` (a static NULL-terminated list: the memory cache
 * compares it by address), built with `options` (the family's -D
 * parameters). The kernel stays owned by the cache: callers set arguments
 * and enqueue, and never release it. */
clforge_status clforge__kernel_get(clforge_context ctx, const char *const *sources,
                                   const char *options, const char *kernel_name,
                                   cl_kernel *out);

/* A kernel whose work-group shape is compiled in (reqd_work_group_size)
 * that cannot run wgs work-items per group on this device (too many
 * registers): an error naming the family and its options, not an opaque
 * CL_INVALID_WORK_GROUP_SIZE at the launch. wgs 0: no check. */
clforge_status clforge__kernel_fits(clforge_context ctx, cl_kernel k, const char *op, const char *family,
                                    const char *options, size_t wgs);

struct clforge__family;
/* Kernel `name` of family f built with its values v (NULL: none) and the
 * op's own options `more` (problem options, switches; may be NULL), checked
 * to fit wgs work-items (clforge__kernel_fits): what every op's algorithms
 * build their kernels with. */
clforge_status clforge__family_kernel(clforge_context ctx, const char *op, const struct clforge__family *f,
                                      const char *name, const int *v, const char *more, size_t wgs, cl_kernel *k);

/* clEnqueueNDRangeKernel on the context's queue (no global offset); a
 * failure is reported as `what` ("clEnqueueNDRangeKernel (gemm tiled)"). Counts the kernel's work-group shapes for the report
 * above. Every op launches its kernels through it. */
clforge_status clforge__launch(clforge_context ctx, cl_kernel k, cl_uint dims, const size_t *gws, const size_t *lws,
                               cl_uint nwait, const cl_event *wait, cl_event *event, const char *what);

/* Build options every program gets, ahead of the family's own. */
/* -w: some drivers (PoCL) print compiler warnings to the application's stderr. */
#define CLFORGE_COMMON_BUILD_OPTIONS "-cl-std=CL1.2 -w"

#endif
