/* `clforge bench <op>`: dispatch to the benchmarks of bench/. */
#ifndef CLFORGE_TOOLS_BENCH_H
#define CLFORGE_TOOLS_BENCH_H

#include <stdio.h>

int clforge_cli_bench(int argc, char **argv); /* argv[0] is "bench" */
void clforge_cli_bench_help(FILE *out);

#endif
