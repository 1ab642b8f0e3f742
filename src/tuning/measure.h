/* Timing one tuning candidate: first run (builds the kernels; compile time
 * is reported, not scored), check against the reference, then a median of
 * timed runs bracketed by profiling markers. */
#ifndef CLFORGE_SRC_TUNING_MEASURE_H
#define CLFORGE_SRC_TUNING_MEASURE_H

#include "../core/clock.h"
#include "tune_op.h"

typedef struct clforge__measurement {
  double median_s;   /* of the timed runs (the one run when cut short) */
  double build_s;    /* first run's wall time beyond a timed run: mostly compilation */
  int runs;
} clforge__measurement;

/* Run op on state with whatever parameters ctx is forced to. `corrupt`
 * (tests only) spoils the output before the check. best_s > 0 cuts a
 * candidate short when its first timed run is 3x slower. why gets the
 * reason for anything but CLFORGE_TUNE_OK. */
clforge_tune_outcome clforge__measure(clforge_context ctx, const clforge__tune_op *op, void *state, int corrupt,
                                      double best_s, clforge__measurement *m, char *why, size_t why_cap);

/* One timed run: END(after) - END(before) of two markers around the op on
 * the in-order queue covers all of its kernels; the host clock when the
 * driver gives no profiling information. */
clforge_status clforge__timed_run(clforge_context ctx, const clforge__tune_op *op, void *state, double *seconds);

#endif
