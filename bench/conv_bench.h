/* `clforge bench conv`: clforge_conv2d's algorithms on real layers, against
 * CLBlast's convgemm and oneDNN. */
#ifndef CLFORGE_BENCH_CONV_BENCH_H
#define CLFORGE_BENCH_CONV_BENCH_H

#include <stdio.h>

/** Run the convolution benchmark. argv[0] is the op name ("conv"); options
 *  follow (see clforge_bench_conv_help). Returns the exit status: 0 success
 *  (an algorithm that cannot run a shape is reported, not a failure), 1 a
 *  measurement failed, a result was wrong or no device, 2 usage error. */
int clforge_bench_conv_main(int argc, char **argv);

/** Print the options of `clforge bench conv`. */
void clforge_bench_conv_help(FILE *out);

#endif /* CLFORGE_BENCH_CONV_BENCH_H */
