#include "embedding_desc.h"

#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

clforge_status clforge__emb_resolve(clforge_context ctx, const char *op, const clforge_embedding_desc *desc,
                                    clforge__emb *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_embedding_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  d->tokens = desc->tokens, d->vocab = desc->vocab, d->dim = desc->dim;
  d->table_type = desc->table_type ? desc->table_type : CLFORGE_F32;
  d->y_type = desc->y_type ? desc->y_type : CLFORGE_F32;
  const int q8 = d->table_type == CLFORGE_Q8_0;
  if ((!q8 && !clforge__float_dtype_size(d->table_type)) || !clforge__float_dtype_size(d->y_type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: table_type %d (f32, f16, bf16, q8_0) or y_type %d (f32, "
                         "f16, bf16)", op, (int)desc->table_type, (int)desc->y_type);
  if (!d->vocab || !d->dim)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: vocab %zu and dim %zu must be >= 1", op, d->vocab, d->dim);
  if (q8 && d->dim % 32)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: a q8_0 table's dim %zu is not a multiple of 32", op, d->dim);
  if (d->dim > INT32_MAX || d->vocab > INT32_MAX || d->tokens > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: a size is above clforge's limit (2^31)", op);
  d->row = q8 ? d->dim / 32 * 34 : d->dim;
  d->y_stride = desc->y_stride ? desc->y_stride : d->dim;
  if (d->y_stride < d->dim)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: y_stride %zu is below dim %zu", op, d->y_stride, d->dim);
  const size_t lim = SIZE_MAX / 8;
  if (d->row > lim / d->vocab || desc->table_offset > lim - d->row * d->vocab || desc->ids_offset > lim - d->tokens ||
      (d->tokens && (d->y_stride > lim / d->tokens || desc->y_offset > lim - d->y_stride * d->tokens)))
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the tensors' extents overflow", op);
  d->table_offset = desc->table_offset, d->table_extent = desc->table_offset + d->row * d->vocab;
  d->ids_offset = desc->ids_offset, d->y_offset = desc->y_offset;
  d->y_extent = d->tokens ? desc->y_offset + (d->tokens - 1) * d->y_stride + d->dim : desc->y_offset;
  return CLFORGE_SUCCESS;
}

int clforge__emb_bad_id(const clforge__emb *d, const int32_t *ids, size_t n, size_t *at) {
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || (size_t)ids[i] >= d->vocab) {
      *at = i;
      return 1;
    }
  return 0;
}
