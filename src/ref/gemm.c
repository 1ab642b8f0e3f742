/* Reference twin of clforge_gemm: double accumulation, one rounding to C's
 * storage type, on the same resolved descriptor as the device op. */
#include <math.h>
#include <stdint.h>

#include "../error.h"
#include "../gemm_desc.h"
#include "element.h"

clforge_status clforge_ref_gemm(const clforge_gemm_desc *desc, const void *a, const void *b, void *c,
                                const void *bias) {
  clforge__clear_error(NULL);
  clforge__gemm g;
  clforge_status st = clforge__gemm_resolve(NULL, desc, &g);
  if (st != CLFORGE_SUCCESS) return st;
  if (g.m == 0 || g.n == 0) return CLFORGE_SUCCESS;
  /* The row-major view may have swapped the user's a and b. */
  const void *ra = g.swapped ? b : a, *rb = g.swapped ? a : b;
  if (!c || (g.k && (!ra || !rb)) || (g.bias_mode && !bias))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "gemm reference: a, b, c or bias is NULL");
  for (size_t bi = 0; bi < g.batch; ++bi) {
    size_t abase = g.a.offset + bi * g.a.stride, bbase = g.b.offset + bi * g.b.stride;
    size_t cbase = g.c.offset + bi * g.c.stride;
    for (size_t i = 0; i < g.m; ++i)
      for (size_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (size_t p = 0; p < g.k; ++p) {
          size_t ai = abase + (g.a.trans ? p * g.a.ld + i : i * g.a.ld + p);
          size_t bj = bbase + (g.b.trans ? j * g.b.ld + p : p * g.b.ld + j);
          acc += (double)clforge__ref_load(ra, g.a.type, ai) * clforge__ref_load(rb, g.b.type, bj);
        }
        size_t ci = cbase + i * g.c.ld + j;
        /* alpha == 0 or k == 0: A and B do not count (BLAS), not even Inf/NaN */
        double v = g.alpha != 0.0f && g.k ? (double)g.alpha * acc : 0.0;
        if (g.beta != 0.0f) v += (double)g.beta * clforge__ref_load(c, g.c.type, ci);
        if (g.bias_mode == CLFORGE_BIAS_ROW) v += clforge__ref_load(bias, g.bias.type, g.bias.offset + i);
        if (g.bias_mode == CLFORGE_BIAS_COLUMN) v += clforge__ref_load(bias, g.bias.type, g.bias.offset + j);
        clforge__ref_store(c, g.c.type, ci, (float)clforge__ref_activate(g.act, v));
      }
  }
  return CLFORGE_SUCCESS;
}
