/* Scalar f16/bf16 <-> f32 conversions of the reference path, bit-exact with
 * IEEE round-to-nearest-even. Integer arithmetic only, so the host's
 * floating-point environment (flush-to-zero, x87) cannot change a result. */
#include <string.h>

#include "clforge/clforge.h"

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Drop the low `shift` bits of m, rounding to nearest, ties to even. */
static uint32_t round_shift(uint32_t m, unsigned shift) {
  uint32_t r = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  return r + (rem > half || (rem == half && (r & 1u)));
}

uint16_t clforge_ref_f32_to_f16(float value) {
  uint32_t x = bits_of(value);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) /* NaN: quiet, keep the top of the payload */
    return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* >= 65520 and Inf: Inf */
  if (a <= 0x33000000u) return sign;                       /* <= 2^-25: ties to even 0 */
  int e = (int)(a >> 23) - 127;
  uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
  if (e < -14) /* half subnormal: count of 2^-24 units; a carry gives the min normal */
    return (uint16_t)(sign | round_shift(m, (unsigned)(-e - 1)));
  /* normal: a mantissa carry correctly increments the exponent */
  uint32_t h = ((uint32_t)(e + 15) << 10) | ((m & 0x7FFFFFu) >> 13);
  uint32_t rem = m & 0x1FFFu;
  h += rem > 0x1000u || (rem == 0x1000u && (h & 1u));
  return (uint16_t)(sign | h);
}

float clforge_ref_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1Fu) return float_of(sign | 0x7F800000u | (mant << 13)); /* Inf, NaN */
  if (exp == 0) {
    if (mant == 0) return float_of(sign);
    int e = -14; /* subnormal: normalize, every f16 is a normal f32 */
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --e;
    }
    return float_of(sign | ((uint32_t)(e + 127) << 23) | ((mant & 0x3FFu) << 13));
  }
  return float_of(sign | ((exp - 15u + 127u) << 23) | (mant << 13));
}

uint16_t clforge_ref_f32_to_bf16(float value) {
  uint32_t x = bits_of(value);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  /* Overflow past the largest bf16 carries into the exponent and gives Inf. */
  return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

float clforge_ref_bf16_to_f32(uint16_t bits) { return float_of((uint32_t)bits << 16); }
