/* The convolution benchmark's peers: other implementations measured next to
 * clforge_conv2d on the same data.
 *
 *   CLBlast convgemm  on the clforge context's own queue, reading the same
 *                     x and w buffers (NCHW input, KCRS filter, groups 1)
 *   oneDNN            f32 forward convolution on the host CPU, on host
 *                     copies of the same values, in its preferred layouts
 *
 * Only conv_peers.c includes clblast_c.h and dnnl.h; oneDNN is optional at
 * build time (CLFORGE_BENCH_HAVE_ONEDNN), and without it the peer reports
 * why it did not run. Host arrays are NCHW (x, y) and KCRS (w), f32. */
#ifndef CLFORGE_BENCH_CONV_PEERS_H
#define CLFORGE_BENCH_CONV_PEERS_H

#include <clforge/clforge.h>
#include <stddef.h>
#include <stdint.h>

/** One convolution problem as the benchmark states it: symmetric padding,
 *  the same stride and dilation along both axes. p, q: the output size. */
typedef struct clforge_bench_conv_shape {
  size_t n, c, h, w, k, r, s;
  size_t stride, pad, groups, dilation;
  size_t p, q;
} clforge_bench_conv_shape;

/* ---------------------------------------------------------------- CLBlast */

/** Whether CLBlast's convgemm can run the problem: NCHW x (and so NCHW y),
 *  groups 1, f32, or f16 on a device with cl_khr_fp16 (CLFORGE_CAP_FP16 in
 *  caps). If not, *why says so. */
int clforge_bench_clblast_conv_supported(const clforge_bench_conv_shape *s, clforge_dtype dtype,
                                         clforge_tensor_layout layout, unsigned caps, const char **why);

/** y = conv(x, w) (cross-correlation) with CLBlastSconvgemm / Hconvgemm on
 *  `queue`: x N x C x H x W (NCHW), w K x C x R x S, y N x K x P x Q (NCHW),
 *  all of `dtype`, from element 0. Returns CLBlast's status (0 = success);
 *  print it with clforge_bench_clblast_status_name (peers.h). */
int clforge_bench_clblast_conv(cl_command_queue queue, const clforge_bench_conv_shape *s, clforge_dtype dtype,
                               cl_mem x, cl_mem w, cl_mem y);

/* ----------------------------------------------------------------- oneDNN */

/** 1 when the benchmark was built with oneDNN; 0 with *why otherwise. */
int clforge_bench_onednn_available(const char **why);

/** The threads oneDNN's OpenMP runtime will use (omp_get_max_threads:
 *  every core unless OMP_NUM_THREADS says otherwise); 0 when unknown. */
int clforge_bench_onednn_threads(void);

/** oneDNN's int8 GEMM, row-major, no transposes: C (s32, m x n) =
 *  (A - a_zero_point)(B) for u8 A (m x k) and s8 B (k x n)
 *  (dnnl_gemm_u8s8s32); the int8 GEMM benchmark's CPU peer. 0 on success,
 *  else -1 with why. */
int clforge_bench_onednn_gemm_u8s8s32(size_t m, size_t n, size_t k, const uint8_t *a, uint8_t a_zero_point,
                                      const int8_t *b, int32_t *c, char *why, size_t cap);

typedef struct clforge_bench_onednn_conv clforge_bench_onednn_conv;

/** Set up oneDNN's f32 convolution pass of `s` (no bias) on the CPU
 *  engine: forward (a = x NCHW, b = w KCRS -> y), backward data (a = dy
 *  NCHW, b = w -> dx) or backward weights (a = x, b = dy -> dw KCRS), with
 *  the forward (training) as the backward passes' hint; memory format `any`
 *  everywhere (oneDNN chooses, e.g. blocked nChw16c), the inputs reordered
 *  into its formats here, outside any timing. Returns 0, or -1 with *why. */
int clforge_bench_onednn_conv_create(const clforge_bench_conv_shape *s, clforge_conv_kind pass, const float *a,
                                     const float *b, clforge_bench_onednn_conv **out, char *why, size_t cap);

/** The int8 forward (clforge bench conv --int8's peer): u8 x (NCHW) and s8
 *  w (KCRS) without zero points, s32 y; groups 1. As _create otherwise. */
int clforge_bench_onednn_conv_create_u8s8s32(const clforge_bench_conv_shape *s, const uint8_t *x, const int8_t *w,
                                             clforge_bench_onednn_conv **out, char *why, size_t cap);

/** Run the convolution once and wait for it (the timed part). Returns 0 or -1. */
int clforge_bench_onednn_conv_run(clforge_bench_onednn_conv *c);

/** The pass's output of the last run, reordered to NCHW (y, dx) or KCRS
 *  (dw) into y (f32, or s32 for the int8 forward). Returns 0, or -1 with *why. */
int clforge_bench_onednn_conv_result(clforge_bench_onednn_conv *c, void *y, char *why, size_t cap);

/** The implementation oneDNN chose, e.g. "brg:avx512_core" ("" if unknown). */
const char *clforge_bench_onednn_conv_impl(const clforge_bench_onednn_conv *c);

/** Free everything (NULL is fine). */
void clforge_bench_onednn_conv_destroy(clforge_bench_onednn_conv *c);

#endif /* CLFORGE_BENCH_CONV_PEERS_H */
