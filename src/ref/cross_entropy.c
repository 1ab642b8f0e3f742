/* Reference twin of clforge_cross_entropy: each row's log-sum-exp, target
 * logit and logit sum in double, the loss per row, the rows added in order,
 * dlogits rounded once to its type. A row is read whole before dlogits is
 * written, so dlogits may be logits. */
#include <math.h>
#include <stdlib.h>

#include "../desc/cross_entropy_desc.h"
#include "../core/error.h"
#include "element.h"

clforge_status clforge_ref_cross_entropy(const clforge_cross_entropy_desc *desc, const void *logits,
                                         const int32_t *targets, float *loss, void *dlogits,
                                         const float *grad_scale) {
  clforge__clear_error(NULL);
  clforge__ce d;
  clforge_status st = clforge__ce_resolve(NULL, desc, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (!loss && !dlogits)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_cross_entropy: loss and dlogits are both NULL");
  if (d.rows && (!logits || !targets))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_cross_entropy: logits or targets is NULL");
  const double g = grad_scale ? grad_scale[d.gscale_offset] : d.grad_scale, e = d.smoothing;
  size_t counted = 0;
  for (size_t r = 0; r < d.rows; ++r) counted += clforge__ce_counts(&d, targets[d.targets_offset + r]);
  double *z = malloc((d.n ? d.n : 1) * sizeof *z);
  if (!z) return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "ref_cross_entropy: no memory for a row of %zu", d.n);
  double total = 0;
  for (size_t r = 0; r < d.rows; ++r) {
    const int32_t t = targets[d.targets_offset + r];
    const int counts = clforge__ce_counts(&d, t), bad = t >= 0 && (size_t)t >= d.n && counts;
    double m = -INFINITY, zsum = 0;
    for (size_t j = 0; j < d.n; ++j) {
      z[j] = clforge__ref_load(logits, d.logits.type, d.logits.offset + r * d.logits.stride + j);
      if (z[j] > m || isnan(z[j])) m = z[j];
      zsum += z[j];
    }
    double s = 0;
    const double base = isinf(m) ? 0 : m; /* every logit -inf: lse -inf; a +inf: NaN below */
    for (size_t j = 0; j < d.n; ++j) s += exp(z[j] - base);
    const double lse = base + log(s);
    double row = 0;
    if (bad) row = NAN;
    else if (counts) row = lse - (1 - e) * z[t] - (e > 0 ? e / (double)d.n * zsum : 0);
    total += row;
    if (loss && d.reduction == CLFORGE_REDUCTION_NONE) loss[d.loss_offset + r] = (float)row;
    if (!dlogits) continue;
    const double w = !counts ? 0 : d.reduction == CLFORGE_REDUCTION_MEAN ? 1.0 / (double)counted : 1.0;
    for (size_t j = 0; j < d.n; ++j) {
      double v = bad ? NAN : counts ? g * w * (exp(z[j] - lse) - (1 - e) * (j == (size_t)t) - e / (double)d.n) : 0;
      clforge__ref_store(dlogits, d.dlogits.type, d.dlogits.offset + r * d.dlogits.stride + j, (float)v);
    }
  }
  free(z);
  if (loss && d.reduction != CLFORGE_REDUCTION_NONE)
    loss[d.loss_offset] = (float)(d.reduction == CLFORGE_REDUCTION_MEAN ? total / (double)counted : total);
  return CLFORGE_SUCCESS;
}
