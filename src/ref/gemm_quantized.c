/* Reference twin of clforge_gemm_quantized: the exact integer accumulation
 * (int64), then the epilogue's f32 operations in the kernel's order. */
#include <math.h>
#include <stdint.h>

#include "../core/error.h"
#include "../desc/gemm_quant_desc.h"
#include "element.h"
#include "quant_round.h"

static int32_t load_int8(const void *p, clforge_dtype t, size_t i) {
  return t == CLFORGE_S8 ? (int32_t)((const int8_t *)p)[i] : (int32_t)((const uint8_t *)p)[i];
}

clforge_status clforge_ref_gemm_quantized(const clforge_gemm_desc *desc, const clforge_gemm_quant *quant,
                                          const void *a, const void *b, void *c, const void *bias,
                                          const float *a_scale, const float *b_scale) {
  clforge__clear_error(NULL);
  if (!desc) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_gemm_quantized: desc is NULL");
  clforge__gemm_q q;
  clforge_status st = clforge__gemm_q_resolve(NULL, "ref_gemm_quantized", desc, quant, &q);
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__gemm *g = &q.g;
  if (g->m == 0 || g->n == 0) return CLFORGE_SUCCESS;
  const void *ra = g->swapped ? b : a, *rb = g->swapped ? a : b;
  const float *rs = q.row_scale_from_b ? b_scale : a_scale, *cs = q.row_scale_from_b ? a_scale : b_scale;
  if (!c || (g->k && (!ra || !rb)) || (g->bias_mode && !bias) || (q.out != CLFORGE__QOUT_S32 && (!rs || !cs)))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_gemm_quantized: a, b, c, bias or a scale is NULL");
  for (size_t bi = 0; bi < g->batch; ++bi) {
    const size_t abase = g->a.offset + bi * g->a.stride, bbase = g->b.offset + bi * g->b.stride;
    const size_t cbase = g->c.offset + bi * g->c.stride;
    for (size_t i = 0; i < g->m; ++i)
      for (size_t j = 0; j < g->n; ++j) {
        int64_t acc = 0;
        for (size_t p = 0; p < g->k; ++p) {
          const size_t ai = abase + (g->a.trans ? p * g->a.ld + i : i * g->a.ld + p);
          const size_t bj = bbase + (g->b.trans ? j * g->b.ld + p : p * g->b.ld + j);
          acc += (int64_t)(load_int8(ra, g->a.type, ai) - q.zpa) * (load_int8(rb, g->b.type, bj) - q.zpb);
        }
        const size_t ci = cbase + i * g->c.ld + j;
        if (q.out == CLFORGE__QOUT_S32) {
          ((int32_t *)c)[ci] = (int32_t)acc;
          continue;
        }
        const float s = rs[q.row_scale_offset + (q.row_per ? i : 0)] * cs[q.col_scale_offset + (q.col_per ? j : 0)];
        /* k == 0: no product term at all (the kernels get alpha 0: an
         * infinite alpha times an empty sum is not NaN), as clforge_gemm */
        float v = g->k ? g->alpha * ((float)acc * s) : 0.0f;
        if (g->beta != 0.0f) v = fmaf(g->beta, clforge__ref_load(c, g->c.type, ci), v);
        if (g->kernel_bias == CLFORGE_BIAS_ROW) v += clforge__ref_load(bias, g->bias.type, g->bias.offset + i);
        if (g->kernel_bias == CLFORGE_BIAS_COLUMN) v += clforge__ref_load(bias, g->bias.type, g->bias.offset + j);
        v = (float)clforge__ref_activate(g->act, v);
        if (q.out == CLFORGE__QOUT_INT8)
          ((uint8_t *)c)[ci] = (uint8_t)(clforge__quantize_one(v, q.inv_c, q.zpc, q.qmin, q.qmax) & 0xFF);
        else
          clforge__ref_store(c, g->c.type, ci, v);
      }
  }
  return CLFORGE_SUCCESS;
}
