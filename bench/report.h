/* What every benchmark's rows carry and how they are written as JSON lines:
 * the peers' results (with the notes that say why one has no number), the
 * peak's fractions (with the note that says which denominator was low when
 * one is above 1), and the JSON pieces each op's line is built from, in the
 * op's own field order. The table's side is table.h. */
#ifndef CLFORGE_BENCH_REPORT_H
#define CLFORGE_BENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "timer.h"

/** Another implementation measured on the same case. JSON keys are
 *  <name>_gflops, vs_<name> (ours / theirs), <name>_median_ms, <name>_timer
 *  and <name>_note; numbers are null unless ok. */
typedef struct clforge_bench_peer_result {
  const char *name;  /* "clblast", "openblas" */
  int ok;            /* 1: the numbers below are valid */
  double median_ms, gflops;
  const char *timer; /* "events" or "wall" */
  char note[256];    /* why the numbers are null; or, when ok, a remark; "" for none */
} clforge_bench_peer_result;

/** Every peer of a row without a number, for one reason ("not run
 *  (--no-peers)", "out of host memory"). */
void clforge_bench_peers_not_run(clforge_bench_peer_result *peers, int n, const char *why);

/** A peer's numbers from its timing: the median run and `flops` per run. */
void clforge_bench_peer_timed(clforge_bench_peer_result *p, const clforge_bench_timing *t, double flops);

/** A peer's whole result against clforge's (`n` floats; max |difference| /
 *  max |want| below `tol`). On a mismatch the peer loses its numbers, its
 *  note says by how much ("of max |<what>|"), and 1 is returned. */
int clforge_bench_peer_differs(clforge_bench_peer_result *p, const float *got, const float *want, size_t n, double tol,
                               const char *what);

/** The denominators of a row's fractions (bench/peak.h), and what tells
 *  whether a fraction above 1 is the row's doing or a low denominator's. */
typedef struct clforge_bench_peaks {
  double gflops, gbps;            /* the OpenCL peak: "% peak", "% bw"; 0 = not measured */
  double host_gflops;             /* the host's own FMA loop on the same cores (CPU devices); 0 = none */
  unsigned long long cache_bytes; /* the device's global-memory cache; 0 = unknown */
  double f16_gflops;              /* the f16 FMA peak (cl_khr_fp16 devices); 0 = not measured */
} clforge_bench_peaks;

/** The denominators of a row whose kernels ran `arith` (a
 *  clforge_compute_type; 0 or 32F: f32): f16 arithmetic is measured
 *  against the f16 FMA peak (none where it was not measured), f32 against
 *  the f32 one. */
clforge_bench_peaks clforge_bench_peaks_for(const clforge_bench_peaks *p, int arith);

/** When gflops or gbps is above its peak: 1 and a note saying which
 *  denominator was low ("peak measured low: 120% of the OpenCL peak, 61% of
 *  the host's ...") or, for bandwidth, that the row's `bytes` fit the
 *  device's cache; 0 and "" otherwise. bytes 0: unknown. */
int clforge_bench_peak_note(const clforge_bench_peaks *p, double gflops, double gbps, double bytes, char *note,
                            size_t cap);

/** gflops / peak and gbps / bandwidth: 0 where the denominator is 0. */
double clforge_bench_fraction(double value, double peak);

/** A device name as drivers give it, for a row's `device`: surrounding
 *  blanks trimmed, control characters replaced by '?'. */
void clforge_bench_device_label(const char *in, char *out, size_t cap);

/* ------------------------------------------------------------ JSON lines */

struct cJSON;

/** A number with six significant digits, or null unless valid and finite. */
void clforge_bench_json_number(struct cJSON *o, const char *key, int valid, double v);
/** A string, or null. */
void clforge_bench_json_string(struct cJSON *o, const char *key, const char *s);
/** Print the object as one line and delete it. 0, or -1 when out of memory
 *  or the write failed. */
int clforge_bench_json_line(FILE *out, struct cJSON *o);

/** median_ms, p95_ms: null unless ok. */
void clforge_bench_json_times(struct cJSON *o, int ok, double median_ms, double p95_ms);

/** The peak fields, in this order: peak_gflops, peak_gbps, frac_peak_flops,
 *  frac_peak_bw (null without a peak, or unless ok), and peak_note where a
 *  fraction is above 1 (clforge_bench_peak_note). */
void clforge_bench_json_peaks(struct cJSON *o, const clforge_bench_peaks *p, int ok, double gflops, double gbps,
                              double bytes);

/** runs, warmup, timer (null unless given), timer_note (only when given and
 *  not ""), device. */
void clforge_bench_json_run(struct cJSON *o, int runs, int warmup, const char *timer, const char *timer_note,
                            const char *device);

/** Each peer's fields (see clforge_bench_peer_result); vs_<name> is
 *  ours_gflops over the peer's, null unless both have numbers. */
void clforge_bench_json_peers(struct cJSON *o, const clforge_bench_peer_result *peers, int n, int ours_ok,
                              double ours_gflops);

#endif /* CLFORGE_BENCH_REPORT_H */
