/* Timing for benchmarks: OpenCL profiling events around an operation, with
 * a host-clock fallback, and a host clock for CPU peers.
 *
 * Device timing brackets the operation with two markers on an in-order
 * queue with profiling enabled:
 *
 *     marker(before); operation (any number of kernels or copies); marker(after)
 *
 * and takes END(after) - END(before). On an in-order queue `before` ends when
 * all earlier work has ended, and `after` when the whole operation has, so
 * the span covers every command of the operation and the gaps between them,
 * whoever enqueued them (clforge launches up to three kernels per GEMM;
 * CLBlast also may). When a run's profiling information is unavailable, the
 * whole measurement falls back to the host clock taken around
 * enqueue + clFinish for every run (never a mix of the two). */
#ifndef CLFORGE_BENCH_TIMER_H
#define CLFORGE_BENCH_TIMER_H

#include <CL/cl.h>
#include <stddef.h>

/** Monotonic host clock, in seconds. */
double clforge_bench_now(void);

/** Enqueue one run of the operation on `queue` (nothing else). Returns
 *  CL_SUCCESS or an error code of the caller's choice (an OpenCL code, a
 *  clforge status, a CLBlast status): it is handed back unchanged. */
typedef int (*clforge_bench_enqueue_fn)(void *user, cl_command_queue queue);

/** One host-side run (a CPU library call that returns when it is done). */
typedef void (*clforge_bench_host_fn)(void *user);

typedef enum clforge_bench_timer_kind {
  CLFORGE_BENCH_TIMER_EVENTS = 0, /* OpenCL profiling events */
  CLFORGE_BENCH_TIMER_WALL = 1    /* monotonic host clock */
} clforge_bench_timer_kind;

/** "events" or "wall". */
const char *clforge_bench_timer_name(clforge_bench_timer_kind kind);

typedef struct clforge_bench_timing {
  int runs;                      /* samples in seconds[] */
  double *seconds;               /* one per timed run (malloc'd; see _timing_free) */
  clforge_bench_timer_kind timer;
  char why_wall[160];            /* when timer is WALL: why events were not used */
} clforge_bench_timing;

/** Time `fn` on `queue`: `warmup` untimed runs (each waited for), then `runs`
 *  timed ones. Returns 0, or the first non-zero value `fn` returned, or an
 *  OpenCL error from the markers/clFinish (*failed_in names what failed;
 *  may be NULL). On success out->seconds holds `runs` samples. */
int clforge_bench_time_queue(cl_command_queue queue, clforge_bench_enqueue_fn fn, void *user, int warmup, int runs,
                             clforge_bench_timing *out, const char **failed_in);

/** Time a host function with the monotonic clock: `warmup` untimed runs,
 *  then `runs` timed ones. Returns 0, or -1 when out of memory. */
int clforge_bench_time_host(clforge_bench_host_fn fn, void *user, int warmup, int runs, clforge_bench_timing *out);

/** Free the samples; the struct can be reused. NULL is a no-op. */
void clforge_bench_timing_free(clforge_bench_timing *t);

#endif /* CLFORGE_BENCH_TIMER_H */
