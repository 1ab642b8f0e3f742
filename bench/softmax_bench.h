/* `clforge bench softmax`: clforge_softmax's bandwidth on attention,
 * vocabulary and small-row shapes. */
#ifndef CLFORGE_BENCH_SOFTMAX_BENCH_H
#define CLFORGE_BENCH_SOFTMAX_BENCH_H

#include <stdio.h>

/** Run the softmax benchmark. argv[0] is the op name ("softmax"); options
 *  follow (see clforge_bench_softmax_help). Returns the exit status: 0
 *  success, 1 a row failed or was wrong, or no device, 2 usage error. */
int clforge_bench_softmax_main(int argc, char **argv);

/** Print the options of `clforge bench softmax`. */
void clforge_bench_softmax_help(FILE *out);

#endif /* CLFORGE_BENCH_SOFTMAX_BENCH_H */
