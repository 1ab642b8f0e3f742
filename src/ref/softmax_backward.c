/* Reference twin of clforge_softmax_backward: each row's sum in double
 * (sum y*dy, or sum dy for log-softmax), then dx, one rounding to dx's
 * type. A row is read whole before it is written, so dx may be y or dy. */
#include <math.h>
#include <stdlib.h>

#include "../core/error.h"
#include "../desc/softmax_desc.h"
#include "element.h"

clforge_status clforge_ref_softmax_backward(const clforge_softmax_desc *desc, const void *y, const void *dy,
                                            void *dx) {
  clforge__clear_error(NULL);
  clforge__softmax d;
  clforge_status st = clforge__softmax_resolve_backward(NULL, desc, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.rows || !d.n) return CLFORGE_SUCCESS;
  if (!y || !dy || !dx)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_softmax_backward: y, dy or dx is NULL");
  double *t = malloc(2 * d.n * sizeof *t);
  if (!t)
    return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "ref_softmax_backward: no memory for a row of %zu", d.n);
  double *g = t + d.n;
  const int log_kind = d.kind == CLFORGE_LOG_SOFTMAX;
  for (size_t r = 0; r < d.rows; ++r) {
    const size_t yi = d.y.offset + r * d.y.stride, gi = d.dy.offset + r * d.dy.stride;
    double sum = 0;
    for (size_t i = 0; i < d.n; ++i) {
      t[i] = clforge__ref_load(y, d.y.type, yi + i);
      g[i] = clforge__ref_load(dy, d.dy.type, gi + i);
      sum += log_kind ? g[i] : t[i] * g[i];
    }
    const size_t xi = d.x.offset + r * d.x.stride;
    for (size_t i = 0; i < d.n; ++i) {
      const double v = log_kind ? g[i] - exp(t[i]) * sum : t[i] * (g[i] - sum);
      clforge__ref_store(dx, d.x.type, xi + i, (float)(d.scale * v));
    }
  }
  free(t);
  return CLFORGE_SUCCESS;
}
