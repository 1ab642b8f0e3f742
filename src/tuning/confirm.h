/* Confirming a tuned winner against the built-in choice (issue 32): paired,
 * interleaved bursts of the two, the median of the per-pair speed-ups and a
 * seeded bootstrap lower bound of that median. Pure statistics and the
 * pairing loop over callbacks, no OpenCL, so tests can feed it noise
 * (tests/test_tune_confirm.c). docs/tuning.md, "How a problem is tuned". */
#ifndef CLFORGE_SRC_TUNING_CONFIRM_H
#define CLFORGE_SRC_TUNING_CONFIRM_H

#include <stdint.h>

/* A tuned value is kept only when the lower bound of its median speed-up
 * over the built-in choice is above this: a few per cent is what two
 * measurements of one kernel differ by on a shared machine. */
#define CLFORGE__CONFIRM_MIN_GAIN 1.05
/* The lower bound is this quantile of the bootstrapped medians (one-sided
 * 95 % confidence). */
#define CLFORGE__CONFIRM_QUANTILE 0.05

enum {
  CLFORGE__CONFIRM_RESAMPLES = 2000,
  /* Fewer pairs than this never confirm (the bootstrap of a median of a
   * handful of values is too coarse to bound anything). */
  CLFORGE__CONFIRM_MIN_PAIRS = 8,
  CLFORGE__CONFIRM_MAX_PAIRS = 32
};

typedef struct clforge__confirm_result {
  int pairs;       /* ratios measured */
  double median;   /* of t_builtin / t_candidate (0 without pairs) */
  double lower;    /* bootstrap lower bound of the median (0 below MIN_PAIRS) */
  int accepted;    /* pairs >= MIN_PAIRS and lower > MIN_GAIN */
} clforge__confirm_result;

/* qsort comparator for doubles. */
int clforge__cmp_double(const void *a, const void *b);

/* The median of v[0..n) (sorts v); 0 when n is 0. */
double clforge__median(double *v, int n);

/* The decision on n ratios t_builtin / t_candidate; seed makes the
 * bootstrap reproducible. ratios is left as it was. */
void clforge__confirm_decide(const double *ratios, int n, uint64_t seed, clforge__confirm_result *r);

/* Where the pairs' timings come from (the tuner: bursts of real runs). */
typedef struct clforge__confirm_source {
  /* One burst of `which` (0: the built-in choice, 1: the candidate): its
   * time in seconds, <= 0 when it failed. */
  double (*burst)(int which, void *user);
  /* 1 when no further pair may start (budget spent, stop requested). */
  int (*must_stop)(void *user);
  /* 1 when the pairs so far (at least MIN_PAIRS) took their share of time. */
  int (*enough)(int pairs, void *user);
  void *user;
} clforge__confirm_source;

/* Measure pairs, alternating which of the two runs first (A B, B A, ...) so
 * that a drift of the machine's speed favours neither, until MAX_PAIRS or
 * src->enough; then decide as clforge__confirm_decide. src->must_stop ends
 * it early, the pairs so far deciding (below MIN_PAIRS: not accepted); a
 * failed burst is never accepted. */
void clforge__confirm_run(const clforge__confirm_source *src, uint64_t seed, clforge__confirm_result *r);

#endif
