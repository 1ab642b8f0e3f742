/* Reference twins of clforge_norm and clforge_norm_backward: the
 * definitions in double (two-pass mean and variance). */
#include <math.h>
#include <stdlib.h>

#include "../core/error.h"
#include "../desc/norm_desc.h"
#include "element.h"

/* mean and 1/sqrt(var + eps) of row r (RMSNorm: mean 0, var = mean(x^2)). */
static void row_stats(const clforge__norm *d, const void *x, size_t r, double *mean, double *rstd) {
  const size_t base = d->x.offset + r * d->x.stride;
  double m = 0, v = 0;
  if (d->kind == CLFORGE_NORM_LAYER) {
    for (size_t j = 0; j < d->n; ++j) m += clforge__ref_load(x, d->x.type, base + j);
    m /= (double)d->n;
  }
  for (size_t j = 0; j < d->n; ++j) {
    const double t = clforge__ref_load(x, d->x.type, base + j) - m;
    v += t * t;
  }
  v /= (double)d->n;
  *mean = m, *rstd = 1.0 / sqrt(v + (double)d->eps);
}

static double param(const void *p, clforge_dtype t, size_t off, size_t j, double dflt) {
  return p ? clforge__ref_load(p, t, off + j) : dflt;
}

clforge_status clforge_ref_norm(const clforge_norm_desc *desc, const void *x, const void *weight, const void *bias,
                                void *y, float *stats) {
  clforge__clear_error(NULL);
  clforge__norm d;
  clforge_status st = clforge__norm_resolve(NULL, "norm reference", desc, &d);
  if (st != CLFORGE_SUCCESS || !d.rows) return st;
  if (!x || !y) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "norm reference: x or y is NULL");
  for (size_t r = 0; r < d.rows; ++r) {
    double mean, rstd;
    row_stats(&d, x, r, &mean, &rstd);
    if (stats) stats[d.stats_offset + 2 * r] = (float)mean, stats[d.stats_offset + 2 * r + 1] = (float)rstd;
    for (size_t j = 0; j < d.n; ++j) { /* x read before y written: y may be x */
      const double xh = (clforge__ref_load(x, d.x.type, d.x.offset + r * d.x.stride + j) - mean) * rstd;
      const double v = xh * param(weight, d.param_type, d.weight_offset, j, 1.0) +
                       param(bias, d.param_type, d.bias_offset, j, 0.0);
      clforge__ref_store(y, d.y.type, d.y.offset + r * d.y.stride + j, (float)v);
    }
  }
  return CLFORGE_SUCCESS;
}

clforge_status clforge_ref_norm_backward(const clforge_norm_desc *desc, const void *x, const void *weight,
                                         const void *dy, void *dx, void *dweight, void *dbias) {
  clforge__clear_error(NULL);
  clforge__norm d;
  clforge_status st = clforge__norm_resolve(NULL, "norm_backward reference", desc, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.rows && (!x || !dy || !dx))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "norm_backward reference: x, dy or dx is NULL");
  double *dw = calloc(d.n ? d.n : 1, sizeof *dw), *db = calloc(d.n ? d.n : 1, sizeof *db);
  double *g = malloc((d.n ? d.n : 1) * sizeof *g), *xh = malloc((d.n ? d.n : 1) * sizeof *xh);
  if (!dw || !db || !g || !xh) {
    free(dw), free(db), free(g), free(xh);
    return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "norm_backward reference: no memory");
  }
  for (size_t r = 0; r < d.rows; ++r) {
    double mean, rstd, sg = 0, sgx = 0;
    row_stats(&d, x, r, &mean, &rstd);
    for (size_t j = 0; j < d.n; ++j) {
      const double y = clforge__ref_load(dy, d.dy.type, d.dy.offset + r * d.dy.stride + j);
      xh[j] = (clforge__ref_load(x, d.x.type, d.x.offset + r * d.x.stride + j) - mean) * rstd;
      g[j] = y * param(weight, d.param_type, d.weight_offset, j, 1.0);
      sg += g[j], sgx += g[j] * xh[j];
      dw[j] += y * xh[j], db[j] += y;
    }
    sg /= (double)d.n, sgx /= (double)d.n;
    for (size_t j = 0; j < d.n; ++j) {
      const double v = rstd * (g[j] - (d.kind == CLFORGE_NORM_LAYER ? sg : 0.0) - xh[j] * sgx);
      clforge__ref_store(dx, d.dx.type, d.dx.offset + r * d.dx.stride + j, (float)v);
    }
  }
  for (size_t j = 0; j < d.n; ++j) {
    if (dweight) clforge__ref_store(dweight, d.param_type, d.dweight_offset + j, (float)dw[j]);
    if (dbias) clforge__ref_store(dbias, d.param_type, d.dbias_offset + j, (float)db[j]);
  }
  free(dw), free(db), free(g), free(xh);
  return CLFORGE_SUCCESS;
}
