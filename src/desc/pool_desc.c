#include "pool_desc.h"

#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

/* One axis: PyTorch's pooling_output_shape and its checks (padding at
 * most half the kernel, dilation aside; an output of at least 1). */
static clforge_status axis(clforge_context ctx, const char *op, const char *name, size_t in, size_t k, size_t s,
                           size_t pad, size_t dil, int ceil_mode, size_t *out) {
  if (!k || !s || !dil) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: the %s kernel, stride and dilation must be >= 1", op, name);
  if (k > INT32_MAX || s > INT32_MAX || pad > INT32_MAX || dil > INT32_MAX || (k - 1) > INT32_MAX / dil)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: the %s window is above clforge's limit (2^31)", op, name);
  if (pad > k / 2)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s padding %zu is more than half the kernel (%zu)", op,
                         name, pad, k);
  const size_t span = dil * (k - 1) + 1, room = in + 2 * pad + (ceil_mode ? s - 1 : 0); /* the dilated kernel */
  if (room < span)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: the %s window (%zu) is larger than the padded input (%zu): no output", op, name, span,
                         in + 2 * pad);
  size_t o = (room - span) / s + 1;
  if (ceil_mode && (o - 1) * s >= in + pad) --o; /* the last window must start inside */
  *out = o;
  return CLFORGE_SUCCESS;
}

static int mul_ok(size_t *acc, size_t v) {
  if (v && *acc > SIZE_MAX / 8 / v) return 0;
  *acc *= v;
  return 1;
}

clforge_status clforge__pool_resolve(clforge_context ctx, const char *op, const clforge_pool_desc *desc,
                                     clforge__pool *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  if ((unsigned)desc->kind > CLFORGE_POOL_AVG)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown kind %d (0 max, 1 avg)", op, (int)desc->kind);
  if ((unsigned)desc->layout > CLFORGE_NHWC)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown layout %d (0 NCHW, 1 NHWC)", op, (int)desc->layout);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_pool_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  d->kind = (int)desc->kind, d->nhwc = desc->layout == CLFORGE_NHWC, d->exclude_pad = desc->exclude_pad != 0;
  d->n = desc->n, d->c = desc->c, d->h = desc->h, d->w = desc->w;
  d->x_type = desc->x_type ? desc->x_type : CLFORGE_F32, d->y_type = desc->y_type ? desc->y_type : CLFORGE_F32;
  if (!clforge__float_dtype_size(d->x_type) || !clforge__float_dtype_size(d->y_type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: x_type %d or y_type %d is not f32, f16 or bf16", op,
                         (int)desc->x_type, (int)desc->y_type);
  if (d->kind == CLFORGE_POOL_MAX && (desc->exclude_pad || desc->divisor_override))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: exclude_pad and divisor_override are average pooling's", op);
  if (!d->h || !d->w) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: an empty %zu x %zu plane", op, d->h, d->w);
  if (d->h > INT32_MAX || d->w > INT32_MAX || d->c > INT32_MAX || d->n > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: a dimension is above clforge's limit (2^31)", op);
  if (desc->global_pool) {
    d->kh = d->h, d->kw = d->w, d->sh = d->sw = 1, d->dh = d->dw = 1;
  } else {
    if (d->kind == CLFORGE_POOL_AVG && (desc->dilation_h > 1 || desc->dilation_w > 1))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: average pooling has no dilation (PyTorch's neither)", op);
    d->kh = desc->kernel_h, d->kw = desc->kernel_w, d->ph = desc->pad_h, d->pw = desc->pad_w;
    d->sh = desc->stride_h ? desc->stride_h : d->kh, d->sw = desc->stride_w ? desc->stride_w : d->kw;
    d->dh = desc->dilation_h ? desc->dilation_h : 1, d->dw = desc->dilation_w ? desc->dilation_w : 1;
  }
  st = axis(ctx, op, "height", d->h, d->kh, d->sh, d->ph, d->dh, desc->ceil_mode, &d->p);
  if (st == CLFORGE_SUCCESS) st = axis(ctx, op, "width", d->w, d->kw, d->sw, d->pw, d->dw, desc->ceil_mode, &d->q);
  if (st != CLFORGE_SUCCESS) return st;
  d->divisor = desc->divisor_override;
  if (d->divisor > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: divisor_override %zu is above 2^31", op, d->divisor);
  size_t xc = 1, yc = 1;
  const size_t xd[4] = {d->n, d->c, d->h, d->w}, yd[4] = {d->n, d->c, d->p, d->q};
  for (int i = 0; i < 4; ++i)
    if (!mul_ok(&xc, xd[i]) || !mul_ok(&yc, yd[i]))
      return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the tensors' sizes overflow", op);
  if (desc->x_offset > SIZE_MAX / 8 - xc || desc->y_offset > SIZE_MAX / 8 - yc)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: an offset overflows", op);
  d->x_count = xc, d->y_count = yc, d->x_offset = desc->x_offset, d->y_offset = desc->y_offset;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_pool_output_size(const clforge_pool_desc *desc, size_t *out_h, size_t *out_w) {
  clforge__clear_error(NULL);
  if (!out_h || !out_w) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "pool_output_size: out_h or out_w is NULL");
  clforge__pool d;
  const clforge_status st = clforge__pool_resolve(NULL, "pool_output_size", desc, &d);
  if (st == CLFORGE_SUCCESS) *out_h = d.p, *out_w = d.q;
  return st;
}
