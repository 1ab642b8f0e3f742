/* One element of a host array in any storage dtype, as f32: the reference
 * path's loads and stores (widening is exact, narrowing rounds to nearest even). */
#ifndef CLFORGE_SRC_REF_ELEMENT_H
#define CLFORGE_SRC_REF_ELEMENT_H

#include <stdint.h>

#include "clforge/clforge.h"

static inline float clforge__ref_load(const void *p, clforge_dtype type, size_t i) {
  switch (type) {
    case CLFORGE_F16: return clforge_ref_f16_to_f32(((const uint16_t *)p)[i]);
    case CLFORGE_BF16: return clforge_ref_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
  }
}

static inline void clforge__ref_store(void *p, clforge_dtype type, size_t i, float v) {
  switch (type) {
    case CLFORGE_F16: ((uint16_t *)p)[i] = clforge_ref_f32_to_f16(v); break;
    case CLFORGE_BF16: ((uint16_t *)p)[i] = clforge_ref_f32_to_bf16(v); break;
    default: ((float *)p)[i] = v; break;
  }
}

#endif
