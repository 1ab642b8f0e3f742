/* The benchmarks' plain-text tables. */
#include "table.h"

#include <stdarg.h>
#include <string.h>

void clforge_bench_table_init(clforge_bench_table *t, FILE *out) {
  memset(t, 0, sizeof *t);
  t->out = out;
}

void clforge_bench_table_column(clforge_bench_table *t, const char *name, int width, int left) {
  if (t->ncols >= CLFORGE_BENCH_TABLE_COLUMNS) return;
  const int len = (int)strlen(name);
  snprintf(t->cols[t->ncols].name, sizeof t->cols[0].name, "%.47s", name); /* longer names are cut */
  t->cols[t->ncols].width = width && len > width ? len : width;
  t->cols[t->ncols].left = left;
  ++t->ncols;
}

static void put(clforge_bench_table *t, int col, int width, const char *text) {
  const int left = col < t->ncols ? t->cols[col].left : 0;
  fprintf(t->out, "%s%*s", col ? "  " : "", width ? (left ? -width : width) : 0, text);
}

static void header(clforge_bench_table *t) {
  int total = 0;
  for (int i = 0; i < t->ncols; ++i) {
    const int w = t->cols[i].width ? t->cols[i].width : (int)strlen(t->cols[i].name);
    put(t, i, t->cols[i].width, t->cols[i].name);
    total += w + (i ? 2 : 0);
  }
  fputc('\n', t->out);
  for (int i = 0; i < total; ++i) fputc('-', t->out);
  fputc('\n', t->out);
  t->printed_header = 1;
}

void clforge_bench_table_cell(clforge_bench_table *t, const char *text) {
  if (!t->printed_header) header(t);
  put(t, t->col, t->col < t->ncols ? t->cols[t->col].width : 0, text);
  ++t->col;
}

void clforge_bench_table_cellf(clforge_bench_table *t, const char *fmt, ...) {
  char buf[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  clforge_bench_table_cell(t, buf);
}

void clforge_bench_table_span(clforge_bench_table *t, int ncols, const char *text) {
  if (!t->printed_header) header(t);
  int width = 0;
  for (int i = 0; i < ncols && t->col + i < t->ncols; ++i) width += t->cols[t->col + i].width + (i ? 2 : 0);
  fprintf(t->out, "%s%-*s", t->col ? "  " : "", width, text);
  t->col += ncols;
}

void clforge_bench_table_end_row(clforge_bench_table *t) {
  fputc('\n', t->out);
  fflush(t->out);
  t->col = 0;
}

int clforge_bench_table_note(clforge_bench_table *t, const char *text) {
  for (int i = 0; i < t->nnotes; ++i)
    if (!strcmp(t->notes[i], text)) return i + 1;
  if (t->nnotes >= CLFORGE_BENCH_TABLE_NOTES) {
    t->more_notes++;
    return 0;
  }
  snprintf(t->notes[t->nnotes], sizeof t->notes[0], "%s", text);
  return ++t->nnotes;
}

void clforge_bench_table_finish(clforge_bench_table *t) {
  if (t->nnotes) fputc('\n', t->out);
  for (int i = 0; i < t->nnotes; ++i) fprintf(t->out, "[%d] %s\n", i + 1, t->notes[i]);
  if (t->more_notes) fprintf(t->out, "(%d more notes not shown; --json has them all)\n", t->more_notes);
  fflush(t->out);
}

/* ------------------------------------------------------------------ cells */

void clforge_bench_fmt_ms(char *buf, size_t cap, double v) {
  if (v >= 1000) snprintf(buf, cap, "%.0f", v);
  else if (v >= 1) snprintf(buf, cap, "%.2f", v);
  else snprintf(buf, cap, "%.4f", v);
}

void clforge_bench_fmt_rate(char *buf, size_t cap, double v) {
  if (v >= 100) snprintf(buf, cap, "%.0f", v);
  else if (v >= 10) snprintf(buf, cap, "%.1f", v);
  else snprintf(buf, cap, "%.2f", v);
}

void clforge_bench_fmt_percent(char *buf, size_t cap, double value, double peak, int k) {
  double v = 100.0 * clforge_bench_fraction(value, peak);
  if (!(peak > 0) || !(value > 0)) snprintf(buf, cap, "-");
  else if (v > 100 && k) snprintf(buf, cap, "%.0f%% [%d]", v, k);
  else snprintf(buf, cap, v >= 10 ? "%.0f%%" : "%.1f%%", v);
}

void clforge_bench_table_times(clforge_bench_table *t, double median_ms, double p95_ms, const char *timer,
                               const char *timer_note) {
  char buf[64], note[256];
  clforge_bench_fmt_ms(buf, sizeof buf, median_ms);
  if (timer && strcmp(timer, "events")) {
    snprintf(note, sizeof note, "timed with the host clock, not profiling events%s%s",
             timer_note && timer_note[0] ? ": " : "", timer_note ? timer_note : "");
    const int k = clforge_bench_table_note(t, note);
    const size_t len = strlen(buf);
    snprintf(buf + len, sizeof buf - len, k ? " [%d]" : " *", k);
  }
  clforge_bench_table_cell(t, buf);
  clforge_bench_fmt_ms(buf, sizeof buf, p95_ms);
  clforge_bench_table_cell(t, buf);
}

void clforge_bench_table_result_columns(clforge_bench_table *t, int flops) {
  clforge_bench_table_column(t, "median ms", 10, 0);
  clforge_bench_table_column(t, "p95 ms", 10, 0);
  if (flops) clforge_bench_table_column(t, "GFLOP/s", 8, 0);
  clforge_bench_table_column(t, "GB/s", 8, 0);
}

void clforge_bench_table_peak_columns(clforge_bench_table *t, const clforge_bench_peaks *pk, const char *flop_col) {
  t->peak_columns = (flop_col && pk->gflops > 0) || pk->gbps > 0;
  if (!t->peak_columns) return;
  if (flop_col) clforge_bench_table_column(t, flop_col, 6, 0);
  clforge_bench_table_column(t, "% bw", 6, 0);
}

void clforge_bench_table_peer_columns(clforge_bench_table *t, const char *peer, int width, int vs_width) {
  char name[64];
  snprintf(name, sizeof name, "%s GFLOP/s", peer);
  clforge_bench_table_column(t, name, width, 0);
  snprintf(name, sizeof name, "vs %s", peer);
  clforge_bench_table_column(t, name, vs_width, 0);
}

void clforge_bench_table_results(clforge_bench_table *t, double median_ms, double p95_ms, const char *timer,
                                 const char *timer_note, int flops, double gflops, double gbps) {
  char buf[32];
  clforge_bench_table_times(t, median_ms, p95_ms, timer, timer_note);
  if (flops) {
    clforge_bench_fmt_rate(buf, sizeof buf, gflops);
    clforge_bench_table_cell(t, buf);
  }
  clforge_bench_fmt_rate(buf, sizeof buf, gbps);
  clforge_bench_table_cell(t, buf);
}

void clforge_bench_table_status(clforge_bench_table *t, int ncols, const char *word, const char *text) {
  char buf[64];
  const int k = clforge_bench_table_note(t, text);
  snprintf(buf, sizeof buf, k ? "%s [%d]" : "%s", word, k);
  clforge_bench_table_span(t, ncols, buf);
}

void clforge_bench_table_peak_cells(clforge_bench_table *t, const clforge_bench_peaks *pk, int flops, double gflops,
                                    double gbps, double bytes) {
  char buf[64], note[640];
  const int above = clforge_bench_peak_note(pk, flops ? gflops : 0, gbps, bytes, note, sizeof note);
  const int k = above ? clforge_bench_table_note(t, note) : 0;
  if (flops) {
    clforge_bench_fmt_percent(buf, sizeof buf, gflops, pk->gflops, k);
    clforge_bench_table_cell(t, buf);
  }
  clforge_bench_fmt_percent(buf, sizeof buf, gbps, pk->gbps, k);
  clforge_bench_table_cell(t, buf);
}

void clforge_bench_table_peer(clforge_bench_table *t, const clforge_bench_peer_result *p, int ours_ok,
                              double ours_gflops) {
  char buf[64], note[640];
  int k = 0;
  if (p->note[0]) {
    snprintf(note, sizeof note, "%s: %s", p->name, p->note);
    k = clforge_bench_table_note(t, note);
  }
  if (p->ok && p->gflops > 0) {
    clforge_bench_fmt_rate(buf, sizeof buf, p->gflops);
    const size_t len = strlen(buf);
    if (k) snprintf(buf + len, sizeof buf - len, " [%d]", k);
    clforge_bench_table_cell(t, buf);
    if (ours_ok) clforge_bench_table_cellf(t, "%.2fx", ours_gflops / p->gflops);
    else clforge_bench_table_cell(t, "-");
  } else {
    snprintf(buf, sizeof buf, k ? "- [%d]" : "-", k);
    clforge_bench_table_cell(t, buf);
    clforge_bench_table_cell(t, "-");
  }
}
