/* The math mode: compute types on the context and the GEMM descriptor, and
 * the GEMM families' half variants (HALF) gated by them. Everywhere: the
 * context default (set/get, CLFORGE_COMPUTE_TYPE), bad values refused, and
 * a call that allows f16 arithmetic on a device without cl_khr_fp16 runs
 * f32 (explain says so; forcing HALF there is refused). Then, natively
 * where the device has cl_khr_fp16 and emulated elsewhere (PoCL and
 * Oclgrind 21.10 have no f16 arithmetic): the direct and the tiled kernel
 * with HALF 1 and 2 under each compute type against the double reference within the
 * bound docs/inference-precision.md gives, results that differ from f32's
 * (the half kernel did run), and a strict-f32 call given HALF=2 by an
 * override running the f32 kernel bit for bit (explain proves it). Last,
 * convolution's GEMM algorithms under the descriptor's or the context's compute type.
 * --small (Oclgrind): C 16 x 16 (one of the forced tiles), k 48 (still
 * more than one f16 sum of at most 32 products, GEMM_HFLUSH), and in the
 * convolution 16 output channels from 48: the emulated half arithmetic is
 * simulated operation by operation. */
#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "oclgrind_keep.h"
#include "test_util.h"

enum { GEMMD_HALF_INDEX = 6 }; /* HALF: gemm_direct's 7th parameter */
static int M = 32, N = 32, K = 80; /* --small: 16 x 16 x 48 */

static void run(clforge_context ctx, const char *params, clforge_compute_type ct, const float *a, const float *b,
                float *c, clforge_kernel_choice *choice) {
  const clforge_gemm_desc d = {.m = M, .n = N, .k = K, .compute_type = ct};
  CHECK_OK(ctx, clforge_context_set_params(ctx, params));
  int n = 0;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, choice, 1, &n));
  cl_mem ba = tu_buffer(ctx, sizeof(float) * M * K), bb = tu_buffer(ctx, sizeof(float) * K * N),
         bc = tu_buffer(ctx, sizeof(float) * M * N);
  tu_write(ctx, ba, 0, sizeof(float) * M * K, a);
  tu_write(ctx, bb, 0, sizeof(float) * K * N, b);
  CHECK_OK(ctx, clforge_gemm(ctx, &d, ba, bb, bc, NULL, 0, NULL, NULL));
  tu_read(ctx, bc, 0, sizeof(float) * M * N, c);
  keep_release(ba), keep_release(bb), keep_release(bc);
  CHECK_OK(ctx, clforge_context_set_params(ctx, ""));
}

/* Largest |c - ref| / sum_k |a b| over C: the error in units of the sums'
 * magnitude, which the bounds are stated in. */
static double rel_err(const float *a, const float *b, const float *c) {
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int p = 0; p < K; ++p) {
        ref += (double)a[i * K + p] * b[p * N + j];
        mag += fabs((double)a[i * K + p] * b[p * N + j]);
      }
      const double e = fabs(c[i * N + j] - ref) / mag;
      if (!(e <= worst)) worst = e; /* NaN sticks */
    }
  return worst;
}

/* Convolution's GEMM algorithms run the call's compute type (the
 * descriptor's, else the context's): a 1x1 layer (NHWC, 16 pixels x 32
 * channels from 80, 16 from 48 with --small) through gemm_1x1 with HALF
 * forced on both GEMM families: strict f32 runs f32's bits (a strict
 * descriptor in a context that allows f16 too), a context or a descriptor
 * that allows f16 products gets them within their bound (and explain says
 * so), validation mode takes that bound. */
static void conv_half(clforge_context ctx, int small) {
  enum { CMAX = 80, HW = 16, KMAX = 32 };
  const int ci = small ? 48 : CMAX, ko = small ? 16 : KMAX;
  float x[HW * CMAX], w[KMAX * CMAX], y[HW * KMAX], y32[HW * KMAX];
  const size_t ybytes = sizeof(float) * HW * (size_t)ko;
  unsigned seed = 3;
  for (int i = 0; i < HW * ci; ++i) x[i] = (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f;
  for (int i = 0; i < ko * ci; ++i) w[i] = (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f;
  clforge_conv2d_desc d = {.n = 1, .c = ci, .h = 4, .w = 4, .k = ko, .r = 1, .s = 1, .x_layout = CLFORGE_NHWC,
                                 .y_layout = CLFORGE_NHWC, .w_layout = CLFORGE_KRSC,
                                 .algo = CLFORGE_CONV_ALGO_GEMM_1X1};
  cl_mem bx = tu_buffer(ctx, sizeof(float) * HW * ci), bw = tu_buffer(ctx, sizeof(float) * ko * ci),
         by = tu_buffer(ctx, ybytes);
  tu_write(ctx, bx, 0, sizeof(float) * HW * ci, x), tu_write(ctx, bw, 0, sizeof(float) * ko * ci, w);
  const char *force = "gemm_direct:HALF=1;gemm:HALF=1";
  /* the context's, the descriptor's (0: the context's); case 0 is f32 unforced */
  const clforge_compute_type cts[5] = {CLFORGE_COMPUTE_32F, CLFORGE_COMPUTE_32F, CLFORGE_COMPUTE_32F_FAST_16F,
                                       CLFORGE_COMPUTE_32F, CLFORGE_COMPUTE_32F_FAST_16F};
  const clforge_compute_type dts[5] = {0, 0, 0, CLFORGE_COMPUTE_32F_FAST_16F, CLFORGE_COMPUTE_32F};
  for (int i = 0; i < 5; ++i) {
    const int half = i == 2 || i == 3;
    d.compute_type = dts[i];
    CHECK_OK(ctx, clforge_context_set_compute_type(ctx, cts[i]));
    CHECK_OK(ctx, clforge_context_set_params(ctx, i ? force : ""));
    clforge_conv_choice ch;
    CHECK_OK(ctx, clforge_conv2d_explain(ctx, &d, &ch));
    int g = -1; /* the GEMM's entry (after the algorithm's own) */
    for (int j = 0; j < ch.nkernels && g < 0; ++j)
      if (!strncmp(ch.kernels[j].family, "gemm", 4)) g = j;
    CHECK(g >= 0 && ch.kernels[g].compute_type == (half ? CLFORGE_COMPUTE_32F_FAST_16F : CLFORGE_COMPUTE_32F),
          "conv 1x1, case %d (context %s, desc %d): its GEMM's arithmetic is %d", i, clforge_compute_type_name(cts[i]),
          (int)dts[i], g >= 0 ? (int)ch.kernels[g].compute_type : -1);
    CHECK_OK(ctx, clforge_conv2d(ctx, &d, bx, bw, NULL, by, 0, NULL, NULL));
    tu_read(ctx, by, 0, ybytes, i ? y : y32);
    if (i && !half) CHECK(!memcmp(y, y32, ybytes), "conv 1x1, case %d: strict f32 with HALF forced: not f32's bits", i);
    if (half) {
      double worst = 0;
      for (int p = 0; p < HW; ++p)
        for (int k = 0; k < ko; ++k) {
          double ref = 0, mag = 0;
          for (int c = 0; c < ci; ++c) ref += (double)x[p * ci + c] * w[k * ci + c], mag += fabs((double)x[p * ci + c] * w[k * ci + c]);
          const double e = fabs(y[p * ko + k] - ref) / mag;
          if (!(e <= worst)) worst = e;
        }
      CHECK(worst <= 3 * 0x1p-11 && memcmp(y, y32, ybytes), "conv 1x1 under 32F_FAST_16F: error %g (bound %g), "
            "f32's bits %d", worst, 3 * 0x1p-11, !memcmp(y, y32, ybytes));
      CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
      CHECK_OK(ctx, clforge_conv2d(ctx, &d, bx, bw, NULL, by, 0, NULL, NULL));
      CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    }
  }
  CHECK_OK(ctx, clforge_context_set_params(ctx, ""));
  CHECK_OK(ctx, clforge_context_set_compute_type(ctx, CLFORGE_COMPUTE_32F));
  keep_release(bx), keep_release(bw), keep_release(by);
}

static void context_default(void) {
  clforge_context ctx = tu_context();
  clforge_compute_type t = CLFORGE_COMPUTE_DEFAULT;
  CHECK_OK(ctx, clforge_context_get_compute_type(ctx, &t));
  CHECK(t == CLFORGE_COMPUTE_32F, "a new context's compute type is %d, not 32F", (int)t);
  CHECK_OK(ctx, clforge_context_set_compute_type(ctx, CLFORGE_COMPUTE_16F));
  CHECK_OK(ctx, clforge_context_get_compute_type(ctx, &t));
  CHECK(t == CLFORGE_COMPUTE_16F, "set 16F, got %d", (int)t);
  CHECK_OK(ctx, clforge_context_set_compute_type(ctx, CLFORGE_COMPUTE_DEFAULT));
  CHECK_OK(ctx, clforge_context_get_compute_type(ctx, &t));
  CHECK(t == CLFORGE_COMPUTE_32F, "DEFAULT resets to 32F, got %d", (int)t);
  CHECK_FAILS(ctx, clforge_context_set_compute_type(ctx, (clforge_compute_type)4), CLFORGE_INVALID_ARGUMENT,
              "unknown compute type");
  CHECK_FAILS(ctx, clforge_context_get_compute_type(ctx, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
  const clforge_gemm_desc bad = {.m = 4, .n = 4, .k = 4, .compute_type = (clforge_compute_type)9};
  clforge_kernel_choice ch;
  int n;
  CHECK_FAILS(ctx, clforge_gemm_explain(ctx, &bad, &ch, 1, &n), CLFORGE_INVALID_ARGUMENT, "compute_type 9");
  CHECK(!strcmp(clforge_compute_type_name(CLFORGE_COMPUTE_32F_FAST_16F), "32f_fast_16f") &&
            clforge_compute_type_name(CLFORGE_COMPUTE_DEFAULT) == NULL,
        "%s", "compute type names");
  clforge_context_destroy(ctx);
  setenv("CLFORGE_COMPUTE_TYPE", "32f_fast_16f", 1);
  ctx = tu_context();
  CHECK_OK(ctx, clforge_context_get_compute_type(ctx, &t));
  CHECK(t == CLFORGE_COMPUTE_32F_FAST_16F, "CLFORGE_COMPUTE_TYPE=32f_fast_16f: got %d", (int)t);
  clforge_context_destroy(ctx);
  setenv("CLFORGE_COMPUTE_TYPE", "fp16", 1);
  clforge_context bad_ctx = NULL;
  CHECK_FAILS(NULL, clforge_context_create(NULL, &bad_ctx), CLFORGE_INVALID_ENVIRONMENT, "CLFORGE_COMPUTE_TYPE");
  unsetenv("CLFORGE_COMPUTE_TYPE");
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  if (small) M = N = 16, K = 48;
  unsetenv("CLFORGE_COMPUTE_TYPE");
  unsetenv("CLFORGE_GEMM_PATH");
  context_default();
  clforge_context ctx = tu_context();
  keep_start_sized(ctx, (size_t)64 << 10); /* Oclgrind: no buffer index reused */
  clforge_device_info info;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &info));
  float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N), *c32 = malloc(sizeof(float) * M * N),
        *c = malloc(sizeof(float) * M * N);
  unsigned seed = 5;
  for (int i = 0; i < M * K; ++i) a[i] = (float)(tu_rand(&seed) % 20001) / 10000.0f - 1.0f + 1e-5f; /* not f16 values */
  for (int i = 0; i < K * N; ++i) b[i] = (float)(tu_rand(&seed) % 20001) / 10000.0f - 1.0f + 1e-5f;
  static const char *const route[2] = {"direct", "tiled"};
  static const char *const family[2] = {"gemm_direct", "gemm"};
  for (int r = 0; r < 2; ++r) {
    setenv("CLFORGE_GEMM_PATH", route[r], 1);
    clforge_kernel_choice ch;
    run(ctx, "", CLFORGE_COMPUTE_32F, a, b, c32, &ch);
    CHECK(ch.compute_type == CLFORGE_COMPUTE_32F, "%s: %s runs %d", route[r], ch.family, (int)ch.compute_type);
    CHECK(rel_err(a, b, c32) < 1e-6, "%s f32: error %g", route[r], rel_err(a, b, c32));
    /* a call allowing f16 without a tuned or forced half variant: f32 */
    run(ctx, "", CLFORGE_COMPUTE_16F, a, b, c, &ch);
    CHECK(ch.compute_type == CLFORGE_COMPUTE_32F && !memcmp(c, c32, sizeof(float) * M * N),
          "%s: 16F allowed but no half variant chosen: arithmetic %d, same bits %d", route[r], (int)ch.compute_type,
          !memcmp(c, c32, sizeof(float) * M * N));
    char force[96];
    /* the tiled kernel's own tiles, so that it (not the direct one) covers C */
    snprintf(force, sizeof force, "%s:HALF=2%s", family[r],
             r ? ",MWG=16,NWG=16,MWI=2,NWI=4,VW=4,KWG=16,SA=1,SB=1,KU=1,KSYNC=0" : "");
    if (r == 0 && !(info.caps & CLFORGE_CAP_FP16)) {
      /* no f16 arithmetic: a forced HALF is lowered to 0 even where the
       * compute type allows it (f32 bit for bit), not refused */
      run(ctx, force, CLFORGE_COMPUTE_16F, a, b, c, &ch);
      CHECK(ch.compute_type == CLFORGE_COMPUTE_32F && ch.values[GEMMD_HALF_INDEX] == 0 &&
                !memcmp(c, c32, sizeof(float) * M * N),
            "no cl_khr_fp16, HALF=2 forced under 16F: arithmetic %d, HALF %d, same bits %d", (int)ch.compute_type,
            ch.values[GEMMD_HALF_INDEX], !memcmp(c, c32, sizeof(float) * M * N));
      /* From here on the variants run emulated (cl/gemm_common.cl: f32
       * values rounded to f16 after each operation), which is what a
       * device without cl_khr_fp16 builds: the gating, the intervals and
       * the bounds are checked on every device. */
      ctx->info.caps |= CLFORGE_CAP_FP16;
    }
    /* strict f32 with HALF=2 forced: the f32 kernel, bit for bit */
    run(ctx, force, CLFORGE_COMPUTE_32F, a, b, c, &ch);
    CHECK(ch.compute_type == CLFORGE_COMPUTE_32F && !memcmp(c, c32, sizeof(float) * M * N),
          "%s: strict call with HALF=2 forced: arithmetic %d, same bits as f32 %d", route[r], (int)ch.compute_type,
          !memcmp(c, c32, sizeof(float) * M * N));
    /* each compute type with the variant it allows: the bound, and not f32's bits */
    const clforge_compute_type cts[2] = {CLFORGE_COMPUTE_32F_FAST_16F, CLFORGE_COMPUTE_16F};
    const double bound[2] = {3 * 0x1p-11, 35 * 0x1p-11}; /* inputs, product; + up to 32 f16 additions */
    for (int i = 0; i < 2; ++i) {
      run(ctx, force, cts[i], a, b, c, &ch);
      const double e = rel_err(a, b, c);
      CHECK(ch.compute_type == cts[i] && !strcmp(ch.family, family[r]), "%s %s: explain says %s, arithmetic %d",
            route[r], clforge_compute_type_name(cts[i]), ch.family, (int)ch.compute_type);
      CHECK(e <= bound[i], "%s %s: error %g of the sums' magnitude exceeds %g", route[r],
            clforge_compute_type_name(cts[i]), e, bound[i]);
      CHECK(memcmp(c, c32, sizeof(float) * M * N) != 0, "%s %s: the same bits as f32 (no half arithmetic ran)",
            route[r], clforge_compute_type_name(cts[i]));
      printf("%s %s: error %.3g of sum|ab| (bound %.3g)\n", route[r], clforge_compute_type_name(cts[i]), e, bound[i]);
      /* validation mode takes the compute type's tolerance, not f32's */
      CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
      run(ctx, force, cts[i], a, b, c, &ch);
      CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    }
  }
  unsetenv("CLFORGE_GEMM_PATH");
  conv_half(ctx, small); /* (cl_khr_fp16 on: native, or emulated as above) */
  ctx->info.caps = info.caps;
  free(a), free(b), free(c32), free(c);
  clforge_context_destroy(ctx);
  return tu_summary();
}
