#include "gemm_quant_desc.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/error.h"
#include "../core/reserved.h"

static int range_of(clforge_dtype t, int *lo, int *hi) {
  *lo = t == CLFORGE_S8 ? -128 : 0;
  *hi = t == CLFORGE_S8 ? 127 : 255;
  return t == CLFORGE_S8 || t == CLFORGE_U8;
}

clforge_status clforge__gemm_q_resolve(clforge_context ctx, const char *op, const clforge_gemm_desc *desc,
                                       const clforge_gemm_quant *quant, clforge__gemm_q *q) {
  memset(q, 0, sizeof *q);
  if (!quant) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: quant is NULL", op);
  clforge_status st = clforge__gemm_resolve_types(ctx, desc, 1, &q->g);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_reserved_ptrs(ctx, op, "clforge_gemm_quant.reserved", quant->reserved,
                                      CLFORGE_COUNT_OF(quant->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__gemm *g = &q->g;
  if (desc->aux_mode || g->aux_mode)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: aux_mode is not used by the int8 GEMM (leave it 0)", op);
  if (quant->a_scheme != CLFORGE_QUANT_PER_TENSOR && quant->a_scheme != CLFORGE_QUANT_PER_ROW)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: a_scheme %d: A's scales are PER_TENSOR or PER_ROW", op,
                         (int)quant->a_scheme);
  if (quant->b_scheme != CLFORGE_QUANT_PER_TENSOR && quant->b_scheme != CLFORGE_QUANT_PER_COLUMN)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: b_scheme %d: B's scales are PER_TENSOR or PER_COLUMN",
                         op, (int)quant->b_scheme);
  /* user's A and B types: the view may have swapped them */
  const clforge_dtype ua = g->swapped ? g->b.type : g->a.type, ub = g->swapped ? g->a.type : g->b.type;
  int lo, hi;
  range_of(ua, &lo, &hi);
  if (quant->a_zero_point < lo || quant->a_zero_point > hi)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: a_zero_point %d is outside A's %s range", op,
                         (int)quant->a_zero_point, clforge_dtype_name(ua));
  range_of(ub, &lo, &hi);
  if (quant->b_zero_point < lo || quant->b_zero_point > hi)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: b_zero_point %d is outside B's %s range", op,
                         (int)quant->b_zero_point, clforge_dtype_name(ub));
  /* The largest |term|, (a - zpa)(b - zpb): k of them must fit s32, or the
   * exact accumulation the op promises would wrap. */
  {
    int alo, ahi, blo, bhi;
    range_of(ua, &alo, &ahi);
    range_of(ub, &blo, &bhi);
    const int64_t za = quant->a_zero_point, zb = quant->b_zero_point;
    const int64_t ma = za - alo > ahi - za ? za - alo : ahi - za, mb = zb - blo > bhi - zb ? zb - blo : bhi - zb;
    if (ma * mb > 0 && (uint64_t)g->k > (uint64_t)INT32_MAX / (uint64_t)(ma * mb))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "%s: k = %zu: sums of k products up to %lld (zero points %d, %d) can pass s32's range; "
                           "split k (at most %lld here) and add the parts",
                           op, g->k, (long long)(ma * mb), (int)quant->a_zero_point, (int)quant->b_zero_point,
                           (long long)(INT32_MAX / (ma * mb)));
  }
  const clforge_dtype ct = g->c.type;
  q->out = ct == CLFORGE_S32 ? CLFORGE__QOUT_S32 : range_of(ct, &q->qmin, &q->qmax) ? CLFORGE__QOUT_INT8
                                                                                      : CLFORGE__QOUT_FLOAT;
  if (q->out == CLFORGE__QOUT_S32 &&
      (g->alpha != 1.0f || g->beta != 0.0f || g->bias_mode || g->act || quant->a_scale || quant->b_scale))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: an s32 C holds the raw accumulations: no alpha, beta, bias, activation or scales", op);
  if (q->out == CLFORGE__QOUT_INT8) {
    if (g->beta != 0.0f)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: beta must be 0 with an %s C", op, clforge_dtype_name(ct));
    if (!(quant->c_scale > 0.0f) || isinf(quant->c_scale))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: c_scale %g must be positive and finite", op,
                           (double)quant->c_scale);
    if (quant->c_zero_point < q->qmin || quant->c_zero_point > q->qmax)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: c_zero_point %d is outside C's %s range", op,
                           (int)quant->c_zero_point, clforge_dtype_name(ct));
    q->inv_c = 1.0f / quant->c_scale;
    q->zpc = quant->c_zero_point;
  }
  /* the kernel's view: swapped, its rows are the user's columns */
  const int a_per = quant->a_scheme == CLFORGE_QUANT_PER_ROW, b_per = quant->b_scheme == CLFORGE_QUANT_PER_COLUMN;
  q->row_scale_from_b = g->swapped;
  q->zpa = g->swapped ? quant->b_zero_point : quant->a_zero_point;
  q->zpb = g->swapped ? quant->a_zero_point : quant->b_zero_point;
  q->row_per = g->swapped ? b_per : a_per;
  q->col_per = g->swapped ? a_per : b_per;
  q->row_scale_offset = g->swapped ? quant->b_scale_offset : quant->a_scale_offset;
  q->col_scale_offset = g->swapped ? quant->a_scale_offset : quant->b_scale_offset;
  if (q->out != CLFORGE__QOUT_S32) {
    q->row_scales = q->row_per ? g->m : 1;
    q->col_scales = q->col_per ? g->n : 1;
    if (q->row_scale_offset > SIZE_MAX / 8 - q->row_scales || q->col_scale_offset > SIZE_MAX / 8 - q->col_scales)
      return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: a scale offset + count overflows", op);
  }
  return CLFORGE_SUCCESS;
}
