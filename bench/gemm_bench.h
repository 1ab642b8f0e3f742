/* `clforge bench gemm`: clforge_gemm against CLBlast and OpenBLAS. */
#ifndef CLFORGE_BENCH_GEMM_BENCH_H
#define CLFORGE_BENCH_GEMM_BENCH_H

#include <stdio.h>

/** Run the GEMM benchmark. argv[0] is the op name ("gemm"); options follow
 *  (see clforge_bench_gemm_help). Returns the exit status: 0 success, 1 a
 *  measurement failed or no device, 2 usage error. */
int clforge_bench_gemm_main(int argc, char **argv);

/** Print the options of `clforge bench gemm`. */
void clforge_bench_gemm_help(FILE *out);

#endif /* CLFORGE_BENCH_GEMM_BENCH_H */
