/* `clforge bench peak`: the device's multiply-add throughput (f32, and f16
 * where cl_khr_fp16 exists) and its streaming global-memory bandwidth,
 * measured with bench/peak.cl. They are the denominators of every
 * benchmark's "% peak" (GFLOP/s / f32 peak) and "% bw" (GB/s / bandwidth):
 * see report.h. */
#ifndef CLFORGE_BENCH_PEAK_H
#define CLFORGE_BENCH_PEAK_H

#include <clforge/clforge.h>
#include <stdio.h>

typedef struct clforge_bench_peak {
  /* Each number is the best of `runs` timed runs after a warm-up; 0 where
   * it could not be measured (the note says why). */
  double f32_gflops;  /* 2 flops per multiply-add lane */
  double f16_gflops;  /* 0 without cl_khr_fp16 */
  double read_gbps;   /* bytes read */
  double copy_gbps;   /* bytes read + bytes written */
  unsigned long long bytes; /* per streamed buffer */
  int runs;
  int vector_width, chains; /* the FMA kernel's shape: VW lanes x CHAINS accumulators per work-item */
  size_t fma_work_items;
  const char *timer;  /* "events" or "wall" */
  char f16_note[128]; /* why f16_gflops is 0 */
  char error[512];    /* the first failure, "" for none */
} clforge_bench_peak;

/** Measure on the context's device and queue (a second or so). Returns 0
 *  when the f32 throughput and both bandwidths were measured, else -1 with
 *  out->error saying what failed (what was measured is kept). */
int clforge_bench_peak_measure(clforge_context ctx, clforge_bench_peak *out);

/** The roofline's denominators: the f32 throughput (every op's arithmetic is
 *  f32, f16 and bf16 being storage), and the best of read and copy. */
double clforge_bench_peak_gflops(const clforge_bench_peak *p);
double clforge_bench_peak_gbps(const clforge_bench_peak *p);

/** `clforge bench peak [--json]`. argv[0] is "peak". Returns the exit status:
 *  0 success, 1 a measurement failed or no device, 2 usage error. */
int clforge_bench_peak_main(int argc, char **argv);
void clforge_bench_peak_help(FILE *out);

#endif /* CLFORGE_BENCH_PEAK_H */
