/* Reference twin of clforge_embedding: each token's row converted. */
#include <stdint.h>

#include "../core/error.h"
#include "../desc/embedding_desc.h"
#include "element.h"

clforge_status clforge_ref_embedding(const clforge_embedding_desc *desc, const void *table, const int32_t *ids,
                                     void *y) {
  clforge__clear_error(NULL);
  clforge__emb d;
  clforge_status st = clforge__emb_resolve(NULL, "embedding reference", desc, &d);
  if (st != CLFORGE_SUCCESS || !d.tokens) return st;
  if (!table || !ids || !y) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "embedding reference: table, ids or y is NULL");
  size_t at;
  if (clforge__emb_bad_id(&d, ids + d.ids_offset, d.tokens, &at))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "embedding reference: ids[%zu] = %d is outside [0, %zu)", at,
                         (int)ids[d.ids_offset + at], d.vocab);
  for (size_t t = 0; t < d.tokens; ++t) {
    const size_t row = d.table_offset + (size_t)ids[d.ids_offset + t] * d.row, out = d.y_offset + t * d.y_stride;
    for (size_t e = 0; e < d.dim; ++e) {
      float v;
      if (d.table_type == CLFORGE_Q8_0)
        v = clforge__ref_q8_0_at(table, row, e);
      else
        v = clforge__ref_load(table, d.table_type, row + e);
      clforge__ref_store(y, d.y_type, out + e, v);
    }
  }
  return CLFORGE_SUCCESS;
}
