/* Comparing a device result with the reference: error statistics and the
 * per-dtype tolerances, in one place for tests, the tuner and validation. */
#ifndef CLFORGE_SRC_REF_COMPARE_H
#define CLFORGE_SRC_REF_COMPARE_H

#include <stddef.h>

#include "clforge/clforge.h"

typedef struct clforge__error_stats {
  size_t count;
  double max_abs;        /* max |got - want| over finite pairs */
  double max_rel;        /* max |got - want| / |want| over finite pairs, want != 0 */
  double nrmse;          /* sqrt(sum (got-want)^2 / sum want^2); 0 when both sums are 0 */
  double max_want;       /* max |want| over finite values */
  size_t special_mismatches; /* NaN vs number, Inf vs finite or Inf of the other sign */
  size_t bit_mismatches;     /* elements whose bits differ, NaN vs NaN counted equal */
  size_t first_mismatch; /* first special or bit mismatch (valid if any) */
  size_t max_abs_index;  /* where max_abs was seen */
} clforge__error_stats;

/* got and want are widened to f32 already (f16/bf16 widen exactly). */
void clforge__compare_f32(size_t n, const float *got, const float *want, clforge__error_stats *s);

typedef struct clforge__tolerance {
  int exact;             /* bits must match (NaN payloads aside) */
  double nrmse;          /* normalized RMS error allowed */
  double max_abs_scaled; /* max_abs / max_want allowed */
} clforge__tolerance;

/* Tolerance for results stored in `dtype` by ops that accumulate in f32. */
clforge__tolerance clforge__tolerance_for(clforge_dtype dtype);
/* Tolerance for exact ops (conversions, copies). */
clforge__tolerance clforge__tolerance_exact(void);

/* 1 when the statistics are within tolerance. */
int clforge__within_tolerance(const clforge__error_stats *s, clforge__tolerance tol);

/* The element that decides the verdict under tol: the first special (or,
 * when exact, bit) mismatch, else the one with the largest error. */
size_t clforge__worst_index(const clforge__error_stats *s, clforge__tolerance tol);

#endif
