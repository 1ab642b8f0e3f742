/* Reference twin of clforge_batchnorm_fold: the folding in double. */
#include <math.h>

#include "../core/error.h"
#include "../desc/batchnorm_fold_desc.h"
#include "element.h"

clforge_status clforge_ref_batchnorm_fold(const clforge_batchnorm_fold_desc *desc, const void *w, const void *bias,
                                          const float *gamma, const float *beta, const float *mean, const float *var,
                                          void *w_out, void *bias_out) {
  clforge__clear_error(NULL);
  clforge__bnf d;
  clforge_status st = clforge__bnf_resolve(NULL, "batchnorm_fold reference", desc, &d);
  if (st != CLFORGE_SUCCESS || !d.k) return st;
  if (!w || !gamma || !beta || !mean || !var || !w_out || !bias_out)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "batchnorm_fold reference: a pointer is NULL");
  for (size_t k = 0; k < d.k; ++k) {
    const size_t p = d.bn_offset + k;
    const double s = (double)gamma[p] / sqrt((double)var[p] + (double)d.eps);
    for (size_t e = 0; e < d.per_k; ++e) {
      const size_t i = k * d.per_k + e;
      clforge__ref_store(w_out, d.w_out_type, d.w_out_offset + i, (float)(clforge__ref_load(w, d.w_type, d.w_offset + i) * s));
    }
    const double b = bias ? clforge__ref_load(bias, d.bias_type, d.bias_offset + k) : 0.0;
    clforge__ref_store(bias_out, d.bias_out_type, d.bias_out_offset + k, (float)((b - mean[p]) * s + beta[p]));
  }
  return CLFORGE_SUCCESS;
}
