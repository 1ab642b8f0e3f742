/* The host's multiply-add loop for `clforge bench peak`'s check of the
 * OpenCL peak (host_fma.c drives it). This file alone is built with the
 * compiler's native target (-march=native, bench/CMakeLists.txt) and
 * -ffp-contract=fast, so that x * a + b becomes one fused multiply-add of
 * the widest vectors the build machine has, or a multiply and an add where
 * it has no FMA: the machine's own peak either way. Nothing else is in this
 * file: its code may use instructions other CPUs lack (host_fma.c checks
 * the CPU before calling it). */
#include "host_fma.h"

/* One vector register per chain at the target's widest float vector, and
 * enough chains to cover the FMA latency on every FMA unit (4 cycles x 2
 * units needs 8 in flight) while accumulators, a and b stay in registers:
 * 16 of AVX-512's 32 zmm registers, 12 of AVX's 16 ymm, 24 of AArch64's 32
 * q registers (up to 4 FMA units there), 12 of SSE's 16 xmm. */
#if defined(__AVX512F__)
#define LANES 16
#define CHAINS 16
#define ISA "avx512f"
#elif defined(__AVX__)
#define LANES 8
#define CHAINS 12
#if defined(__FMA__)
#define ISA "avx2+fma"
#else
#define ISA "avx"
#endif
#elif defined(__aarch64__)
#define LANES 4
#define CHAINS 24
#define ISA "aarch64"
#else
#define LANES 4
#define CHAINS 12
#define ISA "generic"
#endif

/* Data, not code: reading it is safe on any CPU. */
const clforge_bench_host_fma_build clforge_bench_host_fma_built = {
    LANES,
    CHAINS,
    ISA,
#if defined(__AVX512F__)
    "avx512f",
#elif defined(__FMA__)
    "fma",
#elif defined(__AVX__)
    "avx",
#else
    NULL,
#endif
};

float clforge_bench_host_fma_loop(long long iters, float a, float b, float seed) {
  float x[CHAINS][LANES];
  for (int c = 0; c < CHAINS; ++c)
    for (int l = 0; l < LANES; ++l) x[c][l] = seed + (float)(c * LANES + l) * 0.125f;
  /* 16 steps of every chain per iteration, as bench/peak.cl does: the loop's
   * own work is noise beside them. The vectorizer keeps x in registers. */
  for (long long it = 0; it < iters; ++it)
    for (int s = 0; s < 16; ++s)
      for (int c = 0; c < CHAINS; ++c)
        for (int l = 0; l < LANES; ++l) x[c][l] = x[c][l] * a + b;
  float t = 0.0f; /* the result is returned, so nothing is dead */
  for (int c = 0; c < CHAINS; ++c)
    for (int l = 0; l < LANES; ++l) t += x[c][l];
  return t;
}
