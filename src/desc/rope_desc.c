#include "rope_desc.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"
#include "extent.h"

static clforge_status tensor(clforge_context ctx, const char *op, const char *name, clforge__rope_tensor *t,
                             clforge_dtype type, size_t off, size_t ts, size_t hs, const clforge__rope *d) {
  t->type = type ? type : CLFORGE_F32, t->offset = off;
  t->head_stride = hs ? hs : d->d, t->token_stride = ts ? ts : d->heads * d->d;
  if (!clforge__float_dtype_size(t->type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s's type %d is not f32, f16 or bf16", op, name, (int)type);
  t->extent = off;
  if (!d->tokens) return CLFORGE_SUCCESS;
  int ok = 1;
  const size_t lim = SIZE_MAX / 8;
  size_t e = clforge__mad_within(off, d->tokens - 1, t->token_stride, lim, &ok);
  e = clforge__mad_within(e, d->heads - 1, t->head_stride, lim, &ok);
  e = clforge__mad_within(e, 1, d->d, lim, &ok);
  if (!ok) return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the extent of %s overflows", op, name);
  if (!clforge__rows_apart(d->tokens, d->heads, d->d, t->token_stride, t->head_stride))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: %s's strides (token %zu, head %zu) overlap its rows (head_dim %zu, %zu heads, %zu tokens)",
                         op, name, t->token_stride, t->head_stride, d->d, d->heads, d->tokens);
  t->extent = e;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__rope_resolve(clforge_context ctx, const char *op, const clforge_rope_desc *desc,
                                     clforge__rope *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  if ((unsigned)desc->style > CLFORGE_ROPE_GPTJ)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown style %d (0 NeoX, 1 GPT-J)", op, (int)desc->style);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_rope_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  d->neox = desc->style == CLFORGE_ROPE_NEOX, d->tokens = desc->tokens, d->heads = desc->heads, d->d = desc->head_dim;
  d->rot = desc->rotary_dim ? desc->rotary_dim : desc->head_dim;
  if (!d->heads || !d->d)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: heads %zu and head_dim %zu must be >= 1", op, d->heads, d->d);
  if (d->rot % 2 || d->rot > d->d)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: rotary_dim %zu must be even and at most head_dim %zu", op,
                         d->rot, d->d);
  if (d->d > INT32_MAX || d->heads > INT32_MAX || d->tokens > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: a size is above clforge's limit (2^31)", op);
  const float th = desc->theta != 0.0f ? desc->theta : 10000.0f;
  if (!(th >= 1.0f) || isinf(th)) /* every model's base is; the error bound (rope_desc.h) assumes it */
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: theta %g must be finite and >= 1", op, (double)desc->theta);
  d->theta = th;
  if (desc->positions_offset > SIZE_MAX / 8 - d->tokens)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: positions_offset overflows", op);
  d->pos_offset = desc->positions_offset;
  st = tensor(ctx, op, "x", &d->x, desc->x_type, desc->x_offset, desc->x_token_stride, desc->x_head_stride, d);
  if (st == CLFORGE_SUCCESS)
    st = tensor(ctx, op, "y", &d->y, desc->y_type, desc->y_offset, desc->y_token_stride, desc->y_head_stride, d);
  return st;
}
