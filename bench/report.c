/* Benchmark output: JSON lines (cJSON) and a plain-text table. */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------- JSON */

/* Six significant digits: timings are not more precise than that, and the
 * lines stay readable. */
static double round6(double v) {
  if (!isfinite(v) || v == 0.0) return v;
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g", v);
  return strtod(buf, NULL);
}

void clforge_bench_json_number(cJSON *o, const char *key, int valid, double v) {
  if (valid && isfinite(v)) cJSON_AddNumberToObject(o, key, round6(v));
  else cJSON_AddNullToObject(o, key);
}

void clforge_bench_json_string(cJSON *o, const char *key, const char *s) {
  if (s) cJSON_AddStringToObject(o, key, s);
  else cJSON_AddNullToObject(o, key);
}

void clforge_bench_json_peaks(cJSON *o, const clforge_bench_peaks *p, int ok, double gflops, double gbps,
                              double bytes) {
  clforge_bench_json_number(o, "peak_gflops", p->gflops > 0, p->gflops);
  clforge_bench_json_number(o, "peak_gbps", p->gbps > 0, p->gbps);
  clforge_bench_json_number(o, "frac_peak_flops", ok && p->gflops > 0, clforge_bench_fraction(gflops, p->gflops));
  clforge_bench_json_number(o, "frac_peak_bw", ok && p->gbps > 0, clforge_bench_fraction(gbps, p->gbps));
  char note[640];
  if (ok && clforge_bench_peak_note(p, gflops, gbps, bytes, note, sizeof note))
    cJSON_AddStringToObject(o, "peak_note", note);
}

int clforge_bench_json_line(FILE *out, cJSON *o) {
  char *text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!text) return -1;
  int rc = fprintf(out, "%s\n", text) < 0 ? -1 : 0;
  cJSON_free(text);
  if (fflush(out) != 0) rc = -1;
  return rc;
}


void clforge_bench_device_label(const char *in, char *out, size_t cap) {
  while (*in == ' ' || *in == '\t') ++in;
  size_t o = 0;
  for (; *in && o + 1 < cap; ++in) out[o++] = ((unsigned char)*in < 0x20 || *in == 0x7F) ? '?' : *in;
  while (o > 0 && out[o - 1] == ' ') --o;
  out[o] = '\0';
}

double clforge_bench_fraction(double value, double peak) { return peak > 0 ? value / peak : 0.0; }

int clforge_bench_peak_note(const clforge_bench_peaks *p, double gflops, double gbps, double bytes, char *note,
                            size_t cap) {
  int len = 0;
  note[0] = '\0';
  if (p->gflops > 0 && gflops > p->gflops) {
    const double of_peak = 100 * gflops / p->gflops, of_host = p->host_gflops > 0 ? 100 * gflops / p->host_gflops : 0;
    if (of_host > 100)
      len = snprintf(note, cap,
                     "above both peaks: %.0f%% of the OpenCL peak (%.1f GFLOP/s), %.0f%% of the host's FMA loop "
                     "(%.1f GFLOP/s): both were measured while the machine was busy",
                     of_peak, p->gflops, of_host, p->host_gflops);
    else if (of_host > 0)
      len = snprintf(note, cap,
                     "peak measured low: %.0f%% of the OpenCL peak (%.1f GFLOP/s), %.0f%% of the host's FMA loop "
                     "(%.1f GFLOP/s)",
                     of_peak, p->gflops, of_host, p->host_gflops);
    else
      len = snprintf(note, cap, "peak measured low: %.0f%% of the OpenCL peak (%.1f GFLOP/s), measured while the "
                     "device was busy", of_peak, p->gflops);
  }
  if (p->gbps > 0 && gbps > p->gbps && len >= 0 && (size_t)len < cap) {
    const char *sep = len ? "; " : "";
    const double of_bw = 100 * gbps / p->gbps;
    /* Data within 4x the cache is partly served from it (the peak streams
     * 4x the cache for that reason): a cache rate, not a low denominator. */
    if (bytes > 0 && p->cache_bytes > 0 && bytes < 4.0 * (double)p->cache_bytes)
      snprintf(note + len, cap - (size_t)len,
               "%s%.0f%% of the streaming bandwidth (%.1f GB/s): its %.1f MiB fit the device's %.0f MiB cache", sep,
               of_bw, p->gbps, bytes / 1048576.0, (double)p->cache_bytes / 1048576.0);
    else
      snprintf(note + len, cap - (size_t)len,
               "%sbandwidth measured low: %.0f%% of the streaming bandwidth (%.1f GB/s), measured while the device "
               "was busy", sep, of_bw, p->gbps);
  }
  return note[0] != '\0';
}

int clforge_bench_print_json(FILE *out, const clforge_bench_record *r) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return -1;
  char key[96];
  clforge_bench_json_string(o, "op", r->op);
  for (int i = 0; i < r->ndims; ++i) cJSON_AddNumberToObject(o, r->dims[i].name, (double)r->dims[i].value);
  clforge_bench_json_string(o, "dtype", r->dtype);
  for (int i = 0; i < r->ntags; ++i) clforge_bench_json_string(o, r->tags[i].name, r->tags[i].value);
  clforge_bench_json_string(o, "provider", r->provider);
  clforge_bench_json_number(o, "median_ms", r->ok, r->median_ms);
  clforge_bench_json_number(o, "p95_ms", r->ok, r->p95_ms);
  clforge_bench_json_number(o, "gflops", r->ok, r->gflops);
  clforge_bench_json_number(o, "gbps", r->ok, r->gbps);
  clforge_bench_json_peaks(o, &r->peak, r->ok, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  cJSON_AddNumberToObject(o, "runs", r->runs);
  cJSON_AddNumberToObject(o, "warmup", r->warmup);
  clforge_bench_json_string(o, "timer", r->ok ? r->timer : NULL);
  if (r->ok && r->timer_note[0]) cJSON_AddStringToObject(o, "timer_note", r->timer_note);
  clforge_bench_json_string(o, "device", r->device);
  for (int i = 0; i < r->npeers; ++i) {
    const clforge_bench_peer_result *p = &r->peers[i];
    int ok = p->ok && p->gflops > 0;
    snprintf(key, sizeof key, "%s_gflops", p->name);
    clforge_bench_json_number(o, key, ok, p->gflops);
    snprintf(key, sizeof key, "vs_%s", p->name);
    clforge_bench_json_number(o, key, ok && r->ok, ok ? r->gflops / p->gflops : 0.0);
    snprintf(key, sizeof key, "%s_median_ms", p->name);
    clforge_bench_json_number(o, key, ok, p->median_ms);
    snprintf(key, sizeof key, "%s_timer", p->name);
    clforge_bench_json_string(o, key, ok ? p->timer : NULL);
    if (p->note[0]) {
      snprintf(key, sizeof key, "%s_note", p->name);
      cJSON_AddStringToObject(o, key, p->note);
    }
  }
  if (!r->ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
  return clforge_bench_json_line(out, o);
}

/* ------------------------------------------------------------------ table */

void clforge_bench_table_init(clforge_bench_table *t, FILE *out) {
  memset(t, 0, sizeof *t);
  t->out = out;
}

/* Footnote text, stored once; returns its 1-based number. */
static int add_note(clforge_bench_table *t, const char *text) {
  for (int i = 0; i < t->nnotes; ++i)
    if (!strcmp(t->notes[i], text)) return i + 1;
  if (t->nnotes >= (int)(sizeof t->notes / sizeof t->notes[0])) {
    t->more_notes++;
    return 0;
  }
  snprintf(t->notes[t->nnotes], sizeof t->notes[0], "%s", text);
  return ++t->nnotes;
}

static void cell(clforge_bench_table *t, int col, const char *text, int left) {
  int w = col < t->ncols ? t->widths[col] : 0;
  fprintf(t->out, "%s%*s", col ? "  " : "", left ? -w : w, text);
}

static void header(clforge_bench_table *t, const clforge_bench_record *r) {
  const char *fixed_before[] = {"op"};
  const char *fixed_after[] = {"dtype", "provider", "median ms", "p95 ms", "GFLOP/s", "GB/s"};
  static const int after_min[] = {5, 14, 10, 10, 9, 8};
  char names[32][64];
  int n = 0;
  snprintf(names[n], sizeof names[n], "%s", fixed_before[0]);
  t->widths[n++] = 4;
  for (int i = 0; i < r->ndims && n < 22; ++i) { /* room for the 8 fixed columns */
    snprintf(names[n], sizeof names[n], "%s", r->dims[i].name);
    t->widths[n++] = 6;
  }
  for (size_t i = 0; i < sizeof fixed_after / sizeof fixed_after[0]; ++i) {
    snprintf(names[n], sizeof names[n], "%s", fixed_after[i]);
    t->widths[n++] = after_min[i];
  }
  t->peak_columns = r->peak.gflops > 0 || r->peak.gbps > 0;
  for (int i = 0; t->peak_columns && i < 2; ++i) {
    snprintf(names[n], sizeof names[n], "%s", i ? "% bw" : "% peak");
    t->widths[n++] = 6;
  }
  for (int i = 0; i < r->npeers && n + 2 <= 32; ++i) {
    snprintf(names[n], sizeof names[n], "%s GFLOP/s", r->peers[i].name);
    t->widths[n++] = 8;
    snprintf(names[n], sizeof names[n], "vs %s", r->peers[i].name);
    t->widths[n++] = 7;
  }
  t->ncols = n;
  for (int i = 0; i < n; ++i) {
    int len = (int)strlen(names[i]);
    if (len > t->widths[i]) t->widths[i] = len;
  }
  int total = 0;
  for (int i = 0; i < n; ++i) {
    cell(t, i, names[i], i == 0 || i == r->ndims + 1 || i == r->ndims + 2);
    total += t->widths[i] + (i ? 2 : 0);
  }
  fputc('\n', t->out);
  for (int i = 0; i < total; ++i) fputc('-', t->out);
  fputc('\n', t->out);
  t->printed_header = 1;
}

static void fmt_rate(char *buf, size_t cap, double v) {
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

static void fmt_ms(char *buf, size_t cap, double v) {
  if (v >= 1000) snprintf(buf, cap, "%.0f", v);
  else if (v >= 1) snprintf(buf, cap, "%.2f", v);
  else snprintf(buf, cap, "%.4f", v);
}

void clforge_bench_table_row(clforge_bench_table *t, const clforge_bench_record *r) {
  if (!t->printed_header) header(t, r);
  char buf[512], note[640];
  int col = 0;
  cell(t, col++, r->op, 1);
  for (int i = 0; i < r->ndims; ++i) {
    snprintf(buf, sizeof buf, "%llu", r->dims[i].value);
    cell(t, col++, buf, 0);
  }
  cell(t, col++, r->dtype, 1);
  cell(t, col++, r->provider, 1);
  if (!r->ok) {
    snprintf(note, sizeof note, "%s %s: %s", r->provider, r->dtype, r->error[0] ? r->error : "failed");
    int k = add_note(t, note);
    snprintf(buf, sizeof buf, k ? "error [%d]" : "error", k);
    cell(t, col++, buf, 0);
    for (int i = 0; i < 3 + 2 * t->peak_columns; ++i) cell(t, col++, "-", 0);
  } else {
    fmt_ms(buf, sizeof buf, r->median_ms);
    if (r->timer && strcmp(r->timer, "events")) {
      snprintf(note, sizeof note, "timed with the host clock, not profiling events%s%s",
               r->timer_note[0] ? ": " : "", r->timer_note);
      int k = add_note(t, note);
      size_t len = strlen(buf);
      snprintf(buf + len, sizeof buf - len, k ? " [%d]" : " *", k);
    }
    cell(t, col++, buf, 0);
    fmt_ms(buf, sizeof buf, r->p95_ms);
    cell(t, col++, buf, 0);
    fmt_rate(buf, sizeof buf, r->gflops);
    cell(t, col++, buf, 0);
    fmt_rate(buf, sizeof buf, r->gbps);
    cell(t, col++, buf, 0);
    if (t->peak_columns) {
      const int k = clforge_bench_peak_note(&r->peak, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6, note,
                                            sizeof note)
                        ? add_note(t, note)
                        : 0;
      clforge_bench_fmt_percent(buf, sizeof buf, r->gflops, r->peak.gflops, k);
      cell(t, col++, buf, 0);
      clforge_bench_fmt_percent(buf, sizeof buf, r->gbps, r->peak.gbps, k);
      cell(t, col++, buf, 0);
    }
  }
  for (int i = 0; i < r->npeers; ++i) {
    const clforge_bench_peer_result *p = &r->peers[i];
    int k = 0;
    if (p->note[0]) {
      snprintf(note, sizeof note, "%s: %s", p->name, p->note);
      k = add_note(t, note);
    }
    if (p->ok && p->gflops > 0) {
      fmt_rate(buf, sizeof buf, p->gflops);
      if (k) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, " [%d]", k);
      }
      cell(t, col++, buf, 0);
      if (r->ok) snprintf(buf, sizeof buf, "%.2fx", r->gflops / p->gflops);
      else snprintf(buf, sizeof buf, "-");
      cell(t, col++, buf, 0);
    } else {
      snprintf(buf, sizeof buf, k ? "- [%d]" : "-", k);
      cell(t, col++, buf, 0);
      cell(t, col++, "-", 0);
    }
  }
  fputc('\n', t->out);
  fflush(t->out);
}

void clforge_bench_table_finish(clforge_bench_table *t) {
  if (t->nnotes) fputc('\n', t->out);
  for (int i = 0; i < t->nnotes; ++i) fprintf(t->out, "[%d] %s\n", i + 1, t->notes[i]);
  if (t->more_notes) fprintf(t->out, "(%d more notes not shown; --json has them all)\n", t->more_notes);
  fflush(t->out);
}
