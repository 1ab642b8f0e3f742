/* `clforge bench peak`: the command around the measurement (peak.c) in a
 * bench session: its options, the table or JSON line, and the denominators
 * kept for the other benchmarks (peak_store.h). */
#include "peak_bench.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "host_fma.h"
#include "peak.h"
#include "peak_store.h"
#include "session.h"

void clforge_bench_peak_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench peak [--json]\n"
          "\n"
          "Measure the default device's (CLFORGE_DEVICE) peak: f32 multiply-add\n"
          "throughput (and f16 where cl_khr_fp16 exists), and streaming global-memory\n"
          "bandwidth. These are the denominators of every benchmark's \"%% peak\" (GFLOP/s\n"
          "over the f32 peak) and \"%% bw\" (GB/s over the bandwidth).\n"
          "\n"
          "The other benchmarks measure the peak once per device (driver and clforge\n"
          "version) and keep it for a week beside the kernel cache (nowhere when\n"
          "CLFORGE_CACHE_DIR=off); this command always measures it again and keeps\n"
          "the new one.\n"
          "\n"
          "Options:\n"
          "  --json          one JSON object on one line, nothing else on stdout\n"
          "  -h, --help      show this help\n"
          "\n"
          "How: each work-item keeps many independent accumulators (a dependent chain\n"
          "would measure latency), vectors of the device's native width; on a CPU also\n"
          "one lane per work-item in groups of 128, for compilers that vectorize across\n"
          "work-items (Intel's CPU runtime), and the faster shape counts. GFLOP/s counts\n"
          "2 flops per multiply-add lane. Bandwidth streams buffers far larger than the\n"
          "device's cache: read (bytes read) and copy (bytes read + bytes written); the\n"
          "denominator is the better of the two. Each number is the best of %d runs\n"
          "timed with profiling events.\n"
          "\n"
          "On a CPU device the host's own FMA loop (C, built for the compiler's native\n"
          "target) runs too, on one thread per compute unit, its runs in blocks between\n"
          "the f32 kernel's: the same cores, so the two should agree; a warning says when\n"
          "the OpenCL figure is below %.0f%% of the host's.\n"
          "\n"
          "Exit status: 0 success, 1 a measurement failed or no device, 2 usage error.\n",
          CLFORGE_BENCH_PEAK_RUNS, 100 * CLFORGE_BENCH_PEAK_HOST_MIN);
}

static int print_json(const clforge_bench_peak *p, const char *device) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return -1;
  clforge_bench_json_string(o, "op", "peak");
  clforge_bench_json_string(o, "device", device);
  clforge_bench_json_number(o, "f32_gflops", p->f32_gflops > 0, p->f32_gflops);
  clforge_bench_json_number(o, "f16_gflops", p->f16_gflops > 0, p->f16_gflops);
  if (p->f16_note[0]) clforge_bench_json_string(o, "f16_note", p->f16_note);
  clforge_bench_json_number(o, "read_gbps", p->read_gbps > 0, p->read_gbps);
  clforge_bench_json_number(o, "copy_gbps", p->copy_gbps > 0, p->copy_gbps);
  clforge_bench_json_number(o, "peak_gflops", clforge_bench_peak_gflops(p) > 0, clforge_bench_peak_gflops(p));
  clforge_bench_json_number(o, "peak_gbps", clforge_bench_peak_gbps(p) > 0, clforge_bench_peak_gbps(p));
  cJSON_AddNumberToObject(o, "bytes", (double)p->bytes);
  cJSON_AddNumberToObject(o, "runs", p->runs);
  cJSON_AddNumberToObject(o, "vector_width", p->vector_width);
  cJSON_AddNumberToObject(o, "chains", p->chains);
  cJSON_AddNumberToObject(o, "work_items", (double)p->fma_work_items);
  cJSON_AddNumberToObject(o, "work_group", (double)p->fma_work_group);
  cJSON *shapes = cJSON_AddArrayToObject(o, "shapes");
  for (int i = 0; shapes && i < p->n_shapes; ++i) {
    const clforge_bench_peak_shape *sh = &p->shapes[i];
    cJSON *e = cJSON_CreateObject();
    if (!e || !cJSON_AddItemToArray(shapes, e)) {
      cJSON_Delete(e);
      break;
    }
    cJSON_AddNumberToObject(e, "vector_width", sh->vector_width);
    cJSON_AddNumberToObject(e, "work_items", (double)sh->work_items);
    cJSON_AddNumberToObject(e, "work_group", (double)sh->work_group);
    clforge_bench_json_number(e, "f32_gflops", sh->f32_gflops > 0, sh->f32_gflops);
    clforge_bench_json_number(e, "f16_gflops", sh->f16_gflops > 0, sh->f16_gflops);
  }
  clforge_bench_json_string(o, "timer", p->timer);
  clforge_bench_json_string(o, "fma_op", p->fma_op);
  const clforge_bench_host_fma_build *h = &clforge_bench_host_fma_built;
  const double ratio = clforge_bench_peak_host_ratio(p);
  clforge_bench_json_number(o, "host_gflops", p->host_gflops > 0, p->host_gflops);
  clforge_bench_json_number(o, "frac_host", ratio > 0, ratio);
  cJSON_AddNumberToObject(o, "host_threads", p->host_threads);
  clforge_bench_json_string(o, "host_isa", h->isa);
  cJSON_AddNumberToObject(o, "host_vector_width", h->lanes);
  cJSON_AddNumberToObject(o, "host_chains", h->chains);
  clforge_bench_json_string(o, "host_flags", clforge_bench_host_fma_flags());
  if (p->host_note[0]) clforge_bench_json_string(o, "host_note", p->host_note);
  if (p->error[0]) clforge_bench_json_string(o, "error", p->error);
  return clforge_bench_json_line(stdout, o);
}

static void print_rate(const char *what, double v, const char *unit, const char *how) {
  if (v > 0) printf("  %-10s %9.1f %-7s  %s\n", what, v, unit, how);
  else printf("  %-10s %9s %-7s  %s\n", what, "n/a", "", how);
}

static void print_table(const clforge_bench_peak *p, const clforge_bench_session *s) {
  char how[256], size[64];
  clforge_bench_print_title(s);
  printf("best of %d runs each, timed with %s\n\n", p->runs,
         p->timer && !strcmp(p->timer, "wall") ? "the host clock" : "profiling events");
  snprintf(how, sizeof how, "%d chains x %d lanes per work-item (%s), %zu work-items in groups of %zu; 2 flops a lane",
           p->chains, p->vector_width, p->fma_op ? p->fma_op : "?", p->fma_work_items, p->fma_work_group);
  print_rate("f32 FMA", p->f32_gflops, "GFLOP/s", how);
  for (int i = 0; p->n_shapes > 1 && i < p->n_shapes; ++i) {
    const clforge_bench_peak_shape *sh = &p->shapes[i];
    char what[32], f16[48] = "";
    snprintf(what, sizeof what, " shape %d", i + 1);
    if (sh->f16_gflops > 0) snprintf(f16, sizeof f16, "; f16 %.1f GFLOP/s", sh->f16_gflops);
    snprintf(how, sizeof how, "f32, %d lane%s per work-item, groups of %zu%s", sh->vector_width,
             sh->vector_width == 1 ? "" : "s", sh->work_group, f16);
    print_rate(what, sh->f32_gflops, "GFLOP/s", how);
  }
  const clforge_bench_host_fma_build *h = &clforge_bench_host_fma_built;
  if (p->host_gflops > 0)
    snprintf(how, sizeof how, "the host's C loop, %d threads, %d chains x %d lanes (%s; %s); OpenCL f32 / host: %.2fx",
             p->host_threads, h->chains, h->lanes, h->isa, clforge_bench_host_fma_flags(),
             clforge_bench_peak_host_ratio(p));
  else snprintf(how, sizeof how, "%s", p->host_note);
  print_rate("host FMA", p->host_gflops, "GFLOP/s", how);
  snprintf(how, sizeof how, "the best shape's (%s)", p->n_shapes > 1 ? "above" : "as f32's");
  print_rate("f16 FMA", p->f16_gflops, "GFLOP/s", p->f16_note[0] ? p->f16_note : how);
  snprintf(size, sizeof size, "%llu MiB", p->bytes >> 20);
  snprintf(how, sizeof how, "%s read", size);
  print_rate("read", p->read_gbps, "GB/s", how);
  snprintf(how, sizeof how, "%s read + %s written, both counted", size, size);
  print_rate("copy", p->copy_gbps, "GB/s", how);
  printf("\nroofline denominators (%% peak, %% bw of 'clforge bench' rows): %.1f GFLOP/s (f32), %.1f GB/s (best "
         "of read and copy)\n",
         clforge_bench_peak_gflops(p), clforge_bench_peak_gbps(p));
}

int clforge_bench_peak_main(int argc, char **argv) {
  clforge_bench_cli cli = clforge_bench_cli_for("peak", clforge_bench_peak_help, 0, 0, 0);
  int rc = clforge_bench_cli_parse(&cli, argc, argv, NULL, NULL);
  if (rc >= 0) return rc;
  clforge_bench_session s;
  if (clforge_bench_session_open(&s, "peak", 0)) return 1;
  clforge_bench_progress(&s, "measuring the device's peak");
  clforge_bench_peak p;
  rc = clforge_bench_peak_measure(s.ctx, &p) == 0 ? 0 : 1;
  clforge_bench_progress_clear(&s);
  if (cli.json) {
    if (print_json(&p, s.device) != 0) rc = 1;
  } else {
    print_table(&p, &s);
    if (fflush(stdout) != 0) rc = 1;
  }
  if (p.error[0]) fprintf(stderr, "clforge bench peak: %s\n", p.error);
  char why[512];
  if (clforge_bench_peak_shortfall(&p, why, sizeof why)) {
    clforge_bench_warn(&s, "%s", why);
  } else if (rc == 0) { /* the other benchmarks' denominators from now on */
    clforge_bench_peaks kept;
    clforge_bench_peak_denominators(&p, &kept);
    clforge_bench_peak_save(&s.info, &kept);
  }
  clforge_bench_session_close(&s);
  return rc;
}
