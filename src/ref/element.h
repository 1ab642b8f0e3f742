/* One element of a host array in any storage dtype, as f32: the reference
 * path's loads and stores (widening is exact, narrowing rounds to nearest even). */
#ifndef CLFORGE_SRC_REF_ELEMENT_H
#define CLFORGE_SRC_REF_ELEMENT_H

#include <math.h>
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

/* The fused epilogue's activations, in double (GEMM and convolution). */
static inline double clforge__ref_activate(int act, double v) {
  switch (act) {
    case CLFORGE_ACT_RELU: return v > 0 ? v : 0; /* NaN -> 0, like fmax(v, 0) */
    case CLFORGE_ACT_GELU_TANH: return 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    case CLFORGE_ACT_GELU_ERF: return 0.5 * v * (1 + erf(v * 0.7071067811865476));
    default: return v;
  }
}

#endif
