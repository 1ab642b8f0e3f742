#include "kv_append_desc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"
#include "extent.h"

static clforge_status side(clforge_context ctx, const char *op, const char *name, const clforge__kva *d,
                           clforge__kva_side *s, size_t dim, size_t off, size_t ts, size_t hs, size_t coff) {
  const int q8 = d->cache_type == CLFORGE_Q8_0;
  s->d = dim, s->src_offset = off, s->src_hs = hs ? hs : dim, s->src_ts = ts ? ts : d->heads * dim;
  if (q8 && dim % 32)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: a q8_0 cache's %s head dim %zu is not a multiple of 32", op,
                         name, dim);
  if (!clforge__rows_apart(d->tokens, d->heads, dim, s->src_ts, s->src_hs))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s's strides (token %zu, head %zu) overlap its rows", op,
                         name, s->src_ts, s->src_hs);
  s->row = q8 ? dim / 32 * 34 : dim;
  int ok = 1;
  const size_t lim = SIZE_MAX / 8;
  size_t e = off;
  if (d->tokens) {
    e = clforge__mad_within(off, d->tokens - 1, s->src_ts, lim, &ok);
    e = clforge__mad_within(e, d->heads - 1, s->src_hs, lim, &ok);
    e = clforge__mad_within(e, 1, dim, lim, &ok);
  }
  const size_t rows = d->nblocks * d->heads * d->bs; /* checked by the caller */
  const size_t ce = clforge__mad_within(coff, rows, s->row, lim, &ok);
  if (!ok) return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the extent of %s or its cache overflows", op, name);
  s->src_extent = e, s->cache_offset = coff, s->cache_extent = ce;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__kva_resolve(clforge_context ctx, const char *op, const clforge_kv_append_desc *desc,
                                    clforge__kva *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_kv_append_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  if ((unsigned)desc->cache_layout > CLFORGE_KV_BLOCK_SLOT_HEAD)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown cache_layout %d", op, (int)desc->cache_layout);
  d->tokens = desc->tokens, d->heads = desc->heads_kv, d->bs = desc->block_size, d->nblocks = desc->num_blocks;
  d->slot_head = desc->cache_layout == CLFORGE_KV_BLOCK_SLOT_HEAD;
  d->src_type = desc->src_type ? desc->src_type : CLFORGE_F32;
  d->cache_type = desc->cache_type ? desc->cache_type : CLFORGE_F32;
  if (!clforge__float_dtype_size(d->src_type) ||
      (d->cache_type != CLFORGE_Q8_0 && !clforge__float_dtype_size(d->cache_type)))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: src_type %d (f32, f16, bf16) or cache_type %d (those, q8_0)",
                         op, (int)desc->src_type, (int)desc->cache_type);
  const size_t dk = desc->head_dim, dv = desc->head_dim_v ? desc->head_dim_v : desc->head_dim;
  if (!d->heads || !dk || !d->bs || !d->nblocks)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: heads_kv, head_dim, block_size and num_blocks must be >= 1",
                         op);
  if (d->tokens > INT32_MAX || d->heads > INT32_MAX || dk > INT32_MAX || dv > INT32_MAX || d->bs > INT32_MAX ||
      d->nblocks > INT32_MAX || d->nblocks > (size_t)INT32_MAX / d->bs || d->nblocks * d->bs > (SIZE_MAX / 8) / d->heads)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: a size or the pool's slots are above clforge's limit (2^31)", op);
  if (desc->slots_offset > SIZE_MAX / 8 - d->tokens)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: slots_offset overflows", op);
  d->slots_offset = desc->slots_offset;
  st = side(ctx, op, "K", d, &d->k, dk, desc->k_offset, desc->k_token_stride, desc->k_head_stride, desc->k_cache_offset);
  if (st == CLFORGE_SUCCESS)
    st = side(ctx, op, "V", d, &d->v, dv, desc->v_offset, desc->v_token_stride, desc->v_head_stride, desc->v_cache_offset);
  return st;
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

clforge_status clforge__kva_check_slots(clforge_context ctx, const char *op, const clforge__kva *d, const int32_t *slots) {
  const int64_t n = (int64_t)(d->nblocks * d->bs);
  for (size_t t = 0; t < d->tokens; ++t)
    if (slots[t] < -1 || slots[t] >= n)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: token %zu's slot %d is outside [-1, %lld) (the pool's slots)",
                           op, t, (int)slots[t], (long long)n);
  if (d->tokens < 2) return CLFORGE_SUCCESS;
  int32_t *sorted = malloc(d->tokens * sizeof *sorted);
  if (!sorted) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: no memory for the slots' check", op);
  memcpy(sorted, slots, d->tokens * sizeof *sorted);
  qsort(sorted, d->tokens, sizeof *sorted, cmp_i32);
  clforge_status st = CLFORGE_SUCCESS;
  for (size_t t = 1; t < d->tokens && st == CLFORGE_SUCCESS; ++t)
    if (sorted[t] >= 0 && sorted[t] == sorted[t - 1])
      st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: two tokens write slot %d (their rows would race)", op,
                         (int)sorted[t]);
  free(sorted);
  return st;
}
