/* `clforge bench softmax`: clforge_softmax (or, with --pass bwd,
 * clforge_softmax_backward) timed with profiling events on the shapes users
 * bring (attention scores, vocabulary logits, many short rows), each result
 * checked against the reference before its number is shown. Both passes
 * stream their inputs once and write their output once, so the figure of
 * merit is bandwidth: GB/s and its fraction of the device's measured
 * streaming bandwidth. */
#include "softmax_bench.h"

#include <cjson/cJSON.h>
#include <clforge/clforge.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "data.h"
#include "report.h"
#include "session.h"
#include "softmax_peers.h"
#include "stats.h"
#include "table.h"
#include "timer.h"

enum { DEFAULT_RUNS = 10, DEFAULT_WARMUP = 2, MIN_RUNS = CLFORGE_BENCH_MIN_RUNS };
enum { SAMPLE_ROWS = 64, MAX_SHAPES = 64 };
#define MAX_DIM (1ull << 26)
#define REF_FULL_ELEMS (1u << 22) /* at most: every row against the reference */
#define X_RANGE 8.0f              /* x in [-8, 8): rows far from uniform, large exponents */

typedef struct {
  size_t rows, n;
  const char *what;
} sm_shape;

/* attention scores of 8 heads at S = 2048; a vocabulary (LLaMA's 32000) for
 * 32 sequences; many short rows (attention at S = 128); a 50257-token
 * vocabulary (GPT-2) with one row; an ImageNet classifier's 1000 classes. */
static const sm_shape default_shapes[] = {
    {8 * 2048, 2048, "attention scores, 8 heads, S = 2048"},
    {32, 32000, "vocabulary logits, 32 rows"},
    {4096, 128, "short rows"},
    {1, 50257, "one long row"},
    {256, 1000, "classifier"},
};
static const sm_shape quick_shapes[] = {{64, 100, "quick"}, {3, 1000, "quick"}};

typedef struct {
  clforge_bench_cli cli; /* --json, --reps, --warmup, --quick, --no-peak */
  sm_shape shapes[MAX_SHAPES];
  int nshapes;
  clforge_dtype dtypes[3];
  int ndtypes;
  int inplace[2]; /* 0: y apart from x, 1: in place */
  int ninplace;
  clforge_softmax_kind kind;
  int backward; /* --pass bwd */
} sm_options;

void clforge_bench_softmax_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench softmax [options]\n"
          "\n"
          "Time clforge_softmax (along rows of a [rows, n] tensor, x and y of one dtype, no\n"
          "mask, scale 1) and check each result against clforge_ref_softmax (sampled rows;\n"
          "every row for small shapes): a wrong result gets no number. --pass bwd times\n"
          "clforge_softmax_backward instead (dx from y and dy, all of one dtype), checked\n"
          "against clforge_ref_softmax_backward.\n"
          "\n"
          "Options:\n"
          "  --shapes LIST     ROWSxN[,ROWSxN...] (default: 16384x2048 attention scores,\n"
          "                    32x32000 vocabulary, 4096x128 short rows, 1x50257, 256x1000)\n"
          "  --dtype LIST      f32,f16,bf16 or a subset (default all three)\n"
          "  --inplace WHICH   no, yes or both (default both): y apart from x, or y = x\n"
          "  --log             log-softmax instead of softmax\n"
          "  --pass P          fwd (default) or bwd: the backward pass\n"
          "  --reps N          timed runs per row, at least %d (default %d); --runs too\n"
          "  --warmup N        untimed runs first, at least 1 (default %d)\n"
          "  --quick           tiny shapes, %d runs: checks the harness in a second\n"
          "  --no-peak         do not measure the device's peak first (no %% bw)\n"
          "  --no-peers        do not run oneDNN's softmax beside it (f32 rows)\n"
          "  --json            one JSON object per line per row, nothing else on stdout\n"
          "  -h, --help        show this help\n"
          "\n"
          "Columns: the kernel family and parameters clforge_softmax_explain reports;\n"
          "median and p95 (nearest rank) of the runs in ms (profiling events; the host\n"
          "clock where profiling is unavailable); GB/s = rows*n elements read and written\n"
          "once (backward: y and dy read, dx written) / median; %% bw = GB/s / the\n"
          "device's streaming bandwidth ('clforge bench peak'). In place (backward: dx\n"
          "over dy), each run works on the previous run's output: the same work; the\n"
          "check starts from the inputs again.\n"
          "oneDNN ms and x (f32 rows, when the benchmark was built with oneDNN): oneDNN's\n"
          "softmax v2 (forward, or backward from y and dy) on the host CPU on the same values,\n"
          "its result checked against clforge's, median of as many runs; x = its median /\n"
          "clforge's (above 1: clforge is faster).\n"
          "\n"
          "The device is CLFORGE_DEVICE's choice (see 'clforge info'). Validation mode is\n"
          "off while timing. Exit status: 0 success, 1 a row failed or was wrong, or no\n"
          "device, 2 usage error.\n",
          MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP, MIN_RUNS);
}

static int parse_shapes(const char *v, sm_options *o) {
  const char *s = v;
  while (s && *s) {
    size_t len = strcspn(s, ",");
    const char *x = memchr(s, 'x', len);
    unsigned long long rows, n;
    if (!x || o->nshapes >= MAX_SHAPES || clforge_bench_parse_number(s, (size_t)(x - s), 1, MAX_DIM, &rows) ||
        clforge_bench_parse_number(x + 1, len - (size_t)(x - s) - 1, 1, MAX_DIM, &n) || rows * n > MAX_DIM * 4)
      return -1;
    o->shapes[o->nshapes++] = (sm_shape){rows, n, NULL};
    s = s[len] ? s + len + 1 : NULL;
    if (s && !*s) return -1; /* a trailing comma */
  }
  return o->nshapes ? 0 : -1;
}

/* One of softmax's own options at argv[*a] (clforge_bench_own_option). */
static int sm_option(clforge_bench_cli *cli, int argc, char **argv, int *a, void *user) {
  sm_options *o = user;
  const char *v = NULL;
  if (!strcmp(argv[*a], "--log")) {
    o->kind = CLFORGE_LOG_SOFTMAX;
  } else if (clforge_bench_option(argc, argv, a, "--pass", &v)) {
    if (v && !strcmp(v, "fwd")) o->backward = 0;
    else if (v && !strcmp(v, "bwd")) o->backward = 1;
    else return clforge_bench_usage_error(cli, "--pass needs fwd or bwd");
  } else if (clforge_bench_option(argc, argv, a, "--shapes", &v) ||
             clforge_bench_option(argc, argv, a, "--shape", &v)) {
    if (!v || parse_shapes(v, o))
      return clforge_bench_usage_error(cli, "--shapes \"%s\": expected ROWSxN[,ROWSxN...], e.g. 16384x2048,32x32000",
                                       v ? v : "");
  } else if (clforge_bench_option(argc, argv, a, "--dtype", &v)) {
    return clforge_bench_cli_dtypes(cli, "--dtype", v, o->dtypes, &o->ndtypes, 3);
  } else if (clforge_bench_option(argc, argv, a, "--inplace", &v)) {
    if (v && !strcmp(v, "no")) o->ninplace = 1, o->inplace[0] = 0;
    else if (v && !strcmp(v, "yes")) o->ninplace = 1, o->inplace[0] = 1;
    else if (v && !strcmp(v, "both")) o->ninplace = 2, o->inplace[0] = 0, o->inplace[1] = 1;
    else return clforge_bench_usage_error(cli, "--inplace needs no, yes or both");
  } else {
    return 0;
  }
  return 1;
}

static int parse_options(int argc, char **argv, sm_options *o) {
  o->cli = clforge_bench_cli_for("softmax", clforge_bench_softmax_help,
                                 CLFORGE_BENCH_OPT_TIMED | CLFORGE_BENCH_OPT_QUICK | CLFORGE_BENCH_OPT_PEERS,
                                 DEFAULT_RUNS, DEFAULT_WARMUP);
  int rc = clforge_bench_cli_parse(&o->cli, argc, argv, sm_option, o);
  if (rc >= 0) return rc;
  const int quick = o->cli.quick;
  if (o->nshapes == 0) {
    const sm_shape *list = quick ? quick_shapes : default_shapes;
    int n = quick ? (int)(sizeof quick_shapes / sizeof quick_shapes[0])
                  : (int)(sizeof default_shapes / sizeof default_shapes[0]);
    for (int i = 0; i < n; ++i) o->shapes[o->nshapes++] = list[i];
  }
  if (quick && !o->cli.runs_given) o->cli.runs = MIN_RUNS;
  if (quick) o->cli.warmup = 1;
  if (o->ndtypes == 0) {
    o->dtypes[0] = CLFORGE_F32, o->dtypes[1] = CLFORGE_F16, o->dtypes[2] = CLFORGE_BF16;
    o->ndtypes = 3;
  }
  if (o->ninplace == 0) o->ninplace = 2, o->inplace[0] = 0, o->inplace[1] = 1;
  return -1;
}

/* ------------------------------------------------------------------- rows */

typedef struct {
  sm_shape s;
  clforge_dtype dtype;
  int inplace;
  char kernel[96]; /* "softmax_online VW=8 RPW=1" */
  const char *params_source;
  int ok;
  char error[512];
  double median_ms, p95_ms, gbps, bytes;
  double onednn_ms;      /* the peer's median (f32 rows), 0 when it did not run */
  char onednn_note[200]; /* why it did not run, or its error */
  const char *timer;
  char timer_note[160];
} sm_row;

typedef struct {
  clforge_bench_session s; /* context, peak (bandwidth: softmax's figure of merit), progress, warnings */
  const sm_options *o;
  clforge_bench_table table;
} bench_env;

/* Forward: x -> y (y == x in place). Backward: y (in x's buffer) and dy
 * -> dx (in y's buffer; dx == dy in place). */
typedef struct {
  bench_env *env;
  int backward;
  clforge_softmax_desc desc;
  void *x_raw, *dy_raw; /* the inputs as stored: x (backward: y), dy */
  cl_mem x, dy, y;      /* y == x in place; backward y == dy */
  size_t elems, es;
} sm_case;

static int enqueue_softmax(void *user, cl_command_queue queue) {
  sm_case *c = user;
  (void)queue;
  return c->backward ? clforge_softmax_backward(c->env->s.ctx, &c->desc, c->x, c->dy, c->y, 0, NULL, NULL)
                     : clforge_softmax(c->env->s.ctx, &c->desc, c->x, NULL, c->y, 0, NULL, NULL);
}

static int upload_x(sm_case *c) {
  cl_int e = clEnqueueWriteBuffer(c->env->s.queue, c->x, CL_TRUE, 0, c->elems * c->es, c->x_raw, 0, NULL, NULL);
  if (e == CL_SUCCESS && c->backward)
    e = clEnqueueWriteBuffer(c->env->s.queue, c->dy, CL_TRUE, 0, c->elems * c->es, c->dy_raw, 0, NULL, NULL);
  return e;
}

/* y against clforge_ref_softmax on sampled rows (every row when small):
 * |y - ref| <= y's rounding twice over plus the f32 arithmetic's, relative
 * to each element, plus a floor at the row's largest value times 1e-6 (and
 * f16's smallest subnormal) for elements near zero. */
static int check(sm_case *c, char *why, size_t cap) {
  const size_t rows = c->desc.rows, n = c->desc.n;
  const int whole = rows * n <= REF_FULL_ELEMS;
  const size_t nrows = whole ? rows : SAMPLE_ROWS;
  void *raw = malloc(n * c->es);
  float *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
  int rc = 0;
  if (!raw || !got || !want) {
    snprintf(why, cap, "out of host memory for the check");
    rc = -1;
  }
  uint32_t seed = 0xC0FFEEu;
  const double rel = 2 * clforge_bench_unit_roundoff(c->desc.y_type) + 1e-5,
               floor = c->desc.y_type == CLFORGE_F16 ? 0x1p-24 : 1e-30;
  for (size_t t = 0; t < nrows && rc == 0; ++t) {
    size_t r = t;
    if (!whole) {
      if (t < 2) r = t ? rows - 1 : 0;
      else {
        seed = seed * 1664525u + 1013904223u;
        r = (size_t)(((uint64_t)(seed >> 4) * rows) >> 28);
      }
    }
    clforge_softmax_desc d = c->desc;
    d.rows = 1;
    d.x_offset = r * n, d.y_offset = 0; /* backward: y and dy at row r, dx at 0 */
    if (c->backward) d.x_offset = 0, d.y_offset = d.dy_offset = r * n;
    cl_int e = clEnqueueReadBuffer(c->env->s.queue, c->y, CL_TRUE, r * n * c->es, n * c->es, raw, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
      snprintf(why, cap, "clEnqueueReadBuffer of y failed (%s)", clforge_status_name(e));
      rc = -1;
      break;
    }
    clforge_ref_convert(n, raw, c->desc.y_type, got, CLFORGE_F32);
    if ((c->backward ? clforge_ref_softmax_backward(&d, c->x_raw, c->dy_raw, raw)
                     : clforge_ref_softmax(&d, c->x_raw, NULL, raw)) != CLFORGE_SUCCESS) {
      snprintf(why, cap, "the reference failed: %s", clforge_last_error(NULL));
      rc = -1;
      break;
    }
    clforge_ref_convert(n, raw, c->desc.y_type, want, CLFORGE_F32);
    double rowmax = 0;
    for (size_t i = 0; i < n; ++i) rowmax = fabs(want[i]) > rowmax && isfinite(want[i]) ? fabs(want[i]) : rowmax;
    for (size_t i = 0; i < n; ++i) {
      const double w = want[i], g = got[i];
      if (w == g) continue; /* also -inf == -inf (log-softmax) */
      if (!(fabs(g - w) <= rel * fabs(w) + 1e-6 * rowmax + floor)) {
        snprintf(why, cap, "wrong result: %s[%zu][%zu] = %.7g, the reference's %.7g", c->backward ? "dx" : "y", r, i,
                 g, w);
        rc = -1;
        break;
      }
    }
  }
  free(raw), free(got), free(want);
  return rc;
}

static void onednn_run(void *user) { clforge_bench_onednn_softmax_run(user); }

/* oneDNN's softmax (f32 rows) on the same inputs, its output against
 * clforge's, then timed on the host. */
static void onednn_peer(bench_env *env, sm_case *c, sm_row *r) {
  if (!env->o->cli.peers) return;
  if (c->desc.y_type != CLFORGE_F32) {
    snprintf(r->onednn_note, sizeof r->onednn_note, "oneDNN: f32 rows only");
    return;
  }
  clforge_bench_onednn_softmax *p = NULL;
  const size_t n = c->elems;
  float *ours = malloc(n * sizeof *ours);
  if (!ours || clforge_bench_onednn_softmax_create(c->desc.rows, c->desc.n, c->desc.kind == CLFORGE_LOG_SOFTMAX,
                                                   c->backward, c->x_raw, c->dy_raw, &p, r->onednn_note,
                                                   sizeof r->onednn_note)) {
    free(ours);
    return;
  }
  clforge_bench_timing t;
  memset(&t, 0, sizeof t);
  if (clforge_bench_onednn_softmax_run(p) ||
      clEnqueueReadBuffer(env->s.queue, c->y, CL_TRUE, 0, n * sizeof *ours, ours, 0, NULL, NULL) != CL_SUCCESS) {
    snprintf(r->onednn_note, sizeof r->onednn_note, "oneDNN: the run or the read of ours failed");
  } else {
    const float *theirs = clforge_bench_onednn_softmax_result(p);
    double worst = 0, big = 0;
    for (size_t i = 0; i < n; ++i) big = fmax(big, fabs(theirs[i]));
    for (size_t i = 0; i < n && worst <= 1e-4; ++i)
      if (isfinite(theirs[i]) || isfinite(ours[i])) worst = fmax(worst, fabs(theirs[i] - ours[i]) / (big + 1e-30));
    if (worst > 1e-4)
      snprintf(r->onednn_note, sizeof r->onednn_note, "oneDNN's result differs from ours (%.3g of the largest)", worst);
    else if (clforge_bench_time_host(onednn_run, p, env->o->cli.warmup, env->o->cli.runs, &t) == 0) {
      clforge_bench_stats st;
      if (!clforge_bench_summarize(t.seconds, (size_t)t.runs, &st)) r->onednn_ms = st.median * 1e3;
    }
  }
  clforge_bench_timing_free(&t);
  clforge_bench_onednn_softmax_destroy(p);
  free(ours);
}

static void measure(bench_env *env, const sm_shape *s, clforge_dtype dt, int inplace, sm_row *r) {
  const sm_options *o = env->o;
  sm_case c;
  memset(&c, 0, sizeof c);
  memset(r, 0, sizeof *r);
  r->s = *s;
  r->dtype = dt;
  r->inplace = inplace;
  c.env = env;
  c.backward = o->backward;
  c.elems = s->rows * s->n;
  c.es = clforge_dtype_size(dt);
  c.desc = (clforge_softmax_desc){
      .kind = o->kind, .rows = s->rows, .n = s->n, .x_type = dt, .y_type = dt, .dy_type = dt};
  r->bytes = (c.backward ? 3.0 : 2.0) * (double)c.elems * (double)c.es;
  clforge_kernel_choice ch;
  if ((c.backward ? clforge_softmax_backward_explain(env->s.ctx, &c.desc, &ch)
                  : clforge_softmax_explain(env->s.ctx, &c.desc, &ch)) == CLFORGE_SUCCESS) {
    int len = snprintf(r->kernel, sizeof r->kernel, "%s", ch.family);
    for (int i = 0; i < ch.nparams && len > 0 && (size_t)len < sizeof r->kernel; ++i)
      len += snprintf(r->kernel + len, sizeof r->kernel - (size_t)len, " %s=%d", ch.names[i], ch.values[i]);
    r->params_source = clforge_params_source_name(ch.source);
  } else {
    snprintf(r->kernel, sizeof r->kernel, "?");
  }
  float *x32 = malloc(c.elems * sizeof *x32);
  c.x_raw = dt == CLFORGE_F32 ? (void *)x32 : malloc(c.elems * c.es);
  c.dy_raw = c.backward ? malloc(c.elems * c.es) : NULL;
  if (!x32 || !c.x_raw || (c.backward && !c.dy_raw)) {
    snprintf(r->error, sizeof r->error, "out of host memory for the data");
    goto done;
  }
  if (c.backward) { /* dy in [-1, 1); y in [0, 2/n): rows that sum to about 1 */
    clforge_bench_fill_random(x32, c.elems, 0x7654321u, 1.0f);
    clforge_ref_convert(c.elems, x32, CLFORGE_F32, c.dy_raw, dt);
    clforge_bench_fill_random(x32, c.elems, 0x1234567u, 1.0f);
    for (size_t i = 0; i < c.elems; ++i) x32[i] = (x32[i] + 1.0f) / (float)s->n;
  } else {
    clforge_bench_fill_random(x32, c.elems, 0x1234567u, X_RANGE);
  }
  if (c.x_raw != x32) clforge_ref_convert(c.elems, x32, CLFORGE_F32, c.x_raw, dt);
  cl_int e1 = CL_SUCCESS, e2 = CL_SUCCESS, e3 = CL_SUCCESS;
  c.x = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, c.elems * c.es, NULL, &e1);
  if (c.backward) c.dy = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, c.elems * c.es, NULL, &e3);
  c.y = inplace ? (c.backward ? c.dy : c.x) : clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, c.elems * c.es, NULL, &e2);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS || upload_x(&c) != CL_SUCCESS) {
    snprintf(r->error, sizeof r->error, "clCreateBuffer/clEnqueueWriteBuffer of %zu bytes failed", c.elems * c.es);
    goto done;
  }
  clforge_bench_progress(&env->s, "%zux%zu %s%s", s->rows, s->n, clforge_dtype_name(dt), inplace ? " in place" : "");
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(env->s.queue, enqueue_softmax, &c, o->cli.warmup, o->cli.runs, &t, &where);
  if (rc) {
    if (!strcmp(where, "the operation"))
      snprintf(r->error, sizeof r->error, "%s failed (%s): %s",
               c.backward ? "clforge_softmax_backward" : "clforge_softmax", clforge_status_name(rc),
               clforge_last_error(env->s.ctx));
    else snprintf(r->error, sizeof r->error, "%s failed (%s)", where, clforge_status_name(rc));
    clFinish(env->s.queue);
    goto done;
  }
  clforge_bench_stats st;
  if (clforge_bench_summarize(t.seconds, (size_t)t.runs, &st)) {
    clforge_bench_timing_free(&t);
    snprintf(r->error, sizeof r->error, "out of host memory");
    goto done;
  }
  r->timer = clforge_bench_timer_name(t.timer);
  snprintf(r->timer_note, sizeof r->timer_note, "%s", t.timer == CLFORGE_BENCH_TIMER_WALL ? t.why_wall : "");
  clforge_bench_timing_free(&t);
  r->median_ms = st.median * 1e3;
  r->p95_ms = st.p95 * 1e3;
  r->gbps = r->bytes / st.median * 1e-9;
  /* One run from x again (in place, the timed runs overwrote it; apart, y
   * poisoned with NaN bits so that a short write cannot pass), then check. */
  const unsigned char ff = 0xFF;
  cl_int e = inplace ? upload_x(&c) : clEnqueueFillBuffer(env->s.queue, c.y, &ff, 1, 0, c.elems * c.es, 0, NULL, NULL);
  if (e == CL_SUCCESS) e = clFinish(env->s.queue);
  if (e != CL_SUCCESS) {
    snprintf(r->error, sizeof r->error, "resetting x or y failed (%s)", clforge_status_name(e));
    goto done;
  }
  rc = enqueue_softmax(&c, env->s.queue);
  if (rc == CLFORGE_SUCCESS) rc = clFinish(env->s.queue);
  if (rc != CLFORGE_SUCCESS) {
    snprintf(r->error, sizeof r->error, "%s failed (%s): %s", c.backward ? "clforge_softmax_backward" : "clforge_softmax",
             clforge_status_name(rc), clforge_last_error(env->s.ctx));
    goto done;
  }
  if (check(&c, r->error, sizeof r->error) == 0) r->ok = 1;
  if (r->ok) onednn_peer(env, &c, r);
done:
  if (c.x) clReleaseMemObject(c.x);
  if (c.dy) clReleaseMemObject(c.dy);
  if (c.y && c.y != c.x && c.y != c.dy) clReleaseMemObject(c.y);
  if (c.x_raw != x32) free(c.x_raw);
  free(c.dy_raw);
  free(x32);
}

static void table_columns(bench_env *env) {
  clforge_bench_table *t = &env->table;
  clforge_bench_table_init(t, stdout);
  clforge_bench_table_column(t, "rows", 8, 0);
  clforge_bench_table_column(t, "n", 6, 0);
  clforge_bench_table_column(t, "dtype", 5, 1);
  clforge_bench_table_column(t, "in place", 8, 1);
  clforge_bench_table_result_columns(t, 0);
  clforge_bench_table_column(t, "% bw", 6, 0); /* "-" without a peak */
  clforge_bench_table_column(t, "oneDNN ms", 10, 0);
  clforge_bench_table_column(t, "x", 5, 0);
  clforge_bench_table_column(t, "kernel (parameters)", 0, 1);
}

static void emit(bench_env *env, const sm_row *r) {
  clforge_bench_progress_clear(&env->s);
  if (env->o->cli.json) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return;
    clforge_bench_json_string(o, "op", "softmax");
    clforge_bench_json_string(o, "kind", env->o->kind == CLFORGE_LOG_SOFTMAX ? "log_softmax" : "softmax");
    clforge_bench_json_string(o, "pass", env->o->backward ? "bwd" : "fwd");
    cJSON_AddNumberToObject(o, "rows", (double)r->s.rows);
    cJSON_AddNumberToObject(o, "n", (double)r->s.n);
    clforge_bench_json_string(o, "dtype", clforge_dtype_name(r->dtype));
    cJSON_AddBoolToObject(o, "inplace", r->inplace);
    clforge_bench_json_string(o, "kernel", r->kernel);
    clforge_bench_json_string(o, "params", r->params_source);
    clforge_bench_json_string(o, "status", r->ok ? "ok" : "error");
    clforge_bench_json_times(o, r->ok, r->median_ms, r->p95_ms);
    clforge_bench_json_number(o, "gbps", r->ok, r->gbps);
    clforge_bench_json_number(o, "bytes", 1, r->bytes);
    clforge_bench_json_number(o, "peak_gbps", env->s.peak.gbps > 0, env->s.peak.gbps);
    clforge_bench_json_number(o, "frac_peak_bw", r->ok && env->s.peak.gbps > 0,
                              clforge_bench_fraction(r->gbps, env->s.peak.gbps));
    char note[640];
    if (r->ok && clforge_bench_peak_note(&env->s.peak, 0, r->gbps, r->bytes, note, sizeof note))
      cJSON_AddStringToObject(o, "peak_note", note);
    clforge_bench_json_number(o, "onednn_ms", r->ok && r->onednn_ms > 0, r->onednn_ms);
    clforge_bench_json_number(o, "vs_onednn", r->ok && r->onednn_ms > 0, r->onednn_ms / r->median_ms);
    if (r->onednn_note[0]) cJSON_AddStringToObject(o, "onednn_note", r->onednn_note);
    clforge_bench_json_run(o, env->o->cli.runs, env->o->cli.warmup, r->ok ? r->timer : NULL, NULL, env->s.device);
    if (!r->ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
    clforge_bench_json_line(stdout, o);
    return;
  }
  clforge_bench_table *t = &env->table;
  char note[700];
  clforge_bench_table_cellf(t, "%zu", r->s.rows);
  clforge_bench_table_cellf(t, "%zu", r->s.n);
  clforge_bench_table_cell(t, clforge_dtype_name(r->dtype));
  clforge_bench_table_cell(t, r->inplace ? "yes" : "no");
  if (!r->ok) {
    snprintf(note, sizeof note, "%zux%zu %s: %s", r->s.rows, r->s.n, clforge_dtype_name(r->dtype), r->error);
    clforge_bench_table_status(t, 6, "error", note);
  } else {
    clforge_bench_table_results(t, r->median_ms, r->p95_ms, r->timer, r->timer_note, 0, 0, r->gbps);
    clforge_bench_table_peak_cells(t, &env->s.peak, 0, 0, r->gbps, r->bytes);
    if (r->onednn_ms > 0) {
      clforge_bench_table_cellf(t, "%.4g", r->onednn_ms);
      clforge_bench_table_cellf(t, "%.2f", r->onednn_ms / r->median_ms);
    } else {
      clforge_bench_table_cell(t, "-");
      clforge_bench_table_cell(t, "-");
    }
  }
  clforge_bench_table_cell(t, r->kernel);
  clforge_bench_table_end_row(t);
}

int clforge_bench_softmax_main(int argc, char **argv) {
  sm_options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
  bench_env env;
  memset(&env, 0, sizeof env);
  env.o = &o;
  if (clforge_bench_session_open(&env.s, "softmax", o.cli.peak)) return 1;
  env.s.peak.gflops = env.s.peak.host_gflops = 0; /* no flop rate here: bandwidth only */
  if (!o.cli.json) {
    clforge_bench_print_title(&env.s);
    if (o.backward)
      printf("%s backward along rows, y, dy and dx of one dtype; %d runs after %d warm-up; median and p95 in ms;\n"
             "GB/s: y and dy read and dx written once\n",
             o.kind == CLFORGE_LOG_SOFTMAX ? "log-softmax" : "softmax", o.cli.runs, o.cli.warmup);
    else
      printf("%s along rows, x and y of one dtype, no mask; %d runs after %d warm-up; median and p95 in ms;\n"
             "GB/s: x read and y written once\n",
             o.kind == CLFORGE_LOG_SOFTMAX ? "log-softmax" : "softmax", o.cli.runs, o.cli.warmup);
    clforge_bench_print_peak(&env.s, NULL, "% bw");
    printf("\n");
    table_columns(&env);
  }
  int failed = 0;
  for (int i = 0; i < o.nshapes; ++i)
    for (int d = 0; d < o.ndtypes; ++d)
      for (int p = 0; p < o.ninplace; ++p) {
        sm_row r;
        measure(&env, &o.shapes[i], o.dtypes[d], o.inplace[p], &r);
        if (!r.ok) {
          ++failed;
          clforge_bench_warn(&env.s, "%zux%zu %s%s: %s", r.s.rows, r.s.n, clforge_dtype_name(r.dtype),
                             r.inplace ? " in place" : "", r.error);
        }
        emit(&env, &r);
      }
  if (!o.cli.json) clforge_bench_table_finish(&env.table);
  clforge_bench_session_close(&env.s);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
