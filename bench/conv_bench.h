/* `clforge bench conv`: clforge_conv2d's algorithms on real layers, against
 * CLBlast's convgemm and oneDNN. */
#ifndef CLFORGE_BENCH_CONV_BENCH_H
#define CLFORGE_BENCH_CONV_BENCH_H

#include <stddef.h>
#include <stdio.h>

/** Run the convolution benchmark. argv[0] is the op name ("conv"); options
 *  follow (see clforge_bench_conv_help). Returns the exit status: 0 success
 *  (an algorithm that cannot run a shape is reported, not a failure), 1 a
 *  measurement failed, a result was wrong or no device, 2 usage error. */
int clforge_bench_conv_main(int argc, char **argv);

/** Parse a --shape value ("n=8,c=64,h=56,k=64,r=3,pad=1": c, h, k and r
 *  needed; w defaults to h, s to r, n to 1) into d's sizes, stride, pad,
 *  dilation and groups (clforge explain conv takes the same). 0, or -1 with
 *  the reason in err. */
struct clforge_conv2d_desc;
int clforge_bench_conv_parse_shape(const char *spec, struct clforge_conv2d_desc *d, char *err, size_t cap);

/** Print the options of `clforge bench conv`. */
void clforge_bench_conv_help(FILE *out);

#endif /* CLFORGE_BENCH_CONV_BENCH_H */
