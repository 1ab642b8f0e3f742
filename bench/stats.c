/* Median and nearest-rank percentiles. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double clforge_bench_median_sorted(const double *sorted, size_t n) {
  return (n % 2) ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double clforge_bench_percentile_sorted(const double *sorted, size_t n, double p) {
  /* rank = ceil(p/100 * n), 1-based; the small epsilon keeps 0.95 * 20 = 19
   * from becoming 20 through rounding of the product. */
  double r = ceil(p / 100.0 * (double)n - 1e-9);
  size_t rank = r < 1.0 ? 1 : (size_t)r;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

int clforge_bench_summarize(const double *samples, size_t n, clforge_bench_stats *out) {
  memset(out, 0, sizeof *out);
  if (n == 0) return -1;
  double *s = malloc(n * sizeof *s);
  if (!s) return -1;
  memcpy(s, samples, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += s[i];
  out->n = n;
  out->median = clforge_bench_median_sorted(s, n);
  out->p95 = clforge_bench_percentile_sorted(s, n, 95.0);
  out->min = s[0];
  out->max = s[n - 1];
  out->mean = sum / (double)n;
  free(s);
  return 0;
}
