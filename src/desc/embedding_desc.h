/* clforge_embedding's descriptor resolved and checked once, for the device
 * op and the reference alike. */
#ifndef CLFORGE_SRC_EMBEDDING_DESC_H
#define CLFORGE_SRC_EMBEDDING_DESC_H

#include "clforge/clforge.h"

typedef struct clforge__emb {
  size_t tokens, vocab, dim;
  clforge_dtype table_type, y_type;
  size_t row;          /* a table row: elements (bytes for q8_0) */
  size_t table_offset; /* elements (bytes for q8_0) */
  size_t table_extent; /* what the table's buffer must hold from 0, in the same unit */
  size_t ids_offset, y_offset, y_stride, y_extent;
} clforge__emb;

/* Types, reserved fields, q8_0's dim a multiple of 32, extents without
 * overflow; failures recorded on ctx (may be NULL) naming op. */
clforge_status clforge__emb_resolve(clforge_context ctx, const char *op, const clforge_embedding_desc *desc,
                                    clforge__emb *d);

/* The first id outside [0, vocab) among n (its index in *at), or 0 when all are inside. */
int clforge__emb_bad_id(const clforge__emb *d, const int32_t *ids, size_t n, size_t *at);

#endif
