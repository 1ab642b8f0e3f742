/* CLBlast and OpenBLAS behind small wrappers. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "peers.h"

#include <cblas.h>
#include <clblast_c.h>
#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---------------------------------------------------------------- CLBlast */

int clforge_bench_clblast_gemm_supported(clforge_dtype dtype, unsigned caps, const char **why) {
  switch (dtype) {
    case CLFORGE_F32:
      return 1;
    case CLFORGE_F16:
      if (caps & CLFORGE_CAP_FP16) return 1;
      *why = "CLBlastHgemm needs cl_khr_fp16, which this device lacks";
      return 0;
    case CLFORGE_BF16:
      *why = "CLBlast has no bf16 GEMM";
      return 0;
    case CLFORGE_S8:
    case CLFORGE_U8:
    case CLFORGE_S32:
      *why = "CLBlast has no integer GEMM";
      return 0;
    case CLFORGE_Q8_0:
      *why = "q8_0 is a KV-cache format, not a GEMM type";
      return 0;
  }
  *why = "unknown dtype";
  return 0;
}

int clforge_bench_clblast_gemm(cl_command_queue queue, clforge_dtype dtype, int trans_a, int trans_b, size_t m,
                               size_t n, size_t k, float alpha, cl_mem a, size_t lda, cl_mem b, size_t ldb,
                               float beta, cl_mem c, size_t ldc) {
  const CLBlastTranspose ta = trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
  const CLBlastTranspose tb = trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
  if (dtype == CLFORGE_F32)
    return CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, m, n, k, alpha, a, 0, lda, b, 0, ldb, beta, c, 0, ldc,
                        &queue, NULL);
  if (dtype == CLFORGE_F16)
    return CLBlastHgemm(CLBlastLayoutRowMajor, ta, tb, m, n, k, clforge_ref_f32_to_f16(alpha), a, 0, lda, b, 0, ldb,
                        clforge_ref_f32_to_f16(beta), c, 0, ldc, &queue, NULL);
  return CLBlastNotImplemented;
}

const char *clforge_bench_clblast_status_name(int status) {
  static const struct {
    int code;
    const char *name;
  } names[] = {
      {CLBlastNotImplemented, "CLBlastNotImplemented"},
      {CLBlastInvalidMatrixA, "CLBlastInvalidMatrixA"},
      {CLBlastInvalidMatrixB, "CLBlastInvalidMatrixB"},
      {CLBlastInvalidMatrixC, "CLBlastInvalidMatrixC"},
      {CLBlastInvalidDimension, "CLBlastInvalidDimension"},
      {CLBlastInvalidLeadDimA, "CLBlastInvalidLeadDimA"},
      {CLBlastInvalidLeadDimB, "CLBlastInvalidLeadDimB"},
      {CLBlastInvalidLeadDimC, "CLBlastInvalidLeadDimC"},
      {CLBlastInsufficientMemoryA, "CLBlastInsufficientMemoryA"},
      {CLBlastInsufficientMemoryB, "CLBlastInsufficientMemoryB"},
      {CLBlastInsufficientMemoryC, "CLBlastInsufficientMemoryC"},
      {CLBlastInsufficientMemoryTemp, "CLBlastInsufficientMemoryTemp"},
      {CLBlastInvalidLocalMemUsage, "CLBlastInvalidLocalMemUsage"},
      {CLBlastNoHalfPrecision, "CLBlastNoHalfPrecision"},
      {CLBlastNoDoublePrecision, "CLBlastNoDoublePrecision"},
      {CLBlastDatabaseError, "CLBlastDatabaseError"},
      {CLBlastUnknownError, "CLBlastUnknownError"},
      {CLBlastUnexpectedError, "CLBlastUnexpectedError"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (names[i].code == status) return names[i].name;
  if (status <= 0 && status > -1000) return clforge_status_name(status); /* an OpenCL code */
  return "unknown CLBlast status";
}

void clforge_bench_clblast_release(void) { CLBlastClearCache(); }

/* --------------------------------------------------------------- OpenBLAS */

int clforge_bench_openblas_init(void) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus >= 1 && cpus <= 4096) openblas_set_num_threads((int)cpus);
  return openblas_get_num_threads();
}

const char *clforge_bench_openblas_core(void) {
  const char *c = openblas_get_corename();
  return c && c[0] ? c : "unknown";
}

int clforge_bench_openblas_misses_avx512(void) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) return 0;
  static const char *const avx512_cores[] = {"skylakex", "cooperlake", "sapphirerapids", "zen4", "zen5"};
  const char *core = clforge_bench_openblas_core();
  for (size_t i = 0; i < sizeof avx512_cores / sizeof avx512_cores[0]; ++i)
    if (!strcasecmp(core, avx512_cores[i])) return 0;
  return 1;
#else
  return 0;
#endif
}

/* Whether every size fits blasint (int, or 64-bit with INTERFACE64). */
static int fits(size_t v) { return v == (size_t)(blasint)v && (blasint)v >= 0; }

static int fit_all(size_t m, size_t n, size_t k, size_t lda, size_t ldb, size_t ldc) {
  return fits(m) && fits(n) && fits(k) && fits(lda) && fits(ldb) && fits(ldc);
}

int clforge_bench_openblas_sgemm(int trans_a, int trans_b, size_t m, size_t n, size_t k, float alpha, const float *a,
                                 size_t lda, const float *b, size_t ldb, float beta, float *c, size_t ldc) {
  if (!fit_all(m, n, k, lda, ldb, ldc)) return -1;
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (blasint)m,
              (blasint)n, (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb, beta, c, (blasint)ldc);
  return 0;
}

/* cblas_sbgemm is looked up at run time: cblas.h declares it whether or not
 * the library was built with bfloat16 support (Debian's 0.3.21 was not). */
typedef void (*sbgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
                          float, const bfloat16 *, blasint, const bfloat16 *, blasint, float, float *, blasint);

static sbgemm_fn find_sbgemm(void) {
  void *p = dlsym(RTLD_DEFAULT, "cblas_sbgemm");
  sbgemm_fn fn = NULL;
  if (p) memcpy(&fn, &p, sizeof fn); /* object to function pointer without a pedantic cast */
  return fn;
}

int clforge_bench_openblas_sbgemm(int trans_a, int trans_b, size_t m, size_t n, size_t k, float alpha,
                                  const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb, float beta, float *c,
                                  size_t ldc) {
  sbgemm_fn fn = find_sbgemm();
  if (!fn) return -2;
  if (!fit_all(m, n, k, lda, ldb, ldc)) return -1;
  fn(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n,
     (blasint)k, alpha, (const bfloat16 *)a, (blasint)lda, (const bfloat16 *)b, (blasint)ldb, beta, c, (blasint)ldc);
  return 0;
}

int clforge_bench_openblas_sbgemm_works(const char **why) {
  static int state = -1; /* -1 not checked, 0 broken, 1 works */
  static const char *reason = "";
  if (state < 0) {
    /* Odd sizes and both transposition cases that matter for the layout. */
    enum { M = 13, N = 17, K = 37 };
    uint16_t a16[M * K], b16[K * N];
    float a[M * K], b[K * N], want[M * N], got[M * N];
    unsigned s = 12345u;
    for (int i = 0; i < M * K; ++i) {
      s = s * 1664525u + 1013904223u;
      a16[i] = clforge_ref_f32_to_bf16((float)(s >> 8) / 8388608.0f - 1.0f);
      a[i] = clforge_ref_bf16_to_f32(a16[i]);
    }
    for (int i = 0; i < K * N; ++i) {
      s = s * 1664525u + 1013904223u;
      b16[i] = clforge_ref_f32_to_bf16((float)(s >> 8) / 8388608.0f - 1.0f);
      b[i] = clforge_ref_bf16_to_f32(b16[i]);
    }
    state = 1;
    for (int t = 0; t < 2 && state == 1; ++t) { /* t = 1: B transposed (same array read as N x K) */
      size_t ldb = t ? K : N;
      clforge_bench_openblas_sgemm(0, t, M, N, K, 1.0f, a, K, b, ldb, 0.0f, want, N);
      for (int i = 0; i < M * N; ++i) got[i] = NAN;
      int rc = clforge_bench_openblas_sbgemm(0, t, M, N, K, 1.0f, a16, K, b16, ldb, 0.0f, got, N);
      if (rc == -2) {
        state = 0;
        reason = "this OpenBLAS library has no cblas_sbgemm (built without bfloat16 support)";
        break;
      }
      double maxref = 0, maxerr = 0;
      for (int i = 0; i < M * N; ++i) {
        if (fabs((double)want[i]) > maxref) maxref = fabs((double)want[i]);
        double e = fabs((double)got[i] - (double)want[i]);
        if (!(e <= maxerr)) maxerr = isnan(e) ? INFINITY : e;
      }
      if (!(maxerr <= 1e-4 * maxref)) {
        state = 0;
        reason = "cblas_sbgemm failed a self-check against cblas_sgemm on this machine";
      }
    }
  }
  if (!state && why) *why = reason;
  return state;
}
