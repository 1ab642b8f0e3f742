#include "compare.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

void clforge__compare_f32(size_t n, const float *got, const float *want, clforge__error_stats *s) {
  memset(s, 0, sizeof *s);
  s->count = n;
  double sum_sq_err = 0, sum_sq_want = 0;
  for (size_t i = 0; i < n; ++i) {
    float g = got[i], w = want[i];
    int gn = isnan(g), wn = isnan(w);
    if (gn || wn || isinf(g) || isinf(w)) {
      if ((gn && wn) || (!gn && !wn && g == w)) continue; /* NaN~NaN, Inf == Inf */
      if (!s->special_mismatches && !s->bit_mismatches) s->first_mismatch = i;
      s->special_mismatches++;
      s->bit_mismatches++;
      continue;
    }
    if (bits_of(g) != bits_of(w)) {
      if (!s->special_mismatches && !s->bit_mismatches) s->first_mismatch = i;
      s->bit_mismatches++;
    }
    double err = fabs((double)g - (double)w), aw = fabs((double)w);
    if (aw > s->max_want) s->max_want = aw;
    if (err > s->max_abs) s->max_abs = err, s->max_abs_index = i;
    if (aw > 0 && err / aw > s->max_rel) s->max_rel = err / aw;
    sum_sq_err += err * err;
    sum_sq_want += aw * aw;
  }
  if (sum_sq_want > 0) s->nrmse = sqrt(sum_sq_err / sum_sq_want);
  else s->nrmse = sum_sq_err > 0 ? INFINITY : 0;
}

/* Storage rounding of the result dominates for f16/bf16: a few units of the
 * format's epsilon (2^-11 and 2^-8); f32 allows for accumulation order. */
clforge__tolerance clforge__tolerance_for(clforge_dtype dtype) {
  clforge__tolerance t = {0, 1e-5, 1e-4};
  if (dtype == CLFORGE_F16) t.nrmse = 1e-3, t.max_abs_scaled = 4e-3;
  if (dtype == CLFORGE_BF16) t.nrmse = 8e-3, t.max_abs_scaled = 3e-2;
  return t;
}

clforge__tolerance clforge__tolerance_exact(void) {
  clforge__tolerance t = {1, 0, 0};
  return t;
}

int clforge__within_tolerance(const clforge__error_stats *s, clforge__tolerance tol) {
  if (s->special_mismatches) return 0;
  if (tol.exact) return s->bit_mismatches == 0;
  if (s->nrmse > tol.nrmse) return 0;
  double scale = s->max_want > 0 ? s->max_want : 1;
  return s->max_abs / scale <= tol.max_abs_scaled;
}

size_t clforge__worst_index(const clforge__error_stats *s, clforge__tolerance tol) {
  if (s->special_mismatches || (tol.exact && s->bit_mismatches)) return s->first_mismatch;
  return s->max_abs_index;
}
