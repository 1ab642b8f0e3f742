/* `clforge bench conv`'s options: the built-in layers and networks it
 * can run, --shape's parser, and the command line into a conv_options. */
#include "conv_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_bench_parts.h"

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

/* ---------------------------------------------------------------- options */

/* The convolution algorithms' names, "auto" first, joined by ", " (the
 * library's list, clforge_registry_name: never a copy). Returns buf. */
static const char *algo_names(char *buf, size_t cap) {
  int n = 0;
  size_t len = 0;
  buf[0] = '\0';
  clforge_registry_count(CLFORGE_REGISTRY_CONV_ALGOS, &n);
  for (int i = 0; i < n && len < cap; ++i) {
    const char *name = "?";
    clforge_registry_name(CLFORGE_REGISTRY_CONV_ALGOS, i, &name);
    const int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", name);
    if (w < 0) break;
    len += (size_t)w;
  }
  return buf;
}

/* The names but "auto", wrapped at 80 columns, aligned with the help text. */
static void print_algo_names(FILE *f) {
  char names[256];
  const char *s = strchr(algo_names(names, sizeof names), ' ');
  int col = 80;
  for (s = s ? s + 1 : ""; *s;) {
    const int w = (int)strcspn(s, " ");
    if (col + 1 + w > 80) col = fprintf(f, "\n%22s", "") - 1;
    col += fprintf(f, " %.*s", w, s);
    s += w + (s[w] == ' ');
  }
  fputc('\n', f);
}

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
          "  --algo LIST          all, or auto and/or algorithm names separated by commas\n"
          "                       (default: all; each is a row, auto's row names the\n"
          "                       algorithm it chose):");
  print_algo_names(f);
  fprintf(f,
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
  char tok[64], err[256], names[256];
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
      return clforge_bench_usage_error(cli, "--algo \"%s\": expected all, or %s separated by commas", v ? v : "",
                                       algo_names(names, sizeof names));
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
int clforge_bench_conv_parse_options(int argc, char **argv, conv_options *o) {
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
