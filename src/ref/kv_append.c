/* Reference twin of clforge_kv_cache_append: each row to its slot,
 * converted or quantized to q8_0 as the device does. */
#include <stdint.h>

#include "../core/error.h"
#include "../desc/kv_append_desc.h"
#include "element.h"
#include "quant_round.h"

/* Row (token t, head h) of one side into its slot's cache row. */
static void put(const clforge__kva *d, const clforge__kva_side *s, const void *src, void *cache, size_t t, size_t h,
                size_t slot) {
  const size_t in = s->src_offset + t * s->src_ts + h * s->src_hs;
  const size_t row = s->cache_offset + clforge__kva_row(d, slot, h) * s->row;
  if (d->cache_type != CLFORGE_Q8_0) {
    for (size_t e = 0; e < s->d; ++e) clforge__ref_store(cache, d->cache_type, row + e, clforge__ref_load(src, d->src_type, in + e));
    return;
  }
  for (size_t b = 0; b < s->d / 32; ++b) {
    float v[32];
    for (int i = 0; i < 32; ++i) v[i] = clforge__ref_load(src, d->src_type, in + b * 32 + (size_t)i);
    clforge__q8_0_block(v, (unsigned char *)cache + row + b * 34);
  }
}

clforge_status clforge_ref_kv_cache_append(const clforge_kv_append_desc *desc, const void *k, const void *v,
                                           const int32_t *slots, void *k_cache, void *v_cache) {
  clforge__clear_error(NULL);
  clforge__kva d;
  clforge_status st = clforge__kva_resolve(NULL, "kv_cache_append reference", desc, &d);
  if (st != CLFORGE_SUCCESS || !d.tokens) return st;
  if (!k || !v || !slots || !k_cache || !v_cache)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "kv_cache_append reference: a pointer is NULL");
  st = clforge__kva_check_slots(NULL, "kv_cache_append reference", &d, slots + d.slots_offset);
  for (size_t t = 0; st == CLFORGE_SUCCESS && t < d.tokens; ++t) {
    const int32_t slot = slots[d.slots_offset + t];
    if (slot < 0) continue; /* padding */
    for (size_t h = 0; h < d.heads; ++h) {
      put(&d, &d.k, k, k_cache, t, h, (size_t)slot);
      put(&d, &d.v, v, v_cache, t, h, (size_t)slot);
    }
  }
  return st;
}
