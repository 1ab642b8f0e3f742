#include "softmax_desc.h"

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

static clforge_status tensor(clforge_context ctx, const clforge__softmax *d, clforge__softmax_tensor *t,
                             const char *name, clforge_dtype type, size_t offset, size_t stride, int broadcast_ok) {
  t->name = name;
  t->type = type ? type : CLFORGE_F32;
  if (!clforge__float_dtype_size(t->type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown or non-float %s_type %d", d->op, name, (int)type);
  t->offset = offset;
  t->stride = stride == 0 && !broadcast_ok ? d->n : stride;
  if (t->stride != 0 && t->stride < d->n)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: %s_stride %zu is less than n = %zu (rows would overlap)%s", d->op, name, stride, d->n,
                         broadcast_ok ? "; 0 broadcasts one mask row" : "");
  if (offset > ELEMS_LIMIT)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: %s_offset %zu is too large", d->op, name, offset);
  t->extent = offset;
  if (!d->rows || !d->n) return CLFORGE_SUCCESS;
  /* offset + (rows - 1) * stride + n, each step checked */
  const size_t rows = t->stride ? d->rows - 1 : 0;
  if (rows && t->stride > (ELEMS_LIMIT - offset) / rows)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the extent of %s (%zu rows %zu apart) overflows", d->op,
                         name, d->rows, t->stride);
  const size_t last = offset + rows * t->stride;
  if (d->n > ELEMS_LIMIT - last)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the extent of %s overflows", d->op, name);
  t->extent = last + d->n;
  return CLFORGE_SUCCESS;
}

static clforge_status resolve(clforge_context ctx, const clforge_softmax_desc *desc, int has_mask, int backward,
                              clforge__softmax *d) {
  memset(d, 0, sizeof *d);
  d->op = backward ? "softmax_backward" : "softmax";
  d->backward = backward;
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", d->op);
  if ((unsigned)desc->kind > CLFORGE_LOG_SOFTMAX)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: kind %d is not known (CLFORGE_SOFTMAX = 0, CLFORGE_LOG_SOFTMAX = 1)", d->op,
                         (int)desc->kind);
  clforge_status st = clforge__check_reserved_ptrs(ctx, d->op, "clforge_softmax_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  if (!isfinite(desc->scale))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: scale %g is not finite", d->op, (double)desc->scale);
  d->kind = desc->kind;
  d->rows = desc->rows, d->n = desc->n;
  d->scale = desc->scale == 0.0f ? 1.0f : desc->scale;
  d->has_mask = has_mask;
  st = tensor(ctx, d, &d->x, "x", desc->x_type, desc->x_offset, desc->x_stride, 0);
  if (st == CLFORGE_SUCCESS) st = tensor(ctx, d, &d->y, "y", desc->y_type, desc->y_offset, desc->y_stride, 0);
  /* The mask's type and stride are checked even without a mask buffer: a
   * descriptor is valid or not on its own. The forward ignores dy's fields,
   * so that one descriptor serves both passes. */
  if (st == CLFORGE_SUCCESS)
    st = tensor(ctx, d, &d->mask, "mask", desc->mask_type, desc->mask_offset, desc->mask_stride, 1);
  if (st == CLFORGE_SUCCESS && backward)
    st = tensor(ctx, d, &d->dy, "dy", desc->dy_type, desc->dy_offset, desc->dy_stride, 0);
  if (st != CLFORGE_SUCCESS) return st;
  if (backward) d->x.name = "dx"; /* written through x's fields: messages about the buffer say dx */
  /* 32-bit indices while every index a work-item forms (up to n plus a
   * group's vectors) stays below 2^32 */
  d->idx64 = d->n > UINT32_MAX - 256 * 16;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__softmax_resolve(clforge_context ctx, const clforge_softmax_desc *desc, int has_mask,
                                        clforge__softmax *d) {
  return resolve(ctx, desc, has_mask, 0, d);
}

clforge_status clforge__softmax_resolve_backward(clforge_context ctx, const clforge_softmax_desc *desc,
                                                 clforge__softmax *d) {
  return resolve(ctx, desc, 0, 1, d);
}

clforge__footprint clforge__softmax_footprint(const clforge__softmax *d, const clforge__softmax_tensor *t) {
  const size_t es = clforge_dtype_size(t->type);
  clforge__footprint f = {t->offset * es, d->n * es, t->stride * es, t->stride ? d->rows : 1, 0, 1};
  if (!d->rows || !d->n) f.rows = 0;
  return f;
}

void clforge__softmax_dtypes_key(const clforge__softmax *d, char *buf, size_t cap) {
  if (d->backward)
    snprintf(buf, cap, "%s,%s,%s", clforge_dtype_name(d->y.type), clforge_dtype_name(d->dy.type),
             clforge_dtype_name(d->x.type));
  else snprintf(buf, cap, "%s,%s", clforge_dtype_name(d->x.type), clforge_dtype_name(d->y.type));
}
