/* Quantization's rounding on the host (cl/common.cl's clforge_quant_one is
 * its twin): the reference of clforge_quantize and of the int8 GEMM's
 * requantized output. */
#ifndef CLFORGE_SRC_REF_QUANT_ROUND_H
#define CLFORGE_SRC_REF_QUANT_ROUND_H

#include <math.h>
#include <stdint.h>

#include "clforge/clforge.h"

/* clamp(round-half-even(x * inv) + zp) to [qmin, qmax]; NaN counts as 0. */
static inline int32_t clforge__quantize_one(float x, float inv, int32_t zp, int qmin, int qmax) {
  float f = rintf(x * inv);
  if (isnan(f)) f = 0.0f;
  f = fminf(fmaxf(f, -1024.0f), 1024.0f); /* beyond any 8-bit range whatever zp does */
  int64_t v = (int64_t)f + zp;
  return (int32_t)(v < qmin ? qmin : v > qmax ? qmax : v);
}

/* ggml's q8_0 block: 32 values into 34 bytes, d = max|v| / 127 as f16
 * (little-endian, as ggml's files), then clforge__quantize_one(v, 1 / d)
 * (cl/common.cl's CLFORGE_Q8_0_BLOCK is its twin, bit for bit). */
static inline void clforge__q8_0_block(const float *v, unsigned char *blk) {
  float amax = 0.0f;
  for (int i = 0; i < 32; ++i) amax = fmaxf(amax, fabsf(v[i]));
  const float d = amax / 127.0f, inv = d != 0.0f ? 1.0f / d : 0.0f;
  const uint16_t h = clforge_ref_f32_to_f16(d);
  blk[0] = (unsigned char)(h & 0xFF), blk[1] = (unsigned char)(h >> 8);
  for (int i = 0; i < 32; ++i) blk[2 + i] = (unsigned char)(int8_t)clforge__quantize_one(v[i], inv, 0, -128, 127);
}

#endif
