/* Timing one tuning candidate (see measure.h). */
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/context.h"
#include "confirm.h"

/* At least MIN_RUNS timed runs, more (up to MAX_RUNS) until they add up to
 * MIN_TOTAL_S: short kernels need many samples for a stable median. */
enum { MIN_RUNS = 5, MAX_RUNS = 51 };
#define MIN_TOTAL_S 0.05
#define CUT_FACTOR 3.0

clforge_status clforge__timed_run(clforge_context ctx, const clforge__tune_op *op, void *state, double *seconds) {
  cl_event before = NULL, after = NULL;
  cl_int err = clFinish(ctx->queue);
  double t0 = clforge__now();
  if (err == CL_SUCCESS) err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &before);
  clforge_status st = err == CL_SUCCESS ? op->run(state) : (clforge_status)err;
  if (st == CLFORGE_SUCCESS) st = (clforge_status)clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &after);
  if (st == CLFORGE_SUCCESS) st = (clforge_status)clWaitForEvents(1, &after);
  double t1 = clforge__now();
  cl_ulong e0 = 0, e1 = 0;
  if (st == CLFORGE_SUCCESS &&
      clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof e0, &e0, NULL) == CL_SUCCESS &&
      clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof e1, &e1, NULL) == CL_SUCCESS && e1 > e0)
    *seconds = 1e-9 * (double)(e1 - e0);
  else
    *seconds = t1 - t0;
  if (before) clReleaseEvent(before);
  if (after) clReleaseEvent(after);
  return st;
}

clforge_tune_outcome clforge__measure(clforge_context ctx, const clforge__tune_op *op, void *state, int corrupt,
                                      double best_s, clforge__measurement *m, char *why, size_t why_cap) {
  memset(m, 0, sizeof *m);
  why[0] = '\0';
  if (op->prepare) op->prepare(state);
  double t0 = clforge__now();
  clforge_status st = op->run(state); /* builds every kernel the run needs */
  if (st == CLFORGE_SUCCESS) st = (clforge_status)clFinish(ctx->queue);
  double first = clforge__now() - t0;
  if (st != CLFORGE_SUCCESS) {
    snprintf(why, why_cap, "%s", clforge_last_error(ctx)[0] ? clforge_last_error(ctx) : clforge_status_string(st));
    return st == CLFORGE_BUILD_FAILED ? CLFORGE_TUNE_BUILD_FAILED : CLFORGE_TUNE_RUN_FAILED;
  }
  if (op->check(state, corrupt, why, why_cap) != CLFORGE_SUCCESS) return CLFORGE_TUNE_WRONG;
  double t[MAX_RUNS], total = 0;
  int n = 0;
  clforge_tune_outcome out = CLFORGE_TUNE_OK;
  for (; n < MAX_RUNS && (n < MIN_RUNS || total < MIN_TOTAL_S); ++n) {
    st = clforge__timed_run(ctx, op, state, &t[n]);
    if (st != CLFORGE_SUCCESS) {
      snprintf(why, why_cap, "timed run: %s", clforge_last_error(ctx)[0] ? clforge_last_error(ctx) : clforge_status_string(st));
      return CLFORGE_TUNE_RUN_FAILED;
    }
    if (n == 0 && best_s > 0 && t[0] > CUT_FACTOR * best_s) { /* hopeless: do not spend more runs on it */
      snprintf(why, why_cap, "cut short: %.3g ms, best so far %.3g ms", t[0] * 1e3, best_s * 1e3);
      out = CLFORGE_TUNE_SLOW;
      ++n;
      break;
    }
    total += t[n];
  }
  qsort(t, (size_t)n, sizeof t[0], clforge__cmp_double);
  m->runs = n;
  m->median_s = t[n / 2];
  m->build_s = first > t[0] ? first - t[0] : 0.0;
  return out;
}
