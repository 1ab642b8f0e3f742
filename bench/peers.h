/* Peers: other implementations measured next to clforge on the same data.
 *
 *   CLBlast   on the clforge context's own queue (same device, same buffers)
 *   OpenBLAS  on host copies of the same data: the CPU's ceiling
 *
 * Only these wrappers include clblast_c.h and cblas.h, so the rest of the
 * bench does not depend on their headers. Matrices are row-major. */
#ifndef CLFORGE_BENCH_PEERS_H
#define CLFORGE_BENCH_PEERS_H

#include <clforge/clforge.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- CLBlast */

/** Whether CLBlast has a GEMM for `dtype` that can run on a device with these
 *  CLFORGE_CAP_* bits; if not, *why says so. */
int clforge_bench_clblast_gemm_supported(clforge_dtype dtype, unsigned caps, const char **why);

/** C = alpha op(A) op(B) + beta C with CLBlastSgemm (f32) or CLBlastHgemm
 *  (f16; alpha and beta rounded to f16), row-major, enqueued on `queue`.
 *  Returns CLBlast's status (0 = success). */
int clforge_bench_clblast_gemm(cl_command_queue queue, clforge_dtype dtype, int trans_a, int trans_b, size_t m,
                               size_t n, size_t k, float alpha, cl_mem a, size_t lda, cl_mem b, size_t ldb,
                               float beta, cl_mem c, size_t ldc);

/** Name of a CLBlast status code (OpenCL's codes by their OpenCL names). */
const char *clforge_bench_clblast_status_name(int status);

/** Release CLBlast's compiled-program cache (call before destroying the
 *  OpenCL context CLBlast ran on). */
void clforge_bench_clblast_release(void);

/* --------------------------------------------------------------- OpenBLAS */

/** Use one OpenBLAS thread per online CPU (OpenBLAS's default anyway).
 *  Returns the thread count now in use. */
int clforge_bench_openblas_init(void);

/** The kernel set OpenBLAS chose for this CPU ("Haswell", "SkylakeX", ...). */
const char *clforge_bench_openblas_core(void);

/** 1 when the CPU has AVX-512 but OpenBLAS runs kernels without it (an
 *  OpenBLAS older than the CPU picks e.g. Haswell's); OPENBLAS_CORETYPE,
 *  read when the library loads, overrides the choice. */
int clforge_bench_openblas_misses_avx512(void);

/** cblas_sgemm, row-major. Returns 0, or -1 when a size does not fit
 *  OpenBLAS's integer type. */
int clforge_bench_openblas_sgemm(int trans_a, int trans_b, size_t m, size_t n, size_t k, float alpha, const float *a,
                                 size_t lda, const float *b, size_t ldb, float beta, float *c, size_t ldc);

/** cblas_sbgemm: bf16 A and B (bit patterns), f32 C, row-major. Returns 0,
 *  -1 when a size does not fit, -2 when this OpenBLAS has no sbgemm. */
int clforge_bench_openblas_sbgemm(int trans_a, int trans_b, size_t m, size_t n, size_t k, float alpha,
                                  const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float beta, float *c,
                                  size_t ldc);

/** Check cblas_sbgemm once on a small problem against cblas_sgemm on the
 *  same (bf16-exact) values. Returns 1 when it agrees; 0 with *why when it
 *  is missing or wrong. The answer is cached. */
int clforge_bench_openblas_sbgemm_works(const char **why);

#endif /* CLFORGE_BENCH_PEERS_H */
