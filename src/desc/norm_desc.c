#include "norm_desc.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

static clforge_status tensor(clforge_context ctx, const char *op, clforge__norm_tensor *t, const char *name,
                             clforge_dtype type, size_t offset, size_t stride, size_t rows, size_t n) {
  t->name = name, t->type = type ? type : CLFORGE_F32, t->offset = offset, t->stride = stride ? stride : n;
  if (!clforge__float_dtype_size(t->type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown storage type %d of %s (f32, f16 or bf16)", op, (int)type, name);
  if (t->stride < n)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s's row stride %zu is below n = %zu", op, name, t->stride,
                         n);
  t->extent = offset;
  if (!rows) return CLFORGE_SUCCESS;
  if ((rows - 1) > (SIZE_MAX / 8) / t->stride || offset > SIZE_MAX / 8 - (rows - 1) * t->stride - n)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the extent of %s overflows", op, name);
  t->extent = offset + (rows - 1) * t->stride + n;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__norm_resolve(clforge_context ctx, const char *op, const clforge_norm_desc *desc,
                                     clforge__norm *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  if ((unsigned)desc->kind > CLFORGE_NORM_RMS)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown kind %d (0 LayerNorm, 1 RMSNorm)", op,
                         (int)desc->kind);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_norm_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  if (desc->rows && !desc->n) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: n = 0 with %zu rows", op, desc->rows);
  if (desc->n > INT32_MAX || desc->rows > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: n %zu or rows %zu above clforge's limits (2^31, 2^32)", op,
                         desc->n, desc->rows);
  if (!(desc->eps >= 0.0f) || desc->eps == (float)INFINITY)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: eps %g must be finite and >= 0", op, desc->eps);
  d->kind = (int)desc->kind, d->rows = desc->rows, d->n = desc->n;
  d->eps = desc->eps != 0.0f ? desc->eps : 1e-5f;
  d->param_type = desc->param_type ? desc->param_type : CLFORGE_F32;
  if (!clforge__float_dtype_size(d->param_type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown or non-float param_type %d", op, (int)desc->param_type);
  st = tensor(ctx, op, &d->x, "x", desc->x_type, desc->x_offset, desc->x_stride, d->rows, d->n);
  if (st == CLFORGE_SUCCESS) st = tensor(ctx, op, &d->y, "y", desc->y_type, desc->y_offset, desc->y_stride, d->rows, d->n);
  if (st == CLFORGE_SUCCESS)
    st = tensor(ctx, op, &d->dy, "dy", desc->dy_type, desc->dy_offset, desc->dy_stride, d->rows, d->n);
  if (st == CLFORGE_SUCCESS)
    st = tensor(ctx, op, &d->dx, "dx", desc->dx_type, desc->dx_offset, desc->dx_stride, d->rows, d->n);
  const size_t offs[5] = {desc->weight_offset, desc->bias_offset, desc->dweight_offset, desc->dbias_offset,
                          desc->stats_offset};
  for (int i = 0; i < 5 && st == CLFORGE_SUCCESS; ++i)
    if (offs[i] > SIZE_MAX / 8 - 2 * d->rows - d->n)
      st = clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: an offset overflows", op);
  d->weight_offset = desc->weight_offset, d->bias_offset = desc->bias_offset;
  d->dweight_offset = desc->dweight_offset, d->dbias_offset = desc->dbias_offset, d->stats_offset = desc->stats_offset;
  return st;
}
