/* What every `clforge bench <op>` does around its cases: the context on the
 * default device, the device's peak measured once at the start (the
 * denominators of every row's fractions; or the one kept from an earlier
 * run, bench/peak_store.h) and again when a row passes it,
 * the progress line on a terminal, warnings, and the first lines of a
 * table. */
#ifndef CLFORGE_BENCH_SESSION_H
#define CLFORGE_BENCH_SESSION_H

#include <clforge/clforge.h>

#include "report.h"

typedef struct clforge_bench_session {
  const char *op; /* "gemm" */
  clforge_context ctx;
  cl_context cl_ctx;
  cl_command_queue queue;
  clforge_device_info info;
  char device[256];   /* the device's name as rows give it */
  char platform[160];
  int progress;       /* stderr is a terminal: a progress line while measuring */
  int peak_on;        /* the peak was asked for (not --no-peak) */
  clforge_bench_peaks peak; /* zeros when not measured */
  double peak_age_s;        /* the kept peak's age (bench/peak_store.h); -1: measured in this run */
} clforge_bench_session;

/** A context (validation off while timing) and, when measure_peak, the
 *  device's peak. Returns 0, or 1 after "clforge bench <op>: no device: ...". */
int clforge_bench_session_open(clforge_bench_session *s, const char *op, int measure_peak);
void clforge_bench_session_close(clforge_bench_session *s);

/** "  <what> ..." on stderr's line when it is a terminal; cleared by the next
 *  warning or row. */
void clforge_bench_progress(const clforge_bench_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void clforge_bench_progress_clear(const clforge_bench_session *s);

/** "clforge bench <op>: warning: <message>" on stderr. */
void clforge_bench_warn(const clforge_bench_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Before a measured row is written: when it passes a peak it cannot pass
 *  (clforge_bench_peak_recheck), measure the peak again, keep the larger
 *  and warn, naming the row by `label`. A row that ran f16 arithmetic
 *  (arith, a clforge_compute_type) has its bandwidth checked only: its
 *  GFLOP/s may pass the f32 peak, and the f16 peak is not re-measured. */
void clforge_bench_session_recheck(clforge_bench_session *s, const char *label, int arith, double gflops,
                                   double gbps, double bytes);

/** "clforge <version> bench <op> on <device> (<platform>)". */
void clforge_bench_print_title(const clforge_bench_session *s);

/** The table's line about its denominators, when measured: the f32 peak
 *  (and the host loop's) and the bandwidth, the columns `flop_col` (NULL:
 *  no flop rate in this table) and `bw_col` divide by them. */
void clforge_bench_print_peak(const clforge_bench_session *s, const char *flop_col, const char *bw_col);

#endif /* CLFORGE_BENCH_SESSION_H */
