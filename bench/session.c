/* A benchmark's context, peak, progress line and warnings. */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "peak.h"
#include "peak_store.h"

int clforge_bench_session_open(clforge_bench_session *s, const char *op, int measure_peak) {
  memset(s, 0, sizeof *s);
  s->op = op;
  s->progress = isatty(STDERR_FILENO);
  s->peak_on = measure_peak;
  clforge_status st = clforge_context_create(NULL, &s->ctx);
  if (st == CLFORGE_SUCCESS) st = clforge_context_queue(s->ctx, &s->queue);
  if (st == CLFORGE_SUCCESS) st = clforge_context_cl_context(s->ctx, &s->cl_ctx);
  if (st == CLFORGE_SUCCESS) st = clforge_context_device_info(s->ctx, &s->info);
  if (st == CLFORGE_SUCCESS) st = clforge_context_set_validation(s->ctx, 0);
  if (st != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge bench %s: no device: %s: %s\n", op, clforge_status_name(st), clforge_last_error(s->ctx));
    clforge_context_destroy(s->ctx);
    s->ctx = NULL;
    return 1;
  }
  clforge_bench_device_label(s->info.name, s->device, sizeof s->device);
  clforge_bench_device_label(s->info.platform_name, s->platform, sizeof s->platform);
  s->peak_age_s = -1.0;
  if (measure_peak && clforge_bench_peak_load(&s->info, &s->peak, &s->peak_age_s) != 0) {
    clforge_bench_progress(s, "measuring the device's peak");
    clforge_bench_peak peak;
    const int rc = clforge_bench_peak_measure(s->ctx, &peak);
    char why[512];
    clforge_bench_peak_denominators(&peak, &s->peak);
    if (rc) clforge_bench_warn(s, "the device's peak: %s (see 'clforge bench peak')", peak.error);
    else if (clforge_bench_peak_shortfall(&peak, why, sizeof why)) clforge_bench_warn(s, "%s", why);
    else clforge_bench_peak_save(&s->info, &s->peak); /* only a clean measurement is kept */
    clforge_bench_progress_clear(s);
  }
  return 0;
}

void clforge_bench_session_close(clforge_bench_session *s) {
  clforge_context_destroy(s->ctx);
  s->ctx = NULL;
}

void clforge_bench_progress(const clforge_bench_session *s, const char *fmt, ...) {
  if (!s->progress) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("\r\033[K  ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs(" ...", stderr);
  va_end(ap);
  fflush(stderr);
}

void clforge_bench_progress_clear(const clforge_bench_session *s) {
  if (!s->progress) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

void clforge_bench_warn(const clforge_bench_session *s, const char *fmt, ...) {
  va_list ap;
  clforge_bench_progress_clear(s);
  va_start(ap, fmt);
  fprintf(stderr, "clforge bench %s: warning: ", s->op);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void clforge_bench_session_recheck(clforge_bench_session *s, const char *label, int arith, double gflops,
                                   double gbps, double bytes) {
  char msg[512];
  /* an f16 row's rate is not the f32 peak's business (its own peak is not re-measured): its bandwidth only */
  if (arith >= CLFORGE_COMPUTE_32F_FAST_16F) gflops = 0;
  if (s->peak_on && clforge_bench_peak_recheck(s->ctx, &s->peak, gflops, gbps, bytes, msg, sizeof msg)) {
    clforge_bench_warn(s, "%s %s", label, msg);
    clforge_bench_peak_save(&s->info, &s->peak); /* the larger, for the next run too */
  }
}

void clforge_bench_print_title(const clforge_bench_session *s) {
  printf("clforge %s bench %s on %s (%s)\n", clforge_version(), s->op, s->device, s->platform);
}

void clforge_bench_print_peak(const clforge_bench_session *s, const char *flop_col, const char *bw_col) {
  const clforge_bench_peaks *p = &s->peak;
  char from[96] = "clforge bench peak";
  if (s->peak_age_s >= 0)
    snprintf(from, sizeof from, "clforge bench peak, kept from %.1f h ago", s->peak_age_s / 3600.0);
  if (flop_col && p->gflops > 0) {
    printf("peak (%s): %.1f GFLOP/s f32 multiply-add", from, p->gflops);
    if (p->host_gflops > 0) printf(" (the host's FMA loop: %.1f)", p->host_gflops);
    printf(", %.1f GB/s streaming: %s and %s are GFLOP/s and GB/s as fractions of them\n", p->gbps, flop_col, bw_col);
  } else if (p->gbps > 0) {
    printf("peak (%s): %.1f GB/s streaming: %s is GB/s as a fraction of it\n", from, p->gbps, bw_col);
  }
}
