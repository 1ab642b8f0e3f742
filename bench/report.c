/* What every benchmark's rows carry: peers, peak notes, JSON lines (cJSON). */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "stats.h"

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

clforge_bench_peaks clforge_bench_peaks_for(const clforge_bench_peaks *p, int arith) {
  clforge_bench_peaks out = *p;
  if (arith >= CLFORGE_COMPUTE_32F_FAST_16F) out.gflops = p->f16_gflops, out.host_gflops = 0; /* (the host loop is f32) */
  return out;
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

void clforge_bench_json_times(cJSON *o, int ok, double median_ms, double p95_ms) {
  clforge_bench_json_number(o, "median_ms", ok, median_ms);
  clforge_bench_json_number(o, "p95_ms", ok, p95_ms);
}

void clforge_bench_json_run(cJSON *o, int runs, int warmup, const char *timer, const char *timer_note,
                            const char *device) {
  cJSON_AddNumberToObject(o, "runs", runs);
  cJSON_AddNumberToObject(o, "warmup", warmup);
  clforge_bench_json_string(o, "timer", timer);
  if (timer_note && timer_note[0]) cJSON_AddStringToObject(o, "timer_note", timer_note);
  clforge_bench_json_string(o, "device", device);
}

void clforge_bench_json_peers(cJSON *o, const clforge_bench_peer_result *peers, int n, int ours_ok,
                              double ours_gflops) {
  char key[96];
  for (int i = 0; i < n; ++i) {
    const clforge_bench_peer_result *p = &peers[i];
    const int ok = p->ok && p->gflops > 0;
    snprintf(key, sizeof key, "%s_gflops", p->name);
    clforge_bench_json_number(o, key, ok, p->gflops);
    snprintf(key, sizeof key, "vs_%s", p->name);
    clforge_bench_json_number(o, key, ok && ours_ok, ok ? ours_gflops / p->gflops : 0.0);
    snprintf(key, sizeof key, "%s_median_ms", p->name);
    clforge_bench_json_number(o, key, ok, p->median_ms);
    snprintf(key, sizeof key, "%s_timer", p->name);
    clforge_bench_json_string(o, key, ok ? p->timer : NULL);
    if (p->note[0]) {
      snprintf(key, sizeof key, "%s_note", p->name);
      cJSON_AddStringToObject(o, key, p->note);
    }
  }
}

/* ------------------------------------------------------------------ peers */

void clforge_bench_peers_not_run(clforge_bench_peer_result *peers, int n, const char *why) {
  for (int i = 0; i < n; ++i) {
    peers[i].ok = 0;
    snprintf(peers[i].note, sizeof peers[i].note, "%s", why);
  }
}

void clforge_bench_peer_timed(clforge_bench_peer_result *p, const clforge_bench_timing *t, double flops) {
  clforge_bench_stats st;
  if (clforge_bench_summarize(t->seconds, (size_t)t->runs, &st)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  p->ok = 1;
  p->timer = clforge_bench_timer_name(t->timer);
  p->median_ms = st.median * 1e3;
  p->gflops = flops / st.median * 1e-9;
}

int clforge_bench_peer_differs(clforge_bench_peer_result *p, const float *got, const float *want, size_t n, double tol,
                               const char *what) {
  const double d = clforge_bench_max_rel_diff(got, want, n);
  if (d < tol) return 0;
  p->ok = 0;
  snprintf(p->note, sizeof p->note,
           "not reported: its result differs from clforge's (max |difference| = %.3g of max |%s|, tolerance %.0e)", d,
           what, tol);
  return 1;
}
