/* Paired confirmation of a tuned winner (see confirm.h). */
#include "confirm.h"

#include <stdlib.h>
#include <string.h>

int clforge__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double clforge__median(double *v, int n) {
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof v[0], clforge__cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* splitmix64: a good generator in three lines, and the same on every
 * platform (rand() is not), so a decision reproduces. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

void clforge__confirm_decide(const double *ratios, int n, uint64_t seed, clforge__confirm_result *r) {
  memset(r, 0, sizeof *r);
  if (n <= 0) return;
  if (n > CLFORGE__CONFIRM_MAX_PAIRS) n = CLFORGE__CONFIRM_MAX_PAIRS;
  double v[CLFORGE__CONFIRM_MAX_PAIRS], sample[CLFORGE__CONFIRM_MAX_PAIRS];
  static double medians[CLFORGE__CONFIRM_RESAMPLES]; /* 16 KB: off the stack; the tuner runs on one thread */
  memcpy(v, ratios, sizeof v[0] * (size_t)n);
  r->pairs = n;
  r->median = clforge__median(v, n);
  if (n < CLFORGE__CONFIRM_MIN_PAIRS) return;
  uint64_t state = seed;
  for (int b = 0; b < CLFORGE__CONFIRM_RESAMPLES; ++b) {
    for (int i = 0; i < n; ++i) sample[i] = v[next_random(&state) % (uint64_t)n];
    medians[b] = clforge__median(sample, n);
  }
  qsort(medians, CLFORGE__CONFIRM_RESAMPLES, sizeof medians[0], clforge__cmp_double);
  r->lower = medians[(int)(CLFORGE__CONFIRM_QUANTILE * CLFORGE__CONFIRM_RESAMPLES)];
  r->accepted = r->lower > CLFORGE__CONFIRM_MIN_GAIN;
}

void clforge__confirm_run(const clforge__confirm_source *src, uint64_t seed, clforge__confirm_result *r) {
  double ratios[CLFORGE__CONFIRM_MAX_PAIRS];
  int n = 0, failed = 0;
  while (n < CLFORGE__CONFIRM_MAX_PAIRS && !src->must_stop(src->user) &&
         (n < CLFORGE__CONFIRM_MIN_PAIRS || !src->enough(n, src->user))) {
    double t[2];
    const int first = n % 2; /* even pairs: the built-in choice first */
    t[first] = src->burst(first, src->user);
    t[!first] = t[first] > 0 ? src->burst(!first, src->user) : 0.0;
    if (t[0] <= 0 || t[1] <= 0) {
      failed = 1;
      break;
    }
    ratios[n++] = t[0] / t[1];
  }
  clforge__confirm_decide(ratios, n, seed, r);
  if (failed) r->accepted = 0;
}
