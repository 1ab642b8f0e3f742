/* The host's own multiply-add peak: a small C loop built for the compiler's
 * native target (host_fma_loop.c), run on as many threads as the device has
 * compute units. `clforge bench peak` runs it next to the OpenCL FMA kernel
 * on CPU devices: the same silicon, so the OpenCL peak should be the
 * loop's (a lower one means the kernel, not the machine, set it). */
#ifndef CLFORGE_BENCH_HOST_FMA_H
#define CLFORGE_BENCH_HOST_FMA_H

/* How host_fma_loop.c was built (bench/CMakeLists.txt): its loop's shape,
 * the vector instruction set its target had, and the x86 feature its code
 * needs at run time (NULL: none checked). */
typedef struct clforge_bench_host_fma_build {
  int lanes, chains; /* floats per vector, independent accumulators */
  const char *isa;   /* "avx512f", "avx2+fma", "avx", "aarch64", "generic" */
  const char *needs; /* "avx512f", "fma", "avx" or NULL */
} clforge_bench_host_fma_build;

extern const clforge_bench_host_fma_build clforge_bench_host_fma_built;

/** The loop itself (host_fma_loop.c): `iters` x 16 steps of x = x * a + b on
 *  every lane of every chain; returns the sum, so nothing is dead. Only
 *  after clforge_bench_host_fma_usable() said yes. */
float clforge_bench_host_fma_loop(long long iters, float a, float b, float seed);

/** The compiler flags host_fma_loop.c was built with ("" for none). */
const char *clforge_bench_host_fma_flags(void);

/** 1 when this CPU can run the loop as built (it was built for the build
 *  machine's CPU); 0 with *why otherwise. */
int clforge_bench_host_fma_usable(const char **why);

/** Flops of one run: 2 per lane per step. */
double clforge_bench_host_fma_flops(int threads, long long iters);

/** One run of the loop on `threads` threads at once, `iters` iterations
 *  each: the host clock from the first thread's start to the last one's
 *  end, in seconds; -1 when a thread could not be started. */
double clforge_bench_host_fma_run(int threads, long long iters);

#endif /* CLFORGE_BENCH_HOST_FMA_H */
