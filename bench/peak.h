/* `clforge bench peak`: the device's multiply-add throughput (f32, and f16
 * where cl_khr_fp16 exists) and its streaming global-memory bandwidth,
 * measured with bench/peak.cl. They are the denominators of every
 * benchmark's "% peak" (GFLOP/s / f32 peak) and "% bw" (GB/s / bandwidth):
 * see report.h. */
#ifndef CLFORGE_BENCH_PEAK_H
#define CLFORGE_BENCH_PEAK_H

#include <clforge/clforge.h>
#include <stddef.h>
#include <stdio.h>

#include "report.h" /* clforge_bench_peaks */

/* One shape of the FMA kernel: vector_width lanes x the peak's chains per
 * work-item, work_items of them in work-groups of work_group (0: the
 * driver's choice), and the rates it measured (0: not measured or failed). */
typedef struct clforge_bench_peak_shape {
  int vector_width;
  size_t work_items, work_group;
  double f32_gflops, f16_gflops;
} clforge_bench_peak_shape;

/* Shapes measured at most; each rate is the best of CLFORGE_BENCH_PEAK_RUNS runs. */
enum { CLFORGE_BENCH_PEAK_MAX_SHAPES = 2, CLFORGE_BENCH_PEAK_RUNS = 10 };

typedef struct clforge_bench_peak {
  /* Each number is the best of `runs` timed runs after a warm-up; 0 where
   * it could not be measured (the note says why). */
  double f32_gflops;  /* 2 flops per multiply-add lane */
  double f16_gflops;  /* 0 without cl_khr_fp16 */
  double read_gbps;   /* bytes read */
  double copy_gbps;   /* bytes read + bytes written */
  unsigned long long bytes; /* per streamed buffer */
  unsigned long long cache_bytes; /* the device's global-memory cache (0: not reported) */
  int runs;
  /* The f32 FMA kernel's fastest shape: VW lanes x CHAINS accumulators per
   * work-item, work-items in groups of fma_work_group (0: the driver's). */
  int vector_width, chains;
  size_t fma_work_items, fma_work_group;
  /* Every shape measured (CPU devices: two, see clforge_bench_peak_fma_shapes);
   * f32_gflops and f16_gflops are the best of them. */
  clforge_bench_peak_shape shapes[CLFORGE_BENCH_PEAK_MAX_SHAPES];
  int n_shapes;
  const char *fma_op; /* the kernel's multiply-add: "fma" (the device has CL_FP_FMA) or "mad" */
  const char *timer;  /* "events" or "wall" */
  char f16_note[128]; /* why f16_gflops is 0 */
  /* CPU devices: the host's own FMA loop (host_fma.h) on host_threads
   * threads (the device's compute units), its runs interleaved with the f32
   * kernel's; 0 where not run (host_note says why). */
  double host_gflops;
  int host_threads;
  char host_note[160];
  char error[512]; /* the first failure, "" for none */
} clforge_bench_peak;

/** Below this fraction of the host loop's rate the OpenCL peak is reported
 *  as the kernel's shortfall, not the machine's peak (a warning). */
#define CLFORGE_BENCH_PEAK_HOST_MIN 0.9

/** The FMA kernel's shapes for a device (how many; at most
 *  CLFORGE_BENCH_PEAK_MAX_SHAPES), rates zeroed. CPU devices get two: VW
 *  lanes per work-item at the native vector width (a compiler that maps a
 *  work-item's vectors onto registers, PoCL), and one lane per work-item in
 *  work-groups of 128 (a compiler that vectorizes across work-items, like
 *  Intel's CPU runtime: 16 of them per 512-bit register). Others get one.
 *  preferred_width: CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT. */
int clforge_bench_peak_fma_shapes(cl_device_type type, cl_uint preferred_width, cl_uint compute_units,
                                  size_t max_work_group_size, clforge_bench_peak_shape *out);

/** Measure on the context's device and queue (a second or so; on CPU
 *  devices the host loop too, interleaved with the f32 kernel). Returns 0
 *  when the f32 throughput and both bandwidths were measured, else -1 with
 *  out->error saying what failed (what was measured is kept). */
int clforge_bench_peak_measure(clforge_context ctx, clforge_bench_peak *out);

/** The roofline's denominators: the f32 throughput (every op's arithmetic is
 *  f32, f16 and bf16 being storage), and the best of read and copy. */
double clforge_bench_peak_gflops(const clforge_bench_peak *p);
double clforge_bench_peak_gbps(const clforge_bench_peak *p);

/** The denominators every row divides by (report.h), from a measurement. */
void clforge_bench_peak_denominators(const clforge_bench_peak *p, clforge_bench_peaks *out);

/** A row above a peak it cannot pass (GFLOP/s above the FMA peak; GB/s above
 *  the streaming bandwidth with `bytes` beyond 4x the cache) means the peak
 *  was measured while the device was partly taken: measure again and keep
 *  the larger in *pk. Returns 1 with what happened in msg (for a warning)
 *  when it measured again, 0 otherwise. */
int clforge_bench_peak_recheck(clforge_context ctx, clforge_bench_peaks *pk, double gflops, double gbps, double bytes,
                               char *msg, size_t cap);

/** f32_gflops / host_gflops; 0 where the host loop did not run. */
double clforge_bench_peak_host_ratio(const clforge_bench_peak *p);

/** 1 and a message when the OpenCL f32 peak is below
 *  CLFORGE_BENCH_PEAK_HOST_MIN of the host loop's; 0 otherwise. */
int clforge_bench_peak_shortfall(const clforge_bench_peak *p, char *msg, size_t cap);

#endif /* CLFORGE_BENCH_PEAK_H */
