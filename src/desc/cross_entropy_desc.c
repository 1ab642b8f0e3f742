#include "cross_entropy_desc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

/* Positions past this many elements are refused: byte counts of 8-byte
 * elements stay within size_t. */
#define ELEMS_LIMIT (SIZE_MAX / 8)

static clforge_status rows_tensor(clforge_context ctx, const clforge__ce *d, clforge__ce_rows *t, const char *name,
                                  clforge_dtype type, size_t offset, size_t stride) {
  t->name = name;
  t->type = type ? type : CLFORGE_F32;
  if (!clforge__float_dtype_size(t->type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: unknown or non-float %s_type %d", name, (int)type);
  t->offset = offset;
  t->stride = stride ? stride : d->n;
  if (t->stride < d->n)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "cross_entropy: %s_stride %zu is less than n = %zu (rows would overlap)", name, stride, d->n);
  if (offset > ELEMS_LIMIT)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "cross_entropy: %s_offset %zu is too large", name, offset);
  t->extent = offset;
  if (!d->rows) return CLFORGE_SUCCESS;
  const size_t r = d->rows - 1;
  if (r && t->stride > (ELEMS_LIMIT - offset) / r)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "cross_entropy: the extent of %s (%zu rows %zu apart) overflows",
                         name, d->rows, t->stride);
  const size_t last = offset + r * t->stride;
  if (d->n > ELEMS_LIMIT - last)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "cross_entropy: the extent of %s overflows", name);
  t->extent = last + d->n;
  return CLFORGE_SUCCESS;
}

static clforge_status vector_extent(clforge_context ctx, const char *name, size_t offset, size_t count, size_t *extent) {
  if (offset > ELEMS_LIMIT || count > ELEMS_LIMIT - offset)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "cross_entropy: %s_offset %zu is too large", name, offset);
  *extent = offset + count;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__ce_resolve(clforge_context ctx, const clforge_cross_entropy_desc *desc, clforge__ce *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: desc is NULL");
  clforge_status st = clforge__check_reserved_ptrs(ctx, "cross_entropy", "clforge_cross_entropy_desc.reserved",
                                                   desc->reserved, CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  if ((unsigned)desc->reduction > CLFORGE_REDUCTION_NONE)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "cross_entropy: reduction %d is not known (CLFORGE_REDUCTION_MEAN = 0, _SUM = 1, _NONE = 2)",
                         (int)desc->reduction);
  if (!(desc->label_smoothing >= 0.0f && desc->label_smoothing <= 1.0f))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: label_smoothing %g is not in [0, 1]",
                         (double)desc->label_smoothing);
  if (!isfinite(desc->grad_scale))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: grad_scale %g is not finite",
                         (double)desc->grad_scale);
  if (desc->use_ignore_index != 0 && desc->use_ignore_index != 1)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: use_ignore_index %d is not 0 or 1",
                         desc->use_ignore_index);
  d->rows = desc->rows, d->n = desc->n;
  if (d->rows && !d->n)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: n is 0 (a row needs at least one class)");
  if (d->n > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "cross_entropy: n = %zu classes exceed int32 targets", d->n);
  d->reduction = desc->reduction;
  d->smoothing = desc->label_smoothing;
  d->grad_scale = desc->grad_scale == 0.0f ? 1.0f : desc->grad_scale;
  d->use_ignore = desc->use_ignore_index;
  d->ignore_index = desc->ignore_index;
  st = rows_tensor(ctx, d, &d->logits, "logits", desc->logits_type, desc->logits_offset, desc->logits_stride);
  if (st == CLFORGE_SUCCESS)
    st = rows_tensor(ctx, d, &d->dlogits, "dlogits", desc->dlogits_type, desc->dlogits_offset, desc->dlogits_stride);
  if (st == CLFORGE_SUCCESS) st = vector_extent(ctx, "targets", desc->targets_offset, d->rows, &d->targets_extent);
  if (st == CLFORGE_SUCCESS)
    st = vector_extent(ctx, "loss", desc->loss_offset, d->reduction == CLFORGE_REDUCTION_NONE ? d->rows : 1,
                       &d->loss_extent);
  size_t gs_extent;
  if (st == CLFORGE_SUCCESS) st = vector_extent(ctx, "grad_scale", desc->grad_scale_offset, 1, &gs_extent);
  if (st != CLFORGE_SUCCESS) return st;
  d->targets_offset = desc->targets_offset;
  d->loss_offset = desc->loss_offset;
  d->gscale_offset = desc->grad_scale_offset;
  return CLFORGE_SUCCESS;
}

clforge__footprint clforge__ce_footprint(const clforge__ce *d, const clforge__ce_rows *t) {
  const size_t es = clforge_dtype_size(t->type);
  clforge__footprint f = {t->offset * es, d->n * es, t->stride * es, d->rows, 0, 1};
  return f;
}

void clforge__ce_dtypes_key(const clforge__ce *d, char *buf, size_t cap) {
  snprintf(buf, cap, "%s,%s", clforge_dtype_name(d->logits.type), clforge_dtype_name(d->dlogits.type));
}
