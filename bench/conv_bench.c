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
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "conv_network.h"
#include "conv_peers.h"
#include "data.h"
#include "families/conv_layers.h" /* src/: the layers of real networks */
#include "peers.h"               /* clforge_bench_clblast_status_name, _release */
#include "report.h"
#include "session.h"
#include "stats.h"
#include "table.h"
#include "timer.h"

enum { DEFAULT_RUNS = 10, DEFAULT_WARMUP = 2, MAX_RUNS = CLFORGE_BENCH_MAX_RUNS };
enum { MAX_BATCHES = 16, SPOT_SAMPLES = 64, NPEERS = 2, PEER_CLBLAST = 0, PEER_ONEDNN = 1 };
#define MAX_DIM (1ull << 20)
/* Below this many multiply-adds a peer is checked against the whole CPU
 * reference (plain loops, double accumulation: ~0.1 s) when no clforge
 * result exists; above, at sampled outputs. */
#define REF_FULL_MACS 5e7

/* The built-in layers (src/families/conv_layers.h, without N: --batch): the
 * tuner classes' layers first (the default set; their names are the
 * tuner's), then every other layer of the whole networks. */
static size_t class_layer_count(void) {
  size_t n = 0;
  while (clforge__conv_class_layers[n].name) ++n;
  return n;
}

/* The i-th built-in layer and its network (NULL for a class layer, whose
 * `what` names it), each name once; NULL past the end. */
static const clforge__conv_layer *layer_at(size_t i, const char **network) {
  const size_t nclass = class_layer_count();
  if (network) *network = NULL;
  if (i < nclass) return &clforge__conv_class_layers[i];
  i -= nclass;
  for (const clforge__conv_network *net = clforge__conv_networks; net->name; ++net)
    for (const clforge__conv_layer *l = net->layers; l->name; ++l) {
      int seen = 0;
      for (size_t j = 0; j < nclass && !seen; ++j) seen = !strcmp(clforge__conv_class_layers[j].name, l->name);
      if (!seen && i-- == 0) {
        if (network) *network = net->name;
        return l;
      }
    }
  return NULL;
}

static size_t layer_count(void) {
  size_t n = 0;
  while (layer_at(n, NULL)) ++n;
  return n;
}

static const clforge__conv_network *network_by_key(const char *key) {
  for (const clforge__conv_network *net = clforge__conv_networks; net->name; ++net)
    if (!strcmp(net->key, key)) return net;
  return NULL;
}

static const size_t default_batches[] = {1, 8};

/* One problem to run: a built-in layer or a --shape (N 0: from --batch). */
typedef struct {
  char name[64];
  clforge_bench_conv_shape s;
  const clforge__conv_layer *layer; /* the built-in layer, or NULL (--shape) */
} conv_spec;

enum { MAX_NETWORKS = 8 };

typedef struct {
  clforge_bench_cli cli; /* --json, --reps, --warmup, --no-peers, --no-peak */
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
  double min_time;
  clforge_conv_kind pass; /* --pass: forward, backward data or backward filter */
  /* --network: whole networks, their layers run with prepared weights */
  const clforge__conv_network *networks[MAX_NETWORKS];
  int nnetworks;
  /* while parsing: the layers asked for (flags in table order) and the shapes */
  unsigned char *want_layer;
  int nlayers;
  conv_spec *shapes;
  size_t nshapes;
  int int8; /* --int8: a clforge_conv2d_quantized row per layer and batch too */
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
          "  --layer NAME[,NAME]  built-in layers (default: the tuner's classes' layers):\n");
  for (size_t i = 0; i < class_layer_count(); ++i) {
    const clforge__conv_layer *l = layer_at(i, NULL);
    fprintf(f, "                         %-13s %3zu->%-3zu %zux%zu", l->name, l->c, l->k, l->r, l->r);
    if (l->stride > 1) fprintf(f, "/%zu", l->stride);
    fprintf(f, " @%zu^2 pad %zu%s  %s\n", l->h, l->pad, l->groups > 1 ? " depthwise" : "", l->what);
  }
  fprintf(f, "                       and every layer of the networks by name, or all:\n");
  for (const clforge__conv_network *net = clforge__conv_networks; net->name; ++net) {
    int col = fprintf(f, "                         %s:", net->name);
    for (const clforge__conv_layer *l = net->layers; l->name; ++l) {
      if (col + (int)strlen(l->name) + 1 > 100) col = fprintf(f, "\n                          ");
      col += fprintf(f, " %s", l->name);
    }
    fprintf(f, "\n");
  }
  fprintf(f,
          "  --network LIST       whole networks instead of layers: resnet50, mobilenetv2 or all\n"
          "                       (every conv layer at 224x224: ResNet-50 v1.5's 53, MobileNetV2's\n"
          "                       52); each distinct layer is timed once with prepared weights\n"
          "                       (clforge_conv2d_ex) and counted as often as the network has it;\n"
          "                       after the layer rows, the totals per batch and per image against\n"
          "                       oneDNN's on the same layers, the share of each layer kind, and the\n"
          "                       best layout. Defaults here: --algo auto, --layout nchw,nhwc; --algo\n"
          "                       with more algorithms adds 'best', the fastest of each layer. oneDNN\n"
          "                       runs f32 on the same values for every dtype; CLBlast is not run\n");
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
          "  --pass PASS          fwd (default), bwd_data (dx = clforge_conv2d_backward_data(dy, w))\n"
          "                       or bwd_filter (dw and no dbias = clforge_conv2d_backward_filter(x,\n"
          "                       dy)); the same layers, the same flop count; oneDNN's backward data\n"
          "                       and backward weights are the backward passes' peer (CLBlast has none)\n"
          "  --reps N             timed runs per row, at least %d (default %d); --runs too\n"
          "  --min-time SECONDS   time more runs until their sum reaches this (default 0)\n"
          "  --warmup N           untimed runs first, at least 1 (default %d)\n"
          "  --int8               also, per layer and batch, clforge_conv2d_quantized: u8 x (NHWC),\n"
          "                       s8 w (KRSC) -> s32 y, zero points 0 (ReLU outputs' quantization),\n"
          "                       sampled outputs checked against exact sums; peers: clforge's f32\n"
          "                       auto NHWC row of the same layer (its vs, when --layout has nhwc)\n"
          "                       and oneDNN's u8s8s32 convolution, whose y must equal clforge's\n"
          "  --no-peers           time clforge only\n"
          "  --no-peak            do not measure the device's peak first (no %% peak, %% bw)\n"
          "  --json               one JSON object per line per row, nothing else on stdout\n"
          "  -h, --help           show this help\n"
          "\n"
          "Reported per row: median and p95 (nearest rank) of the runs in ms (profiling\n"
          "events around each run; the host clock where profiling is unavailable);\n"
          "GFLOP/s = 2*N*K*(C/groups)*R*S*P*Q / median (the direct convolution's count, for\n"
          "every algorithm); GB/s = bytes of x and w read and y written once / median;\n"
          "%% peak and %% bw: fractions of the device's f32 peak (f16's for f16 arithmetic)\n"
          "and streaming bandwidth\n"
          "('clforge bench peak'); the workspace the algorithm uses; and clforge / peer\n"
          "GFLOP/s ratios. Peers: CLBlast convgemm takes NCHW, groups 1, f32 (f16 with\n"
          "cl_khr_fp16); oneDNN runs f32 in its preferred layouts (reorders untimed), timed\n"
          "with the host clock.\n"
          "\n"
          "The device is CLFORGE_DEVICE's choice (see 'clforge info'). Validation mode is\n"
          "off while timing. Exit status: 0 success, 1 a clforge row failed or was wrong,\n"
          "or no device, 2 usage error.\n",
          CLFORGE_BENCH_MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP);
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

static void layer_spec(const clforge__conv_layer *l, conv_spec *sp) {
  memset(sp, 0, sizeof *sp);
  snprintf(sp->name, sizeof sp->name, "%s", l->name);
  sp->layer = l;
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
  while ((t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1) {
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
    if (seen[key] || clforge_bench_parse_number(eq + 1, strlen(eq + 1), lo, MAX_DIM, &val[key])) {
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

/* One of conv's own options at argv[*a] (clforge_bench_own_option). */
static int conv_option(clforge_bench_cli *cli, int argc, char **argv, int *a, void *user) {
  conv_options *o = user;
  const char *v = NULL;
  unsigned long long nums[MAX_BATCHES];
  char tok[64], err[256];
  if (!strcmp(argv[*a], "--int8")) {
    o->int8 = 1;
    return 1;
  }
  if (clforge_bench_option(argc, argv, a, "--layer", &v)) {
    if (!v) return clforge_bench_usage_error(cli, "--layer needs a value, e.g. --layer r50_3x3_56,alex_11x11s4");
    const char *s = v;
    int t;
    while ((t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1) {
      const size_t n = layer_count();
      int found = -1;
      for (size_t i = 0; i < n; ++i)
        if (!strcmp(tok, layer_at(i, NULL)->name)) found = (int)i;
      if (!strcmp(tok, "all")) memset(o->want_layer, 1, n);
      else if (found < 0) t = -1;
      else o->want_layer[found] = 1;
      if (t < 0) break;
      ++o->nlayers;
    }
    if (t < 0)
      return clforge_bench_usage_error(cli, "--layer \"%s\": unknown layer; 'clforge bench conv --help' lists them", v);
  } else if (clforge_bench_option(argc, argv, a, "--network", &v)) {
    const char *s = v;
    int t = v ? 1 : -1;
    o->nnetworks = 0;
    while (t == 1 && (t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1) {
      const clforge__conv_network *net = network_by_key(tok);
      if (!strcmp(tok, "all")) {
        o->nnetworks = 0;
        for (const clforge__conv_network *x = clforge__conv_networks; x->name && o->nnetworks < MAX_NETWORKS; ++x)
          o->networks[o->nnetworks++] = x;
        continue;
      }
      if (!net) {
        t = -1;
        break;
      }
      int dup = 0;
      for (int i = 0; i < o->nnetworks; ++i) dup |= o->networks[i] == net;
      if (!dup && o->nnetworks < MAX_NETWORKS) o->networks[o->nnetworks++] = net;
    }
    if (t < 0 || o->nnetworks == 0) {
      char names[160] = "";
      size_t len = 0;
      for (const clforge__conv_network *x = clforge__conv_networks; x->name && len < sizeof names; ++x)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s, ", x->key);
      return clforge_bench_usage_error(cli, "--network \"%s\": expected %sor all, separated by commas", v ? v : "",
                                       names);
    }
  } else if (clforge_bench_option(argc, argv, a, "--shape", &v)) {
    conv_spec sp;
    if (!v) return clforge_bench_usage_error(cli, "--shape needs a value, e.g. --shape n=1,c=16,h=14,k=32,r=3,pad=1");
    if (parse_shape(v, &sp, err, sizeof err)) return clforge_bench_usage_error(cli, "--shape \"%s\": %s", v, err);
    conv_spec *p = realloc(o->shapes, (o->nshapes + 1) * sizeof *p);
    if (!p) return clforge_bench_usage_error(cli, "out of memory");
    o->shapes = p;
    o->shapes[o->nshapes++] = sp;
  } else if (clforge_bench_option(argc, argv, a, "--batch", &v)) {
    const int n = clforge_bench_parse_numbers(v, 1, MAX_DIM, nums, MAX_BATCHES);
    if (n < 0)
      return clforge_bench_usage_error(cli, "--batch needs up to %d batch sizes from 1 to %llu separated by commas",
                                       MAX_BATCHES, MAX_DIM);
    o->nbatches = n;
    for (int i = 0; i < n; ++i) o->batches[i] = (size_t)nums[i];
  } else if (clforge_bench_option(argc, argv, a, "--algo", &v)) {
    o->nalgos = 0;
    const char *s = v;
    int t = v ? 1 : -1;
    while (t == 1 && (t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1) {
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
    if (t < 0 || o->nalgos == 0)
      return clforge_bench_usage_error(cli,
                                       "--algo \"%s\": expected all, or auto, direct, implicit_gemm, gemm_1x1, im2col, "
                                       "winograd_2x2, winograd_4x4, fft, depthwise separated by commas",
                                       v ? v : "");
  } else if (clforge_bench_option(argc, argv, a, "--dtype", &v)) {
    return clforge_bench_cli_dtypes(cli, "--dtype", v, o->dtypes, &o->ndtypes, 3);
  } else if (clforge_bench_option(argc, argv, a, "--layout", &v)) {
    o->nlayouts = 0;
    const char *s = v;
    int t = v ? 1 : -1;
    while (t == 1 && (t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1) {
      clforge_tensor_layout l;
      if (!strcmp(tok, "nchw")) l = CLFORGE_NCHW;
      else if (!strcmp(tok, "nhwc")) l = CLFORGE_NHWC;
      else {
        t = -1;
        break;
      }
      if (!(o->nlayouts == 1 && o->layouts[0] == l) && o->nlayouts < 2) o->layouts[o->nlayouts++] = l;
    }
    if (t < 0 || o->nlayouts == 0)
      return clforge_bench_usage_error(cli, "--layout \"%s\": expected nchw, nhwc or nchw,nhwc", v ? v : "");
  } else if (clforge_bench_option(argc, argv, a, "--pass", &v)) {
    if (v && !strcmp(v, "fwd")) o->pass = CLFORGE_CONV_FORWARD;
    else if (v && !strcmp(v, "bwd_data")) o->pass = CLFORGE_CONV_BACKWARD_DATA;
    else if (v && !strcmp(v, "bwd_filter")) o->pass = CLFORGE_CONV_BACKWARD_FILTER;
    else return clforge_bench_usage_error(cli, "--pass \"%s\": expected fwd, bwd_data or bwd_filter", v ? v : "");
  } else if (clforge_bench_option(argc, argv, a, "--min-time", &v)) {
    if (clforge_bench_parse_seconds(v, 3600, &o->min_time))
      return clforge_bench_usage_error(cli, "--min-time needs seconds from 0 to 3600, e.g. --min-time 0.5");
  } else {
    return 0;
  }
  return 1;
}

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_options(int argc, char **argv, conv_options *o) {
  o->cli = clforge_bench_cli_for("conv", clforge_bench_conv_help,
                                 CLFORGE_BENCH_OPT_TIMED | CLFORGE_BENCH_OPT_PEERS, DEFAULT_RUNS, DEFAULT_WARMUP);
  const size_t nlayers = layer_count();
  char err[256];
  o->want_layer = calloc(nlayers ? nlayers : 1, 1);
  int rc = o->want_layer ? clforge_bench_cli_parse(&o->cli, argc, argv, conv_option, o)
                         : clforge_bench_usage_error(&o->cli, "out of memory");
  if (rc < 0 && o->nnetworks && (o->nlayers || o->nshapes))
    rc = clforge_bench_usage_error(&o->cli, "--network times whole networks: give it without --layer and --shape");
  if (rc < 0 && o->nnetworks) {
    /* Each network's layers in its order (the run loop walks them). */
    for (int i = 0; i < o->nnetworks && rc < 0; ++i)
      for (const clforge__conv_layer *l = o->networks[i]->layers; l->name && rc < 0; ++l) {
        conv_spec sp;
        layer_spec(l, &sp);
        if (output_size(&sp.s, err, sizeof err) || add_spec(o, &sp))
          rc = clforge_bench_usage_error(&o->cli, "out of memory");
      }
  } else if (rc < 0) {
    /* Layers first (the table's order), then the shapes in the given order. */
    if (o->nlayers == 0 && o->nshapes == 0) memset(o->want_layer, 1, class_layer_count());
    for (size_t i = 0; i < nlayers && rc < 0; ++i) {
      conv_spec sp;
      if (!o->want_layer[i]) continue;
      layer_spec(layer_at(i, NULL), &sp);
      if (output_size(&sp.s, err, sizeof err) || add_spec(o, &sp))
        rc = clforge_bench_usage_error(&o->cli, "out of memory");
    }
    for (size_t i = 0; i < o->nshapes && rc < 0; ++i)
      if (add_spec(o, &o->shapes[i])) rc = clforge_bench_usage_error(&o->cli, "out of memory");
  }
  free(o->shapes);
  free(o->want_layer);
  o->shapes = NULL;
  o->want_layer = NULL;
  if (o->nbatches == 0) {
    o->nbatches = 2;
    o->batches[0] = default_batches[0];
    o->batches[1] = default_batches[1];
  }
  if (o->ndtypes == 0) o->dtypes[o->ndtypes++] = CLFORGE_F32;
  if (o->nlayouts == 0 && o->nnetworks) { /* a network's best layout is one of the figures */
    o->layouts[o->nlayouts++] = CLFORGE_NCHW;
    o->layouts[o->nlayouts++] = CLFORGE_NHWC;
  }
  if (o->nlayouts == 0) o->layouts[o->nlayouts++] = CLFORGE_NCHW;
  if (o->nalgos == 0 && o->nnetworks) o->algos[o->nalgos++] = CLFORGE_CONV_ALGO_AUTO;
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
  int arith;                /* the arithmetic its kernels ran (the widest; % peak's denominator) */
  char label[40];           /* the table's algo cell: "direct", "auto:winograd_4x4" */
  row_status status;
  char error[512];          /* why unsupported, or the failure */
  double median_ms, p95_ms, gflops, gbps;
  int have_ws;
  size_t workspace;
  int prepared;      /* --network: timed with prepared weights */
  double weights_ms; /* preparing them (host clock, once) */
  const clforge__conv_layer *net_layer; /* --network: the layer (count, kind) */
  const char *network;
  const char *timer;
  char timer_note[160];
  clforge_bench_peer_result peers[NPEERS];
  double vs_f32; /* --int8 rows: clforge f32 auto NHWC median over this one's (0: none) */
} conv_row;

typedef struct {
  clforge_bench_session s; /* context, peak, progress, warnings */
  const conv_options *o;
  clforge_bench_table table;
  const char *network; /* --network: the one being run */
  double f32_nhwc_ms;  /* the last case's clforge f32 auto NHWC median (--int8's base; 0: none) */
  struct int8_summary { /* --int8 rows, for the lines after the table */
    const char *layer;
    size_t n;
    double vs_f32, vs_onednn; /* 0: not measured */
  } int8s[64];
  int nint8;
} bench_env;

typedef struct {
  bench_env *env;
  const char *layer;
  clforge_bench_conv_shape s;
  clforge_dtype dtype;
  clforge_tensor_layout layout;
  size_t es, x_elems, w_elems, y_elems;
  float *x32, *w32; /* NCHW and KCRS values as the device sees them, widened to f32 */
  float *y32;       /* the backward passes' dy (NCHW), likewise */
  clforge_conv_kind pass;
  float *ref;       /* the CPU reference's y (NCHW), made when a peer needs it */
  cl_mem x, w, y;
  clforge_conv2d_desc desc;
  clforge_bench_onednn_conv *onednn;
} conv_case;

static void progress(const bench_env *env, const conv_case *c, const char *what) {
  clforge_bench_progress(&env->s, "%s n=%zu %s: %s", c->layer, c->s.n, clforge_dtype_name(c->dtype), what);
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

static void table_columns(bench_env *env) {
  clforge_bench_table *t = &env->table;
  int layer_width = 5;
  for (size_t i = 0; i < env->o->nspecs; ++i) {
    const int len = (int)strlen(env->o->specs[i].name);
    if (len > layer_width) layer_width = len;
  }
  clforge_bench_table_init(t, stdout);
  clforge_bench_table_column(t, "layer", layer_width, 1);
  clforge_bench_table_column(t, "n", 4, 0);
  clforge_bench_table_column(t, "dtype", 5, 1);
  clforge_bench_table_column(t, "layout", 6, 1);
  clforge_bench_table_column(t, "algo", 18, 1);
  clforge_bench_table_result_columns(t, 1);
  clforge_bench_table_peak_columns(t, &env->s.peak, "% peak");
  clforge_bench_table_column(t, "workspace", 10, 0);
  for (int i = 0; i < NPEERS; ++i) clforge_bench_table_peer_columns(t, i ? "onednn" : "clblast", 14, 10);
}

static void table_row(bench_env *env, const conv_row *r) {
  clforge_bench_table *t = &env->table;
  char note[640];
  clforge_bench_table_cell(t, r->layer);
  clforge_bench_table_cellf(t, "%zu", r->s.n);
  clforge_bench_table_cell(t, clforge_dtype_name(r->dtype));
  clforge_bench_table_cell(t, layout_name(r->layout));
  clforge_bench_table_cell(t, r->label);
  if (r->status != ROW_OK) {
    /* One cell across the measured columns: "unsupported [k]" or "error [k]". */
    const char *word = r->status == ROW_UNSUPPORTED ? "unsupported" : "error";
    snprintf(note, sizeof note, "%s %s: %s", r->label, word, r->error[0] ? r->error : "failed");
    clforge_bench_table_status(t, 5 + 2 * t->peak_columns, word, note);
  } else {
    clforge_bench_table_results(t, r->median_ms, r->p95_ms, r->timer, r->timer_note, 1, r->gflops, r->gbps);
    const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith); /* f16 rows: the f16 peak */
    if (t->peak_columns) clforge_bench_table_peak_cells(t, &pk, 1, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
    clforge_bench_table_cellf(t, "%zu", r->workspace);
  }
  for (int i = 0; i < NPEERS; ++i) clforge_bench_table_peer(t, &r->peers[i], r->status == ROW_OK, r->gflops);
  clforge_bench_table_end_row(t);
}

/* ------------------------------------------------------------------- JSON */

static int print_json(const bench_env *env, const conv_row *r) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return -1;
  const int ok = r->status == ROW_OK;
  const char *status = ok ? "ok" : r->status == ROW_UNSUPPORTED ? "unsupported" : "error";
  clforge_bench_json_string(o, "op", "conv");
  clforge_bench_json_string(o, "pass", env->o->pass == CLFORGE_CONV_BACKWARD_DATA     ? "bwd_data"
                                       : env->o->pass == CLFORGE_CONV_BACKWARD_FILTER ? "bwd_filter"
                                                                                       : "fwd");
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
  clforge_bench_json_times(o, ok, r->median_ms, r->p95_ms);
  clforge_bench_json_number(o, "gflops", ok, r->gflops);
  clforge_bench_json_number(o, "gbps", ok, r->gbps);
  const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith);
  clforge_bench_json_peaks(o, &pk, ok, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  clforge_bench_json_number(o, "workspace_bytes", r->have_ws, (double)r->workspace);
  clforge_bench_json_run(o, env->o->cli.runs, env->o->cli.warmup, ok ? r->timer : NULL, ok ? r->timer_note : NULL,
                         env->s.device);
  clforge_bench_json_peers(o, r->peers, NPEERS, ok, r->gflops);
  if (r->dtype == CLFORGE_U8) clforge_bench_json_number(o, "vs_clforge_f32", ok && r->vs_f32 > 0, r->vs_f32);
  if (r->net_layer) { /* --network's rows: where the layer is and what it weighs */
    clforge_bench_json_string(o, "network", r->network);
    cJSON_AddNumberToObject(o, "count", r->net_layer->count);
    clforge_bench_json_string(o, "kind", clforge__conv_layer_kind(r->net_layer));
    clforge_bench_json_string(o, "what", r->net_layer->what);
    cJSON_AddBoolToObject(o, "prepared_weights", r->prepared);
    clforge_bench_json_number(o, "weights_ms", r->prepared, r->weights_ms);
  }
  if (!ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
  return clforge_bench_json_line(stdout, o);
}

/* ------------------------------------------------------------------ cases */

static void free_case(conv_case *c) {
  if (c->x) clReleaseMemObject(c->x);
  if (c->w) clReleaseMemObject(c->w);
  if (c->y) clReleaseMemObject(c->y);
  clforge_bench_onednn_conv_destroy(c->onednn);
  free(c->x32);
  free(c->w32);
  free(c->y32);
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
      *buf = clCreateBuffer(c->env->s.cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elems * c->es,
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
                                  .beta = 0.0f,
                                  .kind = env->o->pass};
  c->pass = env->o->pass;
  const size_t sizes[3] = {c->x_elems * c->es, c->w_elems * c->es, c->y_elems * c->es};
  const char *names[3] = {"x", "w", "y"};
  unsigned long long total = 0;
  for (int i = 0; i < 3; ++i) {
    total += sizes[i];
    if (sizes[i] > env->s.info.max_alloc_bytes) {
      snprintf(err, cap, "%s needs %zu bytes, more than the device's largest allocation (%llu bytes)", names[i],
               sizes[i], (unsigned long long)env->s.info.max_alloc_bytes);
      return -1;
    }
  }
  if (total > env->s.info.global_mem_bytes) {
    snprintf(err, cap, "x, w and y need %llu bytes, more than the device's memory (%llu bytes)", total,
             (unsigned long long)env->s.info.global_mem_bytes);
    return -1;
  }
  c->x32 = malloc(c->x_elems * sizeof(float));
  c->w32 = malloc(c->w_elems * sizeof(float));
  if (!c->x32 || !c->w32) {
    snprintf(err, cap, "out of host memory for the %s data", c->layer);
    return -1;
  }
  clforge_bench_fill_random(c->x32, c->x_elems, 0x1234567u, 1.0f);
  clforge_bench_fill_random(c->w32, c->w_elems, 0x89abcdefu, 1.0f);
  if (clforge_bench_round_to_dtype(c->x32, c->x_elems, dtype) ||
      clforge_bench_round_to_dtype(c->w32, c->w_elems, dtype)) {
    snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
    return -1;
  }
  if (upload(c, c->x32, c->x_elems, s->n, s->c, s->h * s->w, &c->x, err, cap) ||
      upload(c, c->w32, c->w_elems, s->k, cg, s->r * s->s, &c->w, err, cap))
    return -1;
  if (c->pass != CLFORGE_CONV_FORWARD) { /* dy: an input */
    c->y32 = malloc(c->y_elems * sizeof(float));
    if (!c->y32) {
      snprintf(err, cap, "out of host memory for the %s data", c->layer);
      return -1;
    }
    clforge_bench_fill_random(c->y32, c->y_elems, 0x2468acefu, 1.0f);
    if (clforge_bench_round_to_dtype(c->y32, c->y_elems, dtype)) {
      snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
      return -1;
    }
    return upload(c, c->y32, c->y_elems, s->n, s->k, s->p * s->q, &c->y, err, cap);
  }
  cl_int e;
  c->y = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, sizes[2], NULL, &e);
  if (e != CL_SUCCESS) {
    c->y = NULL;
    snprintf(err, cap, "clCreateBuffer failed (%s) for y (%zu bytes)", clforge_status_name(e), sizes[2]);
    return -1;
  }
  return 0;
}

/* The pass's output: y (forward), dx in x's buffer (backward data), dw in
 * w's (backward filter); its elements and logical (outer, channels, plane)
 * shape: NCHW for y and dx, KCRS for dw. */
static cl_mem out_buf(const conv_case *c) {
  return c->pass == CLFORGE_CONV_BACKWARD_DATA ? c->x : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? c->w : c->y;
}
static size_t out_elems(const conv_case *c) {
  return c->pass == CLFORGE_CONV_BACKWARD_DATA ? c->x_elems : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? c->w_elems
                                                                                                    : c->y_elems;
}
static void out_dims(const conv_case *c, size_t d[4]) {
  const clforge_bench_conv_shape *s = &c->s;
  const size_t bd[4] = {s->n, s->c, s->h, s->w}, bf[4] = {s->k, s->c / s->groups, s->r, s->s},
               fw[4] = {s->n, s->k, s->p, s->q};
  memcpy(d, c->pass == CLFORGE_CONV_BACKWARD_DATA ? bd : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? bf : fw,
         4 * sizeof *d);
}
static const char *out_name(const conv_case *c) {
  return c->pass == CLFORGE_CONV_BACKWARD_DATA ? "dx" : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? "dw" : "y";
}

/* All-ones bits in the output (NaN in f32, f16 and bf16): a run that writes
 * nothing, or too little, cannot pass on an earlier run's result. */
static int poison_out(const conv_case *c) {
  const cl_uchar ff = 0xFF;
  cl_int e = clEnqueueFillBuffer(c->env->s.queue, out_buf(c), &ff, 1, 0, out_elems(c) * c->es, 0, NULL, NULL);
  if (e == CL_SUCCESS) e = clFinish(c->env->s.queue);
  return e;
}

/* Read the output back as NCHW (KCRS) f32. */
static int read_out(const conv_case *c, float *out, char *err, size_t cap) {
  const size_t n = out_elems(c);
  size_t d[4];
  out_dims(c, d);
  void *raw = malloc(n * c->es);
  float *wide = c->layout == CLFORGE_NHWC ? malloc(n * sizeof(float)) : out;
  int rc = -1;
  if (!raw || !wide) {
    snprintf(err, cap, "out of host memory reading %s back", out_name(c));
  } else {
    cl_int e = clEnqueueReadBuffer(c->env->s.queue, out_buf(c), CL_TRUE, 0, n * c->es, raw, 0, NULL, NULL);
    if (e != CL_SUCCESS) snprintf(err, cap, "clEnqueueReadBuffer of %s failed (%s)", out_name(c), clforge_status_name(e));
    else if (clforge_ref_convert(n, raw, c->dtype, wide, CLFORGE_F32) != CLFORGE_SUCCESS)
      snprintf(err, cap, "clforge_ref_convert of %s failed: %s", out_name(c), clforge_last_error(NULL));
    else rc = 0;
    if (rc == 0 && wide != out) to_channels_first(wide, out, d[0], d[1], d[2] * d[3]);
  }
  free(raw);
  if (wide != out) free(wide);
  return rc;
}

/* The f32 accumulation's share of the spot check's tolerance, relative to
 * sum |x||w|: Winograd's and FFT's transforms add rounding of their own. */
static double accumulation_tolerance(clforge_conv_algo a) {
  return a == CLFORGE_CONV_ALGO_WINOGRAD_4X4 || a == CLFORGE_CONV_ALGO_WINOGRAD_2X2 || a == CLFORGE_CONV_ALGO_FFT
             ? 1e-3
             : 1e-4;
}

/* The pass's exact output at logical index o (y: n k p q; dx: n c h w; dw:
 * k c r s) from the host copies, in double, and the sum of |terms|. */
static void exact_at(const conv_case *c, const size_t o[4], double *sum, double *abs_sum) {
  const clforge_bench_conv_shape *s = &c->s;
  const size_t cg = s->c / s->groups, kg = s->k / s->groups;
  *sum = *abs_sum = 0;
  if (c->pass == CLFORGE_CONV_BACKWARD_DATA) {
    const size_t n = o[0], ch = o[1], h = o[2], x = o[3], g = ch / cg, cl = ch % cg;
    for (size_t r = 0; r < s->r; ++r) {
      const long hp = (long)(h + s->pad) - (long)(r * s->dilation);
      if (hp < 0 || hp % (long)s->stride || (size_t)hp / s->stride >= s->p) continue;
      for (size_t u = 0; u < s->s; ++u) {
        const long wp = (long)(x + s->pad) - (long)(u * s->dilation);
        if (wp < 0 || wp % (long)s->stride || (size_t)wp / s->stride >= s->q) continue;
        const size_t p = (size_t)hp / s->stride, q = (size_t)wp / s->stride;
        for (size_t kl = 0; kl < kg; ++kl) {
          const size_t k = g * kg + kl;
          const double t = (double)c->y32[((n * s->k + k) * s->p + p) * s->q + q] *
                           c->w32[((k * cg + cl) * s->r + r) * s->s + u];
          *sum += t, *abs_sum += fabs(t);
        }
      }
    }
    return;
  }
  if (c->pass == CLFORGE_CONV_BACKWARD_FILTER) {
    const size_t k = o[0], cl = o[1], r = o[2], u = o[3], ch = k / kg * cg + cl;
    for (size_t n = 0; n < s->n; ++n)
      for (size_t p = 0; p < s->p; ++p) {
        const long ih = (long)(p * s->stride + r * s->dilation) - (long)s->pad;
        if (ih < 0 || ih >= (long)s->h) continue;
        for (size_t q = 0; q < s->q; ++q) {
          const long iw = (long)(q * s->stride + u * s->dilation) - (long)s->pad;
          if (iw < 0 || iw >= (long)s->w) continue;
          const double t = (double)c->y32[((n * s->k + k) * s->p + p) * s->q + q] *
                           c->x32[((n * s->c + ch) * s->h + (size_t)ih) * s->w + (size_t)iw];
          *sum += t, *abs_sum += fabs(t);
        }
      }
    return;
  }
  const size_t n = o[0], k = o[1], p = o[2], q = o[3], g = k / kg;
  for (size_t ch = 0; ch < cg; ++ch)
    for (size_t r = 0; r < s->r; ++r) {
      const long ih = (long)(p * s->stride + r * s->dilation) - (long)s->pad;
      if (ih < 0 || ih >= (long)s->h) continue;
      for (size_t u = 0; u < s->s; ++u) {
        const long iw = (long)(q * s->stride + u * s->dilation) - (long)s->pad;
        if (iw < 0 || iw >= (long)s->w) continue;
        const double t = (double)c->x32[((n * s->c + g * cg + ch) * s->h + (size_t)ih) * s->w + (size_t)iw] *
                         c->w32[((k * cg + ch) * s->r + r) * s->s + u];
        *sum += t, *abs_sum += fabs(t);
      }
    }
}

/* Compare sampled outputs (the four corners of the output's box, where
 * padding and edge tiles are, then pseudo-random ones) with double sums of
 * the same inputs. Tolerance: the output's rounding plus acc_tol of
 * sum |terms|; a wrong output is off by about its own size, far more. */
static int spot_check(const conv_case *c, const float *got, double acc_tol, char *why, size_t cap) {
  size_t d[4];
  out_dims(c, d);
  uint32_t seed = 0xC0FFEEu;
  for (int t = 0; t < SPOT_SAMPLES; ++t) {
    size_t o[4];
    if (t < 4) {
      o[0] = (t & 1) ? d[0] - 1 : 0;
      o[1] = (t & 2) ? d[1] - 1 : 0;
      o[2] = (t == 1 || t == 2) ? d[2] - 1 : 0;
      o[3] = (t >= 2) ? d[3] - 1 : 0;
    } else {
      for (int i = 0; i < 4; ++i) {
        seed = seed * 1664525u + 1013904223u;
        o[i] = (size_t)((seed >> 8) % (uint32_t)d[i]);
      }
    }
    double sum, abs_sum;
    exact_at(c, o, &sum, &abs_sum);
    const double gv = got[((o[0] * d[1] + o[1]) * d[2] + o[2]) * d[3] + o[3]];
    const double tol = clforge_bench_unit_roundoff(c->dtype) * fabs(sum) + acc_tol * abs_sum + 1e-30;
    if (!(fabs(gv - sum) <= tol)) {
      snprintf(why, cap, "wrong result: %s[%zu][%zu][%zu][%zu] = %.9g, expected %.9g (tolerance %.3g)", out_name(c), o[0],
               o[1], o[2], o[3], gv, sum, tol);
      return -1;
    }
  }
  return 0;
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
  int rc = clforge_bench_time_queue(env->s.queue, fn, user, env->o->cli.warmup, env->o->cli.runs, t, where);
  while (rc == 0 && env->o->min_time > 0 && t->runs < MAX_RUNS) {
    double sum = 0;
    for (int i = 0; i < t->runs; ++i) sum += t->seconds[i];
    if (sum >= env->o->min_time || !(sum > 0)) break;
    double more = ceil((env->o->min_time - sum) / (sum / t->runs));
    int extra = more > (double)(MAX_RUNS - t->runs) ? MAX_RUNS - t->runs : (int)more;
    clforge_bench_timing t2;
    rc = clforge_bench_time_queue(env->s.queue, fn, user, 0, extra, &t2, where);
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
  if (clforge_bench_time_host(fn, user, env->o->cli.warmup, env->o->cli.runs, t)) return -1;
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
  clforge_conv2d_weights weights; /* --network: prepared once */
} clforge_run;

static int enqueue_clforge(void *user, cl_command_queue queue) {
  clforge_run *r = user;
  (void)queue; /* the context's own queue */
  const conv_case *c = r->c;
  if (c->pass == CLFORGE_CONV_BACKWARD_DATA)
    return clforge_conv2d_backward_data(c->env->s.ctx, &r->desc, c->y, c->w, c->x, 0, NULL, NULL);
  if (c->pass == CLFORGE_CONV_BACKWARD_FILTER)
    return clforge_conv2d_backward_filter(c->env->s.ctx, &r->desc, c->x, c->y, c->w, NULL, 0, NULL, NULL);
  if (r->weights)
    return clforge_conv2d_ex(c->env->s.ctx, &r->desc, c->x, NULL, r->weights, NULL, c->y, NULL, 0, 0, NULL, NULL);
  return clforge_conv2d(c->env->s.ctx, &r->desc, c->x, c->w, NULL, c->y, 0, NULL, NULL);
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
  const char *op = strstr(m, "conv2d");
  const char *colon = op ? strstr(op, ": ") : NULL;
  if (colon && colon - op <= 23) m = colon + 2; /* conv2d, conv2d_backward_data, conv2d_backward_filter */
  const char *forced = strstr(m, "(desc.algo = ");
  const char *rest = forced ? strstr(forced, "): ") : NULL;
  return rest ? rest + 3 : m;
}

/* Ask explain whether `algo` can run the case; fill the row's choice. 0:
 * go on and time it; otherwise the row is final (unsupported or error). */
static int explain_row(conv_case *c, conv_row *r, clforge_conv2d_desc *desc) {
  bench_env *env = c->env;
  clforge_conv_choice ch;
  clforge_status st = clforge_conv2d_explain(env->s.ctx, desc, &ch);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    if (r->status == ROW_UNSUPPORTED) snprintf(r->error, sizeof r->error, "%s", reason(env->s.ctx));
    else snprintf(r->error, sizeof r->error, "clforge_conv2d_explain failed (%s): %s", clforge_status_name(st),
                  reason(env->s.ctx));
    return -1;
  }
  r->chosen = ch.algo;
  r->source = clforge_conv_algo_source_name(ch.source);
  for (int i = 0; i < ch.nkernels; ++i)
    if ((int)ch.kernels[i].compute_type > r->arith) r->arith = (int)ch.kernels[i].compute_type;
  snprintf(r->why, sizeof r->why, "%s", ch.why);
  r->have_ws = 1;
  r->workspace = ch.workspace_bytes;
  if (r->algo != CLFORGE_CONV_ALGO_AUTO) return 0;
  snprintf(r->label, sizeof r->label, "auto:%s", clforge_conv_algo_name(ch.algo));
  /* The automatic choice must be an algorithm that can run the case: asked
   * for by name, it answers whether it can (and why not). */
  clforge_conv2d_desc forced = *desc;
  forced.algo = ch.algo;
  st = clforge_conv2d_explain(env->s.ctx, &forced, &ch);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    snprintf(r->error, sizeof r->error, "auto chose %s (%s), which cannot run it: %s", clforge_conv_algo_name(r->chosen),
             r->why, reason(env->s.ctx));
    r->have_ws = 0;
    return -1;
  }
  return 0;
}

/* --network: w transformed once for the row's algorithm, timed on the host
 * clock to the end of the transform. 0 on success; otherwise the row is
 * final. */
static int prepare_weights(conv_case *c, conv_row *r, clforge_run *run) {
  bench_env *env = c->env;
  progress(env, c, "preparing weights");
  const double t0 = clforge_bench_now();
  clforge_status st = clforge_conv2d_weights_create(env->s.ctx, &run->desc, c->w, 0, NULL, &run->weights);
  if (st == CLFORGE_SUCCESS) st = clFinish(env->s.queue);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    snprintf(r->error, sizeof r->error, "clforge_conv2d_weights_create failed (%s): %s", clforge_status_name(st),
             reason(env->s.ctx));
    clforge_conv2d_weights_release(run->weights);
    run->weights = NULL;
    return -1;
  }
  r->prepared = 1;
  r->weights_ms = (clforge_bench_now() - t0) * 1e3;
  return 0;
}

static int measure_run(conv_case *c, conv_row *r, float *result, clforge_run *run);

/* Time clforge with one algorithm and check its result; *result gets y
 * (NCHW f32) when it is right. Returns 0 when the row has numbers. */
static int measure_clforge(conv_case *c, conv_row *r, float *result) {
  clforge_run run = {c, c->desc, NULL};
  run.desc.algo = r->algo;
  if (explain_row(c, r, &run.desc)) return -1;
  if (c->env->o->nnetworks && c->pass == CLFORGE_CONV_FORWARD && prepare_weights(c, r, &run)) return -1;
  const int rc = measure_run(c, r, result, &run);
  clforge_conv2d_weights_release(run.weights);
  return rc;
}

static int measure_run(conv_case *c, conv_row *r, float *result, clforge_run *run) {
  bench_env *env = c->env;
  progress(env, c, r->label);
  cl_int pe = poison_out(c);
  if (pe != CL_SUCCESS) {
    r->status = ROW_ERROR;
    snprintf(r->error, sizeof r->error, "clEnqueueFillBuffer of %s failed (%s)", out_name(c), clforge_status_name(pe));
    return -1;
  }
  clforge_bench_timing t;
  const char *where = "";
  int rc = time_device(env, enqueue_clforge, run, &t, &where);
  if (rc != 0) {
    const int in_op = !strcmp(where, "the operation");
    r->status = in_op && rc == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    if (r->status == ROW_UNSUPPORTED) snprintf(r->error, sizeof r->error, "%s", reason(env->s.ctx));
    else if (in_op)
      snprintf(r->error, sizeof r->error, "%s failed (%s): %s",
               c->pass == CLFORGE_CONV_BACKWARD_DATA     ? "clforge_conv2d_backward_data"
               : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? "clforge_conv2d_backward_filter"
                                                         : "clforge_conv2d",
               clforge_status_name(rc),
               reason(env->s.ctx));
    else snprintf(r->error, sizeof r->error, "%s failed (%s)", where, clforge_status_name(rc));
    clFinish(env->s.queue);
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
  if (read_out(c, result, r->error, sizeof r->error) ||
      spot_check(c, result, accumulation_tolerance(r->chosen), r->error, sizeof r->error)) {
    r->status = ROW_ERROR;
    return -1;
  }
  /* Small problems: every output against the CPU reference too. */
  if (conv_flops(&c->s) / 2 <= REF_FULL_MACS) {
    const float *ref = ensure_ref(c);
    const double d = ref ? clforge_bench_max_rel_diff(result, ref, out_elems(c)) : 0;
    const double tol = full_tolerance(c->dtype, r->chosen);
    if (!ref) {
      snprintf(r->error, sizeof r->error, "the CPU reference failed: %s", clforge_last_error(NULL));
    } else if (!(d < tol)) {
      snprintf(r->error, sizeof r->error,
               "wrong result: max |%s - the reference's| = %.3g of max |%s| (tolerance %.0e)", out_name(c), d,
               out_name(c), tol);
    } else {
      return 0;
    }
    r->status = ROW_ERROR;
    return -1;
  }
  return 0;
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
  c->ref = calloc(out_elems(c), sizeof(float));
  clforge_status st = CLFORGE_SUCCESS;
  if (c->ref && c->pass == CLFORGE_CONV_BACKWARD_DATA)
    st = clforge_ref_conv2d_backward_data(&rd, c->y32, c->w32, c->ref);
  else if (c->ref && c->pass == CLFORGE_CONV_BACKWARD_FILTER)
    st = clforge_ref_conv2d_backward_filter(&rd, c->x32, c->y32, c->ref, NULL);
  else if (c->ref)
    st = clforge_ref_conv2d(&rd, c->x32, c->w32, NULL, c->ref);
  if (c->ref && st != CLFORGE_SUCCESS) {
    free(c->ref);
    c->ref = NULL;
  }
  return c->ref;
}

/* Whole-result tolerance against the reference, relative to max |y|: y's
 * rounding twice over, plus the f32 accumulation's (the transforms' for
 * Winograd and FFT). A wrong output is off by a term or more: far above. */
static double full_tolerance(clforge_dtype d, clforge_conv_algo a) {
  return 2 * clforge_bench_unit_roundoff(d) + 10 * accumulation_tolerance(a);
}

/* A peer's result against clforge's first correct one; without one, against
 * the CPU reference (whole when small, sampled when not). A mismatch nulls
 * the peer's numbers. */
static void check_peer(clforge_bench_peer_result *p, conv_case *c, const float *got, const float *want) {
  if (!p->ok) return;
  char why[400] = "";
  const double tol = peer_tolerance(c->dtype);
  const double macs = conv_flops(&c->s) / 2;
  int wrong = 0;
  if (want) {
    wrong = clforge_bench_peer_differs(p, got, want, out_elems(c), tol, out_name(c));
  } else if (macs <= REF_FULL_MACS) {
    if (!ensure_ref(c)) {
      snprintf(why, sizeof why, "no clforge result, and the CPU reference failed: %s", clforge_last_error(NULL));
    } else {
      double d = clforge_bench_max_rel_diff(got, c->ref, out_elems(c));
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
    wrong = 1;
  }
  if (wrong)
    clforge_bench_warn(&c->env->s, "%s n=%zu %s %s: %s %s", c->layer, c->s.n, clforge_dtype_name(c->dtype),
                       layout_name(c->layout), p->name, p->note);
}

static void measure_clblast(conv_case *c, clforge_bench_peer_result *p, const float *want, float *scratch) {
  bench_env *env = c->env;
  const char *why = "";
  if (c->pass != CLFORGE_CONV_FORWARD) {
    snprintf(p->note, sizeof p->note, "n/a: CLBlast has no backward convolution");
    return;
  }
  if (!clforge_bench_clblast_conv_supported(&c->s, c->dtype, c->layout, env->s.info.caps, &why)) {
    snprintf(p->note, sizeof p->note, "n/a: %s", why);
    return;
  }
  progress(env, c, "clblast");
  const char *fn = c->dtype == CLFORGE_F16 ? "CLBlastHconvgemm" : "CLBlastSconvgemm";
  cl_int pe = poison_out(c);
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
    clforge_bench_warn(&env->s, "%s n=%zu %s: clblast: %s", c->layer, c->s.n, clforge_dtype_name(c->dtype), p->note);
    clFinish(env->s.queue);
    return;
  }
  clforge_bench_peer_timed(p, &t, conv_flops(&c->s));
  clforge_bench_timing_free(&t);
  char err[256];
  if (p->ok && read_out(c, scratch, err, sizeof err)) {
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
  if (c->dtype != CLFORGE_F32 && !env->o->nnetworks) {
    snprintf(p->note, sizeof p->note, "n/a: the oneDNN peer runs f32 only");
    return;
  }
  progress(env, c, "onednn");
  char err[256];
  const float *a = c->pass == CLFORGE_CONV_BACKWARD_DATA ? c->y32 : c->x32,
              *b = c->pass == CLFORGE_CONV_BACKWARD_FILTER ? c->y32 : c->w32;
  if (clforge_bench_onednn_conv_create(&c->s, c->pass, a, b, &c->onednn, err, sizeof err)) {
    snprintf(p->note, sizeof p->note, "%s", err);
    clforge_bench_warn(&env->s, "%s n=%zu: onednn: %s", c->layer, c->s.n, err);
    return;
  }
  clforge_bench_timing t;
  if (time_host(env, run_onednn, c, &t)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  clforge_bench_peer_timed(p, &t, conv_flops(&c->s));
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

static void emit(bench_env *env, conv_row *r) {
  clforge_bench_progress_clear(&env->s);
  if (r->status == ROW_OK) {
    char label[160];
    snprintf(label, sizeof label, "%s %s", r->layer, r->label);
    clforge_bench_session_recheck(&env->s, label, r->arith, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  }
  if (env->o->cli.json) print_json(env, r);
  else table_row(env, r);
}

/* ------------------------------------------------------------------- int8 */

/* --int8: one row of clforge_conv2d_quantized (u8 NHWC x, s8 KRSC w, s32 y,
 * zero points 0) with prepared weights (as inference runs a layer, and as
 * oneDNN's primitive holds its reordered filter), its sampled outputs
 * against exact sums, oneDNN's u8s8s32 convolution on the same values (y
 * equal to clforge's). */
typedef struct {
  bench_env *env;
  clforge_bench_conv_shape s;
  uint8_t *x;  /* NHWC */
  int8_t *w;   /* KRSC */
  int32_t *y;  /* clforge's, NHWC */
  cl_mem dx, dw, dy;
  clforge_conv2d_desc desc;
  clforge_conv_quant quant;
  clforge_conv2d_quantized_weights weights;
  clforge_bench_onednn_conv *onednn;
} int8_conv;

static int enqueue_int8(void *user, cl_command_queue queue) {
  int8_conv *c = user;
  (void)queue;
  return clforge_conv2d_quantized_ex(c->env->s.ctx, &c->desc, &c->quant, c->dx, NULL, c->weights, NULL, c->dy, 0, NULL,
                                     NULL);
}

static void run_onednn_int8(void *user) {
  int8_conv *c = user;
  clforge_bench_onednn_conv_run(c->onednn);
}

/* The exact sum of output (n, p, q, k) (k's group's channels). */
static int64_t int8_sum(const int8_conv *c, size_t n, size_t p, size_t q, size_t k) {
  const clforge_bench_conv_shape *s = &c->s;
  const size_t cg = s->c / s->groups, kg = s->k / s->groups;
  int64_t acc = 0;
  for (size_t r = 0; r < s->r; ++r)
    for (size_t t = 0; t < s->s; ++t) {
      const long long ih = (long long)(p * s->stride + r * s->dilation) - (long long)s->pad;
      const long long iw = (long long)(q * s->stride + t * s->dilation) - (long long)s->pad;
      if (ih < 0 || iw < 0 || ih >= (long long)s->h || iw >= (long long)s->w) continue;
      const uint8_t *xp = c->x + ((n * s->h + (size_t)ih) * s->w + (size_t)iw) * s->c + k / kg * cg;
      const int8_t *wp = c->w + ((k * s->r + r) * s->s + t) * cg;
      for (size_t ch = 0; ch < cg; ++ch) acc += (int64_t)xp[ch] * wp[ch];
    }
  return acc;
}

static int int8_row(bench_env *env, const conv_spec *sp, size_t n, double f32_ms) {
  conv_row r;
  memset(&r, 0, sizeof r);
  r.layer = sp->name, r.s = sp->s, r.s.n = n, r.dtype = CLFORGE_U8, r.layout = CLFORGE_NHWC;
  r.algo = r.chosen = CLFORGE_CONV_ALGO_AUTO;
  snprintf(r.label, sizeof r.label, "int8:u8s8s32");
  r.peers[PEER_CLBLAST].name = "clblast";
  r.peers[PEER_ONEDNN].name = "onednn";
  snprintf(r.peers[PEER_CLBLAST].note, sizeof r.peers[PEER_CLBLAST].note, "n/a: CLBlast has no int8 convolution");
  int8_conv c;
  memset(&c, 0, sizeof c);
  c.env = env, c.s = r.s;
  const clforge_bench_conv_shape *s = &c.s;
  const size_t nx = s->n * s->h * s->w * s->c, nw = s->k * s->r * s->s * (s->c / s->groups),
               ny = s->n * s->p * s->q * s->k;
  c.x = malloc(nx), c.w = malloc(nw), c.y = malloc(ny * 4);
  int32_t *peer = malloc(ny * 4);
  uint8_t *x_nchw = malloc(nx);
  int8_t *w_kcrs = malloc(nw);
  cl_int e[3] = {CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_HOST_MEMORY};
  if (c.x && c.w && c.y && peer && x_nchw && w_kcrs) {
    uint32_t seed = 0x2545F491u;
    for (size_t i = 0; i < nx; ++i) c.x[i] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
    for (size_t i = 0; i < nw; ++i) c.w[i] = (int8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
    c.dx = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nx, c.x, &e[0]);
    c.dw = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nw, c.w, &e[1]);
    c.dy = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, ny * 4, NULL, &e[2]);
  }
  c.desc = (clforge_conv2d_desc){.n = s->n, .c = s->c, .h = s->h, .w = s->w, .k = s->k, .r = s->r, .s = s->s,
                                 .stride_h = s->stride, .stride_w = s->stride, .dilation_h = s->dilation,
                                 .dilation_w = s->dilation, .pad_top = s->pad, .pad_bottom = s->pad,
                                 .pad_left = s->pad, .pad_right = s->pad, .x_layout = CLFORGE_NHWC,
                                 .y_layout = CLFORGE_NHWC, .w_layout = CLFORGE_KRSC, .x_type = CLFORGE_U8,
                                 .w_type = CLFORGE_S8, .y_type = CLFORGE_S32, .groups = s->groups};
  const double flops = conv_flops(s);
  if (e[0] != CL_SUCCESS || e[1] != CL_SUCCESS || e[2] != CL_SUCCESS) {
    r.status = ROW_ERROR;
    snprintf(r.error, sizeof r.error, "out of memory for the int8 case");
  } else {
    clforge_bench_progress(&env->s, "%s n=%zu int8: clforge", sp->name, n);
    clforge_bench_timing t;
    const char *where = "clforge_conv2d_quantized_weights_create";
    int rc = clforge_conv2d_quantized_weights_create(env->s.ctx, &c.desc, c.dw, 0, NULL, &c.weights);
    r.prepared = 1;
    if (rc == CLFORGE_SUCCESS) rc = time_device(env, enqueue_int8, &c, &t, &where);
    clforge_bench_stats st;
    if (rc || clforge_bench_summarize(t.seconds, (size_t)t.runs, &st)) {
      r.status = ROW_ERROR;
      snprintf(r.error, sizeof r.error, "%s failed (%s): %s", where, clforge_status_name(rc),
               clforge_last_error(env->s.ctx));
    } else {
      r.timer = clforge_bench_timer_name(t.timer);
      r.median_ms = st.median * 1e3, r.p95_ms = st.p95 * 1e3;
      r.gflops = flops / st.median * 1e-9;
      r.gbps = (double)(nx + nw + 4 * ny) / st.median * 1e-9;
      r.vs_f32 = f32_ms > 0 ? f32_ms / r.median_ms : 0;
      cl_int re = clEnqueueReadBuffer(env->s.queue, c.dy, CL_TRUE, 0, ny * 4, c.y, 0, NULL, NULL);
      if (re != CL_SUCCESS) {
        r.status = ROW_ERROR;
        snprintf(r.error, sizeof r.error, "reading y failed (%s)", clforge_status_name(re));
      }
      uint32_t seed = 0xC0FFEEu;
      for (int i = 0; i < SPOT_SAMPLES && r.status == ROW_OK; ++i) { /* corners, then pseudo-random */
        seed = seed * 1664525u + 1013904223u;
        const size_t at = i < 2 ? (i ? ny - 1 : 0) : (size_t)(((uint64_t)(seed >> 4) * ny) >> 28);
        const size_t k = at % s->k, pix = at / s->k, q = pix % s->q, p = pix / s->q % s->p, nn = pix / (s->p * s->q);
        const int64_t want = int8_sum(&c, nn, p, q, k);
        if (c.y[at] != (int32_t)want) {
          r.status = ROW_ERROR;
          snprintf(r.error, sizeof r.error, "wrong result: y[n %zu][%zu][%zu][k %zu] = %d, exactly %lld", nn, p, q, k,
                   (int)c.y[at], (long long)want);
        }
      }
      clforge_bench_timing_free(&t);
    }
  }
  clforge_bench_peer_result *pr = &r.peers[PEER_ONEDNN];
  const char *why = "";
  if (!env->o->cli.peers) {
    snprintf(pr->note, sizeof pr->note, "not run (--no-peers)");
  } else if (!clforge_bench_onednn_available(&why)) {
    snprintf(pr->note, sizeof pr->note, "%s", why);
  } else if (s->groups != 1) {
    snprintf(pr->note, sizeof pr->note, "not run: the int8 peer runs groups 1");
  } else if (r.status == ROW_OK) {
    for (size_t nn = 0; nn < s->n; ++nn) /* NHWC -> NCHW, KRSC -> KCRS */
      for (size_t hw = 0; hw < s->h * s->w; ++hw)
        for (size_t ch = 0; ch < s->c; ++ch) x_nchw[(nn * s->c + ch) * s->h * s->w + hw] = c.x[(nn * s->h * s->w + hw) * s->c + ch];
    for (size_t k = 0; k < s->k; ++k)
      for (size_t rs = 0; rs < s->r * s->s; ++rs)
        for (size_t ch = 0; ch < s->c; ++ch) w_kcrs[(k * s->c + ch) * s->r * s->s + rs] = c.w[(k * s->r * s->s + rs) * s->c + ch];
    char err[256];
    clforge_bench_progress(&env->s, "%s n=%zu int8: onednn", sp->name, n);
    if (clforge_bench_onednn_conv_create_u8s8s32(s, x_nchw, w_kcrs, &c.onednn, err, sizeof err)) {
      snprintf(pr->note, sizeof pr->note, "%s", err);
    } else {
      clforge_bench_timing t;
      if (time_host(env, run_onednn_int8, &c, &t) == 0) {
        clforge_bench_peer_timed(pr, &t, flops);
        clforge_bench_timing_free(&t);
      }
      struct timespec settle = {0, 250 * 1000 * 1000}; /* OpenMP's spinning workers (see measure_onednn) */
      nanosleep(&settle, NULL);
      if (pr->ok && clforge_bench_onednn_conv_result(c.onednn, peer, err, sizeof err)) {
        pr->ok = 0;
        snprintf(pr->note, sizeof pr->note, "%s", err);
      }
      size_t diff = 0;
      for (size_t nn = 0; pr->ok && nn < s->n; ++nn)
        for (size_t k = 0; k < s->k; ++k)
          for (size_t pq = 0; pq < s->p * s->q; ++pq)
            diff += peer[(nn * s->k + k) * s->p * s->q + pq] != c.y[(nn * s->p * s->q + pq) * s->k + k];
      if (pr->ok && diff) {
        pr->ok = 0;
        snprintf(pr->note, sizeof pr->note, "not reported: its y differs from clforge's in %zu of %zu values", diff, ny);
        clforge_bench_warn(&env->s, "%s n=%zu int8: onednn %s", sp->name, n, pr->note);
      } else if (pr->ok) {
        snprintf(pr->note, sizeof pr->note, "oneDNN's %s u8s8s32; y equal to clforge's",
                 clforge_bench_onednn_conv_impl(c.onednn));
      }
    }
  } else {
    snprintf(pr->note, sizeof pr->note, "not reported: no correct clforge result to check it against");
  }
  if (r.status == ROW_ERROR) clforge_bench_warn(&env->s, "%s n=%zu int8: %s", sp->name, n, r.error);
  emit(env, &r);
  if (r.status == ROW_OK && env->nint8 < (int)(sizeof env->int8s / sizeof env->int8s[0]))
    env->int8s[env->nint8++] = (struct int8_summary){sp->name, n, r.vs_f32,
                                                     pr->ok && pr->gflops > 0 ? r.gflops / pr->gflops : 0};
  clforge_bench_onednn_conv_destroy(c.onednn);
  clforge_conv2d_quantized_weights_release(c.weights);
  if (c.dx) clReleaseMemObject(c.dx);
  if (c.dw) clReleaseMemObject(c.dw);
  if (c.dy) clReleaseMemObject(c.dy);
  free(c.x), free(c.w), free(c.y), free(peer), free(x_nchw), free(w_kcrs);
  return r.status == ROW_ERROR;
}

/* After the table: each int8 row's speed against clforge's f32 and oneDNN's int8. */
static void print_int8_summary(const bench_env *env) {
  if (!env->nint8) return;
  printf("\nint8 (u8s8s32) against clforge f32 (auto, NHWC, same layer and batch) and oneDNN u8s8s32:\n");
  for (int i = 0; i < env->nint8; ++i) {
    const struct int8_summary *t = &env->int8s[i];
    printf("  %-14s n=%-3zu", t->layer, t->n);
    if (t->vs_f32 > 0) printf("  %.2fx clforge f32", t->vs_f32);
    else printf("  (no f32 NHWC row: --layout nhwc)");
    if (t->vs_onednn > 0) printf("  %.2fx oneDNN int8", t->vs_onednn);
    printf("\n");
  }
}

/* One (layer, N, dtype, layout): every requested algorithm, then the peers.
 * Returns the number of clforge rows that failed (unsupported ones do not).
 * --network: `net` gets what the layer gave, and `onednn` carries oneDNN's
 * result from the layer's first case to its others (it is f32 whatever the
 * dtype, and takes its own layout). */
static int run_case(bench_env *env, const conv_spec *sp, size_t n, clforge_dtype dtype, clforge_tensor_layout layout,
                    clforge_bench_conv_net_layer *net, clforge_bench_peer_result *onednn) {
  const conv_options *o = env->o;
  conv_row rows[CLFORGE_CONV_ALGO_COUNT];
  conv_case c;
  char err[512];
  int failed = 0;
  if (net)
    for (int s = 0; s < CLFORGE_BENCH_NET_SERIES; ++s) net->ms[s] = -1;
  int rc = setup_case(env, &c, sp, n, dtype, layout, err, sizeof err);
  for (int i = 0; i < o->nalgos; ++i) {
    row_init(&rows[i], &c, o->algos[i]);
    rows[i].net_layer = o->nnetworks ? sp->layer : NULL;
    rows[i].network = o->nnetworks ? env->network : NULL;
  }
  if (rc) {
    for (int i = 0; i < o->nalgos; ++i) {
      rows[i].status = ROW_ERROR;
      snprintf(rows[i].error, sizeof rows[i].error, "%s", err);
      clforge_bench_peers_not_run(rows[i].peers, NPEERS, "not run: the case could not be set up");
      emit(env, &rows[i]);
    }
    clforge_bench_warn(&env->s, "%s n=%zu %s: %s", sp->name, n, clforge_dtype_name(dtype), err);
    free_case(&c);
    return o->nalgos;
  }

  float *want = malloc(out_elems(&c) * sizeof(float) + 4), *scratch = malloc(out_elems(&c) * sizeof(float) + 4);
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
      clforge_bench_warn(&env->s, "%s n=%zu %s %s %s: %s", sp->name, n, clforge_dtype_name(dtype), layout_name(layout),
                         r->label, r->error);
    }
  }

  clforge_bench_peer_result peers[NPEERS];
  memset(peers, 0, sizeof peers);
  peers[PEER_CLBLAST].name = "clblast";
  peers[PEER_ONEDNN].name = "onednn";
  if (!o->cli.peers) {
    clforge_bench_peers_not_run(peers, NPEERS, "not run (--no-peers)");
  } else if (!scratch) {
    clforge_bench_peers_not_run(peers, NPEERS, "out of host memory");
  } else if (o->nnetworks) {
    snprintf(peers[PEER_CLBLAST].note, sizeof peers[PEER_CLBLAST].note,
             "not run with --network (the totals compare with oneDNN)");
    if (onednn && onednn->name) {
      peers[PEER_ONEDNN] = *onednn; /* measured on this layer and batch before */
    } else {
      measure_onednn(&c, &peers[PEER_ONEDNN], have_want ? want : NULL, scratch);
      if (onednn) *onednn = peers[PEER_ONEDNN];
    }
  } else {
    measure_clblast(&c, &peers[PEER_CLBLAST], have_want ? want : NULL, scratch);
    measure_onednn(&c, &peers[PEER_ONEDNN], have_want ? want : NULL, scratch);
  }
  if (net) {
    for (int i = 0; i < o->nalgos; ++i) {
      const conv_row *r = &rows[i];
      if (r->status != ROW_OK) continue;
      if (r->algo == CLFORGE_CONV_ALGO_AUTO) {
        net->ms[CLFORGE_BENCH_NET_AUTO] = r->median_ms;
        net->algo[CLFORGE_BENCH_NET_AUTO] = r->chosen;
        net->weights_ms[CLFORGE_BENCH_NET_AUTO] = r->weights_ms;
      }
      if (net->ms[CLFORGE_BENCH_NET_BEST] < 0 || r->median_ms < net->ms[CLFORGE_BENCH_NET_BEST]) {
        net->ms[CLFORGE_BENCH_NET_BEST] = r->median_ms;
        net->algo[CLFORGE_BENCH_NET_BEST] = r->chosen;
        net->weights_ms[CLFORGE_BENCH_NET_BEST] = r->weights_ms;
      }
    }
    if (peers[PEER_ONEDNN].ok) net->ms[CLFORGE_BENCH_NET_ONEDNN] = peers[PEER_ONEDNN].median_ms;
  }
  for (int i = 0; i < o->nalgos; ++i) {
    for (int j = 0; j < NPEERS; ++j) rows[i].peers[j] = peers[j];
    emit(env, &rows[i]);
    if (rows[i].status == ROW_OK && rows[i].algo == CLFORGE_CONV_ALGO_AUTO && dtype == CLFORGE_F32 &&
        layout == CLFORGE_NHWC)
      env->f32_nhwc_ms = rows[i].median_ms;
  }
  free(want);
  free(scratch);
  free_case(&c);
  return failed;
}

/* --network: each network's layers for every batch, dtype and layout (in
 * that order: oneDNN runs on a layer's first case, the others reuse it),
 * each (network, N, dtype, layout) summed into *nets. Returns the number of
 * failed clforge rows. */
static int run_networks(bench_env *env, clforge_bench_conv_net **nets, size_t *nnets) {
  const conv_options *o = env->o;
  const size_t per = (size_t)o->nbatches * (size_t)o->ndtypes * (size_t)o->nlayouts;
  int has_auto = 0, failed = 0;
  const char *why = "";
  const int have_onednn = clforge_bench_onednn_available(&why);
  for (int i = 0; i < o->nalgos; ++i) has_auto |= o->algos[i] == CLFORGE_CONV_ALGO_AUTO;
  *nets = calloc((size_t)o->nnetworks * per, sizeof **nets);
  *nnets = 0;
  if (!*nets) {
    clforge_bench_warn(&env->s, "out of host memory for the network totals");
    return 1;
  }
  size_t first = 0; /* the network's first spec: specs hold the networks' layers in order */
  for (int ni = 0; ni < o->nnetworks; ++ni) {
    const clforge__conv_network *net = o->networks[ni];
    size_t nl = 0;
    while (net->layers[nl].name) ++nl;
    env->network = net->name;
    clforge_bench_peer_result *onednn = calloc(nl ? nl : 1, sizeof *onednn);
    for (int b = 0; b < o->nbatches; ++b) {
      if (onednn) memset(onednn, 0, nl * sizeof *onednn); /* per batch */
      for (int d = 0; d < o->ndtypes; ++d)
        for (int l = 0; l < o->nlayouts; ++l) {
          clforge_bench_conv_net *t = &(*nets)[(*nnets)++];
          clforge_bench_conv_net_begin(t, net, o->batches[b], o->dtypes[d], o->layouts[l], has_auto,
                                       o->nalgos > 1 || !has_auto, o->cli.peers && have_onednn);
          for (size_t li = 0; li < nl; ++li) {
            clforge_bench_conv_net_layer r;
            memset(&r, 0, sizeof r);
            failed += run_case(env, &o->specs[first + li], o->batches[b], o->dtypes[d], o->layouts[l], &r,
                               onednn ? &onednn[li] : NULL);
            clforge_bench_conv_net_add(t, &net->layers[li], &r);
          }
        }
    }
    free(onednn);
    first += nl;
  }
  env->network = NULL;
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
  if (clforge_bench_session_open(&env.s, "conv", o.cli.peak)) {
    free(o.specs);
    return 1;
  }
  if (!o.cli.json) {
    clforge_bench_print_title(&env.s);
    printf("%s: alpha 1, beta 0, no bias, no activation; filters KCRS with nchw, KRSC with nhwc;\n"
           "%d runs after %d warm-up%s; median and p95 in ms; GFLOP/s counts the direct convolution's\n"
           "2*N*K*(C/groups)*R*S*P*Q for every algorithm; GB/s: x and w read, y written once\n",
           o.pass == CLFORGE_CONV_BACKWARD_DATA     ? "dx = conv2d_backward_data(dy, w)"
           : o.pass == CLFORGE_CONV_BACKWARD_FILTER ? "dw = conv2d_backward_filter(x, dy)"
                                                    : "y = conv(x, w)",
           o.cli.runs, o.cli.warmup, o.min_time > 0 ? " (more until --min-time)" : "");
    if (o.cli.peers) {
      const char *why = "";
      int have = clforge_bench_onednn_available(&why);
      char onednn[160];
      snprintf(onednn, sizeof onednn, "oneDNN f32 on the host CPU (%d OpenMP threads, its own layouts, reorders untimed; host clock)",
               clforge_bench_onednn_threads());
      printf("peers: CLBlast convgemm on the same queue and buffers; %s\n", have ? onednn : why);
    }
    clforge_bench_print_peak(&env.s, "% peak", "% bw");
    printf("\n");
    fflush(stdout);
    table_columns(&env);
  }

  int failed = 0;
  clforge_bench_conv_net *nets = NULL;
  size_t nnets = 0;
  if (o.nnetworks) {
    failed = run_networks(&env, &nets, &nnets);
  } else {
    for (size_t i = 0; i < o.nspecs; ++i) {
      const conv_spec *sp = &o.specs[i];
      const int nb = sp->s.n ? 1 : o.nbatches;
      for (int b = 0; b < nb; ++b) {
        env.f32_nhwc_ms = 0;
        for (int d = 0; d < o.ndtypes; ++d)
          for (int l = 0; l < o.nlayouts; ++l)
            failed += run_case(&env, sp, sp->s.n ? sp->s.n : o.batches[b], o.dtypes[d], o.layouts[l], NULL, NULL);
        if (o.int8) failed += int8_row(&env, sp, sp->s.n ? sp->s.n : o.batches[b], env.f32_nhwc_ms);
      }
    }
  }

  if (!o.cli.json) clforge_bench_table_finish(&env.table);
  if (!o.cli.json) print_int8_summary(&env);
  if (nets) clforge_bench_conv_net_print(stdout, nets, nnets, o.cli.json);
  free(nets);
  if (o.cli.peers) clforge_bench_clblast_release();
  clforge_bench_session_close(&env.s);
  free(o.specs);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
