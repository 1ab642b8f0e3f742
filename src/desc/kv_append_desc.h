/* clforge_kv_cache_append's descriptor resolved and checked once, for the
 * device op and the reference alike. */
#ifndef CLFORGE_SRC_KV_APPEND_DESC_H
#define CLFORGE_SRC_KV_APPEND_DESC_H

#include "clforge/clforge.h"

/* One side (K or V): its source rows and its cache. */
typedef struct clforge__kva_side {
  size_t d;                        /* head dim */
  size_t src_offset, src_ts, src_hs, src_extent; /* elements */
  size_t row;                      /* a cache row: elements (bytes for q8_0) */
  size_t cache_offset, cache_extent; /* elements (bytes for q8_0), from 0 */
} clforge__kva_side;

typedef struct clforge__kva {
  size_t tokens, heads, bs, nblocks;
  int slot_head;                   /* CLFORGE_KV_BLOCK_SLOT_HEAD */
  clforge_dtype src_type, cache_type;
  clforge__kva_side k, v;
  size_t slots_offset;
} clforge__kva;

/* Types, reserved fields, q8_0's head dims multiples of 32, source strides
 * keeping rows apart, extents without overflow; failures recorded on ctx
 * (may be NULL) naming op. */
clforge_status clforge__kva_resolve(clforge_context ctx, const char *op, const clforge_kv_append_desc *desc,
                                    clforge__kva *d);

/* The cache row (in rows) of head h at pool slot slot. */
static inline size_t clforge__kva_row(const clforge__kva *d, size_t slot, size_t h) {
  const size_t blk = slot / d->bs, pos = slot % d->bs;
  return d->slot_head ? (blk * d->bs + pos) * d->heads + h : (blk * d->heads + h) * d->bs + pos;
}

/* Slots outside [-1, num_blocks * block_size), or two tokens on one slot:
 * CLFORGE_INVALID_ARGUMENT naming the token (ctx may be NULL). */
clforge_status clforge__kva_check_slots(clforge_context ctx, const char *op, const clforge__kva *d, const int32_t *slots);

#endif
