/* `clforge bench train`: cross-entropy (fused against the unfused
 * log-softmax forward + backward) and the optimizer step (bench/train_bench.c). */
#ifndef CLFORGE_BENCH_TRAIN_BENCH_H
#define CLFORGE_BENCH_TRAIN_BENCH_H

#include <stdio.h>

int clforge_bench_train_main(int argc, char **argv); /* argv[0] is "train" */
void clforge_bench_train_help(FILE *out);

#endif
