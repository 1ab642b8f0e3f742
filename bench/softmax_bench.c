/* `clforge bench softmax`: clforge_softmax timed with profiling events on
 * the shapes users bring (attention scores, vocabulary logits, many short
 * rows), each result checked against clforge_ref_softmax before its number
 * is shown. Softmax streams its input once and writes its output once, so
 * the figure of merit is bandwidth: GB/s and its fraction of the device's
 * measured streaming bandwidth. */
#include "softmax_bench.h"

#include <cjson/cJSON.h>
#include <clforge/clforge.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak.h"
#include "report.h"
#include "stats.h"
#include "timer.h"

enum { EXIT_USAGE = 2 };
enum { DEFAULT_RUNS = 10, MIN_RUNS = 3, MAX_RUNS = 100000, DEFAULT_WARMUP = 2, MAX_WARMUP = 1000 };
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
  sm_shape shapes[MAX_SHAPES];
  int nshapes;
  clforge_dtype dtypes[3];
  int ndtypes;
  int inplace[2]; /* 0: y apart from x, 1: in place */
  int ninplace;
  clforge_softmax_kind kind;
  int runs, warmup, json, peak;
} sm_options;

void clforge_bench_softmax_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench softmax [options]\n"
          "\n"
          "Time clforge_softmax (along rows of a [rows, n] tensor, x and y of one dtype, no\n"
          "mask, scale 1) and check each result against clforge_ref_softmax (sampled rows;\n"
          "every row for small shapes): a wrong result gets no number.\n"
          "\n"
          "Options:\n"
          "  --shapes LIST     ROWSxN[,ROWSxN...] (default: 16384x2048 attention scores,\n"
          "                    32x32000 vocabulary, 4096x128 short rows, 1x50257, 256x1000)\n"
          "  --dtype LIST      f32,f16,bf16 or a subset (default all three)\n"
          "  --inplace WHICH   no, yes or both (default both): y apart from x, or y = x\n"
          "  --log             log-softmax instead of softmax\n"
          "  --reps N          timed runs per row, at least %d (default %d); --runs too\n"
          "  --warmup N        untimed runs first, at least 1 (default %d)\n"
          "  --quick           tiny shapes, %d runs: checks the harness in a second\n"
          "  --no-peak         do not measure the device's peak first (no %% bw)\n"
          "  --json            one JSON object per line per row, nothing else on stdout\n"
          "  -h, --help        show this help\n"
          "\n"
          "Columns: the kernel family and parameters clforge_softmax_explain reports;\n"
          "median and p95 (nearest rank) of the runs in ms (profiling events; the host\n"
          "clock where profiling is unavailable); GB/s = rows*n elements read and written\n"
          "once / median; %% bw = GB/s / the device's streaming bandwidth ('clforge bench\n"
          "peak'). In place, each run works on the previous run's output (a softmax's\n"
          "values): the same work; the check starts from x again.\n"
          "\n"
          "The device is CLFORGE_DEVICE's choice (see 'clforge info'). Validation mode is\n"
          "off while timing. Exit status: 0 success, 1 a row failed or was wrong, or no\n"
          "device, 2 usage error.\n",
          MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP, MIN_RUNS);
}

static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("clforge bench softmax: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nRun 'clforge bench softmax --help' for usage.\n", stderr);
  return EXIT_USAGE;
}

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

static int option(int argc, char **argv, int *a, const char *name, const char **value) {
  const char *arg = argv[*a];
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0) return 0;
  if (arg[len] == '=') *value = arg + len + 1;
  else if (arg[len] == '\0') *value = *a + 1 < argc ? argv[++*a] : NULL;
  else return 0;
  return 1;
}

static int parse_shapes(const char *v, sm_options *o) {
  const char *s = v;
  while (s && *s) {
    size_t len = strcspn(s, ",");
    const char *x = memchr(s, 'x', len);
    unsigned long long rows, n;
    if (!x || o->nshapes >= MAX_SHAPES || parse_number(s, (size_t)(x - s), 1, MAX_DIM, &rows) ||
        parse_number(x + 1, len - (size_t)(x - s) - 1, 1, MAX_DIM, &n) || rows * n > MAX_DIM * 4)
      return -1;
    o->shapes[o->nshapes++] = (sm_shape){rows, n, NULL};
    s = s[len] ? s + len + 1 : NULL;
    if (s && !*s) return -1; /* a trailing comma */
  }
  return o->nshapes ? 0 : -1;
}

static int parse_options(int argc, char **argv, sm_options *o) {
  o->runs = DEFAULT_RUNS;
  o->warmup = DEFAULT_WARMUP;
  o->peak = 1;
  int quick = 0, runs_given = 0;
  for (int a = 1; a < argc; ++a) {
    const char *arg = argv[a], *v = NULL;
    unsigned long long num;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      clforge_bench_softmax_help(stdout);
      return 0;
    } else if (!strcmp(arg, "--json")) {
      o->json = 1;
    } else if (!strcmp(arg, "--no-peak")) {
      o->peak = 0;
    } else if (!strcmp(arg, "--quick")) {
      quick = 1;
    } else if (!strcmp(arg, "--log")) {
      o->kind = CLFORGE_LOG_SOFTMAX;
    } else if (option(argc, argv, &a, "--shapes", &v) || option(argc, argv, &a, "--shape", &v)) {
      if (!v || parse_shapes(v, o))
        return usage_error("--shapes \"%s\": expected ROWSxN[,ROWSxN...], e.g. 16384x2048,32x32000", v ? v : "");
    } else if (option(argc, argv, &a, "--dtype", &v)) {
      o->ndtypes = 0;
      const char *s = v;
      while (s && *s) {
        size_t len = strcspn(s, ",");
        char name[8] = "";
        clforge_dtype d;
        if (len < sizeof name) memcpy(name, s, len);
        if (len >= sizeof name || clforge_dtype_from_name(name, &d) != CLFORGE_SUCCESS) {
          o->ndtypes = 0;
          break;
        }
        int dup = 0;
        for (int i = 0; i < o->ndtypes; ++i) dup |= o->dtypes[i] == d;
        if (!dup) o->dtypes[o->ndtypes++] = d;
        s = s[len] ? s + len + 1 : NULL;
      }
      if (o->ndtypes == 0)
        return usage_error("--dtype \"%s\": expected f32, f16 or bf16, separated by commas", v ? v : "");
    } else if (option(argc, argv, &a, "--inplace", &v)) {
      if (v && !strcmp(v, "no")) o->ninplace = 1, o->inplace[0] = 0;
      else if (v && !strcmp(v, "yes")) o->ninplace = 1, o->inplace[0] = 1;
      else if (v && !strcmp(v, "both")) o->ninplace = 2, o->inplace[0] = 0, o->inplace[1] = 1;
      else return usage_error("--inplace needs no, yes or both");
    } else if (option(argc, argv, &a, "--reps", &v) || option(argc, argv, &a, "--runs", &v)) {
      if (!v || parse_number(v, strlen(v), MIN_RUNS, MAX_RUNS, &num))
        return usage_error("--reps needs a whole number from %d to %d", MIN_RUNS, MAX_RUNS);
      o->runs = (int)num;
      runs_given = 1;
    } else if (option(argc, argv, &a, "--warmup", &v)) {
      if (!v || parse_number(v, strlen(v), 1, MAX_WARMUP, &num))
        return usage_error("--warmup needs a whole number from 1 to %d", MAX_WARMUP);
      o->warmup = (int)num;
    } else {
      return usage_error("unknown %s '%s'", arg[0] == '-' ? "option" : "argument", arg);
    }
  }
  if (o->nshapes == 0) {
    const sm_shape *list = quick ? quick_shapes : default_shapes;
    int n = quick ? (int)(sizeof quick_shapes / sizeof quick_shapes[0])
                  : (int)(sizeof default_shapes / sizeof default_shapes[0]);
    for (int i = 0; i < n; ++i) o->shapes[o->nshapes++] = list[i];
  }
  if (quick && !runs_given) o->runs = MIN_RUNS;
  if (quick) o->warmup = 1;
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
  const char *timer;
  char timer_note[160];
} sm_row;

typedef struct {
  clforge_context ctx;
  cl_context cl_ctx;
  cl_command_queue queue;
  clforge_device_info info;
  char device[256];
  const sm_options *o;
  int progress;
  clforge_bench_peaks peak; /* bandwidth only: softmax's figure of merit */
  int printed_header, nnotes;
  char notes[32][768];
} bench_env;

typedef struct {
  bench_env *env;
  clforge_softmax_desc desc;
  void *x_raw; /* x as stored */
  cl_mem x, y; /* y == x in place */
  size_t elems, es;
} sm_case;

static void warn(const bench_env *env, const char *fmt, ...) {
  va_list ap;
  if (env->progress) fputs("\r\033[K", stderr);
  va_start(ap, fmt);
  fputs("clforge bench softmax: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

static double unit_roundoff(clforge_dtype d) {
  return d == CLFORGE_F16 ? 0x1p-11 : d == CLFORGE_BF16 ? 0x1p-8 : 0x1p-24;
}

static int enqueue_softmax(void *user, cl_command_queue queue) {
  sm_case *c = user;
  (void)queue;
  return clforge_softmax(c->env->ctx, &c->desc, c->x, NULL, c->y, 0, NULL, NULL);
}

static int upload_x(sm_case *c) {
  cl_int e = clEnqueueWriteBuffer(c->env->queue, c->x, CL_TRUE, 0, c->elems * c->es, c->x_raw, 0, NULL, NULL);
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
  const double rel = 2 * unit_roundoff(c->desc.y_type) + 1e-5,
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
    d.x_offset = r * n;
    d.y_offset = 0;
    d.x_stride = d.y_stride = 0;
    cl_int e = clEnqueueReadBuffer(c->env->queue, c->y, CL_TRUE, r * n * c->es, n * c->es, raw, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
      snprintf(why, cap, "clEnqueueReadBuffer of y failed (%s)", clforge_status_name(e));
      rc = -1;
      break;
    }
    clforge_ref_convert(n, raw, c->desc.y_type, got, CLFORGE_F32);
    if (clforge_ref_softmax(&d, c->x_raw, NULL, raw) != CLFORGE_SUCCESS) {
      snprintf(why, cap, "clforge_ref_softmax failed: %s", clforge_last_error(NULL));
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
        snprintf(why, cap, "wrong result: y[%zu][%zu] = %.7g, clforge_ref_softmax's %.7g", r, i, g, w);
        rc = -1;
        break;
      }
    }
  }
  free(raw), free(got), free(want);
  return rc;
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
  c.elems = s->rows * s->n;
  c.es = clforge_dtype_size(dt);
  c.desc = (clforge_softmax_desc){.kind = o->kind, .rows = s->rows, .n = s->n, .x_type = dt, .y_type = dt};
  r->bytes = 2.0 * (double)c.elems * (double)c.es;
  clforge_kernel_choice ch;
  if (clforge_softmax_explain(env->ctx, &c.desc, &ch) == CLFORGE_SUCCESS) {
    int len = snprintf(r->kernel, sizeof r->kernel, "%s", ch.family);
    for (int i = 0; i < ch.nparams && len > 0 && (size_t)len < sizeof r->kernel; ++i)
      len += snprintf(r->kernel + len, sizeof r->kernel - (size_t)len, " %s=%d", ch.names[i], ch.values[i]);
    r->params_source = clforge_params_source_name(ch.source);
  } else {
    snprintf(r->kernel, sizeof r->kernel, "?");
  }
  float *x32 = malloc(c.elems * sizeof *x32);
  c.x_raw = dt == CLFORGE_F32 ? (void *)x32 : malloc(c.elems * c.es);
  if (!x32 || !c.x_raw) {
    snprintf(r->error, sizeof r->error, "out of host memory for the data");
    goto done;
  }
  uint32_t seed = 0x1234567u;
  for (size_t i = 0; i < c.elems; ++i) {
    seed = seed * 1664525u + 1013904223u;
    x32[i] = ((float)(seed >> 8) * (2.0f / 16777216.0f) - 1.0f) * X_RANGE;
  }
  if (c.x_raw != x32) clforge_ref_convert(c.elems, x32, CLFORGE_F32, c.x_raw, dt);
  cl_int e1 = CL_SUCCESS, e2 = CL_SUCCESS;
  c.x = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, c.elems * c.es, NULL, &e1);
  c.y = inplace ? c.x : clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, c.elems * c.es, NULL, &e2);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || upload_x(&c) != CL_SUCCESS) {
    snprintf(r->error, sizeof r->error, "clCreateBuffer/clEnqueueWriteBuffer of %zu bytes failed", c.elems * c.es);
    goto done;
  }
  if (env->progress) {
    fprintf(stderr, "\r\033[K  %zux%zu %s%s ...", s->rows, s->n, clforge_dtype_name(dt), inplace ? " in place" : "");
    fflush(stderr);
  }
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(env->queue, enqueue_softmax, &c, o->warmup, o->runs, &t, &where);
  if (rc) {
    if (!strcmp(where, "the operation"))
      snprintf(r->error, sizeof r->error, "clforge_softmax failed (%s): %s", clforge_status_name(rc),
               clforge_last_error(env->ctx));
    else snprintf(r->error, sizeof r->error, "%s failed (%s)", where, clforge_status_name(rc));
    clFinish(env->queue);
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
  cl_int e = inplace ? upload_x(&c) : clEnqueueFillBuffer(env->queue, c.y, &ff, 1, 0, c.elems * c.es, 0, NULL, NULL);
  if (e == CL_SUCCESS) e = clFinish(env->queue);
  if (e != CL_SUCCESS) {
    snprintf(r->error, sizeof r->error, "resetting x or y failed (%s)", clforge_status_name(e));
    goto done;
  }
  rc = enqueue_softmax(&c, env->queue);
  if (rc == CLFORGE_SUCCESS) rc = clFinish(env->queue);
  if (rc != CLFORGE_SUCCESS) {
    snprintf(r->error, sizeof r->error, "clforge_softmax failed (%s): %s", clforge_status_name(rc),
             clforge_last_error(env->ctx));
    goto done;
  }
  if (check(&c, r->error, sizeof r->error) == 0) r->ok = 1;
done:
  if (c.x) clReleaseMemObject(c.x);
  if (c.y && c.y != c.x) clReleaseMemObject(c.y);
  if (c.x_raw != x32) free(c.x_raw);
  free(x32);
}

static int add_note(bench_env *env, const char *text) {
  for (int i = 0; i < env->nnotes; ++i)
    if (!strcmp(env->notes[i], text)) return i + 1;
  if (env->nnotes >= 32) return 0;
  snprintf(env->notes[env->nnotes], sizeof env->notes[0], "%s", text);
  return ++env->nnotes;
}

static void fmt_ms(char *buf, size_t cap, double v) {
  if (v >= 1000) snprintf(buf, cap, "%.0f", v);
  else if (v >= 1) snprintf(buf, cap, "%.3f", v);
  else snprintf(buf, cap, "%.4f", v);
}

static void emit(bench_env *env, const sm_row *r) {
  if (env->progress) fputs("\r\033[K", stderr);
  if (env->o->json) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return;
    clforge_bench_json_string(o, "op", "softmax");
    clforge_bench_json_string(o, "kind", env->o->kind == CLFORGE_LOG_SOFTMAX ? "log_softmax" : "softmax");
    cJSON_AddNumberToObject(o, "rows", (double)r->s.rows);
    cJSON_AddNumberToObject(o, "n", (double)r->s.n);
    clforge_bench_json_string(o, "dtype", clforge_dtype_name(r->dtype));
    cJSON_AddBoolToObject(o, "inplace", r->inplace);
    clforge_bench_json_string(o, "kernel", r->kernel);
    clforge_bench_json_string(o, "params", r->params_source);
    clforge_bench_json_string(o, "status", r->ok ? "ok" : "error");
    clforge_bench_json_number(o, "median_ms", r->ok, r->median_ms);
    clforge_bench_json_number(o, "p95_ms", r->ok, r->p95_ms);
    clforge_bench_json_number(o, "gbps", r->ok, r->gbps);
    clforge_bench_json_number(o, "bytes", 1, r->bytes);
    clforge_bench_json_number(o, "peak_gbps", env->peak.gbps > 0, env->peak.gbps);
    clforge_bench_json_number(o, "frac_peak_bw", r->ok && env->peak.gbps > 0,
                              clforge_bench_fraction(r->gbps, env->peak.gbps));
    char note[640];
    if (r->ok && clforge_bench_peak_note(&env->peak, 0, r->gbps, r->bytes, note, sizeof note))
      cJSON_AddStringToObject(o, "peak_note", note);
    cJSON_AddNumberToObject(o, "runs", env->o->runs);
    cJSON_AddNumberToObject(o, "warmup", env->o->warmup);
    clforge_bench_json_string(o, "timer", r->ok ? r->timer : NULL);
    clforge_bench_json_string(o, "device", env->device);
    if (!r->ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
    clforge_bench_json_line(stdout, o);
    return;
  }
  if (!env->printed_header) {
    int w = printf("%8s  %6s  %-5s  %-8s  %10s  %10s  %8s  %6s  %s\n", "rows", "n", "dtype", "in place", "median ms",
                   "p95 ms", "GB/s", "% bw", "kernel (parameters)");
    for (int i = 0; i < w - 1; ++i) putchar('-');
    putchar('\n');
    env->printed_header = 1;
  }
  printf("%8zu  %6zu  %-5s  %-8s", r->s.rows, r->s.n, clforge_dtype_name(r->dtype), r->inplace ? "yes" : "no");
  char buf[64], note[700];
  if (!r->ok) {
    snprintf(note, sizeof note, "%zux%zu %s: %s", r->s.rows, r->s.n, clforge_dtype_name(r->dtype), r->error);
    int k = add_note(env, note);
    snprintf(buf, sizeof buf, k ? "error [%d]" : "error", k);
    printf("  %-46s  %s\n", buf, r->kernel);
  } else {
    fmt_ms(buf, sizeof buf, r->median_ms);
    if (r->timer && strcmp(r->timer, "events")) {
      snprintf(note, sizeof note, "timed with the host clock, not profiling events: %s", r->timer_note);
      int k = add_note(env, note);
      size_t len = strlen(buf);
      snprintf(buf + len, sizeof buf - len, " [%d]", k);
    }
    printf("  %10s", buf);
    fmt_ms(buf, sizeof buf, r->p95_ms);
    printf("  %10s", buf);
    printf(r->gbps >= 100 ? "  %8.0f" : r->gbps >= 10 ? "  %8.1f" : "  %8.2f", r->gbps);
    const int k = clforge_bench_peak_note(&env->peak, 0, r->gbps, r->bytes, note, sizeof note) ? add_note(env, note) : 0;
    clforge_bench_fmt_percent(buf, sizeof buf, r->gbps, env->peak.gbps, k);
    printf("  %6s", buf);
    printf("  %s\n", r->kernel);
  }
  fflush(stdout);
}

int clforge_bench_softmax_main(int argc, char **argv) {
  sm_options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
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
    fprintf(stderr, "clforge bench softmax: no device: %s: %s\n", clforge_status_name(st), clforge_last_error(env.ctx));
    clforge_context_destroy(env.ctx);
    return 1;
  }
  clforge_bench_device_label(env.info.name, env.device, sizeof env.device);
  if (o.peak) {
    clforge_bench_peak peak;
    int peak_rc = clforge_bench_peak_measure(env.ctx, &peak);
    clforge_bench_peak_denominators(&peak, &env.peak);
    env.peak.gflops = env.peak.host_gflops = 0; /* no flop rate here */
    if (peak_rc) warn(&env, "the device's peak: %s (see 'clforge bench peak')", peak.error);
  }
  if (!o.json) {
    char platform[160];
    clforge_bench_device_label(env.info.platform_name, platform, sizeof platform);
    printf("clforge %s bench softmax on %s (%s)\n", clforge_version(), env.device, platform);
    printf("%s along rows, x and y of one dtype, no mask; %d runs after %d warm-up; median and p95 in ms;\n"
           "GB/s: x read and y written once\n",
           o.kind == CLFORGE_LOG_SOFTMAX ? "log-softmax" : "softmax", o.runs, o.warmup);
    if (env.peak.gbps > 0) printf("streaming bandwidth (clforge bench peak): %.1f GB/s: %% bw\n", env.peak.gbps);
    printf("\n");
  }
  int failed = 0;
  for (int i = 0; i < o.nshapes; ++i)
    for (int d = 0; d < o.ndtypes; ++d)
      for (int p = 0; p < o.ninplace; ++p) {
        sm_row r;
        measure(&env, &o.shapes[i], o.dtypes[d], o.inplace[p], &r);
        if (!r.ok) {
          ++failed;
          warn(&env, "%zux%zu %s%s: %s", r.s.rows, r.s.n, clforge_dtype_name(r.dtype), r.inplace ? " in place" : "",
               r.error);
        }
        emit(&env, &r);
      }
  if (!o.json && env.nnotes) {
    putchar('\n');
    for (int i = 0; i < env.nnotes; ++i) printf("[%d] %s\n", i + 1, env.notes[i]);
  }
  clforge_context_destroy(env.ctx);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
