/* `clforge bench allreduce`: clforge_allreduce across the ranks of one
 * process, message sizes from bytes to hundreds of MiB. */
#ifndef CLFORGE_BENCH_ALLREDUCE_BENCH_H
#define CLFORGE_BENCH_ALLREDUCE_BENCH_H

#include <stdio.h>

/** Run the benchmark. argv[0] is the op name ("allreduce"). Returns the exit
 *  status: 0 success, 1 a row failed or was wrong, or no device, 2 usage. */
int clforge_bench_allreduce_main(int argc, char **argv);

/** Print the options of `clforge bench allreduce`. */
void clforge_bench_allreduce_help(FILE *out);

#endif
