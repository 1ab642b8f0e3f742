/* Benchmark results: one record per measured case, written as a table row
 * or as one JSON object per line. Op-neutral: an op names its own shape
 * dimensions (m, n, k, batch for GEMM) and tags (trans, path), and its peers. */
#ifndef CLFORGE_BENCH_REPORT_H
#define CLFORGE_BENCH_REPORT_H

#include <stdio.h>

enum { CLFORGE_BENCH_MAX_DIMS = 8, CLFORGE_BENCH_MAX_TAGS = 4, CLFORGE_BENCH_MAX_PEERS = 4 };

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

/** The denominators of a row's fractions (bench/peak.h), and what tells
 *  whether a fraction above 1 is the row's doing or a low denominator's. */
typedef struct clforge_bench_peaks {
  double gflops, gbps;            /* the OpenCL peak: "% peak", "% bw"; 0 = not measured */
  double host_gflops;             /* the host's own FMA loop on the same cores (CPU devices); 0 = none */
  unsigned long long cache_bytes; /* the device's global-memory cache; 0 = unknown */
} clforge_bench_peaks;

/** When gflops or gbps is above its peak: 1 and a note saying which
 *  denominator was low ("peak measured low: 120% of the OpenCL peak, 61% of
 *  the host's ...") or, for bandwidth, that the row's `bytes` fit the
 *  device's cache; 0 and "" otherwise. bytes 0: unknown. */
int clforge_bench_peak_note(const clforge_bench_peaks *p, double gflops, double gbps, double bytes, char *note,
                            size_t cap);

typedef struct clforge_bench_record {
  const char *op; /* "gemm" */
  int ndims;
  struct {
    const char *name;
    unsigned long long value;
  } dims[CLFORGE_BENCH_MAX_DIMS];
  const char *dtype;
  int ntags; /* extra string fields, e.g. trans, path */
  struct {
    const char *name;
    const char *value;
  } tags[CLFORGE_BENCH_MAX_TAGS];
  const char *provider; /* "clforge", "clforge-tiled", ... */
  int ok;               /* 0: the op failed or gave a wrong result: error says why */
  char error[512];
  double median_ms, p95_ms, gflops, gbps;
  /* The device's measured peak (bench/peak.h): the roofline's denominators,
   * the same for every op's rows; 0 = not measured. JSON: peak_gflops,
   * peak_gbps, frac_peak_flops = gflops / peak_gflops, frac_peak_bw =
   * gbps / peak_gbps, and peak_note where one is above 1; the table's
   * "% peak" and "% bw" columns. */
  clforge_bench_peaks peak;
  int runs, warmup;
  const char *timer;    /* "events" or "wall" */
  char timer_note[160]; /* why "wall" */
  const char *device;
  int npeers;
  clforge_bench_peer_result peers[CLFORGE_BENCH_MAX_PEERS];
} clforge_bench_record;

/** A device name as drivers give it, for a record's `device`: surrounding
 *  blanks trimmed, control characters replaced by '?'. */
void clforge_bench_device_label(const char *in, char *out, size_t cap);

/** gflops / peak and gbps / bandwidth: 0 where the denominator is 0. */
double clforge_bench_fraction(double value, double peak);

/** value / peak as a table cell: "45%", "2.5%", "-" without a peak or a
 *  value; above 100% with " [k]", the note (k > 0) that says why. */
void clforge_bench_fmt_percent(char *buf, size_t cap, double value, double peak, int k);

/** JSON pieces every benchmark's lines share (cJSON objects): a number with
 *  six significant digits, or null unless valid and finite; a string or null;
 *  and an object printed as one line and deleted (0, or -1 when out of
 *  memory or the write failed). */
struct cJSON;
void clforge_bench_json_number(struct cJSON *o, const char *key, int valid, double v);
void clforge_bench_json_string(struct cJSON *o, const char *key, const char *s);
int clforge_bench_json_line(FILE *out, struct cJSON *o);

/** The peak fields every row has, in this order: peak_gflops, peak_gbps,
 *  frac_peak_flops, frac_peak_bw (null without a peak, or unless ok), and
 *  peak_note where a fraction is above 1 (clforge_bench_peak_note). */
void clforge_bench_json_peaks(struct cJSON *o, const clforge_bench_peaks *p, int ok, double gflops, double gbps,
                              double bytes);

/** Print the record as one line of JSON (no other output). Returns 0, or -1
 *  when out of memory or the write failed. */
int clforge_bench_print_json(FILE *out, const clforge_bench_record *r);

/** A table printed row by row as results arrive; notes (why a cell is
 *  empty, host-clock rows, errors) are collected and printed once at the end. */
typedef struct clforge_bench_table {
  FILE *out;
  int printed_header;
  int peak_columns; /* the first record had a peak: "% peak" and "% bw" are shown */
  int widths[32];
  int ncols;
  int nnotes;
  char notes[32][640];
  int more_notes; /* notes that did not fit */
} clforge_bench_table;

void clforge_bench_table_init(clforge_bench_table *t, FILE *out);
/** Print one row (the header first, from the first record's dims and peers). */
void clforge_bench_table_row(clforge_bench_table *t, const clforge_bench_record *r);
/** Print the collected notes. */
void clforge_bench_table_finish(clforge_bench_table *t);

#endif /* CLFORGE_BENCH_REPORT_H */
