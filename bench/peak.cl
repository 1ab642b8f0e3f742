/* Microbenchmarks for `clforge bench peak` (bench/peak.c): the device's
 * multiply-add throughput and its streaming global-memory bandwidth.
 *
 * Built with -DVW=<lanes per vector> -DCHAINS=<accumulators per work-item>
 * for the FMA kernels, -DMVW=<lanes per load> for the streaming ones,
 * -DPEAK_FMA=1 where the device's f32 has a fused multiply-add (CL_FP_FMA),
 * and -DPEAK_F16 where cl_khr_fp16 exists (bench/peak.c chooses them per
 * device; f16 uses fma() when its own config has CL_FP_FMA: -DPEAK_FMA_F16).
 *
 * Throughput needs independent work: a multiply-add whose input is the
 * previous one's result waits the full FMA latency (4 cycles on most CPUs,
 * with two FMA units: 8 in flight are needed). Each work-item therefore
 * keeps CHAINS independent accumulators of VW lanes, one vector register
 * each on a CPU (VW = the native width), and every step updates all of them;
 * GPUs get further parallelism from their many work-items. The _x1 kernels
 * keep one lane per chain: a compiler that vectorizes across work-items
 * makes the registers out of neighbouring work-items instead. */

#if VW != 1 && VW != 2 && VW != 4 && VW != 8 && VW != 16
#error "VW must be 1, 2, 4, 8 or 16"
#endif
/* VEC(float, 1) is float: the scalar kernels are the same code. */
typedef float float1;
#define VEC(t, w) VEC_(t, w)
#define VEC_(t, w) t##w

#if CHAINS < 1 || CHAINS > 16
#error "CHAINS must be 1..16"
#endif

/* One step: every chain does x = x * a + b. Chains past CHAINS compile away.
 * With -DPEAK_FMA (the device reports CL_FP_FMA) as fma(): PoCL 3.1 builds
 * a vector mad() as a multiply and a separate add, two instructions where
 * the CPU has one fused one. On Intel both go to the same two FMA ports, so
 * mad() measured half the peak; AMD's Zen 5 adds on pipes of their own, so
 * it hid the split there (docs/performance.md, "Peak"). The plain
 * expression x * a + b is contracted too, but LLVM built part of it as
 * 256-bit halves for skylake-avx512. */
#if PEAK_FMA
#define MULADD fma
#else
#define MULADD mad
#endif
#define CHAIN(i)                            \
  if (CHAINS > i) x[i] = MULADD(x[i], a, b);
#define STEP                                                                             \
  CHAIN(0) CHAIN(1) CHAIN(2) CHAIN(3) CHAIN(4) CHAIN(5) CHAIN(6) CHAIN(7) CHAIN(8) CHAIN(9) \
  CHAIN(10) CHAIN(11) CHAIN(12) CHAIN(13) CHAIN(14) CHAIN(15)
/* 16 steps per loop iteration: the loop's own work is noise beside them. */
#define STEP16 STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP

/* x converges to b / (1 - a) for 0 < a < 1: no overflow, no denormals, and
 * a and b are arguments, so the compiler cannot fold the chains away. The
 * sum of all lanes is stored so that nothing is dead. iters counts loop
 * iterations: 16 * CHAINS * W multiply-adds each per work-item. */
#define FMA_KERNEL(name, T, W)                                                \
  __kernel void name(__global float *out, float fa, float fb, int iters) {    \
    const VEC(T, W) a = (VEC(T, W))((T)fa), b = (VEC(T, W))((T)fb);           \
    VEC(T, W) x[16];                                                          \
    for (int i = 0; i < 16; ++i) x[i] = (VEC(T, W))((T)(get_global_id(0) & 7) * (T)0.125f + (T)i); \
    for (int it = 0; it < iters; ++it) {                                      \
      STEP16                                                                  \
    }                                                                         \
    VEC(T, W) s = x[0];                                                       \
    for (int i = 1; i < CHAINS; ++i) s += x[i];                               \
    float t = 0.0f;                                                           \
    for (int l = 0; l < W; ++l) t += (float)((T *)&s)[l];                     \
    out[get_global_id(0)] = t;                                                \
  }

/* Two shapes of the same work (bench/peak.c measures both on CPU devices
 * and keeps the faster): VW lanes per work-item, the width filling a
 * vector register in one work-item (PoCL); and one lane per work-item, for
 * compilers that vectorize across work-items as GPUs do (Intel's CPU
 * runtime packs 16 work-items into a zmm register; given float4 work-items
 * it ran at half the host loop's rate). */
FMA_KERNEL(peak_fma_f32, float, VW)
FMA_KERNEL(peak_fma_f32_x1, float, 1)

#ifdef PEAK_F16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half1;
#undef MULADD
#if PEAK_FMA_F16
#define MULADD fma
#else
#define MULADD mad
#endif
FMA_KERNEL(peak_fma_f16, half, VW)
FMA_KERNEL(peak_fma_f16_x1, half, 1)
#endif

/* Streaming kernels over MVW-lane vectors. Work-item `lid` of group g
 * touches elements (g * ITEMS + k) * L + lid, k < ITEMS, L the work-group
 * size: with L = 1 (CPUs) each work-item streams one contiguous block, which
 * the hardware prefetcher follows; with a GPU's L, neighbouring work-items
 * touch neighbouring vectors on every step (coalesced). The read kernel
 * stores one float per work-item (1/(ITEMS * MVW) of what it reads), so its
 * loads cannot be dropped. */
#if MVW == 4
#define MVEC float4
#elif MVW == 8
#define MVEC float8
#elif MVW == 16
#define MVEC float16
#else
#error "MVW must be 4, 8 or 16"
#endif

__kernel void peak_read(__global const MVEC *src, __global float *out, int items) {
  const size_t l = get_local_size(0), base = get_group_id(0) * (size_t)items * l + get_local_id(0);
  MVEC s0 = (MVEC)(0.0f), s1 = (MVEC)(0.0f); /* two chains: the adds never limit the loads */
  for (int k = 0; k + 1 < items; k += 2) {
    s0 += src[base + (size_t)k * l];
    s1 += src[base + (size_t)(k + 1) * l];
  }
  s0 += s1;
  float t = 0.0f;
  for (int i = 0; i < MVW; ++i) t += ((float *)&s0)[i];
  out[get_global_id(0)] = t;
}

__kernel void peak_copy(__global const MVEC *src, __global MVEC *dst, int items) {
  const size_t l = get_local_size(0), base = get_group_id(0) * (size_t)items * l + get_local_id(0);
  for (int k = 0; k < items; ++k) dst[base + (size_t)k * l] = src[base + (size_t)k * l];
}
