/* The benchmarks' tables: columns an op declares once, rows printed cell by
 * cell as results arrive (the header before the first), and notes (why a
 * cell is empty, host-clock rows, a fraction above 100%) numbered [k] in the
 * cells and printed once at the end. The cells every op has are made here
 * too: times, rates, fractions of the peak, a peer's pair. */
#ifndef CLFORGE_BENCH_TABLE_H
#define CLFORGE_BENCH_TABLE_H

#include <stdio.h>

#include "report.h"

enum { CLFORGE_BENCH_TABLE_COLUMNS = 32, CLFORGE_BENCH_TABLE_NOTES = 48 };

typedef struct clforge_bench_table {
  FILE *out;
  int ncols, col; /* declared columns; the next cell's */
  struct {
    char name[48];
    int width, left; /* width 0: the last column, unpadded */
  } cols[CLFORGE_BENCH_TABLE_COLUMNS];
  int printed_header;
  int peak_columns;       /* clforge_bench_table_peak_columns added them */
  int nnotes, more_notes; /* more_notes: those that did not fit */
  char notes[CLFORGE_BENCH_TABLE_NOTES][768];
} clforge_bench_table;

void clforge_bench_table_init(clforge_bench_table *t, FILE *out);

/** Declare the next column: its header, its width (at least the header's;
 *  0 for an unpadded last column), left-aligned or not. */
void clforge_bench_table_column(clforge_bench_table *t, const char *name, int width, int left);

/** The next cell of the row (the header first, before the first row). */
void clforge_bench_table_cell(clforge_bench_table *t, const char *text);
void clforge_bench_table_cellf(clforge_bench_table *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** One left-aligned cell across the next `ncols` columns. */
void clforge_bench_table_span(clforge_bench_table *t, int ncols, const char *text);

/** End the row (cells not given are left blank). */
void clforge_bench_table_end_row(clforge_bench_table *t);

/** A note, stored once: its number for "[k]", or 0 when there is no room. */
int clforge_bench_table_note(clforge_bench_table *t, const char *text);

/** Print the notes. */
void clforge_bench_table_finish(clforge_bench_table *t);

/* ---- the columns and cells every op has */

/** "median ms", "p95 ms", then "GFLOP/s" (when `flops`) and "GB/s". */
void clforge_bench_table_result_columns(clforge_bench_table *t, int flops);

/** "% peak" (named `flop_col`; none when NULL) and "% bw", when the peak
 *  was measured (t->peak_columns says whether they were added). */
void clforge_bench_table_peak_columns(clforge_bench_table *t, const clforge_bench_peaks *pk, const char *flop_col);

/** "<peer> GFLOP/s" and "vs <peer>". */
void clforge_bench_table_peer_columns(clforge_bench_table *t, const char *peer, int width, int vs_width);

/** The cells of clforge_bench_table_result_columns for a measured row. */
void clforge_bench_table_results(clforge_bench_table *t, double median_ms, double p95_ms, const char *timer,
                                 const char *timer_note, int flops, double gflops, double gbps);


/** Milliseconds, GFLOP/s or GB/s as a cell: three significant digits or so. */
void clforge_bench_fmt_ms(char *buf, size_t cap, double ms);
void clforge_bench_fmt_rate(char *buf, size_t cap, double v);

/** value / peak as a cell: "45%", "2.5%", "-" without a peak or a value;
 *  above 100% with " [k]", the note (k > 0) that says why. */
void clforge_bench_fmt_percent(char *buf, size_t cap, double value, double peak, int k);

/** Median and p95 cells; a host-clock median gets a note saying why. */
void clforge_bench_table_times(clforge_bench_table *t, double median_ms, double p95_ms, const char *timer,
                               const char *timer_note);

/** A "word [k]" cell across `ncols` columns with `text` as its note: a row
 *  without numbers ("error", "unsupported", "n/a"). */
void clforge_bench_table_status(clforge_bench_table *t, int ncols, const char *word, const char *text);

/** The "% peak" (unless `flops` is 0) and "% bw" cells of a measured row,
 *  with the note that says which denominator was low where one is above
 *  100% (clforge_bench_peak_note). */
void clforge_bench_table_peak_cells(clforge_bench_table *t, const clforge_bench_peaks *pk, int flops, double gflops,
                                    double gbps, double bytes);

/** A peer's two cells: its GFLOP/s (its note's [k] where it has one) and
 *  clforge's GFLOP/s over it ("-" unless both have numbers). */
void clforge_bench_table_peer(clforge_bench_table *t, const clforge_bench_peer_result *p, int ours_ok,
                              double ours_gflops);

#endif /* CLFORGE_BENCH_TABLE_H */
