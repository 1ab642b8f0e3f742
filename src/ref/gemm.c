/* Reference twin of clforge_gemm: double accumulation, one rounding to C's
 * storage type, on the same resolved descriptor as the device op. */
#include <math.h>
#include <stdint.h>

#include "../core/error.h"
#include "../desc/gemm_desc.h"
#include "element.h"

clforge_status clforge_ref_gemm(const clforge_gemm_desc *desc, const void *a, const void *b, void *c,
                                const void *bias) {
  clforge_gemm_desc d;
  if (desc && desc->aux_mode != CLFORGE_GEMM_AUX_NONE) {
    clforge__clear_error(NULL);
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "gemm reference: desc.aux_mode needs clforge_ref_gemm_ex");
  }
  if (desc) d = *desc;
  return clforge_ref_gemm_ex(desc ? &d : NULL, a, b, c, (void *)(uintptr_t)bias, NULL);
}

/* alpha op(A) op(B) at (i, j) of batch item bi, product column j. */
static double product_term(const clforge__gemm *g, const void *ra, const void *rb, size_t bi, size_t i, size_t j) {
  const size_t abase = g->a.offset + bi * g->a.stride, bbase = g->b.offset + bi * g->b.stride;
  double acc = 0;
  for (size_t p = 0; p < g->k; ++p) {
    size_t ai = abase + (g->a.trans ? p * g->a.ld + i : i * g->a.ld + p);
    size_t bj = bbase + (g->b.trans ? j * g->b.ld + p : p * g->b.ld + j);
    const float bv = g->b.type == CLFORGE_Q8_0 ? clforge__ref_q8_0_at(rb, bbase + j * g->b.ld, p) /* trans_b */
                                               : clforge__ref_load(rb, g->b.type, bj);
    acc += (double)clforge__ref_load(ra, g->a.type, ai) * bv;
  }
  /* alpha == 0 or k == 0: A and B do not count (BLAS), not even Inf/NaN */
  return g->alpha != 0.0f && g->k ? (double)g->alpha * acc : 0.0;
}

/* The bias of (i, j), 0 without one (added after beta's term, as the
 * kernels do). */
static double bias_term(const clforge__gemm *g, const void *bias, size_t i, size_t j) {
  if (g->kernel_bias == CLFORGE_BIAS_ROW) return clforge__ref_load(bias, g->bias.type, g->bias.offset + i);
  if (g->kernel_bias == CLFORGE_BIAS_COLUMN) return clforge__ref_load(bias, g->bias.type, g->bias.offset + j);
  return 0.0;
}

/* CLFORGE_GEMM_GATE_INTERLEAVED: C[i][j] = act(z[2j]) * z[2j + 1]. */
static void gated(const clforge__gemm *g, const void *ra, const void *rb, void *c, const void *bias) {
  for (size_t bi = 0; bi < g->batch; ++bi)
    for (size_t i = 0; i < g->m; ++i)
      for (size_t j = 0; j < g->n / 2; ++j) {
        const double gate = product_term(g, ra, rb, bi, i, 2 * j) + bias_term(g, bias, i, 2 * j);
        const double up = product_term(g, ra, rb, bi, i, 2 * j + 1) + bias_term(g, bias, i, 2 * j + 1);
        clforge__ref_store(c, g->c.type, g->c.offset + bi * g->c.stride + i * g->c.ld + j,
                           (float)(clforge__ref_activate(g->act, gate) * up));
      }
}

clforge_status clforge_ref_gemm_ex(const clforge_gemm_desc *desc, const void *a, const void *b, void *c, void *bias,
                                   void *aux) {
  clforge__clear_error(NULL);
  clforge__gemm g;
  clforge_status st = clforge__gemm_resolve(NULL, desc, &g);
  if (st != CLFORGE_SUCCESS) return st;
  if (g.m == 0 || g.n == 0) return CLFORGE_SUCCESS;
  /* The row-major view may have swapped the user's a and b. */
  const void *ra = g.swapped ? b : a, *rb = g.swapped ? a : b;
  if (!c || (g.k && (!ra || !rb)) || (g.bias_mode && !bias) || (g.aux.extent > g.aux.offset && !aux))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "gemm reference: a, b, c, bias or aux is NULL");
  if (g.gate) {
    gated(&g, ra, rb, c, bias);
    return CLFORGE_SUCCESS;
  }
  const int backward = g.aux_mode == CLFORGE_GEMM_AUX_BACKWARD;
  for (size_t bi = 0; bi < g.batch; ++bi) {
    size_t cbase = g.c.offset + bi * g.c.stride, xbase = g.aux.offset + bi * g.c.stride;
    for (size_t i = 0; i < g.m; ++i)
      for (size_t j = 0; j < g.n; ++j) {
        size_t ci = cbase + i * g.c.ld + j, xi = xbase + i * g.c.ld + j;
        double v = product_term(&g, ra, rb, bi, i, j);
        if (g.beta != 0.0f) v += (double)g.beta * clforge__ref_load(c, g.c.type, ci);
        v += bias_term(&g, bias, i, j);
        if (g.aux_mode == CLFORGE_GEMM_AUX_STORE) clforge__ref_store(aux, g.aux.type, xi, (float)v);
        if (backward && g.act != CLFORGE_ACT_NONE) v *= clforge__ref_dactivate(g.act, clforge__ref_load(aux, g.aux.type, xi));
        clforge__ref_store(c, g.c.type, ci, (float)(backward ? v : clforge__ref_activate(g.act, v)));
      }
  }
  if (backward && g.bias_mode) { /* the bias gradient: C as stored, summed along the bias's axis and the batch */
    const int per_row = g.bias_mode == CLFORGE_BIAS_ROW;
    for (size_t t = 0; t < (per_row ? g.m : g.n); ++t) {
      double s = 0;
      for (size_t bi = 0; bi < g.batch; ++bi)
        for (size_t u = 0; u < (per_row ? g.n : g.m); ++u)
          s += clforge__ref_load(c, g.c.type, g.c.offset + bi * g.c.stride + (per_row ? t * g.c.ld + u : u * g.c.ld + t));
      clforge__ref_store(bias, g.bias.type, g.bias.offset + t, (float)s);
    }
  }
  return CLFORGE_SUCCESS;
}
