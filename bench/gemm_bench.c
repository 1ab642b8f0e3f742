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

#include <cjson/cJSON.h>
#include <clforge/clforge.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "data.h"
#include "conv_peers.h"
#include "peers.h"
#include "report.h"
#include "session.h"
#include "stats.h"
#include "table.h"
#include "timer.h"

enum { DEFAULT_RUNS = 10, DEFAULT_WARMUP = 2, NPEERS = 2, PEER_CLBLAST = 0, PEER_OPENBLAS = 1 };
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
  clforge_bench_cli cli; /* --json, --runs, --warmup, --no-peers, --no-peak */
  gemm_shape *shapes;
  size_t nshapes, cap;
  clforge_dtype dtypes[3];
  int ndtypes;
  int trans_a, trans_b;
  char trans[3];
  gemm_path paths[PATH_COUNT];
  int npaths;
  int int8; /* --int8: an int8 row per shape too */
  int q8_0; /* --q8_0: a q8_0-weight row per shape too */
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
          "  --q8_0              also, per shape, y = x W^T with W (n x k) in ggml's q8_0 blocks\n"
          "                      (llama.cpp's Q8_0 weights; f32 x and y), next to clforge's f32\n"
          "                      and f16 weights on the same shape (GB/s: the bytes read)\n"
          "  --int8              also, per shape, clforge_gemm_quantized (u8 A with zero point\n"
          "                      128, s8 B, s32 C), next to clforge's f32 GEMM on the same\n"
          "                      shape and oneDNN's u8s8s32 GEMM on the host (its result\n"
          "                      must equal clforge's exactly); NN only\n"
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
          "%% peak = GFLOP/s / the device's f32 peak (its f16 peak for a kernel that ran f16\n"
          "arithmetic, CLFORGE_COMPUTE_TYPE) and %% bw = GB/s / its streaming bandwidth,\n"
          "measured first by 'clforge bench peak' (a fraction of a second).\n"
          "\n"
          "The device is CLFORGE_DEVICE's choice (see 'clforge info'). Validation mode is\n"
          "off while timing. Exit status: 0 success, 1 a clforge case failed or no device,\n"
          "2 usage error.\n",
          CLFORGE_BENCH_MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP);
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

/* One of gemm's own options at argv[*a] (clforge_bench_own_option). */
static int gemm_option(clforge_bench_cli *cli, int argc, char **argv, int *a, void *user) {
  gemm_options *o = user;
  const char *v = NULL;
  unsigned long long nums[3];
  char tok[32];
  if (clforge_bench_option(argc, argv, a, "--sizes", &v)) {
    if (!v) return clforge_bench_usage_error(cli, "--sizes needs a value, e.g. --sizes 1024,2048");
    const char *s = v;
    int t;
    while ((t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1) {
      if (clforge_bench_parse_number(tok, strlen(tok), 1, MAX_DIM, &nums[0])) break;
      if (add_shape(o, nums[0], nums[0], nums[0])) return clforge_bench_usage_error(cli, "out of memory");
    }
    if (t != 0)
      return clforge_bench_usage_error(cli, "--sizes \"%s\": expected sizes from 1 to %llu separated by commas", v,
                                       MAX_DIM);
  } else if (clforge_bench_option(argc, argv, a, "--shape", &v)) {
    if (!v) return clforge_bench_usage_error(cli, "--shape needs a value, e.g. --shape 512,3072,768");
    if (clforge_bench_parse_numbers(v, 1, MAX_DIM, nums, 3) != 3)
      return clforge_bench_usage_error(cli, "--shape \"%s\": expected M,N,K, each from 1 to %llu", v, MAX_DIM);
    if (add_shape(o, nums[0], nums[1], nums[2])) return clforge_bench_usage_error(cli, "out of memory");
  } else if (clforge_bench_option(argc, argv, a, "--dtype", &v)) {
    return clforge_bench_cli_dtypes(cli, "--dtype", v, o->dtypes, &o->ndtypes, 3);
  } else if (!strcmp(argv[*a], "--int8")) {
    o->int8 = 1;
  } else if (!strcmp(argv[*a], "--q8_0")) {
    o->q8_0 = 1;
  } else if (clforge_bench_option(argc, argv, a, "--trans", &v)) {
    if (!v || strlen(v) != 2 || !strchr("NnTt", v[0]) || !strchr("NnTt", v[1]))
      return clforge_bench_usage_error(cli, "--trans needs NN, NT, TN or TT");
    o->trans_a = v[0] == 'T' || v[0] == 't';
    o->trans_b = v[1] == 'T' || v[1] == 't';
    snprintf(o->trans, sizeof o->trans, "%c%c", o->trans_a ? 'T' : 'N', o->trans_b ? 'T' : 'N');
  } else if (clforge_bench_option(argc, argv, a, "--path", &v)) {
    if (!v) return clforge_bench_usage_error(cli, "--path needs auto, tiled, direct, packed or all");
    if (!strcmp(v, "all")) {
      o->npaths = PATH_COUNT;
      for (int i = 0; i < PATH_COUNT; ++i) o->paths[i] = (gemm_path)i;
    } else {
      int found = -1;
      for (int i = 0; i < PATH_COUNT; ++i)
        if (!strcmp(v, path_names[i])) found = i;
      if (found < 0)
        return clforge_bench_usage_error(cli, "--path \"%s\": expected auto, tiled, direct, packed or all", v);
      o->npaths = 1;
      o->paths[0] = (gemm_path)found;
    }
  } else {
    return 0;
  }
  return 1;
}

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_options(int argc, char **argv, gemm_options *o) {
  o->cli = clforge_bench_cli_for("gemm", clforge_bench_gemm_help,
                                 CLFORGE_BENCH_OPT_TIMED | CLFORGE_BENCH_OPT_PEERS, DEFAULT_RUNS, DEFAULT_WARMUP);
  snprintf(o->trans, sizeof o->trans, "NN");
  int rc = clforge_bench_cli_parse(&o->cli, argc, argv, gemm_option, o);
  if (rc >= 0) return rc;
  if (o->nshapes == 0) {
    for (size_t i = 0; i < sizeof default_squares / sizeof default_squares[0]; ++i)
      if (add_shape(o, default_squares[i], default_squares[i], default_squares[i]))
        return clforge_bench_usage_error(&o->cli, "out of memory");
    for (size_t i = 0; i < sizeof default_shapes / sizeof default_shapes[0]; ++i)
      if (add_shape(o, default_shapes[i].m, default_shapes[i].n, default_shapes[i].k))
        return clforge_bench_usage_error(&o->cli, "out of memory");
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
  for (size_t i = 0; o->q8_0 && i < o->nshapes; ++i)
    if (o->shapes[i].k % 32)
      return clforge_bench_usage_error(&o->cli, "--q8_0: k must be a multiple of 32 (q8_0's blocks), got %zu",
                                       o->shapes[i].k);
  if (o->int8 && (o->trans_a || o->trans_b))
    return clforge_bench_usage_error(&o->cli, "--int8 times NN only (oneDNN's peer call is NN)");
  return -1;
}

/* ------------------------------------------------------------------ cases */

typedef struct {
  clforge_bench_session s; /* context, peak, progress, warnings */
  const gemm_options *o;
  clforge_bench_table table;
} bench_env;

/* One row: one clforge path on one (shape, dtype), with the peers' numbers. */
typedef struct {
  gemm_shape s;
  clforge_dtype dtype;
  gemm_path path;
  const char *provider; /* "clforge", "clforge-tiled", ...; "clblast" where auto chose CLBlast */
  const char *params;   /* auto: where its parameters came from (tuning file, defaults, ...); NULL */
  int arith;            /* the arithmetic its kernel ran (clforge_compute_type; % peak's denominator) */
  const char *label;    /* the dtype column when not one dtype ("u8s8s32"); NULL */
  int ok;               /* 0: clforge failed or was wrong: error says why */
  char error[512];
  double median_ms, p95_ms, gflops, gbps;
  const char *timer;
  char timer_note[160];
  clforge_bench_peer_result peers[NPEERS];
} gemm_row;

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
  clforge_bench_progress(&env->s, "%zux%zux%zu %s: %s", c->s.m, c->s.n, c->s.k, clforge_dtype_name(c->dtype), what);
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
  const char *const names[3] = {"A", "B", "C"};
  if (clforge_bench_operands_fit(&env->s.info, sizes, names, err, cap)) return -1;
  c->a32 = malloc(c->a_elems * sizeof(float));
  c->b32 = malloc(c->b_elems * sizeof(float));
  if (!c->a32 || !c->b32) goto no_memory;
  clforge_bench_fill_random(c->a32, c->a_elems, 0x1234567u, 1.0f);
  clforge_bench_fill_random(c->b32, c->b_elems, 0x89abcdefu, 1.0f);
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
  c->a = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizes[0], c->a_raw, &e1);
  c->b = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizes[1], c->b_raw, &e2);
  c->c = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, sizes[2], NULL, &e3);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS) {
    cl_int e = e1 != CL_SUCCESS ? e1 : e2 != CL_SUCCESS ? e2 : e3;
    snprintf(err, cap, "clCreateBuffer failed (%s) for %zu bytes in all", clforge_status_name(e),
             sizes[0] + sizes[1] + sizes[2]);
    return -1;
  }
  return 0;
no_memory:
  snprintf(err, cap, "out of host memory for the %zux%zux%zu %s data", s.m, s.n, s.k, clforge_dtype_name(dtype));
  return -1;
}

/* Read C back, widened to f32. */
static int read_c(const gemm_case *c, float *out, char *err, size_t cap) {
  return clforge_bench_read_f32(c->env->s.queue, c->c, "C", c->dtype, 0, c->c_elems, out, err, cap);
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
    double tol = clforge_bench_unit_roundoff(c->dtype) * fabs(sum) + 1e-4 * abs_sum + 1e-30;
    if (!(fabs(g - sum) <= tol)) {
      snprintf(why, cap, "wrong result: C[%zu][%zu] = %.9g, expected %.9g (tolerance %.3g)", i, j, g, sum, tol);
      return -1;
    }
  }
  return 0;
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
  return clforge_gemm(c->env->s.ctx, &c->desc, c->a, c->b, c->c, NULL, 0, NULL, NULL);
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

static void row_init(gemm_row *r, gemm_shape s, clforge_dtype dtype, gemm_path path) {
  memset(r, 0, sizeof *r);
  r->s = s;
  r->dtype = dtype;
  r->path = path;
  r->provider = path_providers[path];
  r->peers[PEER_CLBLAST].name = "clblast";
  r->peers[PEER_OPENBLAS].name = "openblas";
}

/* Time clforge on one path and check its result; *result gets C (f32) when
 * it is right. Returns 0 when the row has numbers. */
static int measure_clforge(gemm_case *c, gemm_row *r, float *result) {
  bench_env *env = c->env;
  const clforge_bench_cli *cli = &env->o->cli;
  if (setenv("CLFORGE_GEMM_PATH", path_names[r->path], 1) != 0) {
    snprintf(r->error, sizeof r->error, "setenv(CLFORGE_GEMM_PATH) failed: %s", strerror(errno));
    return -1;
  }
  { /* which provider, parameters (auto: tuning file, defaults, ...) and arithmetic the call uses */
    clforge_kernel_choice ch[2];
    int n = 0;
    if (clforge_gemm_explain(env->s.ctx, &c->desc, ch, 2, &n) == CLFORGE_SUCCESS && n > 0) {
      if (r->path == PATH_AUTO && !strcmp(ch[0].provider, "clblast")) r->provider = "clblast";
      if (r->path == PATH_AUTO) r->params = clforge_params_source_name(ch[0].source);
      r->arith = ch[0].compute_type;
    }
  }
  progress(env, c, r->provider);
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(env->s.queue, enqueue_clforge, c, cli->warmup, cli->runs, &t, &where);
  if (rc != 0) {
    if (!strcmp(where, "the operation"))
      snprintf(r->error, sizeof r->error, "clforge_gemm failed (%s): %s", clforge_status_name(rc),
               clforge_last_error(env->s.ctx));
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
    clforge_bench_warn(&env->s, "%zux%zux%zu %s %s: %s; its timing is not reported", c->s.m, c->s.n, c->s.k,
                       clforge_dtype_name(c->dtype), r->provider, r->error);
    return -1;
  }
  r->ok = 1;
  return 0;
}

/* A peer's result against clforge's: a mismatch nulls the peer's numbers. */
static void check_peer(clforge_bench_peer_result *p, const gemm_case *c, const float *got, const float *want) {
  if (!p->ok) return;
  if (!want) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "not reported: no correct clforge result to check it against");
    return;
  }
  if (clforge_bench_peer_differs(p, got, want, c->c_elems, peer_tolerance(c->dtype), "C"))
    clforge_bench_warn(&c->env->s, "%zux%zux%zu %s: %s %s", c->s.m, c->s.n, c->s.k, clforge_dtype_name(c->dtype),
                       p->name, p->note);
}

static void measure_clblast(gemm_case *c, clforge_bench_peer_result *p, const float *want, float *scratch) {
  bench_env *env = c->env;
  const char *why = "";
  if (!clforge_bench_clblast_gemm_supported(c->dtype, env->s.info.caps, &why)) {
    snprintf(p->note, sizeof p->note, "%s", why);
    return;
  }
  progress(env, c, "clblast");
  const char *fn = c->dtype == CLFORGE_F16 ? "CLBlastHgemm" : "CLBlastSgemm";
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(env->s.queue, enqueue_clblast, c, env->o->cli.warmup, env->o->cli.runs, &t,
                                    &where);
  if (rc != 0) {
    snprintf(p->note, sizeof p->note, "%s failed: %s", strcmp(where, "the operation") ? where : fn,
             clforge_bench_clblast_status_name(rc));
    clforge_bench_warn(&env->s, "%zux%zux%zu %s: clblast: %s", c->s.m, c->s.n, c->s.k, clforge_dtype_name(c->dtype),
                       p->note);
    clFinish(env->s.queue);
    return;
  }
  clforge_bench_peer_timed(p, &t, gemm_flops(c));
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
  if (clforge_bench_time_host(fn, c, env->o->cli.warmup, env->o->cli.runs, &t)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  clforge_bench_peer_timed(p, &t, gemm_flops(c));
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

/* ----------------------------------------------------------------- output */

static int print_json(const bench_env *env, const gemm_row *r) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return -1;
  const clforge_bench_cli *cli = &env->o->cli;
  clforge_bench_json_string(o, "op", "gemm");
  cJSON_AddNumberToObject(o, "m", (double)r->s.m);
  cJSON_AddNumberToObject(o, "n", (double)r->s.n);
  cJSON_AddNumberToObject(o, "k", (double)r->s.k);
  cJSON_AddNumberToObject(o, "batch", 1);
  clforge_bench_json_string(o, "dtype", r->label ? r->label : clforge_dtype_name(r->dtype));
  clforge_bench_json_string(o, "trans", env->o->trans);
  clforge_bench_json_string(o, "path", path_names[r->path]);
  if (cli->peers) clforge_bench_json_string(o, "openblas_core", clforge_bench_openblas_core());
  if (r->params) clforge_bench_json_string(o, "params", r->params);
  clforge_bench_json_string(o, "provider", r->provider);
  clforge_bench_json_times(o, r->ok, r->median_ms, r->p95_ms);
  clforge_bench_json_number(o, "gflops", r->ok, r->gflops);
  clforge_bench_json_number(o, "gbps", r->ok, r->gbps);
  const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith);
  clforge_bench_json_peaks(o, &pk, r->ok, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  clforge_bench_json_run(o, cli->runs, cli->warmup, r->ok ? r->timer : NULL, r->ok ? r->timer_note : NULL,
                         env->s.device);
  clforge_bench_json_peers(o, r->peers, NPEERS, r->ok, r->gflops);
  if (!r->ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
  return clforge_bench_json_line(stdout, o);
}

/* The table's columns; peer0/peer1 name the peer columns (the float rows'
 * CLBlast and OpenBLAS, the int8 rows' clforge f32 and oneDNN). */
static void table_columns(bench_env *env, const char *peer0, const char *peer1) {
  clforge_bench_table *t = &env->table;
  static const char *const dims[] = {"m", "n", "k", "batch"};
  clforge_bench_table_init(t, stdout);
  clforge_bench_table_column(t, "op", 4, 1);
  for (int i = 0; i < 4; ++i) clforge_bench_table_column(t, dims[i], 6, 0);
  clforge_bench_table_column(t, "dtype", 5, 1);
  clforge_bench_table_column(t, "provider", 14, 1);
  clforge_bench_table_result_columns(t, 1);
  clforge_bench_table_peak_columns(t, &env->s.peak, "% peak");
  clforge_bench_table_peer_columns(t, peer0, strlen(peer0) > 8 ? (int)strlen(peer0) : 8, 7);
  clforge_bench_table_peer_columns(t, peer1, strlen(peer1) > 8 ? (int)strlen(peer1) : 8, 7);
}

static void table_row(bench_env *env, const gemm_row *r) {
  clforge_bench_table *t = &env->table;
  char note[640];
  clforge_bench_table_cell(t, "gemm");
  clforge_bench_table_cellf(t, "%zu", r->s.m);
  clforge_bench_table_cellf(t, "%zu", r->s.n);
  clforge_bench_table_cellf(t, "%zu", r->s.k);
  clforge_bench_table_cell(t, "1");
  clforge_bench_table_cell(t, r->label ? r->label : clforge_dtype_name(r->dtype));
  clforge_bench_table_cell(t, r->provider);
  if (!r->ok) {
    snprintf(note, sizeof note, "%s %s: %s", r->provider, clforge_dtype_name(r->dtype),
             r->error[0] ? r->error : "failed");
    clforge_bench_table_status(t, 4 + 2 * t->peak_columns, "error", note);
  } else {
    clforge_bench_table_results(t, r->median_ms, r->p95_ms, r->timer, r->timer_note, 1, r->gflops, r->gbps);
    const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith); /* f16 rows: the f16 peak */
    if (t->peak_columns) clforge_bench_table_peak_cells(t, &pk, 1, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  }
  for (int i = 0; i < NPEERS; ++i) clforge_bench_table_peer(t, &r->peers[i], r->ok, r->gflops);
  clforge_bench_table_end_row(t);
}

static void emit(bench_env *env, gemm_row *r) {
  clforge_bench_progress_clear(&env->s);
  if (r->ok) {
    char label[96];
    snprintf(label, sizeof label, "%s %s", r->provider, clforge_dtype_name(r->dtype));
    clforge_bench_session_recheck(&env->s, label, r->arith, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  }
  if (env->o->cli.json) print_json(env, r);
  else table_row(env, r);
}

/* One (shape, dtype): every requested path, then the peers. Returns the
 * number of clforge rows without numbers. */
static int run_case(bench_env *env, gemm_shape s, clforge_dtype dtype) {
  const gemm_options *o = env->o;
  gemm_row rows[PATH_COUNT];
  for (int i = 0; i < o->npaths; ++i) row_init(&rows[i], s, dtype, o->paths[i]);
  gemm_case c;
  char err[512];
  if (setup_case(env, &c, s, dtype, err, sizeof err)) {
    for (int i = 0; i < o->npaths; ++i) {
      snprintf(rows[i].error, sizeof rows[i].error, "%s", err);
      clforge_bench_peers_not_run(rows[i].peers, NPEERS, "not run: the case could not be set up");
      emit(env, &rows[i]);
    }
    clforge_bench_warn(&env->s, "%zux%zux%zu %s: %s", s.m, s.n, s.k, clforge_dtype_name(dtype), err);
    free_case(&c);
    return o->npaths;
  }

  /* clforge: want = the first correct result, compared with the peers. */
  float *want = malloc(c.c_elems * sizeof(float)), *scratch = malloc(c.c_elems * sizeof(float));
  int have_want = 0, failed = 0;
  for (int i = 0; i < o->npaths; ++i) {
    if (!want || !scratch) {
      snprintf(rows[i].error, sizeof rows[i].error, "out of host memory");
    } else if (measure_clforge(&c, &rows[i], have_want ? scratch : want) == 0) {
      have_want = 1;
      continue;
    }
    ++failed;
    if (strncmp(rows[i].error, "wrong result", 12))
      clforge_bench_warn(&env->s, "%zux%zux%zu %s %s: %s", s.m, s.n, s.k, clforge_dtype_name(dtype), rows[i].provider,
                         rows[i].error);
  }

  clforge_bench_peer_result peers[NPEERS];
  memset(peers, 0, sizeof peers);
  peers[PEER_CLBLAST].name = "clblast";
  peers[PEER_OPENBLAS].name = "openblas";
  if (!o->cli.peers) {
    clforge_bench_peers_not_run(peers, NPEERS, "not run (--no-peers)");
  } else if (!scratch) {
    clforge_bench_peers_not_run(peers, NPEERS, "out of host memory");
  } else {
    measure_clblast(&c, &peers[PEER_CLBLAST], have_want ? want : NULL, scratch);
    measure_openblas(&c, &peers[PEER_OPENBLAS], have_want ? want : NULL);
  }
  for (int i = 0; i < o->npaths; ++i) {
    memcpy(rows[i].peers, peers, sizeof peers);
    emit(env, &rows[i]);
  }
  free(want);
  free(scratch);
  free_case(&c);
  return failed;
}

/* ------------------------------------------------------------------- int8 */

/* One int8 row per shape: clforge_gemm_quantized (u8 x s8 -> s32, A's zero
 * point 128), clforge's own f32 GEMM on the same shape, oneDNN's u8s8s32. */
enum { I8_PEER_F32 = 0, I8_PEER_ONEDNN = 1 };

typedef struct {
  bench_env *env;
  gemm_shape s;
  uint8_t *a;
  int8_t *b;
  int32_t *c_host;
  cl_mem da, db, dc, fa, fb, fc;
  clforge_gemm_desc desc, fdesc;
  clforge_gemm_quant quant;
} int8_case;

static int enqueue_int8(void *user, cl_command_queue queue) {
  int8_case *c = user;
  (void)queue;
  return clforge_gemm_quantized(c->env->s.ctx, &c->desc, &c->quant, c->da, c->db, c->dc, NULL, 0, NULL, NULL);
}

static int enqueue_int8_f32(void *user, cl_command_queue queue) {
  int8_case *c = user;
  (void)queue;
  return clforge_gemm(c->env->s.ctx, &c->fdesc, c->fa, c->fb, c->fc, NULL, 0, NULL, NULL);
}

static char onednn_error[256];
static void run_onednn_int8(void *user) {
  int8_case *c = user;
  if (clforge_bench_onednn_gemm_u8s8s32(c->s.m, c->s.n, c->s.k, c->a, 128, c->b, c->c_host, onednn_error,
                                        sizeof onednn_error))
    return;
}

static void free_int8(int8_case *c) {
  const cl_mem m[6] = {c->da, c->db, c->dc, c->fa, c->fb, c->fc};
  for (int i = 0; i < 6; ++i)
    if (m[i]) clReleaseMemObject(m[i]);
  free(c->a), free(c->b), free(c->c_host);
}

static int setup_int8(bench_env *env, int8_case *c, gemm_shape s, char *err, size_t cap) {
  memset(c, 0, sizeof *c);
  c->env = env, c->s = s;
  const size_t na = s.m * s.k, nb = s.k * s.n, nc = s.m * s.n;
  c->a = malloc(na), c->b = malloc(nb), c->c_host = malloc(nc * 4);
  float *f = malloc((na > nb ? na : nb) * sizeof(float));
  if (!c->a || !c->b || !c->c_host || !f) {
    free(f);
    snprintf(err, cap, "out of host memory");
    return -1;
  }
  uint32_t seed = 0x51ed270bu;
  /* A's values in [0, 127]: oneDNN's kernels on CPUs without VNNI (AVX2)
   * sum u8 x s8 pairs in saturating int16 (vpmaddubsw, its documented
   * limit), so full-range bytes make its C inexact there; 7-bit ones keep
   * every peer exact on every CPU, at the same speed */
  for (size_t i = 0; i < na; ++i) c->a[i] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 25);
  for (size_t i = 0; i < nb; ++i) c->b[i] = (int8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
  clforge_bench_fill_random(f, na > nb ? na : nb, 0x1234567u, 1.0f);
  cl_int e[6];
  c->da = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na, c->a, &e[0]);
  c->db = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nb, c->b, &e[1]);
  c->dc = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, nc * 4, NULL, &e[2]);
  c->fa = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na * 4, f, &e[3]);
  c->fb = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nb * 4, f, &e[4]);
  c->fc = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, nc * 4, NULL, &e[5]);
  free(f);
  for (int i = 0; i < 6; ++i)
    if (e[i] != CL_SUCCESS) {
      snprintf(err, cap, "clCreateBuffer failed (%s)", clforge_status_name(e[i]));
      return -1;
    }
  c->desc = (clforge_gemm_desc){.m = s.m, .n = s.n, .k = s.k, .a_type = CLFORGE_U8, .b_type = CLFORGE_S8,
                                .c_type = CLFORGE_S32};
  c->fdesc = (clforge_gemm_desc){.m = s.m, .n = s.n, .k = s.k};
  c->quant = (clforge_gemm_quant){.a_zero_point = 128};
  return 0;
}

/* Sampled elements of clforge's C against exact int64 dot products. */
static int int8_spot_check(const int8_case *c, const int32_t *got, char *why, size_t cap) {
  uint32_t seed = 0xC0FFEEu;
  for (int t = 0; t < SPOT_SAMPLES; ++t) {
    seed = seed * 1664525u + 1013904223u;
    const size_t i = t < 4 ? ((t & 1) ? c->s.m - 1 : 0) : (size_t)((seed >> 8) % (uint32_t)c->s.m);
    seed = seed * 1664525u + 1013904223u;
    const size_t j = t < 4 ? ((t & 2) ? c->s.n - 1 : 0) : (size_t)((seed >> 8) % (uint32_t)c->s.n);
    int64_t sum = 0;
    for (size_t p = 0; p < c->s.k; ++p) sum += (int64_t)(c->a[i * c->s.k + p] - 128) * c->b[p * c->s.n + j];
    if (got[i * c->s.n + j] != (int32_t)sum) {
      snprintf(why, cap, "wrong result: C[%zu][%zu] = %d, exactly %lld", i, j, got[i * c->s.n + j], (long long)sum);
      return -1;
    }
  }
  return 0;
}

/* An extra row (int8, q8_0) done: its warning if it failed, then printed. */
static void finish_row(bench_env *env, gemm_row *r, const char *what) {
  if (!r->ok && !r->error[0]) snprintf(r->error, sizeof r->error, "out of host memory");
  if (!r->ok) clforge_bench_warn(&env->s, "%zux%zux%zu %s: %s", r->s.m, r->s.n, r->s.k, what, r->error);
  clforge_bench_progress_clear(&env->s);
  if (env->o->cli.json) {
    print_json(env, r);
  } else {
    table_row(env, r);
  }
}

/* Time fn(user) on the queue (the int8 and q8_0 rows and their clforge peers). */
static int time_on_queue(bench_env *env, clforge_bench_enqueue_fn fn, void *user, clforge_bench_timing *t, char *err,
                         size_t cap) {
  const char *where = "";
  int rc = clforge_bench_time_queue(env->s.queue, fn, user, env->o->cli.warmup, env->o->cli.runs, t, &where);
  if (rc != 0)
    snprintf(err, cap, "%s failed (%s): %s", where, clforge_status_name(rc), clforge_last_error(env->s.ctx));
  return rc;
}

/* Time clforge's own row (fn on user) into r: its median, p95, GFLOP/s
 * for `flops` and GB/s for `bytes`; 0 when it ran (its result then wants
 * checking). */
static int time_row(bench_env *env, gemm_row *r, clforge_bench_enqueue_fn fn, void *user, double flops, double bytes) {
  clforge_bench_timing t;
  clforge_bench_stats st;
  if (time_on_queue(env, fn, user, &t, r->error, sizeof r->error) != 0) return -1;
  int rc = clforge_bench_summarize(t.seconds, (size_t)t.runs, &st);
  if (rc == 0) {
    r->timer = clforge_bench_timer_name(t.timer);
    r->median_ms = st.median * 1e3, r->p95_ms = st.p95 * 1e3;
    r->gflops = flops / st.median * 1e-9;
    r->gbps = bytes / st.median * 1e-9;
  }
  clforge_bench_timing_free(&t);
  return rc;
}

static int run_int8_case(bench_env *env, gemm_shape s) {
  const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
  gemm_row r;
  row_init(&r, s, CLFORGE_S8, PATH_AUTO);
  r.provider = "clforge-int8";
  r.label = "u8s8";
  r.peers[I8_PEER_F32].name = "clforge_f32";
  r.peers[I8_PEER_ONEDNN].name = "onednn_u8s8s32";
  int8_case c;
  int32_t *got = NULL;
  if (setup_int8(env, &c, s, r.error, sizeof r.error) == 0 && (got = malloc(s.m * s.n * 4)) != NULL) {
    clforge_bench_progress(&env->s, "%zux%zux%zu u8s8s32: clforge", s.m, s.n, s.k);
    clforge_bench_timing t;
    if (time_row(env, &r, enqueue_int8, &c, flops, (double)(s.m * s.k + s.k * s.n + 4 * s.m * s.n)) == 0) {
      cl_int e = clEnqueueReadBuffer(env->s.queue, c.dc, CL_TRUE, 0, s.m * s.n * 4, got, 0, NULL, NULL);
      r.ok = e == CL_SUCCESS && int8_spot_check(&c, got, r.error, sizeof r.error) == 0;
      if (e != CL_SUCCESS) snprintf(r.error, sizeof r.error, "reading C failed (%s)", clforge_status_name(e));
    }
    if (!env->o->cli.peers) {
      clforge_bench_peers_not_run(r.peers, NPEERS, "not run (--no-peers)");
    } else {
      clforge_bench_progress(&env->s, "%zux%zux%zu u8s8s32: clforge f32", s.m, s.n, s.k);
      char err[256];
      if (time_on_queue(env, enqueue_int8_f32, &c, &t, err, sizeof err) == 0) {
        clforge_bench_peer_timed(&r.peers[I8_PEER_F32], &t, flops);
        snprintf(r.peers[I8_PEER_F32].note, sizeof r.peers[I8_PEER_F32].note,
                 "clforge_gemm f32 on the same shape (its own data)");
        clforge_bench_timing_free(&t);
      } else {
        snprintf(r.peers[I8_PEER_F32].note, sizeof r.peers[I8_PEER_F32].note, "%s", err);
      }
      const char *why = "";
      clforge_bench_peer_result *p = &r.peers[I8_PEER_ONEDNN];
      if (!clforge_bench_onednn_available(&why)) {
        snprintf(p->note, sizeof p->note, "%s", why);
      } else {
        clforge_bench_progress(&env->s, "%zux%zux%zu u8s8s32: onednn", s.m, s.n, s.k);
        onednn_error[0] = '\0';
        if (clforge_bench_time_host(run_onednn_int8, &c, env->o->cli.warmup, env->o->cli.runs, &t) == 0) {
          clforge_bench_peer_timed(p, &t, flops);
          clforge_bench_timing_free(&t);
        }
        if (onednn_error[0]) {
          p->ok = 0;
          snprintf(p->note, sizeof p->note, "%s", onednn_error);
        } else if (r.ok && memcmp(got, c.c_host, s.m * s.n * 4)) {
          p->ok = 0;
          snprintf(p->note, sizeof p->note, "not reported: its C differs from clforge's (both should be exact)");
          clforge_bench_warn(&env->s, "%zux%zux%zu u8s8s32: onednn %s", s.m, s.n, s.k, p->note);
        } else if (!r.ok) {
          p->ok = 0;
          snprintf(p->note, sizeof p->note, "not reported: no correct clforge result to check it against");
        }
      }
    }
  }
  finish_row(env, &r, "u8s8s32");
  free(got);
  free_int8(&c);
  return !r.ok;
}

/* ------------------------------------------------------------------- q8_0 */

/* One q8_0 row per shape: y = x W^T, W (n x k) q8_0 rows (decode's GEMV at
 * small m, where reading W is the cost), next to clforge's f32 and f16
 * weights (W^T, the same layout) on the same shape. */
enum { Q8_PEER_F32 = 0, Q8_PEER_F16 = 1 };

typedef struct {
  bench_env *env;
  gemm_shape s;
  float *x;
  unsigned char *q;
  cl_mem dx, dq, dy, wf, wh;
  clforge_gemm_desc desc, fdesc, hdesc;
} q8_case;

static int enqueue_q8(void *user, cl_command_queue queue) {
  q8_case *c = user;
  (void)queue;
  return clforge_gemm(c->env->s.ctx, &c->desc, c->dx, c->dq, c->dy, NULL, 0, NULL, NULL);
}

static int enqueue_q8_f32(void *user, cl_command_queue queue) {
  q8_case *c = user;
  (void)queue;
  return clforge_gemm(c->env->s.ctx, &c->fdesc, c->dx, c->wf, c->dy, NULL, 0, NULL, NULL);
}

static int enqueue_q8_f16(void *user, cl_command_queue queue) {
  q8_case *c = user;
  (void)queue;
  return clforge_gemm(c->env->s.ctx, &c->hdesc, c->dx, c->wh, c->dy, NULL, 0, NULL, NULL);
}

static void free_q8(q8_case *c) {
  const cl_mem m[5] = {c->dx, c->dq, c->dy, c->wf, c->wh};
  for (int i = 0; i < 5; ++i)
    if (m[i]) clReleaseMemObject(m[i]);
  free(c->x), free(c->q);
}

static int setup_q8(bench_env *env, q8_case *c, gemm_shape s, char *err, size_t cap) {
  memset(c, 0, sizeof *c);
  c->env = env, c->s = s;
  const size_t row = s.k / 32 * 34, nw = s.n * s.k;
  float *w = malloc(nw * sizeof *w);
  uint16_t *h = malloc(nw * sizeof *h);
  c->x = malloc(s.m * s.k * sizeof *c->x), c->q = malloc(s.n * row);
  int rc = -1;
  if (w && h && c->x && c->q) {
    clforge_bench_fill_random(c->x, s.m * s.k, 0x1234567u, 1.0f);
    clforge_bench_fill_random(w, nw, 0x7654321u, 0.05f);
    const clforge_quant_desc qd = {.scheme = CLFORGE_QUANT_Q8_0, .rows = s.n, .cols = s.k};
    clforge_ref_convert(nw, w, CLFORGE_F32, h, CLFORGE_F16);
    if (clforge_ref_quantize(&qd, w, c->q, NULL, NULL) == CLFORGE_SUCCESS) {
      cl_int e[5];
      c->dx = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, s.m * s.k * 4, c->x, &e[0]);
      c->dq = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, s.n * row, c->q, &e[1]);
      c->dy = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, s.m * s.n * 4, NULL, &e[2]);
      c->wf = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nw * 4, w, &e[3]);
      c->wh = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nw * 2, h, &e[4]);
      rc = 0;
      for (int i = 0; i < 5 && rc == 0; ++i)
        if (e[i] != CL_SUCCESS) rc = -1, snprintf(err, cap, "clCreateBuffer failed (%s)", clforge_status_name(e[i]));
    } else {
      snprintf(err, cap, "quantizing W: %s", clforge_last_error(NULL));
    }
  } else {
    snprintf(err, cap, "out of host memory");
  }
  free(w), free(h);
  c->desc = (clforge_gemm_desc){.m = s.m, .n = s.n, .k = s.k, .trans_b = CLFORGE_TRANS, .b_type = CLFORGE_Q8_0};
  c->fdesc = (clforge_gemm_desc){.m = s.m, .n = s.n, .k = s.k, .trans_b = CLFORGE_TRANS};
  c->hdesc = (clforge_gemm_desc){.m = s.m, .n = s.n, .k = s.k, .trans_b = CLFORGE_TRANS, .b_type = CLFORGE_F16};
  return rc;
}

/* Sampled elements of y against double dot products over the decoded
 * blocks (f32's rounding of k products: 1e-4 of the magnitudes' sum). */
static int q8_spot_check(const q8_case *c, const float *got, char *why, size_t cap) {
  const size_t row = c->s.k / 32 * 34;
  uint32_t seed = 0xC0FFEEu;
  for (int t = 0; t < SPOT_SAMPLES; ++t) {
    seed = seed * 1664525u + 1013904223u;
    const size_t i = (size_t)((seed >> 8) % (uint32_t)c->s.m);
    seed = seed * 1664525u + 1013904223u;
    const size_t j = (size_t)((seed >> 8) % (uint32_t)c->s.n);
    double sum = 0, mag = 0;
    for (size_t p = 0; p < c->s.k; ++p) {
      const unsigned char *blk = c->q + j * row + p / 32 * 34;
      const double w = (double)clforge_ref_f16_to_f32((uint16_t)(blk[0] | blk[1] << 8)) * (int8_t)blk[2 + p % 32];
      sum += (double)c->x[i * c->s.k + p] * w, mag += fabs((double)c->x[i * c->s.k + p] * w);
    }
    if (fabs(got[i * c->s.n + j] - sum) > 1e-4 * mag + 1e-30) {
      snprintf(why, cap, "wrong result: y[%zu][%zu] = %.7g, %.7g over the decoded blocks", i, j,
               (double)got[i * c->s.n + j], sum);
      return -1;
    }
  }
  return 0;
}

static void q8_peer(q8_case *c, int which, clforge_bench_enqueue_fn fn, double flops, double bytes, gemm_row *r) {
  clforge_bench_timing t;
  char err[256];
  clforge_bench_peer_result *p = &r->peers[which];
  clforge_bench_progress(&c->env->s, "%zux%zux%zu q8_0: clforge %s weights", c->s.m, c->s.n, c->s.k,
                         which == Q8_PEER_F32 ? "f32" : "f16");
  if (time_on_queue(c->env, fn, c, &t, err, sizeof err) == 0) {
    clforge_bench_peer_timed(p, &t, flops);
    snprintf(p->note, sizeof p->note, "clforge_gemm, %s W^T on the same shape: %.1f GB/s", which == Q8_PEER_F32 ? "f32" : "f16",
             bytes / (p->median_ms * 1e-3) * 1e-9);
    clforge_bench_timing_free(&t);
  } else {
    snprintf(p->note, sizeof p->note, "%s", err);
  }
}

static int run_q8_case(bench_env *env, gemm_shape s) {
  const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
  const double io = 4.0 * (double)(s.m * s.k + s.m * s.n);
  gemm_row r;
  row_init(&r, s, CLFORGE_F32, PATH_AUTO);
  r.provider = "clforge-q8_0";
  r.label = "f32,q8_0";
  r.peers[Q8_PEER_F32].name = "clforge_f32_weights";
  r.peers[Q8_PEER_F16].name = "clforge_f16_weights";
  q8_case c;
  float *got = NULL;
  if (setup_q8(env, &c, s, r.error, sizeof r.error) == 0 && (got = malloc(s.m * s.n * 4)) != NULL) {
    clforge_bench_progress(&env->s, "%zux%zux%zu q8_0: clforge", s.m, s.n, s.k);
    if (time_row(env, &r, enqueue_q8, &c, flops, (double)s.n * (double)(s.k / 32 * 34) + io) == 0) {
      cl_int e = clEnqueueReadBuffer(env->s.queue, c.dy, CL_TRUE, 0, s.m * s.n * 4, got, 0, NULL, NULL);
      r.ok = e == CL_SUCCESS && q8_spot_check(&c, got, r.error, sizeof r.error) == 0;
      if (e != CL_SUCCESS) snprintf(r.error, sizeof r.error, "reading y failed (%s)", clforge_status_name(e));
    }
    if (!env->o->cli.peers) {
      clforge_bench_peers_not_run(r.peers, NPEERS, "not run (--no-peers)");
    } else {
      q8_peer(&c, Q8_PEER_F32, enqueue_q8_f32, flops, 4.0 * (double)s.n * (double)s.k + io, &r);
      q8_peer(&c, Q8_PEER_F16, enqueue_q8_f16, flops, 2.0 * (double)s.n * (double)s.k + io, &r);
    }
  }
  finish_row(env, &r, "q8_0");
  free(got);
  free_q8(&c);
  return !r.ok;
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
  if (clforge_bench_session_open(&env.s, "gemm", o.cli.peak)) {
    free(o.shapes);
    return 1;
  }
  int threads = o.cli.peers ? clforge_bench_openblas_init() : 0;
  if (o.cli.json && o.cli.peers && clforge_bench_openblas_misses_avx512())
    fprintf(stderr,
            "clforge bench gemm: note: this CPU has AVX-512 but OpenBLAS runs its %s kernels (field openblas_core), "
            "so its number is not the CPU's ceiling; OPENBLAS_CORETYPE=SkylakeX makes it use AVX-512\n",
            clforge_bench_openblas_core());
  if (!o.cli.json) {
    clforge_bench_print_title(&env.s);
    printf("C = A*B, alpha 1, beta 0, row-major, trans %s; %d runs after %d warm-up; median and p95 in ms\n",
           o.trans, o.cli.runs, o.cli.warmup);
    if (o.cli.peers)
      printf("peers: CLBlast on the same queue; OpenBLAS (%s kernels, %d threads) on the host, timed with the host "
             "clock\n",
             clforge_bench_openblas_core(), threads);
    clforge_bench_print_peak(&env.s, "% peak", "% bw");
    if (o.cli.peers && clforge_bench_openblas_misses_avx512())
      printf("note: this CPU has AVX-512 but OpenBLAS runs its %s kernels, so its number is not the CPU's ceiling;\n"
             "      OPENBLAS_CORETYPE=SkylakeX in the environment makes it use AVX-512\n",
             clforge_bench_openblas_core());
    printf("\n");
    fflush(stdout);
    table_columns(&env, "clblast", "openblas");
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

  if (!o.cli.json) clforge_bench_table_finish(&env.table);
  if (o.int8) { /* a table of its own: its peers are clforge's f32 GEMM and oneDNN */
    if (!o.cli.json) {
      printf("\nint8: clforge_gemm_quantized, u8 A (zero point 128) x s8 B -> s32 C (exact), GOP/s in the GFLOP/s "
             "column\n");
      table_columns(&env, "clforge f32", "onednn");
    }
    for (size_t i = 0; i < o.nshapes; ++i) failed += run_int8_case(&env, o.shapes[i]);
    if (!o.cli.json) clforge_bench_table_finish(&env.table);
  }
  if (o.q8_0) { /* a table of its own: its peers are clforge's f32 and f16 weights */
    if (!o.cli.json) {
      printf("\nq8_0 weights: y = x W^T, x and y f32, W n x k in q8_0 blocks; GB/s: W's bytes, x and y\n");
      table_columns(&env, "f32 weights", "f16 weights");
    }
    for (size_t i = 0; i < o.nshapes; ++i) failed += run_q8_case(&env, o.shapes[i]);
    if (!o.cli.json) clforge_bench_table_finish(&env.table);
  }
  if (o.cli.peers) clforge_bench_clblast_release();
  clforge_bench_session_close(&env.s);
  free(o.shapes);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
