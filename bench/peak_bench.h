/* `clforge bench peak`: the device's peak measured (peak.h) and shown, and
 * kept as the other benchmarks' denominators. */
#ifndef CLFORGE_BENCH_PEAK_BENCH_H
#define CLFORGE_BENCH_PEAK_BENCH_H

#include <stdio.h>

/** `clforge bench peak [--json]`. argv[0] is "peak". Returns the exit status:
 *  0 success, 1 a measurement failed or no device, 2 usage error. */
int clforge_bench_peak_main(int argc, char **argv);
void clforge_bench_peak_help(FILE *out);

#endif /* CLFORGE_BENCH_PEAK_BENCH_H */
