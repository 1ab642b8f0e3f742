/* bench/'s OpenCL kernels (the .cl files in bench/), embedded at build time by
 * cmake/embed_sources.cmake under names of their own: the benchmarks link the
 * shared library, whose embedded table is hidden, and build their own
 * programs with plain OpenCL. */
#ifndef CLFORGE_BENCH_SOURCES_H
#define CLFORGE_BENCH_SOURCES_H

#include <stddef.h>

typedef struct clforge_bench_embedded_source {
  const char *name; /* file name without ".cl" */
  const char *text; /* NUL-terminated */
  size_t length;    /* without the NUL */
} clforge_bench_embedded_source;

extern const clforge_bench_embedded_source clforge_bench_embedded_sources[];
extern const size_t clforge_bench_embedded_source_count;

/** The source named `name` ("peak"), or NULL. */
const clforge_bench_embedded_source *clforge_bench_embedded_source_find(const char *name);

#endif /* CLFORGE_BENCH_SOURCES_H */
