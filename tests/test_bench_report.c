/* The bench library's pieces that need no device: the notes a row above
 * 100% of a peak gets (which denominator was low), the percent cells, the
 * host FMA loop (it runs and its flop count is what it did), the peak
 * kernel's shapes and the kept peak's key (one per driver), and the whole-
 * network totals of bench conv --network (sums, shares, the best layout). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conv_network.h"
#include "host_fma.h"
#include "peak.h"
#include "peak_store.h"
#include "report.h"
#include "table.h"
#include "test_util.h"

static void peak_notes(void) {
  char note[640], cell[64];
  const clforge_bench_peaks cpu = {.gflops = 200, .gbps = 40, .host_gflops = 400, .cache_bytes = 32u << 20};
  /* Below both peaks: no note. */
  CHECK(!clforge_bench_peak_note(&cpu, 150, 30, 1e9, note, sizeof note) && !note[0], "note \"%s\"", note);
  /* Above the OpenCL peak, below the host loop's: the OpenCL peak was low. */
  CHECK(clforge_bench_peak_note(&cpu, 240, 1, 1e9, note, sizeof note), "%s", "no note at 120%");
  CHECK(strstr(note, "peak measured low: 120% of the OpenCL peak") && strstr(note, "60% of the host's"), "note \"%s\"",
        note);
  /* Above both: both were low. */
  CHECK(clforge_bench_peak_note(&cpu, 500, 1, 1e9, note, sizeof note) && strstr(note, "above both peaks: 250%") &&
            strstr(note, "125% of the host's"),
        "note \"%s\"", note);
  /* No host loop (a GPU): only the OpenCL peak to blame. */
  const clforge_bench_peaks gpu = {.gflops = 1000, .gbps = 500};
  CHECK(clforge_bench_peak_note(&gpu, 1100, 1, 0, note, sizeof note) && strstr(note, "110% of the OpenCL peak") &&
            !strstr(note, "host"),
        "note \"%s\"", note);
  /* Bandwidth above the streaming figure: a cache rate when the bytes fit in
   * 4x the cache, a low denominator when they do not. */
  CHECK(clforge_bench_peak_note(&cpu, 1, 60, 8u << 20, note, sizeof note) && strstr(note, "150% of the streaming") &&
            strstr(note, "fit the device's 32 MiB cache"),
        "note \"%s\"", note);
  CHECK(clforge_bench_peak_note(&cpu, 1, 60, 1e9, note, sizeof note) && strstr(note, "bandwidth measured low: 150%"),
        "note \"%s\"", note);
  /* Both at once: one note, two clauses. */
  CHECK(clforge_bench_peak_note(&cpu, 240, 60, 1e9, note, sizeof note) && strstr(note, "peak measured low") &&
            strstr(note, "; bandwidth measured low"),
        "note \"%s\"", note);
  /* The cells: a fraction above 100% carries its note's number. */
  clforge_bench_fmt_percent(cell, sizeof cell, 240, 200, 3);
  CHECK(!strcmp(cell, "120% [3]"), "cell \"%s\"", cell);
  clforge_bench_fmt_percent(cell, sizeof cell, 50, 200, 0);
  CHECK(!strcmp(cell, "25%"), "cell \"%s\"", cell);
  clforge_bench_fmt_percent(cell, sizeof cell, 5, 200, 0);
  CHECK(!strcmp(cell, "2.5%"), "cell \"%s\"", cell);
  clforge_bench_fmt_percent(cell, sizeof cell, 5, 0, 0);
  CHECK(!strcmp(cell, "-"), "cell \"%s\"", cell);
}

/* A row's denominators follow the arithmetic it ran: f16 rows the f16 FMA
 * peak (none where it was not measured), f32 rows the f32 one. */
static void peaks_by_arithmetic(void) {
  const clforge_bench_peaks gpu = {.gflops = 100, .gbps = 40, .host_gflops = 0, .cache_bytes = 0, .f16_gflops = 200};
  const clforge_bench_peaks cpu = {.gflops = 200, .gbps = 40, .host_gflops = 400, .cache_bytes = 0, .f16_gflops = 0};
  CHECK(clforge_bench_peaks_for(&gpu, CLFORGE_COMPUTE_16F).gflops == 200 &&
            clforge_bench_peaks_for(&gpu, CLFORGE_COMPUTE_32F_FAST_16F).gflops == 200 &&
            clforge_bench_peaks_for(&gpu, CLFORGE_COMPUTE_32F).gflops == 100 && clforge_bench_peaks_for(&gpu, 0).gflops == 100,
        "%s", "f16 rows must take the f16 peak, f32 rows the f32 one");
  const clforge_bench_peaks h = clforge_bench_peaks_for(&cpu, CLFORGE_COMPUTE_16F);
  CHECK(h.gflops == 0 && h.host_gflops == 0 && h.gbps == 40, "no f16 peak: %% peak must be absent (got %g, host %g)",
        h.gflops, h.host_gflops);
}

static void host_loop(void) {
  const char *why = "";
  const clforge_bench_host_fma_build *b = &clforge_bench_host_fma_built;
  CHECK(b->lanes >= 4 && b->chains >= 8 && b->isa && b->isa[0], "lanes %d chains %d", b->lanes, b->chains);
  if (!clforge_bench_host_fma_usable(&why)) {
    printf("skip the host loop: %s\n", why);
    return;
  }
  /* x = 0.999 x + 0.001 from x0 converges to 1: after many steps every lane
   * is 1 within rounding, so the sum is lanes x chains. */
  const float sum = clforge_bench_host_fma_loop(2000, 0.999f, 0.001f, 0.5f);
  const float want = (float)(b->lanes * b->chains);
  CHECK(sum > want * 0.999f && sum < want * 1.001f, "sum %g, want %g", sum, want);
  const double t = clforge_bench_host_fma_run(2, 2000);
  CHECK(t > 0, "two threads: %g s", t);
  CHECK(clforge_bench_host_fma_flops(2, 2000) == 2.0 * 16 * b->lanes * b->chains * 2000 * 2, "%s", "flops");
  CHECK(clforge_bench_host_fma_run(0, 10) < 0, "%s", "zero threads must fail");
}

/* The FMA kernel's shapes: a CPU device gets a vector shape at its width and
 * a one-lane shape whose work-groups fill 512-bit registers when a compiler
 * vectorizes across work-items (Intel's CPU runtime: 16 floats, 32 halves);
 * the peak is the faster, so neither kind of compiler is measured in a
 * shape it runs at a fraction of the machine. A GPU keeps one shape. */
static void fma_shapes(void) {
  clforge_bench_peak_shape sh[CLFORGE_BENCH_PEAK_MAX_SHAPES];
  const cl_uint widths[] = {1, 4, 8, 16};
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; ++i) {
    const int n = clforge_bench_peak_fma_shapes(CL_DEVICE_TYPE_CPU, widths[i], 2, 8192, sh);
    CHECK(n == 2, "CPU, width %u: %d shapes", widths[i], n);
    if (n != 2) continue;
    CHECK(sh[0].vector_width >= 4 && sh[0].vector_width >= (int)widths[i] && sh[1].vector_width == 1,
          "width %u: lanes %d and %d", widths[i], sh[0].vector_width, sh[1].vector_width);
    CHECK(sh[1].work_group % 32 == 0 && sh[1].work_items % sh[1].work_group == 0 &&
              sh[1].work_items / sh[1].work_group >= 64,
          "one-lane shape: %zu work-items in groups of %zu", sh[1].work_items, sh[1].work_group);
    CHECK(sh[0].work_items % sh[0].work_group == 0 && sh[0].f32_gflops == 0 && sh[1].f16_gflops == 0,
          "vector shape: %zu work-items in groups of %zu", sh[0].work_items, sh[0].work_group);
  }
  /* A small work-group limit is kept. */
  CHECK(clforge_bench_peak_fma_shapes(CL_DEVICE_TYPE_CPU, 16, 1, 64, sh) == 2 && sh[1].work_group <= 64,
        "limit 64: groups of %zu", sh[1].work_group);
  CHECK(clforge_bench_peak_fma_shapes(CL_DEVICE_TYPE_GPU, 1, 20, 1024, sh) == 1 && sh[0].vector_width == 1 &&
            sh[0].work_group == 0,
        "GPU: lanes %d, group %zu", sh[0].vector_width, sh[0].work_group);
}

/* The kept peak is one device's on one driver: the same CPU under another
 * driver (PoCL and Intel's runtime) must not read it. */
static void peak_store_per_driver(void) {
  char dir[] = "/tmp/clforge-peak-store-XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK(0, "%s", "mkdtemp");
    return;
  }
  const char *old = getenv("CLFORGE_CACHE_DIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("CLFORGE_CACHE_DIR", dir, 1);
  clforge_device_info pocl, intel;
  memset(&pocl, 0, sizeof pocl);
  strcpy(pocl.name, "AMD EPYC");
  strcpy(pocl.vendor, "AuthenticAMD");
  strcpy(pocl.platform_name, "Portable Computing Language");
  strcpy(pocl.platform_version, "OpenCL 3.0 PoCL");
  strcpy(pocl.driver_version, "3.1");
  intel = pocl; /* the same name and vendor: only the driver differs */
  strcpy(intel.platform_name, "Intel(R) OpenCL");
  strcpy(intel.platform_version, "OpenCL 3.0 WINDOWS");
  strcpy(intel.driver_version, "2026.22.10.0.01_160000");
  const clforge_bench_peaks kept = {.gflops = 230, .gbps = 40, .host_gflops = 232, .cache_bytes = 32u << 20};
  clforge_bench_peaks got;
  double age = -1;
  clforge_bench_peak_save(&pocl, &kept);
  CHECK(clforge_bench_peak_load(&pocl, &got, &age) == 0 && got.gflops == 230 && age >= 0, "%s",
        "the driver that measured it reads it back");
  CHECK(clforge_bench_peak_load(&intel, &got, &age) != 0, "%s", "another driver must not reuse the peak");
  intel.platform_version[0] = '\0';
  strcpy(intel.driver_version, pocl.driver_version); /* the platform's name alone differs */
  CHECK(clforge_bench_peak_load(&intel, &got, &age) != 0, "%s", "another platform must not reuse the peak");
  DIR *d = opendir(dir); /* the kept file (its name is the key's hash) */
  for (struct dirent *e; d && (e = readdir(d));) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.') unlink(path);
  }
  if (d) closedir(d);
  CHECK(rmdir(dir) == 0, "rmdir %s", dir);
  if (saved) setenv("CLFORGE_CACHE_DIR", saved, 1);
  else unsetenv("CLFORGE_CACHE_DIR");
  free(saved);
}

/* Read back what `print` wrote. */
static char *printed(void (*print)(FILE *, const clforge_bench_conv_net *, size_t, int),
                     const clforge_bench_conv_net *t, size_t count, int json) {
  static char buf[1 << 16];
  FILE *f = tmpfile();
  buf[0] = '\0';
  if (!f) return buf;
  print(f, t, count, json);
  rewind(f);
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* ResNet-50's table with made-up times: layer i takes 1 + i/2 ms (auto),
 * half that at best, twice it in oneDNN; NCHW at 1.25x NHWC's times. */
static void network_totals(void) {
  const clforge__conv_network *net = &clforge__conv_networks[0];
  CHECK(!strcmp(net->key, "resnet50"), "first network %s", net->key);
  clforge_bench_conv_net t[2];
  double want = 0, want_kind[CLFORGE_BENCH_CONV_KINDS] = {0};
  unsigned want_1x1 = 0;
  for (int v = 0; v < 2; ++v) {
    clforge_bench_conv_net_begin(&t[v], net, 8, CLFORGE_F32, v ? CLFORGE_NCHW : CLFORGE_NHWC, 1, 1, 1);
    int i = 0;
    for (const clforge__conv_layer *l = net->layers; l->name; ++l, ++i) {
      const double ms = (1 + 0.5 * i) * (v ? 1.25 : 1);
      clforge_bench_conv_net_layer r = {{ms, 0.5 * ms, 2 * ms / (v ? 1.25 : 1)},
                                        {l->r == 1 ? CLFORGE_CONV_ALGO_GEMM_1X1 : CLFORGE_CONV_ALGO_DIRECT,
                                         CLFORGE_CONV_ALGO_IM2COL},
                                        {0.5, 0.25}};
      clforge_bench_conv_net_add(&t[v], l, &r);
      if (v == 0) {
        want += l->count * ms;
        want_kind[clforge_bench_conv_kind_index(l)] += l->count * ms;
        if (l->r == 1) want_1x1 += l->count;
      }
    }
  }
  const clforge_bench_conv_net *a = &t[0];
  CHECK(a->layers == 53 && a->distinct == 23, "%u layers, %u distinct", a->layers, a->distinct);
  CHECK(a->t[CLFORGE_BENCH_NET_AUTO].ms == want && a->t[CLFORGE_BENCH_NET_AUTO].missing == 0, "auto %g ms, want %g",
        a->t[CLFORGE_BENCH_NET_AUTO].ms, want);
  CHECK(a->t[CLFORGE_BENCH_NET_AUTO].weights_ms == 23 * 0.5, "weights %g ms: once per distinct layer",
        a->t[CLFORGE_BENCH_NET_AUTO].weights_ms);
  double kinds = 0;
  unsigned kind_layers = 0;
  for (int k = 0; k < CLFORGE_BENCH_CONV_KINDS; ++k) {
    kinds += a->t[CLFORGE_BENCH_NET_AUTO].kind_ms[k];
    kind_layers += a->kind_layers[k];
    CHECK(a->t[CLFORGE_BENCH_NET_AUTO].kind_ms[k] == want_kind[k], "kind %s: %g ms, want %g",
          clforge_bench_conv_kind_name(k), a->t[CLFORGE_BENCH_NET_AUTO].kind_ms[k], want_kind[k]);
  }
  CHECK(kind_layers == 53 && kinds > want * (1 - 1e-12) && kinds < want * (1 + 1e-12), "kinds: %u layers, %g ms",
        kind_layers, kinds);
  CHECK(a->algo_count[CLFORGE_BENCH_NET_AUTO][CLFORGE_CONV_ALGO_GEMM_1X1] == want_1x1 &&
            a->algo_count[CLFORGE_BENCH_NET_BEST][CLFORGE_CONV_ALGO_IM2COL] == 53,
        "algorithm counts %u (want %u), %u", a->algo_count[CLFORGE_BENCH_NET_AUTO][CLFORGE_CONV_ALGO_GEMM_1X1], want_1x1,
        a->algo_count[CLFORGE_BENCH_NET_BEST][CLFORGE_CONV_ALGO_IM2COL]);

  const char *json = printed(clforge_bench_conv_net_print, t, 2, 1);
  char want_ms[64];
  snprintf(want_ms, sizeof want_ms, "\"ms_per_image\":%.6g", want / 8); /* bench JSON: 6 digits */
  CHECK(strstr(json, "{\"op\":\"conv_network\",\"network\":\"ResNet-50\",\"network_key\":\"resnet50\",\"n\":8") &&
            strstr(json, "\"layers\":53,\"distinct_layers\":23") && strstr(json, "\"auto_vs_onednn\":2,") &&
            strstr(json, "\"best_vs_onednn\":4,") && strstr(json, "\"kind\":\"stem\",\"layers\":1") &&
            strstr(json, "\"kind\":\"strided\"") && !strstr(json, "\"kind\":\"depthwise\"") && strstr(json, want_ms),
        "json: %s", json);
  const char *text = printed(clforge_bench_conv_net_print, t, 2, 0);
  CHECK(strstr(text, "Best layout per network (auto):\n  ResNet-50   n=8   f32  nhwc:") &&
            strstr(text, "2.00x oneDNN's speed") && strstr(text, "speed vs onednn"),
        "table: %s", text);

  /* A layer without a number leaves its series' total out, said so. */
  clforge_bench_conv_net_layer none = {{-1, 1, 1}, {CLFORGE_CONV_ALGO_DIRECT, CLFORGE_CONV_ALGO_DIRECT}, {0, 0}};
  clforge_bench_conv_net_add(&t[0], &net->layers[0], &none);
  CHECK(t[0].t[CLFORGE_BENCH_NET_AUTO].missing == 1, "missing %u", t[0].t[CLFORGE_BENCH_NET_AUTO].missing);
  json = printed(clforge_bench_conv_net_print, t, 1, 1);
  CHECK(strstr(json, "\"auto\":null") && strstr(json, "\"auto_vs_onednn\":null"), "json: %s", json);
  text = printed(clforge_bench_conv_net_print, t, 1, 0);
  CHECK(strstr(text, "incomplete") && strstr(text, "1 of its 54 layers have no number"), "table: %s", text);
}

int main(void) {
  peak_notes();
  peaks_by_arithmetic();
  host_loop();
  fma_shapes();
  peak_store_per_driver();
  network_totals();
  return tu_summary();
}
