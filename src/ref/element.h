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

/* Value e of a q8_0 row starting at byte `row` of p: its block's f16 scale
 * times its s8, exact in f32 (11 + 8 significant bits), as the kernels. */
static inline float clforge__ref_q8_0_at(const void *p, size_t row, size_t e) {
  const unsigned char *blk = (const unsigned char *)p + row + e / 32 * 34;
  return clforge_ref_f16_to_f32((uint16_t)(blk[0] | blk[1] << 8)) * (float)(int8_t)blk[2 + e % 32];
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
    case CLFORGE_ACT_SILU: return v / (1 + exp(-v));
    default: return v;
  }
}

/* Its derivative at z (the backward passes: clforge_activation_backward,
 * the GEMM's backward epilogue); ReLU's is 0 at z <= 0. */
static inline double clforge__ref_dactivate(int act, double z) {
  switch (act) {
    case CLFORGE_ACT_RELU: return z > 0 ? 1.0 : 0.0;
    case CLFORGE_ACT_GELU_TANH: {
      const double c = 0.7978845608028654, t = tanh(c * (z + 0.044715 * z * z * z));
      return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * 0.044715 * z * z);
    }
    case CLFORGE_ACT_GELU_ERF: return 0.5 * (1 + erf(z * 0.7071067811865476)) + z * exp(-0.5 * z * z) * 0.3989422804014327;
    case CLFORGE_ACT_SILU: {
      const double sg = 1 / (1 + exp(-z));
      return sg * (1 + z * (1 - sg));
    }
    default: return 1.0;
  }
}

#endif
