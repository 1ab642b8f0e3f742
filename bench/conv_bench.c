/* `clforge bench conv`: clforge_conv2d timed with profiling events, one row
 * per algorithm, next to CLBlast's convgemm (same device, same queue, same x
 * and w buffers) and oneDNN (host CPU, host copies of the same values), with
 * every result checked before its number is shown.
 *
 * Per case (layer, N, dtype, layout): make the data once; for each
 * requested algorithm ask clforge_conv2d_explain whether it can run the
 * shape (an algorithm that cannot is a row saying "unsupported" with
 * clforge's reason: not a failure), time it, spot-check its result against
 * double-precision sums on sampled outputs; then run the peers and compare
 * each peer's whole result with clforge's first correct one (or, when no
 * algorithm ran, with the CPU reference: whole for small problems, sampled
 * for large ones). A wrong result never gets a number. */
#include "conv_bench.h"

#include <cjson/cJSON.h>
#include <clforge/clforge.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conv_peers.h"
#include "peak.h"
#include "peers.h" /* clforge_bench_clblast_status_name, _release */
#include "report.h"
#include "stats.h"
#include "timer.h"

enum { EXIT_USAGE = 2 };
enum { DEFAULT_RUNS = 10, MIN_RUNS = 3, MAX_RUNS = 100000, DEFAULT_WARMUP = 2, MAX_WARMUP = 1000 };
enum { MAX_BATCHES = 16, SPOT_SAMPLES = 64, NPEERS = 2, PEER_CLBLAST = 0, PEER_ONEDNN = 1 };
#define MAX_DIM (1ull << 20)
/* Below this many multiply-adds a peer is checked against the whole CPU
 * reference (plain loops, double accumulation: ~0.1 s) when no clforge
 * result exists; above, at sampled outputs. */
#define REF_FULL_MACS 5e7

/* The built-in layers: the shape classes of src/kernels/conv_classes.h (the
 * tuner measures the same), without N (--batch). Square inputs and filters,
 * the same padding on all four sides. */
typedef struct {
  const char *name;
  size_t c, h, k, r, stride, pad, groups;
  const char *what;
} conv_layer;

static const conv_layer layers[] = {
    {"r50_3x3_56", 64, 56, 64, 3, 1, 1, 1, "ResNet-50 conv2_x 3x3"},
    {"r50_7x7s2", 3, 224, 64, 7, 2, 3, 1, "ResNet-50 stem 7x7/2"},
    {"r50_1x1_56", 256, 56, 64, 1, 1, 0, 1, "ResNet-50 conv2_x 1x1 reduce"},
    {"r50_3x3_28", 128, 28, 128, 3, 1, 1, 1, "ResNet-50 conv3_x 3x3"},
    {"mbv2_dw_112", 32, 112, 32, 3, 1, 1, 32, "MobileNetV2 depthwise 3x3"},
    {"mbv2_1x1_112", 16, 112, 96, 1, 1, 0, 1, "MobileNetV2 1x1 expand"},
    {"alex_11x11s4", 3, 224, 64, 11, 4, 2, 1, "AlexNet conv1 11x11/4 (FFT's layer)"},
};
enum { NLAYERS = sizeof layers / sizeof layers[0] };
static const size_t default_batches[] = {1, 8};

/* One problem to run: a built-in layer or a --shape (N 0: from --batch). */
typedef struct {
  char name[64];
  clforge_bench_conv_shape s;
} conv_spec;

typedef struct {
  conv_spec *specs;
  size_t nspecs, cap;
  size_t batches[MAX_BATCHES];
  int nbatches;
  clforge_dtype dtypes[3];
  int ndtypes;
  clforge_tensor_layout layouts[2];
  int nlayouts;
  clforge_conv_algo algos[CLFORGE_CONV_ALGO_COUNT];
  int nalgos;
  int runs, warmup;
  double min_time;
  int peers, json, peak;
} conv_options;

/* ---------------------------------------------------------------- options */

void clforge_bench_conv_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench conv [options]\n"
          "\n"
          "Time clforge_conv2d (y = conv(x, w): cross-correlation, alpha 1, beta 0, no bias,\n"
          "no activation; x, w and y of one dtype) with each algorithm, and on the same data\n"
          "CLBlast's convgemm on the same device and queue and oneDNN on the host CPU. Each\n"
          "result is checked; a result that is wrong gets no number (a warning and a note\n"
          "say why). An algorithm that cannot run a shape is listed as unsupported, with\n"
          "clforge's reason.\n"
          "\n"
          "Options:\n"
          "  --layer NAME[,NAME]  built-in layers (default: all of them):\n");
  for (int i = 0; i < NLAYERS; ++i) {
    const conv_layer *l = &layers[i];
    fprintf(f, "                         %-13s %3zu->%-3zu %zux%zu", l->name, l->c, l->k, l->r, l->r);
    if (l->stride > 1) fprintf(f, "/%zu", l->stride);
    fprintf(f, " @%zu^2 pad %zu%s  %s\n", l->h, l->pad, l->groups > 1 ? " depthwise" : "", l->what);
  }
  fprintf(f,
          "  --shape SPEC         one more problem; repeatable; with --layer, both are run.\n"
          "                       SPEC: n=8,c=64,h=56,w=56,k=64,r=3,s=3,stride=1,pad=1,\n"
          "                       groups=1,dil=1 (c, h, k and r needed; w = h, s = r,\n"
          "                       stride 1, pad 0, groups 1, dil 1 by default; n: --batch)\n"
          "  --batch N[,N...]     batch sizes of the layers (default 1,8)\n"
          "  --algo LIST          all, or auto and/or algorithm names separated by commas:\n"
          "                       direct, implicit_gemm, gemm_1x1, im2col, winograd_2x2,\n"
          "                       winograd_4x4, fft, depthwise (default: all; each is a row,\n"
          "                       auto's row names the algorithm it chose)\n"
          "  --dtype LIST         f32,f16,bf16 or a subset: x, w and y all of it (default f32)\n"
          "  --layout LIST        nchw,nhwc or one of them: x and y (default nchw); filters are\n"
          "                       KCRS with nchw, KRSC with nhwc\n"
          "  --reps N             timed runs per row, at least %d (default %d); --runs too\n"
          "  --min-time SECONDS   time more runs until their sum reaches this (default 0)\n"
          "  --warmup N           untimed runs first, at least 1 (default %d)\n"
          "  --no-peers           time clforge only\n"
          "  --no-peak            do not measure the device's peak first (no %% peak, %% bw)\n"
          "  --json               one JSON object per line per row, nothing else on stdout\n"
          "  -h, --help           show this help\n"
          "\n"
          "Reported per row: median and p95 (nearest rank) of the runs in ms (profiling\n"
          "events around each run; the host clock where profiling is unavailable);\n"
          "GFLOP/s = 2*N*K*(C/groups)*R*S*P*Q / median (the direct convolution's count, for\n"
          "every algorithm); GB/s = bytes of x and w read and y written once / median;\n"
          "%% peak and %% bw: fractions of the device's f32 peak and streaming bandwidth\n"
          "('clforge bench peak'); the workspace the algorithm uses; and clforge / peer\n"
          "GFLOP/s ratios. Peers: CLBlast convgemm takes NCHW, groups 1, f32 (f16 with\n"
          "cl_khr_fp16); oneDNN runs f32 in its preferred layouts (reorders untimed), timed\n"
          "with the host clock.\n"
          "\n"
          "The device is CLFORGE_DEVICE's choice (see 'clforge info'). Validation mode is\n"
          "off while timing. Exit status: 0 success, 1 a clforge row failed or was wrong,\n"
          "or no device, 2 usage error.\n",
          MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP);
}

static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("clforge bench conv: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nRun 'clforge bench conv --help' for usage.\n", stderr);
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

/* The next comma-separated token of *s into buf (truncated tokens fail):
 * 1 with *s advanced, 0 at the end, -1 for an empty or too long token. */
static int next_token(const char **s, char *buf, size_t cap) {
  if (!*s) return 0;
  const char *comma = strchr(*s, ',');
  size_t len = comma ? (size_t)(comma - *s) : strlen(*s);
  if (len == 0 || len >= cap) return -1;
  memcpy(buf, *s, len);
  buf[len] = '\0';
  *s = comma ? comma + 1 : NULL;
  return 1;
}

static int add_spec(conv_options *o, const conv_spec *sp) {
  if (o->nspecs == o->cap) {
    size_t cap = o->cap ? 2 * o->cap : 16;
    conv_spec *p = realloc(o->specs, cap * sizeof *p);
    if (!p) return -1;
    o->specs = p;
    o->cap = cap;
  }
  o->specs[o->nspecs++] = *sp;
  return 0;
}

static void layer_spec(const conv_layer *l, conv_spec *sp) {
  memset(sp, 0, sizeof *sp);
  snprintf(sp->name, sizeof sp->name, "%s", l->name);
  sp->s = (clforge_bench_conv_shape){.c = l->c, .h = l->h, .w = l->h, .k = l->k, .r = l->r, .s = l->r,
                                     .stride = l->stride, .pad = l->pad, .groups = l->groups, .dilation = 1};
}

/* The output size, or a usage error message. */
static int output_size(clforge_bench_conv_shape *s, char *err, size_t cap) {
  const size_t eh = s->dilation * (s->r - 1) + 1, ew = s->dilation * (s->s - 1) + 1;
  if (s->h + 2 * s->pad < eh || s->w + 2 * s->pad < ew) {
    snprintf(err, cap, "the dilated %zux%zu filter (%zux%zu) is larger than the padded %zux%zu input", s->r, s->s, eh,
             ew, s->h + 2 * s->pad, s->w + 2 * s->pad);
    return -1;
  }
  s->p = (s->h + 2 * s->pad - eh) / s->stride + 1;
  s->q = (s->w + 2 * s->pad - ew) / s->stride + 1;
  return 0;
}

/* "--shape n=8,c=64,...": keys in any order, each at most once. */
static int parse_shape(const char *v, conv_spec *sp, char *err, size_t cap) {
  static const char *const keys[] = {"n", "c", "h", "w", "k", "r", "s", "stride", "pad", "groups", "dil", "dilation"};
  enum { NKEYS = sizeof keys / sizeof keys[0] };
  unsigned long long val[NKEYS];
  int seen[NKEYS] = {0};
  const char *s = v;
  char tok[64];
  int t;
  while ((t = next_token(&s, tok, sizeof tok)) == 1) {
    char *eq = strchr(tok, '=');
    if (!eq) {
      snprintf(err, cap, "\"%s\" is not KEY=VALUE", tok);
      return -1;
    }
    *eq = '\0';
    int key = -1;
    for (int i = 0; i < NKEYS; ++i)
      if (!strcmp(tok, keys[i])) key = i;
    if (key == NKEYS - 1) key = NKEYS - 2; /* dilation = dil */
    if (key < 0) {
      snprintf(err, cap, "unknown key \"%s\" (n, c, h, w, k, r, s, stride, pad, groups, dil)", tok);
      return -1;
    }
    const unsigned long long lo = key == 8 ? 0 : 1; /* pad may be 0 */
    if (seen[key] || parse_number(eq + 1, strlen(eq + 1), lo, MAX_DIM, &val[key])) {
      snprintf(err, cap, "%s=%s: %s", tok, eq + 1,
               seen[key] ? "given twice" : "expected a whole number (pad from 0, the others from 1) up to 1048576");
      return -1;
    }
    seen[key] = 1;
  }
  if (t < 0) {
    snprintf(err, cap, "an empty or overlong item");
    return -1;
  }
  static const int needed[] = {1, 2, 4, 5}; /* c, h, k, r */
  for (int i = 0; i < 4; ++i)
    if (!seen[needed[i]]) {
      snprintf(err, cap, "%s= is needed (c, h, k and r are)", keys[needed[i]]);
      return -1;
    }
  memset(sp, 0, sizeof *sp);
  clforge_bench_conv_shape *sh = &sp->s;
  sh->n = seen[0] ? val[0] : 0;
  sh->c = val[1], sh->h = val[2], sh->w = seen[3] ? val[3] : val[2];
  sh->k = val[4], sh->r = val[5], sh->s = seen[6] ? val[6] : val[5];
  sh->stride = seen[7] ? val[7] : 1, sh->pad = seen[8] ? val[8] : 0;
  sh->groups = seen[9] ? val[9] : 1, sh->dilation = seen[10] ? val[10] : 1;
  if (sh->c % sh->groups || sh->k % sh->groups) {
    snprintf(err, cap, "groups=%zu must divide c=%zu and k=%zu", sh->groups, sh->c, sh->k);
    return -1;
  }
  if (output_size(sh, err, cap)) return -1;
  /* A compact name: c64x56x56_k64_3x3, then /stride, pad, groups, dilation. */
  int len = snprintf(sp->name, sizeof sp->name, "c%zux%zux%zu_k%zu_%zux%zu", sh->c, sh->h, sh->w, sh->k, sh->r, sh->s);
  if (sh->stride > 1 && len < (int)sizeof sp->name)
    len += snprintf(sp->name + len, sizeof sp->name - (size_t)len, "/%zu", sh->stride);
  if (sh->pad && len < (int)sizeof sp->name)
    len += snprintf(sp->name + len, sizeof sp->name - (size_t)len, "p%zu", sh->pad);
  if (sh->groups > 1 && len < (int)sizeof sp->name)
    len += snprintf(sp->name + len, sizeof sp->name - (size_t)len, "g%zu", sh->groups);
  if (sh->dilation > 1 && len < (int)sizeof sp->name)
    snprintf(sp->name + len, sizeof sp->name - (size_t)len, "d%zu", sh->dilation);
  return 0;
}

int clforge_bench_conv_parse_shape(const char *spec, clforge_conv2d_desc *d, char *err, size_t cap) {
  conv_spec sp;
  if (parse_shape(spec, &sp, err, cap)) return -1;
  const clforge_bench_conv_shape *s = &sp.s;
  d->n = s->n ? s->n : 1, d->c = s->c, d->h = s->h, d->w = s->w, d->k = s->k, d->r = s->r, d->s = s->s;
  d->stride_h = d->stride_w = s->stride, d->dilation_h = d->dilation_w = s->dilation, d->groups = s->groups;
  d->pad_top = d->pad_bottom = d->pad_left = d->pad_right = s->pad;
  return 0;
}

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_options(int argc, char **argv, conv_options *o) {
  o->runs = DEFAULT_RUNS;
  o->warmup = DEFAULT_WARMUP;
  o->peers = 1;
  o->peak = 1;
  int nlayers = 0, want_layer[NLAYERS] = {0};
  conv_spec *shapes = NULL;
  size_t nshapes = 0;
  int rc = -1;
  char tok[64], err[256];
  for (int a = 1; a < argc && rc < 0; ++a) {
    const char *arg = argv[a], *v = NULL;
    unsigned long long num;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      clforge_bench_conv_help(stdout);
      rc = 0;
    } else if (!strcmp(arg, "--json")) {
      o->json = 1;
    } else if (!strcmp(arg, "--no-peers")) {
      o->peers = 0;
    } else if (!strcmp(arg, "--no-peak")) {
      o->peak = 0;
    } else if (option(argc, argv, &a, "--layer", &v)) {
      if (!v) {
        rc = usage_error("--layer needs a value, e.g. --layer r50_3x3_56,alex_11x11s4");
        break;
      }
      const char *s = v;
      int t;
      while ((t = next_token(&s, tok, sizeof tok)) == 1) {
        int found = -1;
        for (int i = 0; i < NLAYERS; ++i)
          if (!strcmp(tok, layers[i].name)) found = i;
        if (!strcmp(tok, "all")) {
          for (int i = 0; i < NLAYERS; ++i) want_layer[i] = 1;
        } else if (found < 0) {
          t = -1;
          break;
        } else {
          want_layer[found] = 1;
        }
        ++nlayers;
      }
      if (t < 0) {
        rc = usage_error("--layer \"%s\": unknown layer; 'clforge bench conv --help' lists them", v);
        break;
      }
    } else if (option(argc, argv, &a, "--shape", &v)) {
      conv_spec sp;
      if (!v) {
        rc = usage_error("--shape needs a value, e.g. --shape n=1,c=16,h=14,k=32,r=3,pad=1");
        break;
      }
      if (parse_shape(v, &sp, err, sizeof err)) {
        rc = usage_error("--shape \"%s\": %s", v, err);
        break;
      }
      conv_spec *p = realloc(shapes, (nshapes + 1) * sizeof *p);
      if (!p) {
        rc = usage_error("out of memory");
        break;
      }
      shapes = p;
      shapes[nshapes++] = sp;
    } else if (option(argc, argv, &a, "--batch", &v)) {
      o->nbatches = 0;
      const char *s = v;
      int t = v ? 1 : -1;
      while (t == 1 && (t = next_token(&s, tok, sizeof tok)) == 1) {
        if (o->nbatches >= MAX_BATCHES || parse_number(tok, strlen(tok), 1, MAX_DIM, &num)) t = -1;
        else o->batches[o->nbatches++] = num;
      }
      if (t < 0 || o->nbatches == 0) {
        rc = usage_error("--batch needs up to %d batch sizes from 1 to %llu separated by commas", MAX_BATCHES, MAX_DIM);
        break;
      }
    } else if (option(argc, argv, &a, "--algo", &v)) {
      o->nalgos = 0;
      const char *s = v;
      int t = v ? 1 : -1;
      while (t == 1 && (t = next_token(&s, tok, sizeof tok)) == 1) {
        clforge_conv_algo al;
        if (!strcmp(tok, "all")) {
          o->nalgos = 0; /* all, in the default order */
          for (int i = 0; i < CLFORGE_CONV_ALGO_COUNT; ++i) o->algos[o->nalgos++] = (clforge_conv_algo)i;
          continue;
        }
        if (clforge_conv_algo_from_name(tok, &al) != CLFORGE_SUCCESS) {
          t = -1;
          break;
        }
        int dup = 0;
        for (int i = 0; i < o->nalgos; ++i) dup |= o->algos[i] == al;
        if (!dup && o->nalgos < CLFORGE_CONV_ALGO_COUNT) o->algos[o->nalgos++] = al;
      }
      if (t < 0 || o->nalgos == 0) {
        rc = usage_error("--algo \"%s\": expected all, or auto, direct, implicit_gemm, gemm_1x1, im2col, "
                         "winograd_2x2, winograd_4x4, fft, depthwise separated by commas",
                         v ? v : "");
        break;
      }
    } else if (option(argc, argv, &a, "--dtype", &v)) {
      o->ndtypes = 0;
      const char *s = v;
      int t = v ? 1 : -1;
      while (t == 1 && (t = next_token(&s, tok, sizeof tok)) == 1) {
        clforge_dtype d;
        if (clforge_dtype_from_name(tok, &d) != CLFORGE_SUCCESS) {
          t = -1;
          break;
        }
        int dup = 0;
        for (int i = 0; i < o->ndtypes; ++i) dup |= o->dtypes[i] == d;
        if (!dup && o->ndtypes < 3) o->dtypes[o->ndtypes++] = d;
      }
      if (t < 0 || o->ndtypes == 0) {
        rc = usage_error("--dtype \"%s\": expected f32, f16 or bf16, separated by commas", v ? v : "");
        break;
      }
    } else if (option(argc, argv, &a, "--layout", &v)) {
      o->nlayouts = 0;
      const char *s = v;
      int t = v ? 1 : -1;
      while (t == 1 && (t = next_token(&s, tok, sizeof tok)) == 1) {
        clforge_tensor_layout l;
        if (!strcmp(tok, "nchw")) l = CLFORGE_NCHW;
        else if (!strcmp(tok, "nhwc")) l = CLFORGE_NHWC;
        else {
          t = -1;
          break;
        }
        if (!(o->nlayouts == 1 && o->layouts[0] == l) && o->nlayouts < 2) o->layouts[o->nlayouts++] = l;
      }
      if (t < 0 || o->nlayouts == 0) {
        rc = usage_error("--layout \"%s\": expected nchw, nhwc or nchw,nhwc", v ? v : "");
        break;
      }
    } else if (option(argc, argv, &a, "--reps", &v) || option(argc, argv, &a, "--runs", &v)) {
      if (!v || parse_number(v, strlen(v), MIN_RUNS, MAX_RUNS, &num)) {
        rc = usage_error("--reps needs a whole number from %d to %d", MIN_RUNS, MAX_RUNS);
        break;
      }
      o->runs = (int)num;
    } else if (option(argc, argv, &a, "--warmup", &v)) {
      if (!v || parse_number(v, strlen(v), 1, MAX_WARMUP, &num)) {
        rc = usage_error("--warmup needs a whole number from 1 to %d", MAX_WARMUP);
        break;
      }
      o->warmup = (int)num;
    } else if (option(argc, argv, &a, "--min-time", &v)) {
      char *end = NULL;
      errno = 0;
      double t = v ? strtod(v, &end) : -1;
      if (!v || !*v || errno || !end || *end || !(t >= 0 && t <= 3600)) {
        rc = usage_error("--min-time needs seconds from 0 to 3600, e.g. --min-time 0.5");
        break;
      }
      o->min_time = t;
    } else {
      rc = usage_error("unknown %s '%s'", arg[0] == '-' ? "option" : "argument", arg);
    }
  }
  if (rc < 0) {
    /* Layers first (the table's order), then the shapes in the given order. */
    if (nlayers == 0 && nshapes == 0)
      for (int i = 0; i < NLAYERS; ++i) want_layer[i] = 1;
    for (int i = 0; i < NLAYERS && rc < 0; ++i) {
      conv_spec sp;
      if (!want_layer[i]) continue;
      layer_spec(&layers[i], &sp);
      if (output_size(&sp.s, err, sizeof err) || add_spec(o, &sp)) rc = usage_error("out of memory");
    }
    for (size_t i = 0; i < nshapes && rc < 0; ++i)
      if (add_spec(o, &shapes[i])) rc = usage_error("out of memory");
  }
  free(shapes);
  if (o->nbatches == 0) {
    o->nbatches = 2;
    o->batches[0] = default_batches[0];
    o->batches[1] = default_batches[1];
  }
  if (o->ndtypes == 0) o->dtypes[o->ndtypes++] = CLFORGE_F32;
  if (o->nlayouts == 0) o->layouts[o->nlayouts++] = CLFORGE_NCHW;
  if (o->nalgos == 0)
    for (int i = 0; i < CLFORGE_CONV_ALGO_COUNT; ++i) o->algos[o->nalgos++] = (clforge_conv_algo)i;
  return rc;
}

/* ------------------------------------------------------------------ rows */

typedef enum { ROW_OK = 0, ROW_UNSUPPORTED = 1, ROW_ERROR = 2 } row_status;

/* One measured (or not) algorithm of one case. */
typedef struct {
  const char *layer;
  clforge_bench_conv_shape s;
  clforge_dtype dtype;
  clforge_tensor_layout layout;
  clforge_conv_algo algo;   /* asked for (AUTO: the automatic choice) */
  clforge_conv_algo chosen; /* what ran (auto: explain's answer) */
  const char *source;       /* where the choice came from (explain) */
  char why[96];             /* explain's reason */
  char label[40];           /* the table's algo cell: "direct", "auto:winograd_4x4" */
  row_status status;
  char error[512];          /* why unsupported, or the failure */
  double median_ms, p95_ms, gflops, gbps;
  int have_ws;
  size_t workspace;
  const char *timer;
  char timer_note[160];
  clforge_bench_peer_result peers[NPEERS];
} conv_row;

typedef struct {
  FILE *out;
  int printed_header;
  int peak_columns;
  int layer_width;
  int nnotes, more_notes;
  char notes[48][640];
} conv_table;

typedef struct {
  clforge_context ctx;
  cl_context cl_ctx;
  cl_command_queue queue;
  clforge_device_info info;
  char device[256];
  const conv_options *o;
  int progress; /* stderr is a terminal */
  conv_table table;
  clforge_bench_peaks peak;
} bench_env;

typedef struct {
  bench_env *env;
  const char *layer;
  clforge_bench_conv_shape s;
  clforge_dtype dtype;
  clforge_tensor_layout layout;
  size_t es, x_elems, w_elems, y_elems;
  float *x32, *w32; /* NCHW and KCRS values as the device sees them, widened to f32 */
  float *ref;       /* the CPU reference's y (NCHW), made when a peer needs it */
  cl_mem x, w, y;
  clforge_conv2d_desc desc;
  clforge_bench_onednn_conv *onednn;
} conv_case;

static void progress(const bench_env *env, const conv_case *c, const char *what) {
  if (!env->progress) return;
  fprintf(stderr, "\r\033[K  %s n=%zu %s: %s ...", c->layer, c->s.n, clforge_dtype_name(c->dtype), what);
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
  fputs("clforge bench conv: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

static const char *layout_name(clforge_tensor_layout l) { return l == CLFORGE_NHWC ? "nhwc" : "nchw"; }


/* The direct convolution's flop count, whatever the algorithm does. */
static double conv_flops(const clforge_bench_conv_shape *s) {
  return 2.0 * (double)s->n * (double)s->k * (double)(s->c / s->groups) * (double)s->r * (double)s->s *
         (double)s->p * (double)s->q;
}

static double conv_bytes(const conv_case *c) {
  /* beta is 0 here: y is written, not read (beta != 0 would add y once more). */
  return ((double)c->x_elems + (double)c->w_elems + (double)c->y_elems * (c->desc.beta != 0.0f ? 2.0 : 1.0)) *
         (double)c->es;
}

/* ------------------------------------------------------------------ table */

static int add_note(conv_table *t, const char *text) {
  for (int i = 0; i < t->nnotes; ++i)
    if (!strcmp(t->notes[i], text)) return i + 1;
  if (t->nnotes >= (int)(sizeof t->notes / sizeof t->notes[0])) {
    t->more_notes++;
    return 0;
  }
  snprintf(t->notes[t->nnotes], sizeof t->notes[0], "%s", text);
  return ++t->nnotes;
}

/* Column widths after layer: n, dtype, layout, algo, then the measured
 * columns (median .. workspace), then two per peer. */
enum { W_N = 4, W_DTYPE = 5, W_LAYOUT = 6, W_ALGO = 18, W_MS = 10, W_RATE = 8, W_PCT = 6, W_WS = 10, W_PEER = 14,
       W_VS = 10 };

static int measured_width(const conv_table *t) {
  int w = W_MS + 2 + W_MS + 2 + W_RATE + 2 + W_RATE + 2 + W_WS;
  if (t->peak_columns) w += 2 * (W_PCT + 2);
  return w;
}

static void table_header(conv_table *t, const conv_row *r) {
  FILE *f = t->out;
  int total = fprintf(f, "%-*s  %*s  %-*s  %-*s  %-*s  %*s  %*s  %*s  %*s", t->layer_width, "layer", W_N, "n", W_DTYPE,
                      "dtype", W_LAYOUT, "layout", W_ALGO, "algo", W_MS, "median ms", W_MS, "p95 ms", W_RATE,
                      "GFLOP/s", W_RATE, "GB/s");
  if (t->peak_columns) total += fprintf(f, "  %*s  %*s", W_PCT, "% peak", W_PCT, "% bw");
  total += fprintf(f, "  %*s", W_WS, "workspace");
  for (int i = 0; i < NPEERS; ++i) {
    char a[64], b[64];
    snprintf(a, sizeof a, "%s GFLOP/s", r->peers[i].name);
    snprintf(b, sizeof b, "vs %s", r->peers[i].name);
    total += fprintf(f, "  %*s  %*s", W_PEER, a, W_VS, b);
  }
  fputc('\n', f);
  for (int i = 0; i < total; ++i) fputc('-', f);
  fputc('\n', f);
  t->printed_header = 1;
}

static void fmt_rate(char *buf, size_t cap, double v) {
  if (v >= 100) snprintf(buf, cap, "%.0f", v);
  else if (v >= 10) snprintf(buf, cap, "%.1f", v);
  else snprintf(buf, cap, "%.2f", v);
}

static void fmt_ms(char *buf, size_t cap, double v) {
  if (v >= 1000) snprintf(buf, cap, "%.0f", v);
  else if (v >= 1) snprintf(buf, cap, "%.2f", v);
  else snprintf(buf, cap, "%.4f", v);
}

static void table_row(conv_table *t, const conv_row *r, const clforge_bench_peaks *pk) {
  if (!t->printed_header) {
    t->peak_columns = pk->gflops > 0 || pk->gbps > 0;
    table_header(t, r);
  }
  FILE *f = t->out;
  char buf[640], note[640];
  fprintf(f, "%-*s  %*zu  %-*s  %-*s  %-*s", t->layer_width, r->layer, W_N, r->s.n, W_DTYPE,
          clforge_dtype_name(r->dtype), W_LAYOUT, layout_name(r->layout), W_ALGO, r->label);
  if (r->status != ROW_OK) {
    /* One cell across the measured columns: "unsupported [k]" or "error [k]". */
    const char *word = r->status == ROW_UNSUPPORTED ? "unsupported" : "error";
    snprintf(note, sizeof note, "%s %s: %s", r->label, word, r->error[0] ? r->error : "failed");
    int k = add_note(t, note);
    snprintf(buf, sizeof buf, k ? "%s [%d]" : "%s", word, k);
    fprintf(f, "  %-*s", measured_width(t), buf);
  } else {
    fmt_ms(buf, sizeof buf, r->median_ms);
    if (r->timer && strcmp(r->timer, "events")) {
      snprintf(note, sizeof note, "timed with the host clock, not profiling events%s%s", r->timer_note[0] ? ": " : "",
               r->timer_note);
      int k = add_note(t, note);
      size_t len = strlen(buf);
      snprintf(buf + len, sizeof buf - len, k ? " [%d]" : " *", k);
    }
    fprintf(f, "  %*s", W_MS, buf);
    fmt_ms(buf, sizeof buf, r->p95_ms);
    fprintf(f, "  %*s", W_MS, buf);
    fmt_rate(buf, sizeof buf, r->gflops);
    fprintf(f, "  %*s", W_RATE, buf);
    fmt_rate(buf, sizeof buf, r->gbps);
    fprintf(f, "  %*s", W_RATE, buf);
    if (t->peak_columns) {
      const int k = clforge_bench_peak_note(pk, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6, note, sizeof note)
                        ? add_note(t, note)
                        : 0;
      clforge_bench_fmt_percent(buf, sizeof buf, r->gflops, pk->gflops, k);
      fprintf(f, "  %*s", W_PCT, buf);
      clforge_bench_fmt_percent(buf, sizeof buf, r->gbps, pk->gbps, k);
      fprintf(f, "  %*s", W_PCT, buf);
    }
    snprintf(buf, sizeof buf, "%zu", r->workspace);
    fprintf(f, "  %*s", W_WS, buf);
  }
  for (int i = 0; i < NPEERS; ++i) {
    const clforge_bench_peer_result *p = &r->peers[i];
    int k = 0;
    if (p->note[0]) {
      snprintf(note, sizeof note, "%s: %s", p->name, p->note);
      k = add_note(t, note);
    }
    if (p->ok && p->gflops > 0) {
      fmt_rate(buf, sizeof buf, p->gflops);
      if (k) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, " [%d]", k);
      }
      fprintf(f, "  %*s", W_PEER, buf);
      if (r->status == ROW_OK) snprintf(buf, sizeof buf, "%.2fx", r->gflops / p->gflops);
      else snprintf(buf, sizeof buf, "-");
      fprintf(f, "  %*s", W_VS, buf);
    } else {
      snprintf(buf, sizeof buf, k ? "- [%d]" : "-", k);
      fprintf(f, "  %*s  %*s", W_PEER, buf, W_VS, "-");
    }
  }
  fputc('\n', f);
  fflush(f);
}

static void table_finish(conv_table *t) {
  if (t->nnotes) fputc('\n', t->out);
  for (int i = 0; i < t->nnotes; ++i) fprintf(t->out, "[%d] %s\n", i + 1, t->notes[i]);
  if (t->more_notes) fprintf(t->out, "(%d more notes not shown; --json has them all)\n", t->more_notes);
  fflush(t->out);
}

/* ------------------------------------------------------------------- JSON */

static int print_json(FILE *out, const conv_row *r, const char *device, int runs, int warmup,
                      const clforge_bench_peaks *pk) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return -1;
  const int ok = r->status == ROW_OK;
  const char *status = ok ? "ok" : r->status == ROW_UNSUPPORTED ? "unsupported" : "error";
  clforge_bench_json_string(o, "op", "conv");
  clforge_bench_json_string(o, "layer", r->layer);
  const char *names[] = {"n", "c", "h", "w", "k", "r", "s", "stride", "pad", "groups", "dilation", "p", "q"};
  const size_t vals[] = {r->s.n, r->s.c, r->s.h, r->s.w, r->s.k, r->s.r, r->s.s, r->s.stride, r->s.pad, r->s.groups,
                         r->s.dilation, r->s.p, r->s.q};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; ++i) cJSON_AddNumberToObject(o, names[i], (double)vals[i]);
  clforge_bench_json_string(o, "dtype", clforge_dtype_name(r->dtype));
  clforge_bench_json_string(o, "layout", layout_name(r->layout));
  clforge_bench_json_string(o, "filter_layout", r->layout == CLFORGE_NHWC ? "krsc" : "kcrs");
  clforge_bench_json_string(o, "algo", clforge_conv_algo_name(r->algo));
  clforge_bench_json_string(o, "algo_chosen", r->chosen != CLFORGE_CONV_ALGO_AUTO ? clforge_conv_algo_name(r->chosen)
                                                                                  : NULL);
  clforge_bench_json_string(o, "algo_source", r->source);
  clforge_bench_json_string(o, "algo_why", r->why[0] ? r->why : NULL);
  clforge_bench_json_string(o, "provider", "clforge");
  clforge_bench_json_string(o, "status", status);
  clforge_bench_json_number(o, "median_ms", ok, r->median_ms);
  clforge_bench_json_number(o, "p95_ms", ok, r->p95_ms);
  clforge_bench_json_number(o, "gflops", ok, r->gflops);
  clforge_bench_json_number(o, "gbps", ok, r->gbps);
  clforge_bench_json_peaks(o, pk, ok, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  clforge_bench_json_number(o, "workspace_bytes", r->have_ws, (double)r->workspace);
  cJSON_AddNumberToObject(o, "runs", runs);
  cJSON_AddNumberToObject(o, "warmup", warmup);
  clforge_bench_json_string(o, "timer", ok ? r->timer : NULL);
  if (ok && r->timer_note[0]) cJSON_AddStringToObject(o, "timer_note", r->timer_note);
  clforge_bench_json_string(o, "device", device);
  char key[96];
  for (int i = 0; i < NPEERS; ++i) {
    const clforge_bench_peer_result *p = &r->peers[i];
    int pok = p->ok && p->gflops > 0;
    snprintf(key, sizeof key, "%s_gflops", p->name);
    clforge_bench_json_number(o, key, pok, p->gflops);
    snprintf(key, sizeof key, "vs_%s", p->name);
    clforge_bench_json_number(o, key, pok && ok, pok ? r->gflops / p->gflops : 0.0);
    snprintf(key, sizeof key, "%s_median_ms", p->name);
    clforge_bench_json_number(o, key, pok, p->median_ms);
    snprintf(key, sizeof key, "%s_timer", p->name);
    clforge_bench_json_string(o, key, pok ? p->timer : NULL);
    if (p->note[0]) {
      snprintf(key, sizeof key, "%s_note", p->name);
      cJSON_AddStringToObject(o, key, p->note);
    }
  }
  if (!ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
  return clforge_bench_json_line(out, o);
}

/* ------------------------------------------------------------------ cases */

/* Uniform values in [-1, 1) from a small LCG: reproducible across runs. */
static void fill_random(float *x, size_t n, uint32_t seed) {
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = (float)(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

static void free_case(conv_case *c) {
  if (c->x) clReleaseMemObject(c->x);
  if (c->w) clReleaseMemObject(c->w);
  if (c->y) clReleaseMemObject(c->y);
  clforge_bench_onednn_conv_destroy(c->onednn);
  free(c->x32);
  free(c->w32);
  free(c->ref);
  memset(c, 0, sizeof *c);
}

/* NCHW -> NHWC of one N x C x H x W tensor (also KCRS -> KRSC). */
static void to_channels_last(const float *in, float *out, size_t n, size_t c, size_t hw) {
  for (size_t i = 0; i < n; ++i)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t p = 0; p < hw; ++p) out[(i * hw + p) * c + ch] = in[(i * c + ch) * hw + p];
}

static void to_channels_first(const float *in, float *out, size_t n, size_t c, size_t hw) {
  for (size_t i = 0; i < n; ++i)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t p = 0; p < hw; ++p) out[(i * c + ch) * hw + p] = in[(i * hw + p) * c + ch];
}

/* A device buffer holding `logical` (NCHW or KCRS f32) in the case's layout
 * and dtype. */
static int upload(conv_case *c, const float *logical, size_t elems, size_t outer, size_t ch, size_t hw, cl_mem *buf,
                  char *err, size_t cap) {
  float *ordered = malloc(elems * sizeof(float));
  void *raw = c->dtype == CLFORGE_F32 ? NULL : malloc(elems * c->es);
  int rc = -1;
  if (!ordered || (c->dtype != CLFORGE_F32 && !raw)) {
    snprintf(err, cap, "out of host memory for the %s data", c->layer);
  } else {
    if (c->layout == CLFORGE_NHWC) to_channels_last(logical, ordered, outer, ch, hw);
    else memcpy(ordered, logical, elems * sizeof(float));
    if (raw && clforge_ref_convert(elems, ordered, CLFORGE_F32, raw, c->dtype) != CLFORGE_SUCCESS) {
      snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
    } else {
      cl_int e;
      *buf = clCreateBuffer(c->env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, elems * c->es,
                            raw ? raw : (void *)ordered, &e);
      if (e != CL_SUCCESS) {
        *buf = NULL;
        snprintf(err, cap, "clCreateBuffer failed (%s) for %zu bytes", clforge_status_name(e), elems * c->es);
      } else {
        rc = 0;
      }
    }
  }
  free(ordered);
  free(raw);
  return rc;
}

/* Round to the dtype and widen back, so that the host copies hold exactly
 * what the device convolves. */
static int round_to_dtype(float *v, size_t n, clforge_dtype dtype) {
  if (dtype == CLFORGE_F32) return 0;
  uint16_t *tmp = malloc(n * sizeof *tmp);
  if (!tmp) return -1;
  int rc = clforge_ref_convert(n, v, CLFORGE_F32, tmp, dtype) == CLFORGE_SUCCESS &&
                   clforge_ref_convert(n, tmp, dtype, v, CLFORGE_F32) == CLFORGE_SUCCESS
               ? 0
               : -1;
  free(tmp);
  return rc;
}

static int setup_case(bench_env *env, conv_case *c, const conv_spec *sp, size_t n, clforge_dtype dtype,
                      clforge_tensor_layout layout, char *err, size_t cap) {
  memset(c, 0, sizeof *c);
  c->env = env;
  c->layer = sp->name;
  c->s = sp->s;
  c->s.n = n;
  c->dtype = dtype;
  c->layout = layout;
  c->es = clforge_dtype_size(dtype);
  const clforge_bench_conv_shape *s = &c->s;
  const size_t cg = s->c / s->groups;
  c->x_elems = s->n * s->c * s->h * s->w;
  c->w_elems = s->k * cg * s->r * s->s;
  c->y_elems = s->n * s->k * s->p * s->q;
  c->desc = (clforge_conv2d_desc){.n = s->n,
                                  .c = s->c,
                                  .h = s->h,
                                  .w = s->w,
                                  .k = s->k,
                                  .r = s->r,
                                  .s = s->s,
                                  .groups = s->groups,
                                  .stride_h = s->stride,
                                  .stride_w = s->stride,
                                  .dilation_h = s->dilation,
                                  .dilation_w = s->dilation,
                                  .pad_top = s->pad,
                                  .pad_bottom = s->pad,
                                  .pad_left = s->pad,
                                  .pad_right = s->pad,
                                  .x_layout = layout,
                                  .y_layout = layout,
                                  .w_layout = layout == CLFORGE_NHWC ? CLFORGE_KRSC : CLFORGE_KCRS,
                                  .x_type = dtype,
                                  .w_type = dtype,
                                  .y_type = dtype,
                                  .alpha = 1.0f,
                                  .beta = 0.0f};
  const size_t sizes[3] = {c->x_elems * c->es, c->w_elems * c->es, c->y_elems * c->es};
  const char *names[3] = {"x", "w", "y"};
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
    snprintf(err, cap, "x, w and y need %llu bytes, more than the device's memory (%llu bytes)", total,
             (unsigned long long)env->info.global_mem_bytes);
    return -1;
  }
  c->x32 = malloc(c->x_elems * sizeof(float));
  c->w32 = malloc(c->w_elems * sizeof(float));
  if (!c->x32 || !c->w32) {
    snprintf(err, cap, "out of host memory for the %s data", c->layer);
    return -1;
  }
  fill_random(c->x32, c->x_elems, 0x1234567u);
  fill_random(c->w32, c->w_elems, 0x89abcdefu);
  if (round_to_dtype(c->x32, c->x_elems, dtype) || round_to_dtype(c->w32, c->w_elems, dtype)) {
    snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
    return -1;
  }
  if (upload(c, c->x32, c->x_elems, s->n, s->c, s->h * s->w, &c->x, err, cap) ||
      upload(c, c->w32, c->w_elems, s->k, cg, s->r * s->s, &c->w, err, cap))
    return -1;
  cl_int e;
  c->y = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, sizes[2], NULL, &e);
  if (e != CL_SUCCESS) {
    c->y = NULL;
    snprintf(err, cap, "clCreateBuffer failed (%s) for y (%zu bytes)", clforge_status_name(e), sizes[2]);
    return -1;
  }
  return 0;
}

/* All-ones bits in y (NaN in f32, f16 and bf16): a run that writes nothing,
 * or too little, cannot pass on an earlier run's result. */
static int poison_y(const conv_case *c) {
  const cl_uchar ff = 0xFF;
  cl_int e = clEnqueueFillBuffer(c->env->queue, c->y, &ff, 1, 0, c->y_elems * c->es, 0, NULL, NULL);
  if (e == CL_SUCCESS) e = clFinish(c->env->queue);
  return e;
}

/* Read y back as NCHW f32. */
static int read_y(const conv_case *c, float *out, char *err, size_t cap) {
  const size_t n = c->y_elems;
  void *raw = malloc(n * c->es);
  float *wide = c->layout == CLFORGE_NHWC ? malloc(n * sizeof(float)) : out;
  int rc = -1;
  if (!raw || !wide) {
    snprintf(err, cap, "out of host memory reading y back");
  } else {
    cl_int e = clEnqueueReadBuffer(c->env->queue, c->y, CL_TRUE, 0, n * c->es, raw, 0, NULL, NULL);
    if (e != CL_SUCCESS) snprintf(err, cap, "clEnqueueReadBuffer of y failed (%s)", clforge_status_name(e));
    else if (clforge_ref_convert(n, raw, c->dtype, wide, CLFORGE_F32) != CLFORGE_SUCCESS)
      snprintf(err, cap, "clforge_ref_convert of y failed: %s", clforge_last_error(NULL));
    else rc = 0;
    if (rc == 0 && wide != out) to_channels_first(wide, out, c->s.n, c->s.k, c->s.p * c->s.q);
  }
  free(raw);
  if (wide != out) free(wide);
  return rc;
}

static double unit_roundoff(clforge_dtype d) { return d == CLFORGE_F16 ? 0x1p-11 : d == CLFORGE_BF16 ? 0x1p-8 : 0x1p-24; }

/* The f32 accumulation's share of the spot check's tolerance, relative to
 * sum |x||w|: Winograd's and FFT's transforms add rounding of their own. */
static double accumulation_tolerance(clforge_conv_algo a) {
  return a == CLFORGE_CONV_ALGO_WINOGRAD_4X4 || a == CLFORGE_CONV_ALGO_WINOGRAD_2X2 || a == CLFORGE_CONV_ALGO_FFT
             ? 1e-3
             : 1e-4;
}

/* Compare sampled outputs (four corners of the n, k, p, q box, where
 * padding and edge tiles are, then pseudo-random ones) with double sums of
 * the same inputs. Tolerance: y's rounding plus acc_tol of sum |x||w|; a
 * wrong output is off by about |y| itself, far more. */
static int spot_check(const conv_case *c, const float *got, double acc_tol, char *why, size_t cap) {
  const clforge_bench_conv_shape *s = &c->s;
  const size_t cg = s->c / s->groups, kg = s->k / s->groups;
  uint32_t seed = 0xC0FFEEu;
  for (int t = 0; t < SPOT_SAMPLES; ++t) {
    size_t n, k, p, q;
    if (t < 4) {
      n = (t & 1) ? s->n - 1 : 0;
      k = (t & 2) ? s->k - 1 : 0;
      p = (t == 1 || t == 2) ? s->p - 1 : 0;
      q = (t >= 2) ? s->q - 1 : 0;
    } else {
      size_t v[4], lim[4] = {s->n, s->k, s->p, s->q};
      for (int i = 0; i < 4; ++i) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (size_t)((seed >> 8) % (uint32_t)lim[i]);
      }
      n = v[0], k = v[1], p = v[2], q = v[3];
    }
    const size_t g = k / kg;
    double sum = 0, abs_sum = 0;
    for (size_t ch = 0; ch < cg; ++ch)
      for (size_t r = 0; r < s->r; ++r) {
        const long ih = (long)(p * s->stride + r * s->dilation) - (long)s->pad;
        if (ih < 0 || ih >= (long)s->h) continue;
        for (size_t u = 0; u < s->s; ++u) {
          const long iw = (long)(q * s->stride + u * s->dilation) - (long)s->pad;
          if (iw < 0 || iw >= (long)s->w) continue;
          double xv = c->x32[((n * s->c + g * cg + ch) * s->h + (size_t)ih) * s->w + (size_t)iw];
          double wv = c->w32[((k * cg + ch) * s->r + r) * s->s + u];
          sum += xv * wv;
          abs_sum += fabs(xv * wv);
        }
      }
    double gv = got[((n * s->k + k) * s->p + p) * s->q + q];
    double tol = unit_roundoff(c->dtype) * fabs(sum) + acc_tol * abs_sum + 1e-30;
    if (!(fabs(gv - sum) <= tol)) {
      snprintf(why, cap, "wrong result: y[n=%zu][k=%zu][p=%zu][q=%zu] = %.9g, expected %.9g (tolerance %.3g)", n, k, p,
               q, gv, sum, tol);
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

/* Peer-vs-clforge tolerance, relative to max |y|: catches wrong results
 * (layout, flipped filters, garbage), not precision differences. f16:
 * CLBlast's Hconvgemm accumulates in f16. */
static double peer_tolerance(clforge_dtype d) { return d == CLFORGE_F16 ? 5e-2 : d == CLFORGE_BF16 ? 1e-2 : 1e-3; }

static const float *ensure_ref(conv_case *c);
static double full_tolerance(clforge_dtype d, clforge_conv_algo a);

/* --- timing --- */

/* `runs` timed runs, then more until their sum reaches --min-time (the
 * same timer throughout; at most MAX_RUNS samples). */
static int time_device(bench_env *env, clforge_bench_enqueue_fn fn, void *user, clforge_bench_timing *t,
                       const char **where) {
  int rc = clforge_bench_time_queue(env->queue, fn, user, env->o->warmup, env->o->runs, t, where);
  while (rc == 0 && env->o->min_time > 0 && t->runs < MAX_RUNS) {
    double sum = 0;
    for (int i = 0; i < t->runs; ++i) sum += t->seconds[i];
    if (sum >= env->o->min_time || !(sum > 0)) break;
    double more = ceil((env->o->min_time - sum) / (sum / t->runs));
    int extra = more > (double)(MAX_RUNS - t->runs) ? MAX_RUNS - t->runs : (int)more;
    clforge_bench_timing t2;
    rc = clforge_bench_time_queue(env->queue, fn, user, 0, extra, &t2, where);
    if (rc != 0) break;
    double *all = t2.timer == t->timer ? realloc(t->seconds, (size_t)(t->runs + t2.runs) * sizeof *all) : NULL;
    if (all) {
      memcpy(all + t->runs, t2.seconds, (size_t)t2.runs * sizeof *all);
      t->seconds = all;
      t->runs += t2.runs;
    }
    clforge_bench_timing_free(&t2);
    if (!all) break;
  }
  return rc;
}

static int time_host(bench_env *env, clforge_bench_host_fn fn, void *user, clforge_bench_timing *t) {
  if (clforge_bench_time_host(fn, user, env->o->warmup, env->o->runs, t)) return -1;
  while (env->o->min_time > 0 && t->runs < MAX_RUNS) {
    double sum = 0;
    for (int i = 0; i < t->runs; ++i) sum += t->seconds[i];
    if (sum >= env->o->min_time || !(sum > 0)) break;
    double more = ceil((env->o->min_time - sum) / (sum / t->runs));
    int extra = more > (double)(MAX_RUNS - t->runs) ? MAX_RUNS - t->runs : (int)more;
    clforge_bench_timing t2;
    if (clforge_bench_time_host(fn, user, 0, extra, &t2)) break;
    double *all = realloc(t->seconds, (size_t)(t->runs + t2.runs) * sizeof *all);
    if (all) {
      memcpy(all + t->runs, t2.seconds, (size_t)t2.runs * sizeof *all);
      t->seconds = all;
      t->runs += t2.runs;
    }
    clforge_bench_timing_free(&t2);
    if (!all) break;
  }
  return 0;
}

/* --- the timed operations --- */

typedef struct {
  conv_case *c;
  clforge_conv2d_desc desc;
} clforge_run;

static int enqueue_clforge(void *user, cl_command_queue queue) {
  clforge_run *r = user;
  (void)queue; /* the context's own queue */
  return clforge_conv2d(r->c->env->ctx, &r->desc, r->c->x, r->c->w, NULL, r->c->y, 0, NULL, NULL);
}

static int enqueue_clblast(void *user, cl_command_queue queue) {
  conv_case *c = user;
  return clforge_bench_clblast_conv(queue, &c->s, c->dtype, c->x, c->w, c->y);
}

static void run_onednn(void *user) {
  conv_case *c = user;
  clforge_bench_onednn_conv_run(c->onednn);
}

/* --- one provider each --- */

static void row_init(conv_row *r, const conv_case *c, clforge_conv_algo algo) {
  memset(r, 0, sizeof *r);
  r->layer = c->layer;
  r->s = c->s;
  r->dtype = c->dtype;
  r->layout = c->layout;
  r->algo = algo;
  r->chosen = algo;
  snprintf(r->label, sizeof r->label, "%s", clforge_conv_algo_name(algo));
  r->peers[PEER_CLBLAST].name = "clblast";
  r->peers[PEER_ONEDNN].name = "onednn";
}

/* clforge's message without what the row already says: the status's
 * description, "conv2d: " and, for an algorithm asked for by name,
 * "<algo> (desc.algo = <algo>): ". */
static const char *reason(clforge_context ctx) {
  const char *m = clforge_last_error(ctx);
  if (!m || !*m) return "no reason given";
  const char *op = strstr(m, "conv2d: ");
  if (op) m = op + 8;
  const char *forced = strstr(m, "(desc.algo = ");
  const char *rest = forced ? strstr(forced, "): ") : NULL;
  return rest ? rest + 3 : m;
}

/* Ask explain whether `algo` can run the case; fill the row's choice. 0:
 * go on and time it; otherwise the row is final (unsupported or error). */
static int explain_row(conv_case *c, conv_row *r, clforge_conv2d_desc *desc) {
  bench_env *env = c->env;
  clforge_conv_choice ch;
  clforge_status st = clforge_conv2d_explain(env->ctx, desc, &ch);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    if (r->status == ROW_UNSUPPORTED) snprintf(r->error, sizeof r->error, "%s", reason(env->ctx));
    else snprintf(r->error, sizeof r->error, "clforge_conv2d_explain failed (%s): %s", clforge_status_name(st),
                  reason(env->ctx));
    return -1;
  }
  r->chosen = ch.algo;
  r->source = clforge_conv_algo_source_name(ch.source);
  snprintf(r->why, sizeof r->why, "%s", ch.why);
  r->have_ws = 1;
  r->workspace = ch.workspace_bytes;
  if (r->algo != CLFORGE_CONV_ALGO_AUTO) return 0;
  snprintf(r->label, sizeof r->label, "auto:%s", clforge_conv_algo_name(ch.algo));
  /* The automatic choice must be an algorithm that can run the case: asked
   * for by name, it answers whether it can (and why not). */
  clforge_conv2d_desc forced = *desc;
  forced.algo = ch.algo;
  st = clforge_conv2d_explain(env->ctx, &forced, &ch);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    snprintf(r->error, sizeof r->error, "auto chose %s (%s), which cannot run it: %s", clforge_conv_algo_name(r->chosen),
             r->why, reason(env->ctx));
    r->have_ws = 0;
    return -1;
  }
  return 0;
}

/* Time clforge with one algorithm and check its result; *result gets y
 * (NCHW f32) when it is right. Returns 0 when the row has numbers. */
static int measure_clforge(conv_case *c, conv_row *r, float *result) {
  bench_env *env = c->env;
  clforge_run run = {c, c->desc};
  run.desc.algo = r->algo;
  if (explain_row(c, r, &run.desc)) return -1;
  progress(env, c, r->label);
  cl_int pe = poison_y(c);
  if (pe != CL_SUCCESS) {
    r->status = ROW_ERROR;
    snprintf(r->error, sizeof r->error, "clEnqueueFillBuffer of y failed (%s)", clforge_status_name(pe));
    return -1;
  }
  clforge_bench_timing t;
  const char *where = "";
  int rc = time_device(env, enqueue_clforge, &run, &t, &where);
  if (rc != 0) {
    const int in_op = !strcmp(where, "the operation");
    r->status = in_op && rc == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    if (r->status == ROW_UNSUPPORTED) snprintf(r->error, sizeof r->error, "%s", reason(env->ctx));
    else if (in_op)
      snprintf(r->error, sizeof r->error, "clforge_conv2d failed (%s): %s", clforge_status_name(rc), reason(env->ctx));
    else snprintf(r->error, sizeof r->error, "%s failed (%s)", where, clforge_status_name(rc));
    clFinish(env->queue);
    return -1;
  }
  clforge_bench_stats st;
  if (clforge_bench_summarize(t.seconds, (size_t)t.runs, &st)) {
    clforge_bench_timing_free(&t);
    r->status = ROW_ERROR;
    snprintf(r->error, sizeof r->error, "out of host memory");
    return -1;
  }
  r->timer = clforge_bench_timer_name(t.timer);
  snprintf(r->timer_note, sizeof r->timer_note, "%s", t.timer == CLFORGE_BENCH_TIMER_WALL ? t.why_wall : "");
  r->median_ms = st.median * 1e3;
  r->p95_ms = st.p95 * 1e3;
  r->gflops = conv_flops(&c->s) / st.median * 1e-9;
  r->gbps = conv_bytes(c) / st.median * 1e-9;
  clforge_bench_timing_free(&t);
  if (read_y(c, result, r->error, sizeof r->error) ||
      spot_check(c, result, accumulation_tolerance(r->chosen), r->error, sizeof r->error)) {
    r->status = ROW_ERROR;
    return -1;
  }
  /* Small problems: every output against the CPU reference too. */
  if (conv_flops(&c->s) / 2 <= REF_FULL_MACS) {
    const float *ref = ensure_ref(c);
    const double d = ref ? max_rel_diff(result, ref, c->y_elems) : 0, tol = full_tolerance(c->dtype, r->chosen);
    if (!ref) {
      snprintf(r->error, sizeof r->error, "the CPU reference failed: %s", clforge_last_error(NULL));
    } else if (!(d < tol)) {
      snprintf(r->error, sizeof r->error,
               "wrong result: max |y - clforge_ref_conv2d's| = %.3g of max |y| (tolerance %.0e)", d, tol);
    } else {
      return 0;
    }
    r->status = ROW_ERROR;
    return -1;
  }
  return 0;
}

static void peer_from_timing(clforge_bench_peer_result *p, const conv_case *c, const clforge_bench_timing *t) {
  clforge_bench_stats st;
  if (clforge_bench_summarize(t->seconds, (size_t)t->runs, &st)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  p->ok = 1;
  p->timer = clforge_bench_timer_name(t->timer);
  p->median_ms = st.median * 1e3;
  p->gflops = conv_flops(&c->s) / st.median * 1e-9;
}

/* The CPU reference's y (NCHW f32) of the case's host copies, made once;
 * NULL (clforge_last_error(NULL) says why) when it fails. */
static const float *ensure_ref(conv_case *c) {
  if (c->ref) return c->ref;
  clforge_conv2d_desc rd = c->desc; /* the host copies: NCHW / KCRS f32 */
  rd.x_layout = rd.y_layout = CLFORGE_NCHW;
  rd.w_layout = CLFORGE_KCRS;
  rd.x_type = rd.w_type = rd.y_type = CLFORGE_F32;
  rd.algo = CLFORGE_CONV_ALGO_AUTO;
  c->ref = malloc(c->y_elems * sizeof(float));
  if (c->ref && clforge_ref_conv2d(&rd, c->x32, c->w32, NULL, c->ref) != CLFORGE_SUCCESS) {
    free(c->ref);
    c->ref = NULL;
  }
  return c->ref;
}

/* Whole-result tolerance against the reference, relative to max |y|: y's
 * rounding twice over, plus the f32 accumulation's (the transforms' for
 * Winograd and FFT). A wrong output is off by a term or more: far above. */
static double full_tolerance(clforge_dtype d, clforge_conv_algo a) {
  return 2 * unit_roundoff(d) + 10 * accumulation_tolerance(a);
}

/* A peer's result against clforge's first correct one; without one, against
 * the CPU reference (whole when small, sampled when not). A mismatch nulls
 * the peer's numbers. */
static void check_peer(clforge_bench_peer_result *p, conv_case *c, const float *got, const float *want) {
  if (!p->ok) return;
  char why[400] = "";
  const double tol = peer_tolerance(c->dtype);
  const double macs = conv_flops(&c->s) / 2;
  if (want) {
    double d = max_rel_diff(got, want, c->y_elems);
    if (!(d < tol))
      snprintf(why, sizeof why, "its result differs from clforge's (max |difference| = %.3g of max |y|, tolerance %.0e)",
               d, tol);
  } else if (macs <= REF_FULL_MACS) {
    if (!ensure_ref(c)) {
      snprintf(why, sizeof why, "no clforge result, and the CPU reference failed: %s", clforge_last_error(NULL));
    } else {
      double d = max_rel_diff(got, c->ref, c->y_elems);
      if (!(d < tol))
        snprintf(why, sizeof why,
                 "its result differs from clforge_ref_conv2d's (max |difference| = %.3g of max |y|, tolerance %.0e)", d,
                 tol);
      else snprintf(p->note, sizeof p->note, "checked against clforge_ref_conv2d (no clforge result to compare with)");
    }
  } else {
    char spot[400];
    if (spot_check(c, got, c->dtype == CLFORGE_F16 ? 2e-2 : 1e-4, spot, sizeof spot))
      snprintf(why, sizeof why, "%s", spot);
    else
      snprintf(p->note, sizeof p->note,
               "checked at %d sampled outputs against double sums (no clforge result to compare with)", SPOT_SAMPLES);
  }
  if (why[0]) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "not reported: %s", why);
    warn(c->env, "%s n=%zu %s %s: %s %s", c->layer, c->s.n, clforge_dtype_name(c->dtype), layout_name(c->layout),
         p->name, p->note);
  }
}

static void measure_clblast(conv_case *c, clforge_bench_peer_result *p, const float *want, float *scratch) {
  bench_env *env = c->env;
  const char *why = "";
  if (!clforge_bench_clblast_conv_supported(&c->s, c->dtype, c->layout, env->info.caps, &why)) {
    snprintf(p->note, sizeof p->note, "n/a: %s", why);
    return;
  }
  progress(env, c, "clblast");
  const char *fn = c->dtype == CLFORGE_F16 ? "CLBlastHconvgemm" : "CLBlastSconvgemm";
  cl_int pe = poison_y(c);
  if (pe != CL_SUCCESS) {
    snprintf(p->note, sizeof p->note, "clEnqueueFillBuffer of y failed (%s)", clforge_status_name(pe));
    return;
  }
  clforge_bench_timing t;
  const char *where = "";
  int rc = time_device(env, enqueue_clblast, c, &t, &where);
  if (rc != 0) {
    snprintf(p->note, sizeof p->note, "%s failed: %s", strcmp(where, "the operation") ? where : fn,
             clforge_bench_clblast_status_name(rc));
    warn(env, "%s n=%zu %s: clblast: %s", c->layer, c->s.n, clforge_dtype_name(c->dtype), p->note);
    clFinish(env->queue);
    return;
  }
  peer_from_timing(p, c, &t);
  clforge_bench_timing_free(&t);
  char err[256];
  if (p->ok && read_y(c, scratch, err, sizeof err)) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "%s", err);
    return;
  }
  check_peer(p, c, scratch, want);
}

static void measure_onednn(conv_case *c, clforge_bench_peer_result *p, const float *want, float *scratch) {
  bench_env *env = c->env;
  const char *why = "";
  if (!clforge_bench_onednn_available(&why)) {
    snprintf(p->note, sizeof p->note, "%s", why);
    return;
  }
  if (c->dtype != CLFORGE_F32) {
    snprintf(p->note, sizeof p->note, "n/a: the oneDNN peer runs f32 only");
    return;
  }
  progress(env, c, "onednn");
  char err[256];
  if (clforge_bench_onednn_conv_create(&c->s, c->x32, c->w32, &c->onednn, err, sizeof err)) {
    snprintf(p->note, sizeof p->note, "%s", err);
    warn(env, "%s n=%zu: onednn: %s", c->layer, c->s.n, err);
    return;
  }
  clforge_bench_timing t;
  if (time_host(env, run_onednn, c, &t)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  peer_from_timing(p, c, &t);
  clforge_bench_timing_free(&t);
  /* OpenMP's worker threads spin for a while after a parallel region and
   * would take a core from the next case's clforge runs: wait them out. */
  struct timespec settle = {0, 250 * 1000 * 1000};
  nanosleep(&settle, NULL);
  if (p->ok && clforge_bench_onednn_conv_result(c->onednn, scratch, err, sizeof err)) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "%s", err);
    return;
  }
  check_peer(p, c, scratch, want);
  const char *impl = clforge_bench_onednn_conv_impl(c->onednn);
  if (p->ok && impl[0]) { /* which kernel oneDNN chose, then how its result was checked */
    char note[2 * sizeof p->note];
    snprintf(note, sizeof note, "oneDNN's %s%s%s", impl, p->note[0] ? "; " : "", p->note);
    size_t len = strlen(note);
    if (len >= sizeof p->note) len = sizeof p->note - 1;
    memcpy(p->note, note, len);
    p->note[len] = '\0';
  }
}

/* A row faster than the measured peak means the peak was taken while other
 * work held part of the device: measure it again, keep the larger. */
static void refresh_peak(bench_env *env, const conv_row *r) {
  char msg[512];
  if (env->o->peak && r->status == ROW_OK &&
      clforge_bench_peak_recheck(env->ctx, &env->peak, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6, msg,
                                 sizeof msg))
    warn(env, "%s %s %s", r->layer, r->label, msg);
}

static void emit(bench_env *env, conv_row *r) {
  progress_clear(env);
  refresh_peak(env, r);
  if (env->o->json)
    print_json(stdout, r, env->device, env->o->runs, env->o->warmup, &env->peak);
  else table_row(&env->table, r, &env->peak);
}

/* One (layer, N, dtype, layout): every requested algorithm, then the peers.
 * Returns the number of clforge rows that failed (unsupported ones do not). */
static int run_case(bench_env *env, const conv_spec *sp, size_t n, clforge_dtype dtype, clforge_tensor_layout layout) {
  const conv_options *o = env->o;
  conv_row rows[CLFORGE_CONV_ALGO_COUNT];
  conv_case c;
  char err[512];
  int failed = 0;
  int rc = setup_case(env, &c, sp, n, dtype, layout, err, sizeof err);
  for (int i = 0; i < o->nalgos; ++i) row_init(&rows[i], &c, o->algos[i]);
  if (rc) {
    for (int i = 0; i < o->nalgos; ++i) {
      rows[i].status = ROW_ERROR;
      snprintf(rows[i].error, sizeof rows[i].error, "%s", err);
      for (int j = 0; j < NPEERS; ++j)
        snprintf(rows[i].peers[j].note, sizeof rows[i].peers[j].note, "not run: the case could not be set up");
      emit(env, &rows[i]);
    }
    warn(env, "%s n=%zu %s: %s", sp->name, n, clforge_dtype_name(dtype), err);
    free_case(&c);
    return o->nalgos;
  }

  float *want = malloc(c.y_elems * sizeof(float)), *scratch = malloc(c.y_elems * sizeof(float));
  int have_want = 0;
  for (int i = 0; i < o->nalgos; ++i) {
    conv_row *r = &rows[i];
    if (!want || !scratch) {
      r->status = ROW_ERROR;
      snprintf(r->error, sizeof r->error, "out of host memory");
    } else if (measure_clforge(&c, r, have_want ? scratch : want) == 0) {
      have_want = 1;
      continue;
    }
    if (r->status == ROW_ERROR) {
      ++failed;
      warn(env, "%s n=%zu %s %s %s: %s", sp->name, n, clforge_dtype_name(dtype), layout_name(layout), r->label,
           r->error);
    }
  }

  clforge_bench_peer_result peers[NPEERS];
  memset(peers, 0, sizeof peers);
  peers[PEER_CLBLAST].name = "clblast";
  peers[PEER_ONEDNN].name = "onednn";
  if (!o->peers) {
    for (int j = 0; j < NPEERS; ++j) snprintf(peers[j].note, sizeof peers[j].note, "not run (--no-peers)");
  } else if (!scratch) {
    for (int j = 0; j < NPEERS; ++j) snprintf(peers[j].note, sizeof peers[j].note, "out of host memory");
  } else {
    measure_clblast(&c, &peers[PEER_CLBLAST], have_want ? want : NULL, scratch);
    measure_onednn(&c, &peers[PEER_ONEDNN], have_want ? want : NULL, scratch);
  }
  for (int i = 0; i < o->nalgos; ++i) {
    for (int j = 0; j < NPEERS; ++j) rows[i].peers[j] = peers[j];
    emit(env, &rows[i]);
  }
  free(want);
  free(scratch);
  free_case(&c);
  return failed;
}

/* ------------------------------------------------------------------- main */

int clforge_bench_conv_main(int argc, char **argv) {
  conv_options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) {
    free(o.specs);
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
    fprintf(stderr, "clforge bench conv: no device: %s: %s\n", clforge_status_name(st), clforge_last_error(env.ctx));
    clforge_context_destroy(env.ctx);
    free(o.specs);
    return 1;
  }
  clforge_bench_device_label(env.info.name, env.device, sizeof env.device);
  if (o.peak) {
    if (env.progress) {
      fputs("  measuring the device's peak ...", stderr);
      fflush(stderr);
    }
    clforge_bench_peak peak;
    int peak_rc = clforge_bench_peak_measure(env.ctx, &peak);
    progress_clear(&env);
    clforge_bench_peak_denominators(&peak, &env.peak);
    char why[512];
    if (peak_rc) warn(&env, "the device's peak: %s (see 'clforge bench peak')", peak.error);
    else if (clforge_bench_peak_shortfall(&peak, why, sizeof why)) warn(&env, "%s", why);
  }

  if (!o.json) {
    char platform[160];
    clforge_bench_device_label(env.info.platform_name, platform, sizeof platform);
    printf("clforge %s bench conv on %s (%s)\n", clforge_version(), env.device, platform);
    printf("y = conv(x, w): alpha 1, beta 0, no bias, no activation; filters KCRS with nchw, KRSC with nhwc;\n"
           "%d runs after %d warm-up%s; median and p95 in ms; GFLOP/s counts the direct convolution's\n"
           "2*N*K*(C/groups)*R*S*P*Q for every algorithm; GB/s: x and w read, y written once\n",
           o.runs, o.warmup, o.min_time > 0 ? " (more until --min-time)" : "");
    if (o.peers) {
      const char *why = "";
      int have = clforge_bench_onednn_available(&why);
      char onednn[160];
      snprintf(onednn, sizeof onednn, "oneDNN f32 on the host CPU (%d OpenMP threads, its own layouts, reorders untimed; host clock)",
               clforge_bench_onednn_threads());
      printf("peers: CLBlast convgemm on the same queue and buffers; %s\n", have ? onednn : why);
    }
    if (env.peak.gflops > 0 || env.peak.gbps > 0)
      printf("peak (clforge bench peak): %.1f GFLOP/s f32 multiply-add, %.1f GB/s streaming; %% peak and %% bw are\n"
             "      GFLOP/s and GB/s as fractions of them\n",
             env.peak.gflops, env.peak.gbps);
    printf("\n");
    fflush(stdout);
    memset(&env.table, 0, sizeof env.table);
    env.table.out = stdout;
    env.table.layer_width = 5;
    for (size_t i = 0; i < o.nspecs; ++i) {
      int len = (int)strlen(o.specs[i].name);
      if (len > env.table.layer_width) env.table.layer_width = len;
    }
  }

  int failed = 0;
  for (size_t i = 0; i < o.nspecs; ++i) {
    const conv_spec *sp = &o.specs[i];
    const int nb = sp->s.n ? 1 : o.nbatches;
    for (int b = 0; b < nb; ++b)
      for (int d = 0; d < o.ndtypes; ++d)
        for (int l = 0; l < o.nlayouts; ++l)
          failed += run_case(&env, sp, sp->s.n ? sp->s.n : o.batches[b], o.dtypes[d], o.layouts[l]);
  }

  if (!o.json) table_finish(&env.table);
  if (o.peers) clforge_bench_clblast_release();
  clforge_context_destroy(env.ctx);
  free(o.specs);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
