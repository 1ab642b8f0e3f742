/* Reference twins of clforge_quantize and clforge_dequantize: the same
 * f32 operations in the same order as cl/quantize.cl, so that the integer
 * results (and the computed scales) agree bit for bit. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/error.h"
#include "../desc/quant_desc.h"
#include "clforge/clforge.h"
#include "element.h"
#include "quant_round.h"

/* 1 / scale, with a zero scale quantizing everything to the zero point. */
static float inv_of(float scale) { return scale != 0.0f ? 1.0f / scale : 0.0f; }


static void store_q(unsigned char *p, int32_t v) { *p = (unsigned char)(v & 0xFF); }

static int32_t load_q(const unsigned char *p, clforge_dtype t) {
  return t == CLFORGE_S8 ? (int32_t)(int8_t)*p : (int32_t)*p;
}

/* Scale and zero point from a channel's range: s8 from amax, u8 from
 * [lo, hi] (both around 0). */
static void params_from_range(int s8, float lo, float hi, float *scale, int32_t *zp) {
  if (s8) {
    *scale = fmaxf(-lo, hi) / 127.0f + 0.0f; /* + 0: +0 for an all-zero channel whatever fmaxf returns */
    *zp = 0;
    return;
  }
  *scale = (hi - lo) / 255.0f + 0.0f;
  float z = *scale != 0.0f ? rintf(-lo / *scale) : 0.0f;
  if (isnan(z)) z = 0.0f;
  *zp = (int32_t)fminf(fmaxf(z, 0.0f), 255.0f);
}

static void compute_params(const clforge__quant *d, const void *x, float *scale, int32_t *zp) {
  const int s8 = d->q_type == CLFORGE_S8;
  for (size_t c = 0; c < d->nscales; ++c) {
    /* s8 tracks |x| as hi (lo stays 0); u8 both ends, starting from 0 */
    float lo = 0.0f, hi = 0.0f;
    const size_t r0 = d->srow ? c : 0, r1 = d->srow ? c + 1 : d->rows;
    const size_t c0 = d->scol ? c : 0, c1 = d->scol ? c + 1 : d->cols;
    for (size_t r = r0; r < r1; ++r)
      for (size_t j = c0; j < c1; ++j) {
        const float v = clforge__ref_load(x, d->x_type, d->x_offset + r * d->ldx + j);
        if (s8) {
          hi = fmaxf(hi, fabsf(v));
        } else {
          lo = fminf(lo, v);
          hi = fmaxf(hi, v);
        }
      }
    float s;
    int32_t z;
    params_from_range(s8, lo, hi, &s, &z);
    scale[d->scale_offset + c] = s;
    if (zp) zp[d->zp_offset + c] = z;
  }
}

static void q8_0_row(const clforge__quant *d, const void *x, size_t r, unsigned char *row) {
  for (size_t b = 0; b < d->cols / CLFORGE__Q8_0_BLOCK; ++b) {
    const size_t x0 = d->x_offset + r * d->ldx + b * CLFORGE__Q8_0_BLOCK;
    float v[CLFORGE__Q8_0_BLOCK];
    for (int i = 0; i < CLFORGE__Q8_0_BLOCK; ++i) v[i] = clforge__ref_load(x, d->x_type, x0 + i);
    clforge__q8_0_block(v, row + b * CLFORGE__Q8_0_BYTES);
  }
}

static clforge_status check_buffers(const clforge__quant *d, const char *op, const void *x, const void *q,
                                    const float *scale, const int32_t *zp, int quantize) {
  if (!x || !q) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: x or q is NULL", op);
  if (d->scheme == CLFORGE_QUANT_Q8_0) {
    if (scale || zp)
      return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: q8_0 keeps its scales in its blocks (scale and "
                                                           "zero_point must be NULL)", op);
    return CLFORGE_SUCCESS;
  }
  if (!scale) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: scale is NULL", op);
  if (quantize && d->compute && !zp && d->q_type == CLFORGE_U8)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: u8 with computed scales writes zero points "
                                                         "(zero_point is NULL)", op);
  return CLFORGE_SUCCESS;
}

/* Both directions' start: the descriptor, then the arrays; *empty for a no-op. */
static clforge_status begin(const clforge_quant_desc *desc, const char *op, int quantize, const void *x, const void *q,
                            const float *scale, const int32_t *zp, clforge__quant *d, int *empty) {
  clforge__clear_error(NULL);
  clforge_status st = clforge__quant_resolve(NULL, op, desc, quantize, d);
  *empty = d->rows == 0 || d->cols == 0;
  return st != CLFORGE_SUCCESS || *empty ? st : check_buffers(d, op, x, q, scale, zp, quantize);
}

clforge_status clforge_ref_quantize(const clforge_quant_desc *desc, const void *x, void *q, float *scale,
                                    int32_t *zero_point) {
  clforge__quant d;
  int empty;
  clforge_status st = begin(desc, "ref_quantize", 1, x, q, scale, zero_point, &d, &empty);
  if (st != CLFORGE_SUCCESS || empty) return st;
  unsigned char *qb = (unsigned char *)q + d.q_offset;
  if (d.scheme == CLFORGE_QUANT_Q8_0) {
    for (size_t r = 0; r < d.rows; ++r) q8_0_row(&d, x, r, qb + r * d.ldq);
    return CLFORGE_SUCCESS;
  }
  if (d.compute) compute_params(&d, x, scale, zero_point);
  for (size_t r = 0; r < d.rows; ++r)
    for (size_t c = 0; c < d.cols; ++c) {
      const size_t s = r * (size_t)d.srow + c * (size_t)d.scol;
      const float inv = inv_of(scale[d.scale_offset + s]);
      const int32_t z = zero_point ? zero_point[d.zp_offset + s] : 0;
      const float v = clforge__ref_load(x, d.x_type, d.x_offset + r * d.ldx + c);
      store_q(qb + r * d.ldq + c, clforge__quantize_one(v, inv, z, d.qmin, d.qmax));
    }
  return CLFORGE_SUCCESS;
}

clforge_status clforge_ref_dequantize(const clforge_quant_desc *desc, const void *q, const float *scale,
                                      const int32_t *zero_point, void *x) {
  clforge__quant d;
  int empty;
  clforge_status st = begin(desc, "ref_dequantize", 0, x, q, scale, zero_point, &d, &empty);
  if (st != CLFORGE_SUCCESS || empty) return st;
  const unsigned char *qb = (const unsigned char *)q + d.q_offset;
  for (size_t r = 0; r < d.rows; ++r)
    for (size_t c = 0; c < d.cols; ++c) {
      float v;
      if (d.scheme == CLFORGE_QUANT_Q8_0) {
        const unsigned char *blk = qb + r * d.ldq + c / CLFORGE__Q8_0_BLOCK * CLFORGE__Q8_0_BYTES;
        const float dd = clforge_ref_f16_to_f32((uint16_t)(blk[0] | blk[1] << 8));
        v = dd * (float)load_q(blk + 2 + c % CLFORGE__Q8_0_BLOCK, CLFORGE_S8);
      } else {
        const size_t s = r * (size_t)d.srow + c * (size_t)d.scol;
        const int64_t z = zero_point ? zero_point[d.zp_offset + s] : 0;
        v = (float)((int64_t)load_q(qb + r * d.ldq + c, d.q_type) - z) * scale[d.scale_offset + s];
      }
      clforge__ref_store(x, d.x_type, d.x_offset + r * d.ldx + c, v);
    }
  return CLFORGE_SUCCESS;
}
