/* `clforge bench gemm`: clforge_gemm timed with profiling events, next to
 * CLBlast (same device, same queue, same buffers) and OpenBLAS (host copies
 * of the same data), with every result checked before its number is shown.
 *
 * Per (shape, dtype): make the data once; for each requested clforge path
 * time the runs, then spot-check the result against a double-precision dot
 * product on sampled elements; then run the peers and compare each peer's
 * whole result with clforge's. A wrong result never gets a number: its
 * fields are null and a note says why. */
#include "gemm_bench.h"

#include <clforge/clforge.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "peak.h"
#include "peers.h"
#include "report.h"
#include "stats.h"
#include "timer.h"

enum { EXIT_USAGE = 2 };
enum { DEFAULT_RUNS = 10, MIN_RUNS = 3, MAX_RUNS = 100000, DEFAULT_WARMUP = 2, MAX_WARMUP = 1000 };
#define MAX_DIM (1ull << 20)
#define SPOT_SAMPLES 64

typedef enum { PATH_AUTO = 0, PATH_TILED = 1, PATH_DIRECT = 2, PATH_PACKED = 3, PATH_COUNT = 4 } gemm_path;
static const char *const path_names[] = {"auto", "tiled", "direct", "packed"};
static const char *const path_providers[] = {"clforge", "clforge-tiled", "clforge-direct", "clforge-packed"};

typedef struct {
  size_t m, n, k;
} gemm_shape;

/* The default cases: squares, then two transformer (BERT-base FFN) shapes. */
static const size_t default_squares[] = {128, 256, 512, 1024, 2048, 4096};
static const gemm_shape default_shapes[] = {{512, 3072, 768}, {512, 768, 3072}};

typedef struct {
  gemm_shape *shapes;
  size_t nshapes, cap;
  clforge_dtype dtypes[3];
  int ndtypes;
  int runs, warmup;
  int trans_a, trans_b;
  char trans[3];
  gemm_path paths[PATH_COUNT];
  int npaths;
  int peers, json;
  int peak; /* measure the device's peak first (--no-peak: not) */
} gemm_options;

/* ---------------------------------------------------------------- options */

void clforge_bench_gemm_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench gemm [options]\n"
          "\n"
          "Time clforge_gemm (C = A*B, alpha 1, beta 0, row-major, A, B and C of one dtype)\n"
          "and, on the same data, CLBlast on the same device and queue and OpenBLAS on the\n"
          "host (the CPU's ceiling). Each result is checked; a peer whose result differs\n"
          "from clforge's gets no number (a warning and a note say why).\n"
          "\n"
          "Options:\n"
          "  --sizes N[,N...]    square sizes (default: 128,256,512,1024,2048,4096 plus the\n"
          "                      shapes 512,3072,768 and 512,768,3072)\n"
          "  --shape M,N,K       one m x n x k case; repeatable; with --sizes, both are run\n"
          "  --dtype LIST        f32,f16,bf16 or a subset (default: all three)\n"
          "  --runs N            timed runs per case, at least %d (default %d)\n"
          "  --warmup N          untimed runs first, at least 1 (default %d); they compile\n"
          "                      kernels (clforge's and CLBlast's)\n"
          "  --trans NN|NT|TN|TT transpose A (first letter) and/or B (default NN)\n"
          "  --path auto|tiled|direct|packed|all\n"
          "                      clforge kernel choice, through CLFORGE_GEMM_PATH (default\n"
          "                      auto); 'all' measures each as its own row; 'tiled' still\n"
          "                      leaves the edges to the direct kernel\n"
          "  --no-peers          time clforge only\n"
          "  --no-peak           do not measure the device's peak first (no %% peak, %% bw)\n"
          "  --json              one JSON object per line per case, nothing else on stdout\n"
          "  -h, --help          show this help\n"
          "\n"
          "Timing: each run is bracketed by two markers on the context's in-order queue\n"
          "(profiling on) and timed as END(after marker) - END(before marker), so every\n"
          "kernel of the run counts; where profiling is unavailable the host clock around\n"
          "enqueue + clFinish is used and the row says so (timer \"wall\"). OpenBLAS is timed\n"
          "with the host clock. Reported: median and p95 (nearest rank) of the runs,\n"
          "GFLOP/s = 2*m*n*k*batch / median, GB/s = bytes of A + B read and C written\n"
          "(C read too when beta != 0) / median, and clforge / peer GFLOP/s ratios;\n"
          "%% peak = GFLOP/s / the device's f32 peak and %% bw = GB/s / its streaming\n"
          "bandwidth, both measured first by 'clforge bench peak' (a fraction of a second).\n"
          "\n"
          "The device is CLFORGE_DEVICE's choice (see 'clforge info'). Validation mode is\n"
          "off while timing. Exit status: 0 success, 1 a clforge case failed or no device,\n"
          "2 usage error.\n",
          MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP);
}

static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("clforge bench gemm: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nRun 'clforge bench gemm --help' for usage.\n", stderr);
  return EXIT_USAGE;
}

/* A decimal number in [lo, hi], digits only. */
static int parse_number(const char *s, size_t len, unsigned long long lo, unsigned long long hi,
                        unsigned long long *out) {
  if (len == 0 || len > 20) return -1;
  unsigned long long v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (ULLONG_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  if (v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* Split "a,b,c" into at most `max` numbers in [1, MAX_DIM]; returns the count or -1. */
static int parse_list(const char *s, unsigned long long *out, int max) {
  int n = 0;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    if (n >= max || parse_number(s, len, 1, MAX_DIM, &out[n])) return -1;
    ++n;
    if (!comma) return n;
    s = comma + 1;
  }
}

static int add_shape(gemm_options *o, size_t m, size_t n, size_t k) {
  if (o->nshapes == o->cap) {
    size_t cap = o->cap ? 2 * o->cap : 16;
    gemm_shape *p = realloc(o->shapes, cap * sizeof *p);
    if (!p) return -1;
    o->shapes = p;
    o->cap = cap;
  }
  o->shapes[o->nshapes++] = (gemm_shape){m, n, k};
  return 0;
}

/* "--name value" or "--name=value": 1 and *value when `arg` is that option
 * (*value NULL when the value is missing), 0 otherwise. */
static int option(int argc, char **argv, int *a, const char *name, const char **value) {
  const char *arg = argv[*a];
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0) return 0;
  if (arg[len] == '=') *value = arg + len + 1;
  else if (arg[len] == '\0') *value = *a + 1 < argc ? argv[++*a] : NULL;
  else return 0;
  return 1;
}

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_options(int argc, char **argv, gemm_options *o) {
  o->runs = DEFAULT_RUNS;
  o->warmup = DEFAULT_WARMUP;
  o->peers = 1;
  o->peak = 1;
  snprintf(o->trans, sizeof o->trans, "NN");
  for (int a = 1; a < argc; ++a) {
    const char *arg = argv[a], *v = NULL;
    unsigned long long nums[3];
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      clforge_bench_gemm_help(stdout);
      return 0;
    } else if (!strcmp(arg, "--json")) {
      o->json = 1;
    } else if (!strcmp(arg, "--no-peers")) {
      o->peers = 0;
    } else if (!strcmp(arg, "--no-peak")) {
      o->peak = 0;
    } else if (option(argc, argv, &a, "--sizes", &v)) {
      if (!v) return usage_error("--sizes needs a value, e.g. --sizes 1024,2048");
      const char *s = v;
      for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (parse_number(s, len, 1, MAX_DIM, &nums[0]))
          return usage_error("--sizes \"%s\": expected sizes from 1 to %llu separated by commas", v, MAX_DIM);
        if (add_shape(o, nums[0], nums[0], nums[0])) return usage_error("out of memory");
        if (!comma) break;
        s = comma + 1;
      }
    } else if (option(argc, argv, &a, "--shape", &v)) {
      if (!v) return usage_error("--shape needs a value, e.g. --shape 512,3072,768");
      if (parse_list(v, nums, 3) != 3)
        return usage_error("--shape \"%s\": expected M,N,K, each from 1 to %llu", v, MAX_DIM);
      if (add_shape(o, nums[0], nums[1], nums[2])) return usage_error("out of memory");
    } else if (option(argc, argv, &a, "--dtype", &v)) {
      if (!v) return usage_error("--dtype needs a value, e.g. --dtype f32,bf16");
      o->ndtypes = 0;
      const char *s = v;
      for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char name[8] = ""; /* zero-filled: the copied token stays terminated */
        clforge_dtype d;
        if (len < sizeof name) memcpy(name, s, len);
        if (len >= sizeof name || clforge_dtype_from_name(name, &d) != CLFORGE_SUCCESS)
          return usage_error("--dtype \"%s\": expected f32, f16 or bf16, separated by commas", v);
        int dup = 0;
        for (int i = 0; i < o->ndtypes; ++i) dup |= o->dtypes[i] == d;
        if (!dup) o->dtypes[o->ndtypes++] = d;
        if (!comma) break;
        s = comma + 1;
      }
    } else if (option(argc, argv, &a, "--runs", &v)) {
      if (!v || parse_number(v, strlen(v), MIN_RUNS, MAX_RUNS, &nums[0]))
        return usage_error("--runs needs a whole number from %d to %d", MIN_RUNS, MAX_RUNS);
      o->runs = (int)nums[0];
    } else if (option(argc, argv, &a, "--warmup", &v)) {
      if (!v || parse_number(v, strlen(v), 1, MAX_WARMUP, &nums[0]))
        return usage_error("--warmup needs a whole number from 1 to %d", MAX_WARMUP);
      o->warmup = (int)nums[0];
    } else if (option(argc, argv, &a, "--trans", &v)) {
      if (!v || strlen(v) != 2 || !strchr("NnTt", v[0]) || !strchr("NnTt", v[1]))
        return usage_error("--trans needs NN, NT, TN or TT");
      o->trans_a = v[0] == 'T' || v[0] == 't';
      o->trans_b = v[1] == 'T' || v[1] == 't';
      snprintf(o->trans, sizeof o->trans, "%c%c", o->trans_a ? 'T' : 'N', o->trans_b ? 'T' : 'N');
    } else if (option(argc, argv, &a, "--path", &v)) {
      if (!v) return usage_error("--path needs auto, tiled, direct, packed or all");
      if (!strcmp(v, "all")) {
        o->npaths = PATH_COUNT;
        for (int i = 0; i < PATH_COUNT; ++i) o->paths[i] = (gemm_path)i;
      } else {
        int found = -1;
        for (int i = 0; i < PATH_COUNT; ++i)
          if (!strcmp(v, path_names[i])) found = i;
        if (found < 0) return usage_error("--path \"%s\": expected auto, tiled, direct, packed or all", v);
        o->npaths = 1;
        o->paths[0] = (gemm_path)found;
      }
    } else {
      return usage_error("unknown %s '%s'", arg[0] == '-' ? "option" : "argument", arg);
    }
  }
  if (o->nshapes == 0) {
    for (size_t i = 0; i < sizeof default_squares / sizeof default_squares[0]; ++i)
      if (add_shape(o, default_squares[i], default_squares[i], default_squares[i])) return usage_error("out of memory");
    for (size_t i = 0; i < sizeof default_shapes / sizeof default_shapes[0]; ++i)
      if (add_shape(o, default_shapes[i].m, default_shapes[i].n, default_shapes[i].k))
        return usage_error("out of memory");
  }
  if (o->ndtypes == 0) {
    o->dtypes[0] = CLFORGE_F32;
    o->dtypes[1] = CLFORGE_F16;
    o->dtypes[2] = CLFORGE_BF16;
    o->ndtypes = 3;
  }
  if (o->npaths == 0) {
    o->npaths = 1;
    o->paths[0] = PATH_AUTO;
  }
  return -1;
}

/* ------------------------------------------------------------------ cases */

typedef struct {
  clforge_context ctx;
  cl_context cl_ctx;
  cl_command_queue queue;
  clforge_device_info info;
  char device[256];
  const gemm_options *o;
  int progress; /* stderr is a terminal */
  clforge_bench_table table;
  clforge_bench_peaks peak; /* the roofline's denominators; 0 = not measured */
} bench_env;

typedef struct {
  bench_env *env;
  gemm_shape s;
  clforge_dtype dtype;
  size_t es; /* bytes per element */
  size_t lda, ldb, ldc, a_elems, b_elems, c_elems;
  float *a32, *b32;     /* the values as the device sees them, widened to f32 */
  void *a_raw, *b_raw;  /* device storage (f16/bf16 bits); for f32 the same as a32/b32 */
  float *c_host;        /* OpenBLAS's C */
  cl_mem a, b, c;
  clforge_gemm_desc desc;
} gemm_case;

static void progress(const bench_env *env, const gemm_case *c, const char *what) {
  if (!env->progress) return;
  fprintf(stderr, "\r\033[K  %zux%zux%zu %s: %s ...", c->s.m, c->s.n, c->s.k, clforge_dtype_name(c->dtype), what);
  fflush(stderr);
}

static void progress_clear(const bench_env *env) {
  if (!env->progress) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

static void warn(const bench_env *env, const char *fmt, ...) {
  va_list ap;
  progress_clear(env);
  va_start(ap, fmt);
  fputs("clforge bench gemm: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* Uniform values in [-1, 1) from a small LCG: reproducible across runs. */
static void fill_random(float *x, size_t n, uint32_t seed) {
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = (float)(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

static void free_case(gemm_case *c) {
  if (c->a) clReleaseMemObject(c->a);
  if (c->b) clReleaseMemObject(c->b);
  if (c->c) clReleaseMemObject(c->c);
  if (c->a_raw != c->a32) free(c->a_raw);
  if (c->b_raw != c->b32) free(c->b_raw);
  free(c->a32);
  free(c->b32);
  free(c->c_host);
  memset(c, 0, sizeof *c);
}

/* Host data in f32, rounded to the dtype and widened back (so the host
 * copies hold exactly what the device multiplies), then device buffers. */
static int setup_case(bench_env *env, gemm_case *c, gemm_shape s, clforge_dtype dtype, char *err, size_t cap) {
  memset(c, 0, sizeof *c);
  c->env = env;
  c->s = s;
  c->dtype = dtype;
  c->es = clforge_dtype_size(dtype);
  const int ta = env->o->trans_a, tb = env->o->trans_b;
  c->lda = ta ? s.m : s.k; /* A is m x k, stored k x m when transposed */
  c->ldb = tb ? s.k : s.n; /* B is k x n, stored n x k when transposed */
  c->ldc = s.n;
  c->a_elems = s.m * s.k;
  c->b_elems = s.k * s.n;
  c->c_elems = s.m * s.n;
  c->desc = (clforge_gemm_desc){.layout = CLFORGE_ROW_MAJOR,
                                .trans_a = ta ? CLFORGE_TRANS : CLFORGE_NO_TRANS,
                                .trans_b = tb ? CLFORGE_TRANS : CLFORGE_NO_TRANS,
                                .m = s.m,
                                .n = s.n,
                                .k = s.k,
                                .alpha = 1.0f,
                                .beta = 0.0f,
                                .a_type = dtype,
                                .b_type = dtype,
                                .c_type = dtype,
                                .batch = 1};
  const size_t sizes[3] = {c->a_elems * c->es, c->b_elems * c->es, c->c_elems * c->es};
  const char *names[3] = {"A", "B", "C"};
  unsigned long long total = 0;
  for (int i = 0; i < 3; ++i) {
    total += sizes[i];
    if (sizes[i] > env->info.max_alloc_bytes) {
      snprintf(err, cap, "%s needs %zu bytes, more than the device's largest allocation (%llu bytes)", names[i],
               sizes[i], (unsigned long long)env->info.max_alloc_bytes);
      return -1;
    }
  }
  if (total > env->info.global_mem_bytes) {
    snprintf(err, cap, "A, B and C need %llu bytes, more than the device's memory (%llu bytes)", total,
             (unsigned long long)env->info.global_mem_bytes);
    return -1;
  }
  c->a32 = malloc(c->a_elems * sizeof(float));
  c->b32 = malloc(c->b_elems * sizeof(float));
  if (!c->a32 || !c->b32) goto no_memory;
  fill_random(c->a32, c->a_elems, 0x1234567u);
  fill_random(c->b32, c->b_elems, 0x89abcdefu);
  if (dtype == CLFORGE_F32) {
    c->a_raw = c->a32;
    c->b_raw = c->b32;
  } else {
    c->a_raw = malloc(c->a_elems * c->es);
    c->b_raw = malloc(c->b_elems * c->es);
    if (!c->a_raw || !c->b_raw) goto no_memory;
    if (clforge_ref_convert(c->a_elems, c->a32, CLFORGE_F32, c->a_raw, dtype) != CLFORGE_SUCCESS ||
        clforge_ref_convert(c->a_elems, c->a_raw, dtype, c->a32, CLFORGE_F32) != CLFORGE_SUCCESS ||
        clforge_ref_convert(c->b_elems, c->b32, CLFORGE_F32, c->b_raw, dtype) != CLFORGE_SUCCESS ||
        clforge_ref_convert(c->b_elems, c->b_raw, dtype, c->b32, CLFORGE_F32) != CLFORGE_SUCCESS) {
      snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
      return -1;
    }
  }
  cl_int e1, e2, e3;
  c->a = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizes[0], c->a_raw, &e1);
  c->b = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizes[1], c->b_raw, &e2);
  c->c = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, sizes[2], NULL, &e3);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS) {
    cl_int e = e1 != CL_SUCCESS ? e1 : e2 != CL_SUCCESS ? e2 : e3;
    snprintf(err, cap, "clCreateBuffer failed (%s) for %llu bytes in all", clforge_status_name(e), total);
    return -1;
  }
  return 0;
no_memory:
  snprintf(err, cap, "out of host memory for the %zux%zux%zu %s data", s.m, s.n, s.k, clforge_dtype_name(dtype));
  return -1;
}

/* Read C back, widened to f32. */
static int read_c(const gemm_case *c, float *out, char *err, size_t cap) {
  void *raw = c->dtype == CLFORGE_F32 ? (void *)out : malloc(c->c_elems * c->es);
  if (!raw) {
    snprintf(err, cap, "out of host memory reading C back");
    return -1;
  }
  cl_int e = clEnqueueReadBuffer(c->env->queue, c->c, CL_TRUE, 0, c->c_elems * c->es, raw, 0, NULL, NULL);
  int rc = 0;
  if (e != CL_SUCCESS) {
    snprintf(err, cap, "clEnqueueReadBuffer of C failed (%s)", clforge_status_name(e));
    rc = -1;
  } else if (raw != out && clforge_ref_convert(c->c_elems, raw, c->dtype, out, CLFORGE_F32) != CLFORGE_SUCCESS) {
    snprintf(err, cap, "clforge_ref_convert of C failed: %s", clforge_last_error(NULL));
    rc = -1;
  }
  if (raw != out) free(raw);
  return rc;
}

/* Unit roundoff of the storage type: the rounding of C itself. */
static double unit_roundoff(clforge_dtype d) {
  return d == CLFORGE_F16 ? 0x1p-11 : d == CLFORGE_BF16 ? 0x1p-8 : 0x1p-24;
}

/* Compare sampled elements (the four corners, where the tiled path's edges
 * are, then pseudo-random ones) with a double-precision dot product of the
 * same inputs. Tolerance: C's rounding plus 1e-4 of sum |a||b| for the f32
 * accumulation; a wrong element is off by about |C| itself, far more. */
static int spot_check(const gemm_case *c, const float *got, char *why, size_t cap) {
  const size_t m = c->s.m, n = c->s.n, k = c->s.k;
  const int ta = c->env->o->trans_a, tb = c->env->o->trans_b;
  uint32_t seed = 0xC0FFEEu;
  for (int t = 0; t < SPOT_SAMPLES; ++t) {
    size_t i, j;
    if (t < 4) {
      i = (t & 1) ? m - 1 : 0;
      j = (t & 2) ? n - 1 : 0;
    } else {
      seed = seed * 1664525u + 1013904223u;
      i = (size_t)((seed >> 8) % (uint32_t)m);
      seed = seed * 1664525u + 1013904223u;
      j = (size_t)((seed >> 8) % (uint32_t)n);
    }
    double sum = 0, abs_sum = 0;
    for (size_t p = 0; p < k; ++p) {
      double av = c->a32[ta ? p * c->lda + i : i * c->lda + p];
      double bv = c->b32[tb ? j * c->ldb + p : p * c->ldb + j];
      sum += av * bv;
      abs_sum += fabs(av * bv);
    }
    double g = got[i * c->ldc + j];
    double tol = unit_roundoff(c->dtype) * fabs(sum) + 1e-4 * abs_sum + 1e-30;
    if (!(fabs(g - sum) <= tol)) {
      snprintf(why, cap, "wrong result: C[%zu][%zu] = %.9g, expected %.9g (tolerance %.3g)", i, j, g, sum, tol);
      return -1;
    }
  }
  return 0;
}

/* max |x - ref| / max |ref|; infinity when anything is NaN. */
static double max_rel_diff(const float *x, const float *ref, size_t n) {
  double maxref = 0, maxdiff = 0;
  for (size_t i = 0; i < n; ++i) {
    double r = fabs((double)ref[i]), d = fabs((double)x[i] - (double)ref[i]);
    if (!(r <= maxref)) maxref = isnan(r) ? INFINITY : r;
    if (!(d <= maxdiff)) maxdiff = isnan(d) ? INFINITY : d;
  }
  if (isinf(maxdiff) || isinf(maxref)) return INFINITY;
  return maxref > 0 ? maxdiff / maxref : maxdiff;
}

/* Peer-vs-clforge tolerance, relative to max |C|: catches wrong results
 * (layout, transposition, garbage), not precision differences. f16: CLBlast's
 * Hgemm accumulates in f16. bf16: OpenBLAS writes an f32 C, clforge a bf16 one. */
static double peer_tolerance(clforge_dtype d) {
  return d == CLFORGE_F16 ? 5e-2 : d == CLFORGE_BF16 ? 1e-2 : 1e-3;
}

static double gemm_flops(const gemm_case *c) {
  return 2.0 * (double)c->s.m * (double)c->s.n * (double)c->s.k * (double)(c->desc.batch ? c->desc.batch : 1);
}

static double gemm_bytes(const gemm_case *c) {
  double batch = (double)(c->desc.batch ? c->desc.batch : 1);
  double elems = (double)c->a_elems + (double)c->b_elems + (double)c->c_elems * (c->desc.beta != 0.0f ? 2.0 : 1.0);
  return elems * (double)c->es * batch;
}

/* --- the timed operations --- */

static int enqueue_clforge(void *user, cl_command_queue queue) {
  gemm_case *c = user;
  (void)queue; /* the context's own queue */
  return clforge_gemm(c->env->ctx, &c->desc, c->a, c->b, c->c, NULL, 0, NULL, NULL);
}

static int enqueue_clblast(void *user, cl_command_queue queue) {
  gemm_case *c = user;
  return clforge_bench_clblast_gemm(queue, c->dtype, c->env->o->trans_a, c->env->o->trans_b, c->s.m, c->s.n, c->s.k,
                                    1.0f, c->a, c->lda, c->b, c->ldb, 0.0f, c->c, c->ldc);
}

static void run_sgemm(void *user) {
  gemm_case *c = user;
  clforge_bench_openblas_sgemm(c->env->o->trans_a, c->env->o->trans_b, c->s.m, c->s.n, c->s.k, 1.0f, c->a32, c->lda,
                               c->b32, c->ldb, 0.0f, c->c_host, c->ldc);
}

static void run_sbgemm(void *user) {
  gemm_case *c = user;
  clforge_bench_openblas_sbgemm(c->env->o->trans_a, c->env->o->trans_b, c->s.m, c->s.n, c->s.k, 1.0f, c->a_raw,
                                c->lda, c->b_raw, c->ldb, 0.0f, c->c_host, c->ldc);
}

/* --- one provider each --- */

static void record_init(clforge_bench_record *r, const bench_env *env, gemm_shape s, clforge_dtype dtype,
                        gemm_path path) {
  memset(r, 0, sizeof *r);
  r->op = "gemm";
  const char *dim_names[4] = {"m", "n", "k", "batch"};
  const size_t dims[4] = {s.m, s.n, s.k, 1};
  for (int i = 0; i < 4; ++i) {
    r->dims[i].name = dim_names[i];
    r->dims[i].value = dims[i];
  }
  r->ndims = 4;
  r->dtype = clforge_dtype_name(dtype);
  r->tags[0].name = "trans";
  r->tags[0].value = env->o->trans;
  r->tags[1].name = "path";
  r->tags[1].value = path_names[path];
  r->ntags = 2;
  if (env->o->peers) {
    r->tags[2].name = "openblas_core";
    r->tags[2].value = clforge_bench_openblas_core();
    r->ntags = 3;
  }
  r->provider = path_providers[path];
  r->runs = env->o->runs;
  r->warmup = env->o->warmup;
  r->device = env->device;
  r->peers[0].name = "clblast";
  r->peers[1].name = "openblas";
  r->npeers = 2;
}

/* Time clforge on one path and check its result; *result gets C (f32) when
 * it is right. Returns 0 when the row has numbers. */
static int measure_clforge(gemm_case *c, gemm_path path, clforge_bench_record *r, float *result) {
  bench_env *env = c->env;
  if (setenv("CLFORGE_GEMM_PATH", path_names[path], 1) != 0) {
    snprintf(r->error, sizeof r->error, "setenv(CLFORGE_GEMM_PATH) failed: %s", strerror(errno));
    return -1;
  }
  if (path == PATH_AUTO) { /* which provider and parameters the call uses (tuning file, defaults, ...) */
    clforge_kernel_choice ch[2];
    int n = 0;
    if (clforge_gemm_explain(env->ctx, &c->desc, ch, 2, &n) == CLFORGE_SUCCESS && n > 0 &&
        r->ntags < CLFORGE_BENCH_MAX_TAGS) {
      if (!strcmp(ch[0].provider, "clblast")) r->provider = "clblast";
      r->tags[r->ntags].name = "params";
      r->tags[r->ntags++].value = clforge_params_source_name(ch[0].source);
    }
  }
  progress(env, c, r->provider);
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(env->queue, enqueue_clforge, c, env->o->warmup, env->o->runs, &t, &where);
  if (rc != 0) {
    if (!strcmp(where, "the operation"))
      snprintf(r->error, sizeof r->error, "clforge_gemm failed (%s): %s", clforge_status_name(rc),
               clforge_last_error(env->ctx));
    else
      snprintf(r->error, sizeof r->error, "%s failed (%s)", where, clforge_status_name(rc));
    return -1;
  }
  clforge_bench_stats st;
  if (clforge_bench_summarize(t.seconds, (size_t)t.runs, &st)) {
    clforge_bench_timing_free(&t);
    snprintf(r->error, sizeof r->error, "out of host memory");
    return -1;
  }
  r->timer = clforge_bench_timer_name(t.timer);
  snprintf(r->timer_note, sizeof r->timer_note, "%s", t.timer == CLFORGE_BENCH_TIMER_WALL ? t.why_wall : "");
  r->median_ms = st.median * 1e3;
  r->p95_ms = st.p95 * 1e3;
  r->gflops = gemm_flops(c) / st.median * 1e-9;
  r->gbps = gemm_bytes(c) / st.median * 1e-9;
  clforge_bench_timing_free(&t);
  if (read_c(c, result, r->error, sizeof r->error)) return -1;
  if (spot_check(c, result, r->error, sizeof r->error)) {
    warn(env, "%zux%zux%zu %s %s: %s; its timing is not reported", c->s.m, c->s.n, c->s.k,
         clforge_dtype_name(c->dtype), r->provider, r->error);
    return -1;
  }
  r->ok = 1;
  return 0;
}

/* Fill a peer's numbers from its timing, or its note. */
static void peer_from_timing(clforge_bench_peer_result *p, const gemm_case *c, const clforge_bench_timing *t) {
  clforge_bench_stats st;
  if (clforge_bench_summarize(t->seconds, (size_t)t->runs, &st)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  p->ok = 1;
  p->timer = clforge_bench_timer_name(t->timer);
  p->median_ms = st.median * 1e3;
  p->gflops = gemm_flops(c) / st.median * 1e-9;
}

/* A peer's result against clforge's: a mismatch nulls the peer's numbers. */
static void check_peer(clforge_bench_peer_result *p, const gemm_case *c, const float *got, const float *want) {
  if (!p->ok) return;
  if (!want) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "not reported: no correct clforge result to check it against");
    return;
  }
  double d = max_rel_diff(got, want, c->c_elems), tol = peer_tolerance(c->dtype);
  if (!(d < tol)) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note,
             "not reported: its result differs from clforge's (max |difference| = %.3g of max |C|, tolerance %.0e)",
             d, tol);
    warn(c->env, "%zux%zux%zu %s: %s %s", c->s.m, c->s.n, c->s.k, clforge_dtype_name(c->dtype), p->name, p->note);
  }
}

static void measure_clblast(gemm_case *c, clforge_bench_peer_result *p, const float *want, float *scratch) {
  bench_env *env = c->env;
  const char *why = "";
  if (!clforge_bench_clblast_gemm_supported(c->dtype, env->info.caps, &why)) {
    snprintf(p->note, sizeof p->note, "%s", why);
    return;
  }
  progress(env, c, "clblast");
  const char *fn = c->dtype == CLFORGE_F16 ? "CLBlastHgemm" : "CLBlastSgemm";
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(env->queue, enqueue_clblast, c, env->o->warmup, env->o->runs, &t, &where);
  if (rc != 0) {
    snprintf(p->note, sizeof p->note, "%s failed: %s", strcmp(where, "the operation") ? where : fn,
             clforge_bench_clblast_status_name(rc));
    warn(env, "%zux%zux%zu %s: clblast: %s", c->s.m, c->s.n, c->s.k, clforge_dtype_name(c->dtype), p->note);
    clFinish(env->queue);
    return;
  }
  peer_from_timing(p, c, &t);
  clforge_bench_timing_free(&t);
  char err[256];
  if (p->ok && read_c(c, scratch, err, sizeof err)) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "%s", err);
    return;
  }
  check_peer(p, c, scratch, want);
}

static void measure_openblas(gemm_case *c, clforge_bench_peer_result *p, const float *want) {
  bench_env *env = c->env;
  const char *why = "";
  clforge_bench_host_fn fn;
  if (c->dtype == CLFORGE_F32) {
    fn = run_sgemm;
  } else if (c->dtype == CLFORGE_BF16) {
    if (!clforge_bench_openblas_sbgemm_works(&why)) {
      snprintf(p->note, sizeof p->note, "%s", why);
      return;
    }
    fn = run_sbgemm;
  } else {
    snprintf(p->note, sizeof p->note, "OpenBLAS has no f16 GEMM");
    return;
  }
  /* Sizes are at most MAX_DIM (2^20), so they fit OpenBLAS's int. */
  c->c_host = malloc(c->c_elems * sizeof(float));
  if (!c->c_host) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  progress(env, c, "openblas");
  clforge_bench_timing t;
  if (clforge_bench_time_host(fn, c, env->o->warmup, env->o->runs, &t)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  peer_from_timing(p, c, &t);
  clforge_bench_timing_free(&t);
  /* OpenBLAS's worker threads spin for a while after a call (its thread
   * timeout, 2^28 cycles by default: ~60 ms here) and would take a core
   * from the next case's clforge runs: wait them out. */
  struct timespec settle = {0, 250 * 1000 * 1000};
  nanosleep(&settle, NULL);
  if (c->dtype == CLFORGE_BF16 && p->ok)
    snprintf(p->note, sizeof p->note, "cblas_sbgemm: bf16 A and B, f32 C (clforge writes a bf16 C)");
  check_peer(p, c, c->c_host, want);
}

/* A row faster than the measured peak means the peak was taken while other
 * work held part of the device (on a shared CPU, another tenant's core):
 * measure it again now, and keep the larger from this row on. */
static void refresh_peak(bench_env *env, const clforge_bench_record *r) {
  char msg[512];
  if (env->o->peak && r->ok &&
      clforge_bench_peak_recheck(env->ctx, &env->peak, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6, msg,
                                 sizeof msg))
    warn(env, "%s %s %s", r->provider, r->dtype, msg);
}

static void emit(bench_env *env, clforge_bench_record *r) {
  progress_clear(env);
  refresh_peak(env, r);
  r->peak = env->peak;
  if (env->o->json) clforge_bench_print_json(stdout, r);
  else clforge_bench_table_row(&env->table, r);
}

/* One (shape, dtype): every requested path, then the peers. Returns the
 * number of clforge rows without numbers. */
static int run_case(bench_env *env, gemm_shape s, clforge_dtype dtype) {
  const gemm_options *o = env->o;
  clforge_bench_record rec[PATH_COUNT];
  for (int i = 0; i < o->npaths; ++i) record_init(&rec[i], env, s, dtype, o->paths[i]);
  gemm_case c;
  char err[512];
  if (setup_case(env, &c, s, dtype, err, sizeof err)) {
    for (int i = 0; i < o->npaths; ++i) {
      snprintf(rec[i].error, sizeof rec[i].error, "%s", err);
      for (int j = 0; j < rec[i].npeers; ++j)
        snprintf(rec[i].peers[j].note, sizeof rec[i].peers[j].note, "not run: the case could not be set up");
      emit(env, &rec[i]);
    }
    warn(env, "%zux%zux%zu %s: %s", s.m, s.n, s.k, clforge_dtype_name(dtype), err);
    free_case(&c);
    return o->npaths;
  }

  /* clforge: want = the first correct result, compared with the peers. */
  float *want = malloc(c.c_elems * sizeof(float)), *scratch = malloc(c.c_elems * sizeof(float));
  int have_want = 0, failed = 0;
  for (int i = 0; i < o->npaths; ++i) {
    if (!want || !scratch) {
      snprintf(rec[i].error, sizeof rec[i].error, "out of host memory");
    } else if (measure_clforge(&c, o->paths[i], &rec[i], have_want ? scratch : want) == 0) {
      have_want = 1;
      continue;
    }
    ++failed;
    if (!rec[i].ok && strncmp(rec[i].error, "wrong result", 12))
      warn(env, "%zux%zux%zu %s %s: %s", s.m, s.n, s.k, clforge_dtype_name(dtype), rec[i].provider, rec[i].error);
  }

  clforge_bench_peer_result peers[2];
  memset(peers, 0, sizeof peers);
  peers[0].name = "clblast";
  peers[1].name = "openblas";
  if (!o->peers) {
    snprintf(peers[0].note, sizeof peers[0].note, "not run (--no-peers)");
    snprintf(peers[1].note, sizeof peers[1].note, "not run (--no-peers)");
  } else if (!scratch) {
    snprintf(peers[0].note, sizeof peers[0].note, "out of host memory");
    snprintf(peers[1].note, sizeof peers[1].note, "out of host memory");
  } else {
    measure_clblast(&c, &peers[0], have_want ? want : NULL, scratch);
    measure_openblas(&c, &peers[1], have_want ? want : NULL);
  }
  for (int i = 0; i < o->npaths; ++i) {
    rec[i].peers[0] = peers[0];
    rec[i].peers[1] = peers[1];
    emit(env, &rec[i]);
  }
  free(want);
  free(scratch);
  free_case(&c);
  return failed;
}

/* ------------------------------------------------------------------- main */

int clforge_bench_gemm_main(int argc, char **argv) {
  gemm_options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) {
    free(o.shapes);
    return rc;
  }

  bench_env env;
  memset(&env, 0, sizeof env);
  env.o = &o;
  env.progress = isatty(STDERR_FILENO);
  clforge_status st = clforge_context_create(NULL, &env.ctx);
  if (st == CLFORGE_SUCCESS) st = clforge_context_queue(env.ctx, &env.queue);
  if (st == CLFORGE_SUCCESS) st = clforge_context_cl_context(env.ctx, &env.cl_ctx);
  if (st == CLFORGE_SUCCESS) st = clforge_context_device_info(env.ctx, &env.info);
  if (st == CLFORGE_SUCCESS) st = clforge_context_set_validation(env.ctx, 0);
  if (st != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge bench gemm: no device: %s: %s\n", clforge_status_name(st), clforge_last_error(env.ctx));
    clforge_context_destroy(env.ctx);
    free(o.shapes);
    return 1;
  }
  clforge_bench_device_label(env.info.name, env.device, sizeof env.device);
  int threads = o.peers ? clforge_bench_openblas_init() : 0;
  clforge_bench_peak peak;
  if (o.peak) {
    if (env.progress) {
      fputs("  measuring the device's peak ...", stderr);
      fflush(stderr);
    }
    int peak_rc = clforge_bench_peak_measure(env.ctx, &peak);
    progress_clear(&env);
    clforge_bench_peak_denominators(&peak, &env.peak);
    char why[512];
    if (peak_rc) warn(&env, "the device's peak: %s (see 'clforge bench peak')", peak.error);
    else if (clforge_bench_peak_shortfall(&peak, why, sizeof why)) warn(&env, "%s", why);
  }

  if (o.json && o.peers && clforge_bench_openblas_misses_avx512())
    fprintf(stderr,
            "clforge bench gemm: note: this CPU has AVX-512 but OpenBLAS runs its %s kernels (field openblas_core), "
            "so its number is not the CPU's ceiling; OPENBLAS_CORETYPE=SkylakeX makes it use AVX-512\n",
            clforge_bench_openblas_core());
  if (!o.json) {
    char platform[160];
    clforge_bench_device_label(env.info.platform_name, platform, sizeof platform);
    printf("clforge %s bench gemm on %s (%s)\n", clforge_version(), env.device, platform);
    printf("C = A*B, alpha 1, beta 0, row-major, trans %s; %d runs after %d warm-up; median and p95 in ms\n",
           o.trans, o.runs, o.warmup);
    if (o.peers)
      printf("peers: CLBlast on the same queue; OpenBLAS (%s kernels, %d threads) on the host, timed with the host "
             "clock\n",
             clforge_bench_openblas_core(), threads);
    if (env.peak.gflops > 0 || env.peak.gbps > 0)
      printf("peak (clforge bench peak): %.1f GFLOP/s f32 multiply-add, %.1f GB/s streaming; %% peak and %% bw are\n"
             "      GFLOP/s and GB/s as fractions of them\n",
             env.peak.gflops, env.peak.gbps);
    if (o.peers && clforge_bench_openblas_misses_avx512())
      printf("note: this CPU has AVX-512 but OpenBLAS runs its %s kernels, so its number is not the CPU's ceiling;\n"
             "      OPENBLAS_CORETYPE=SkylakeX in the environment makes it use AVX-512\n",
             clforge_bench_openblas_core());
    printf("\n");
    fflush(stdout);
    clforge_bench_table_init(&env.table, stdout);
  }

  /* CLFORGE_GEMM_PATH is set for each clforge run, and restored at the end. */
  const char *old = getenv("CLFORGE_GEMM_PATH");
  char *saved = old ? strdup(old) : NULL;
  int failed = 0;
  for (size_t i = 0; i < o.nshapes; ++i)
    for (int d = 0; d < o.ndtypes; ++d) failed += run_case(&env, o.shapes[i], o.dtypes[d]);
  if (saved) setenv("CLFORGE_GEMM_PATH", saved, 1);
  else unsetenv("CLFORGE_GEMM_PATH");
  free(saved);

  if (!o.json) clforge_bench_table_finish(&env.table);
  if (o.peers) clforge_bench_clblast_release();
  clforge_context_destroy(env.ctx);
  free(o.shapes);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
