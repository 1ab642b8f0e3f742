/* `clforge bench attention`: clforge_attention against the unfused
 * GEMM + softmax + GEMM composite (clforge's GEMM, CLBlast's GEMM). */
#ifndef CLFORGE_BENCH_ATTENTION_BENCH_H
#define CLFORGE_BENCH_ATTENTION_BENCH_H

#include <stdio.h>

/** Run the attention benchmark. argv[0] is the op name ("attention");
 *  options follow (see clforge_bench_attention_help). Returns the exit
 *  status: 0 success, 1 a clforge row failed or was wrong, or no device,
 *  2 usage error. */
int clforge_bench_attention_main(int argc, char **argv);

/** Print the options of `clforge bench attention`. */
void clforge_bench_attention_help(FILE *out);

#endif /* CLFORGE_BENCH_ATTENTION_BENCH_H */
