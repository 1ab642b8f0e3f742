/* Quantization's rounding on the host (cl/common.cl's clforge_quant_one is
 * its twin): the reference of clforge_quantize and of the int8 GEMM's
 * requantized output. */
#ifndef CLFORGE_SRC_REF_QUANT_ROUND_H
#define CLFORGE_SRC_REF_QUANT_ROUND_H

#include <math.h>
#include <stdint.h>

/* clamp(round-half-even(x * inv) + zp) to [qmin, qmax]; NaN counts as 0. */
static inline int32_t clforge__quantize_one(float x, float inv, int32_t zp, int qmin, int qmax) {
  float f = rintf(x * inv);
  if (isnan(f)) f = 0.0f;
  f = fminf(fmaxf(f, -1024.0f), 1024.0f); /* beyond any 8-bit range whatever zp does */
  int64_t v = (int64_t)f + zp;
  return (int32_t)(v < qmin ? qmin : v > qmax ? qmax : v);
}

#endif
