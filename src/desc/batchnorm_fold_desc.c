#include "batchnorm_fold_desc.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

clforge_status clforge__bnf_resolve(clforge_context ctx, const char *op, const clforge_batchnorm_fold_desc *desc,
                                    clforge__bnf *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_batchnorm_fold_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  const clforge_dtype t[4] = {desc->w_type, desc->w_out_type, desc->bias_type, desc->bias_out_type};
  for (int i = 0; i < 4; ++i)
    if (!clforge__float_dtype_size(t[i] ? t[i] : CLFORGE_F32))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: a storage type (%d) is not f32, f16 or bf16", op, (int)t[i]);
  d->w_type = t[0] ? t[0] : CLFORGE_F32, d->w_out_type = t[1] ? t[1] : CLFORGE_F32;
  d->bias_type = t[2] ? t[2] : CLFORGE_F32, d->bias_out_type = t[3] ? t[3] : CLFORGE_F32;
  if (!(desc->eps >= 0.0f) || isinf(desc->eps))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: eps %g must be finite and >= 0", op, (double)desc->eps);
  d->eps = desc->eps != 0.0f ? desc->eps : 1e-5f;
  d->k = desc->k, d->per_k = desc->per_k;
  if (d->k && !d->per_k) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: per_k 0 with %zu channels", op, d->k);
  const size_t lim = SIZE_MAX / 8;
  if (d->k > INT32_MAX || (d->per_k && d->k > lim / d->per_k))
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: k * per_k overflows", op);
  d->count = d->k * d->per_k;
  const size_t off[5] = {desc->w_offset, desc->w_out_offset, desc->bias_offset, desc->bias_out_offset, desc->bn_offset};
  const size_t n[5] = {d->count, d->count, d->k, d->k, d->k};
  for (int i = 0; i < 5; ++i)
    if (off[i] > lim - n[i]) return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: an offset overflows", op);
  d->w_offset = off[0], d->w_out_offset = off[1], d->bias_offset = off[2], d->bias_out_offset = off[3];
  d->bn_offset = off[4];
  return CLFORGE_SUCCESS;
}
