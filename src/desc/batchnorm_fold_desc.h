/* clforge_batchnorm_fold's descriptor resolved and checked once, for the
 * device op and the reference alike. */
#ifndef CLFORGE_SRC_BATCHNORM_FOLD_DESC_H
#define CLFORGE_SRC_BATCHNORM_FOLD_DESC_H

#include "clforge/clforge.h"

typedef struct clforge__bnf {
  size_t k, per_k, count; /* count = k * per_k */
  float eps;
  clforge_dtype w_type, w_out_type, bias_type, bias_out_type;
  size_t w_offset, w_out_offset, bias_offset, bias_out_offset, bn_offset;
} clforge__bnf;

/* Types, reserved fields, sizes and offsets without overflow, eps finite
 * and >= 0; failures recorded on ctx (may be NULL) naming op. */
clforge_status clforge__bnf_resolve(clforge_context ctx, const char *op, const clforge_batchnorm_fold_desc *desc,
                                    clforge__bnf *d);

#endif
