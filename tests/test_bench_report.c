/* The bench library's pieces that need no device: the notes a row above
 * 100% of a peak gets (which denominator was low), the percent cells, and
 * the host FMA loop (it runs and its flop count is what it did). */
#include <stdio.h>
#include <string.h>

#include "host_fma.h"
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

int main(void) {
  peak_notes();
  host_loop();
  return tu_summary();
}
