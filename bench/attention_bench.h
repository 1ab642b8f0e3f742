/* `clforge bench attention`: clforge_attention against the unfused
 * GEMM + softmax + GEMM composite (clforge's GEMM, CLBlast's GEMM). */
#ifndef CLFORGE_BENCH_ATTENTION_BENCH_H
#define CLFORGE_BENCH_ATTENTION_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include "clforge/clforge.h"

/** Run the attention benchmark. argv[0] is the op name ("attention");
 *  options follow (see clforge_bench_attention_help). Returns the exit
 *  status: 0 success, 1 a clforge row failed or was wrong, or no device,
 *  2 usage error. */
int clforge_bench_attention_main(int argc, char **argv);

/** Print the options of `clforge bench attention`. */
void clforge_bench_attention_help(FILE *out);

/** Parse "B,Hq,Hkv,Sq,Sk,D[,causal]" (what --shapes takes) into a tight
 *  BHSD f32 descriptor, causal aligned bottom-right; 0, or -1 with why in
 *  err. `clforge explain attention` reads shapes the same way. */
int clforge_bench_attention_parse_shape(const char *v, clforge_attention_desc *d, char *err, size_t cap);

#endif /* CLFORGE_BENCH_ATTENTION_BENCH_H */
