/* The device's peak kept between benchmark runs: measuring it takes a few
 * seconds (the bandwidth streams 4x the device's cache), longer than most
 * benchmarks it divides, so `clforge bench <op>` measures it once per device
 * and reuses it for a week; `clforge bench peak` always measures it again and
 * keeps the new one. Kept in the kernel cache's directory (nowhere when that
 * is "off"), one file per device, driver, clforge version and measuring
 * method (a new kernel shape measures again). */
#ifndef CLFORGE_BENCH_PEAK_STORE_H
#define CLFORGE_BENCH_PEAK_STORE_H

#include <clforge/clforge.h>

#include "report.h" /* clforge_bench_peaks */

/** How long a kept peak is used (seconds). */
#define CLFORGE_BENCH_PEAK_KEEP_S (7.0 * 24 * 3600)

/** The kept peak of the device `info` describes, measured under
 *  CLFORGE_BENCH_PEAK_KEEP_S ago: 0 with *out and its age in *age_s, else -1. */
int clforge_bench_peak_load(const clforge_device_info *info, clforge_bench_peaks *out, double *age_s);

/** Keep p for the device (quietly does nothing where it cannot write). */
void clforge_bench_peak_save(const clforge_device_info *info, const clforge_bench_peaks *p);

#endif
