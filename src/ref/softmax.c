/* Reference twin of clforge_softmax: each row's t = scale * x + mask in
 * double, max-subtracted, one rounding to y's type. A row is read whole
 * before it is written, so x == y works in place. */
#include <math.h>
#include <stdlib.h>

#include "../core/error.h"
#include "../desc/softmax_desc.h"
#include "element.h"

/* One row: t[0..n) in, the results out in t. The special rows first: a NaN
 * or a +inf (whose t - max is inf - inf) makes the row NaN; a row whose
 * every t is -inf has no mass: zeros (log-softmax: -inf). */
static void row(clforge_softmax_kind kind, size_t n, double *t) {
  double m = -INFINITY;
  int nan = 0;
  for (size_t i = 0; i < n; ++i) {
    if (isnan(t[i])) nan = 1;
    else if (t[i] > m) m = t[i];
  }
  if (nan || m == INFINITY) {
    for (size_t i = 0; i < n; ++i) t[i] = NAN;
    return;
  }
  if (m == -INFINITY) {
    for (size_t i = 0; i < n; ++i) t[i] = kind == CLFORGE_LOG_SOFTMAX ? -INFINITY : 0.0;
    return;
  }
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += exp(t[i] - m);
  const double log_sum = log(sum);
  for (size_t i = 0; i < n; ++i) t[i] = kind == CLFORGE_LOG_SOFTMAX ? t[i] - m - log_sum : exp(t[i] - m) / sum;
}

clforge_status clforge_ref_softmax(const clforge_softmax_desc *desc, const void *x, const void *mask, void *y) {
  clforge__clear_error(NULL);
  clforge__softmax d;
  clforge_status st = clforge__softmax_resolve(NULL, desc, mask != NULL, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.rows || !d.n) return CLFORGE_SUCCESS;
  if (!x || !y) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_softmax: x or y is NULL");
  double *t = malloc(d.n * sizeof *t);
  if (!t) return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "ref_softmax: no memory for a row of %zu", d.n);
  for (size_t r = 0; r < d.rows; ++r) {
    const size_t xi = d.x.offset + r * d.x.stride, yi = d.y.offset + r * d.y.stride;
    const size_t mi = d.mask.offset + r * d.mask.stride;
    for (size_t i = 0; i < d.n; ++i) {
      t[i] = (double)d.scale * clforge__ref_load(x, d.x.type, xi + i);
      if (mask) t[i] += clforge__ref_load(mask, d.mask.type, mi + i);
    }
    row(d.kind, d.n, t);
    for (size_t i = 0; i < d.n; ++i) clforge__ref_store(y, d.y.type, yi + i, (float)t[i]);
  }
  free(t);
  return CLFORGE_SUCCESS;
}
