/* An operand of a device test as a whole extent: its host copy, the device
 * buffer holding it and the copy the reference writes into (tests of
 * outputs compared over their whole extent, gaps included). */
#ifndef CLFORGE_TESTS_DEVICE_ARRAY_H
#define CLFORGE_TESTS_DEVICE_ARRAY_H

#include <stdlib.h>
#include <string.h>

#include "../src/ref/compare.h"
#include "test_util.h"

typedef struct {
  size_t n, es;
  void *host, *want;
  cl_mem buf;
} tu_array;

/* n values scale * [-1, 1] (steps of 1/2000) from *seed, stored as t. */
static inline void tu_fill_scaled(void *p, clforge_dtype t, size_t n, float scale, unsigned *seed) {
  float *f = (float *)malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i)
    f[i] = scale * ((float)(tu_rand(seed) % 4001) / 2000.0f - 1.0f);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

/* n elements of t (at least one), random, on the host and the device. */
static inline void tu_array_make(clforge_context ctx, tu_array *x, size_t n, clforge_dtype t, float scale,
                                 unsigned *seed) {
  x->n = n ? n : 1, x->es = clforge_dtype_size(t);
  x->host = malloc(x->n * x->es), x->want = malloc(x->n * x->es);
  tu_fill_scaled(x->host, t, x->n, scale, seed);
  memcpy(x->want, x->host, x->n * x->es);
  x->buf = tu_buffer(ctx, x->n * x->es);
  tu_write(ctx, x->buf, 0, x->n * x->es, x->host);
}

/* The device's x (storage type t) against the reference's copy (want),
 * whole extents: 1 when within t's tolerance; *s gets the statistics. */
static inline int tu_array_within(clforge_context ctx, const tu_array *x, clforge_dtype t, clforge__error_stats *s) {
  void *got = malloc(x->n * x->es);
  float *g = (float *)malloc(x->n * 4), *w = (float *)malloc(x->n * 4);
  tu_read(ctx, x->buf, 0, x->n * x->es, got);
  clforge_ref_convert(x->n, got, t, g, CLFORGE_F32);
  clforge_ref_convert(x->n, x->want, t, w, CLFORGE_F32);
  clforge__compare_f32(x->n, g, w, s);
  free(got), free(g), free(w);
  return clforge__within_tolerance(s, clforge__tolerance_for(t));
}

static inline void tu_array_free(tu_array *x) {
  free(x->host), free(x->want);
  if (x->buf)
    clReleaseMemObject(x->buf);
}

#endif
