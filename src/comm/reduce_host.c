/* The collectives' host arithmetic, a block at a time so that the f32 loops
 * vectorize; src/ref/collective.c is the same order an element at a time.
 * Nothing here may reassociate: no -ffast-math (the sums' order is the
 * contract), and f32 arithmetic is f32 (FLT_EVAL_METHOD 0). */
#include "reduce_host.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../ref/element.h"

_Static_assert(FLT_EVAL_METHOD == 0, "f32 sums must round to f32 at every step");

enum { BLOCK = 1024 };

static void load_block(clforge_dtype t, const void *p, size_t at, size_t m, float *dst) {
  if (t == CLFORGE_F32) {
    memcpy(dst, (const float *)p + at, m * sizeof(float));
    return;
  }
  for (size_t i = 0; i < m; ++i) dst[i] = clforge__ref_load(p, t, at + i);
}

/* NaN wins (the first), equal values keep +0 for max, -0 for min. */
static inline float pick(int max, float s, float x) {
  if (isnan(s)) return s;
  if (isnan(x)) return x;
  if (s == x) return max == !signbit(s) ? s : x;
  return max == (x > s) ? x : s;
}

void clforge__reduce_host(clforge_dtype dtype, clforge_reduce_op op, int n, const void *const *in, void *out,
                          size_t count) {
  float acc[BLOCK], x[BLOCK];
  const float nf = (float)n; /* MEAN divides (s / n, not s * (1/n): they differ) */
  for (size_t at = 0; at < count; at += BLOCK) {
    const size_t m = count - at < BLOCK ? count - at : BLOCK;
    load_block(dtype, in[0], at, m, acc);
    for (int r = 1; r < n; ++r) {
      load_block(dtype, in[r], at, m, x);
      if (op == CLFORGE_REDUCE_SUM || op == CLFORGE_REDUCE_MEAN)
        for (size_t i = 0; i < m; ++i) acc[i] += x[i];
      else
        for (size_t i = 0; i < m; ++i) acc[i] = pick(op == CLFORGE_REDUCE_MAX, acc[i], x[i]);
    }
    if (op == CLFORGE_REDUCE_MEAN)
      for (size_t i = 0; i < m; ++i) acc[i] /= nf;
    if (dtype == CLFORGE_F32)
      memcpy((float *)out + at, acc, m * sizeof(float));
    else
      for (size_t i = 0; i < m; ++i) clforge__ref_store(out, dtype, at + i, acc[i]);
  }
}
