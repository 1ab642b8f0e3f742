/* Summary statistics of benchmark samples. */
#ifndef CLFORGE_BENCH_STATS_H
#define CLFORGE_BENCH_STATS_H

#include <stddef.h>

typedef struct clforge_bench_stats {
  size_t n;
  double median; /* middle value; mean of the two middle ones for even n */
  double p95;    /* nearest-rank 95th percentile: the ceil(0.95 n)-th smallest */
  double min, max, mean;
} clforge_bench_stats;

/** Summarize n > 0 samples (not modified; sorted in a copy). Returns 0, or
 *  -1 for n == 0 or when out of memory. */
int clforge_bench_summarize(const double *samples, size_t n, clforge_bench_stats *out);

/** Nearest-rank percentile (0 < p <= 100) of n > 0 values sorted ascending. */
double clforge_bench_percentile_sorted(const double *sorted, size_t n, double p);

/** Median of n > 0 values sorted ascending. */
double clforge_bench_median_sorted(const double *sorted, size_t n);

#endif /* CLFORGE_BENCH_STATS_H */
