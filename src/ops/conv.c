/* clforge_conv2d and its companions: argument and buffer checks, the choice
 * of algorithm (docs/tuning.md, "Which convolution algorithm"), scratch
 * memory, prepared weights, the enqueue through the algorithm's table row
 * (src/ops/conv_<algo>.c) and validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/dtype.h"
#include "../core/error.h"
#include "../families/conv_classes.h"
#include "../core/log.h"
#include "../ref/compare.h"
#include "../core/tuning_file.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "buffer_check.h"
#include "conv_algo.h"
#include "launch_chain.h"
#include "op_call.h"

struct clforge_conv2d_weights_s {
  clforge_context ctx;
  clforge__conv d;            /* the descriptor they were made for */
  clforge_conv_algo algo;
  int v[CLFORGE_MAX_PARAMS];  /* the family's values: the transformed layout depends on them */
  cl_mem buf;                 /* transformed filter, or (weights_bytes == 0) the user's w, retained */
  int transformed;
  cl_event ready;             /* the transform's last command */
  void *host_w;               /* the original filter (validation mode compares against it) */
};

typedef struct conv_plan {
  const clforge__conv_algo_impl *impl;
  int v[CLFORGE_MAX_PARAMS];
  clforge_conv_choice choice;
} conv_plan;

/* ----------------------------------------------------------- algorithm choice */

static int is_conv_family(const clforge__family *f, clforge_conv_algo *algo) {
  for (int a = 1; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
    const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of((clforge_conv_algo)a);
    if (impl && impl->family == f) {
      *algo = (clforge_conv_algo)a;
      return 1;
    }
  }
  return 0;
}

static int supported(clforge_context ctx, const clforge__conv *d, clforge_conv_algo a, char *why, size_t cap) {
  const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of(a);
  if (!impl || !impl->supports) {
    snprintf(why, cap, "%s is not available", clforge_conv_algo_name(a));
    return 0;
  }
  return impl->supports(ctx, d, why, cap);
}

/* The built-in table when nothing was measured (docs/tuning.md, "Which
 * convolution algorithm"), in order; a row counts for d when it applies and
 * its algorithm can do d. */
typedef struct {
  int when;
  clforge_conv_algo algo;
  const char *rule;
} heuristic_row;

enum { HEURISTIC_ROWS = 7 };

static void heuristic_rows(const clforge__conv *d, heuristic_row rows[HEURISTIC_ROWS]) {
  const int dw = d->groups > 1 && d->groups == d->c;
  const int one = d->r == 1 && d->s == 1 && d->stride_h == 1 && d->stride_w == 1 && !d->pad_t && !d->pad_b &&
                  !d->pad_l && !d->pad_r;
  const int three = d->r == 3 && d->s == 3 && d->stride_h == 1 && d->stride_w == 1 && d->dil_h == 1 && d->dil_w == 1;
  const size_t cg = d->cg, kg = d->kg;
  const double npq = (double)d->n * (double)d->p * (double)d->q;
  /* Winograd transforms the filter per call unless the weights are
   * prepared: with few output tiles that transform costs more than the
   * products; prepared, F(2x2) is the fastest there (docs/performance.md). */
  const int wino = three && cg >= 16 && kg >= 16 && (d->prepared || npq >= 1024.0);
  const heuristic_row t[HEURISTIC_ROWS] = {
      {dw, CLFORGE_CONV_ALGO_DEPTHWISE, "heuristic: depthwise"},
      {one, CLFORGE_CONV_ALGO_GEMM_1X1, "heuristic: 1x1, stride 1, no padding: GEMM"},
      /* F(4x4) needs more tiles than F(2x2) to win: with few tiles its
       * larger transforms cost more than they save (docs/performance.md) */
      {wino && npq >= 4096.0, CLFORGE_CONV_ALGO_WINOGRAD_4X4,
       "heuristic: 3x3 stride 1, C and K >= 16, N*P*Q >= 4096: Winograd F(4x4,3x3)"},
      {wino, CLFORGE_CONV_ALGO_WINOGRAD_2X2,
       d->prepared ? "heuristic: 3x3 stride 1, C and K >= 16, prepared weights: Winograd F(2x2,3x3)"
                   : "heuristic: 3x3 stride 1, C and K >= 16, N*P*Q >= 1024: Winograd F(2x2,3x3)"},
      {cg * d->r * d->s >= 32 && kg >= 16, CLFORGE_CONV_ALGO_IM2COL, "heuristic: C*R*S >= 32, K >= 16: im2col + GEMM"},
      {cg * d->r * d->s >= 32 && kg >= 16, CLFORGE_CONV_ALGO_IMPLICIT_GEMM,
       "heuristic: C*R*S >= 32, K >= 16: implicit GEMM"},
      {1, CLFORGE_CONV_ALGO_DIRECT, "heuristic: direct"},
  };
  memcpy(rows, t, sizeof t);
}

/* The table's choice for d: the first row that counts. */
static clforge_conv_algo heuristic(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  char ignored[160];
  heuristic_row rows[HEURISTIC_ROWS];
  heuristic_rows(d, rows);
  for (int i = 0; i < HEURISTIC_ROWS; ++i)
    if (rows[i].when && supported(ctx, d, rows[i].algo, ignored, sizeof ignored)) {
      snprintf(why, cap, "%s", rows[i].rule);
      return rows[i].algo;
    }
  snprintf(why, cap, "heuristic: direct (nothing else applies)");
  return CLFORGE_CONV_ALGO_DIRECT;
}

int clforge__conv_heuristic_rank(clforge_context ctx, const clforge__conv *d, clforge_conv_algo algo) {
  char ignored[160];
  const clforge_conv_algo heur = heuristic(ctx, d, ignored, sizeof ignored);
  if (algo == heur) return 0;
  /* The others in the table's order, whether their row's condition holds
   * or not: the row just past a threshold is the choice's closest rival
   * (Winograd F(4x4) for a layer just below its tile count). */
  heuristic_row rows[HEURISTIC_ROWS];
  heuristic_rows(d, rows);
  int rank = 1;
  clforge_conv_algo seen[HEURISTIC_ROWS];
  for (int i = 0; i < HEURISTIC_ROWS; ++i) {
    if (rows[i].algo == heur || !supported(ctx, d, rows[i].algo, ignored, sizeof ignored)) continue;
    if (rows[i].algo == algo) return rank;
    int again = 0; /* an algorithm counts once, at its first row */
    for (int j = 0; j < rank - 1; ++j) again |= seen[j] == rows[i].algo;
    if (!again) seen[rank++ - 1] = rows[i].algo;
  }
  return HEURISTIC_ROWS + (int)algo; /* no row names it (FFT): after all that do */
}

/* algo's tuning entry of class cls itself (not a nearest one), with key's
 * other fields; NULL when it has none. */
static const clforge__tuning_entry *class_entry(clforge_context ctx, clforge_conv_algo algo,
                                                const clforge__problem_key *key, const char *cls) {
  const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of(algo);
  clforge__problem_key k = *key;
  k.shape_class = cls;
  const clforge__tuning_entry *e = NULL;
  return impl && impl->family && clforge__family_lookup(ctx, impl->family, &k, &e) == CLFORGE__TUNING_EXACT ? e : NULL;
}

/* 1 when cls is one of the conv shape classes the tuner measures. */
static int tuned_class(const char *cls) {
  for (const clforge__shape_class *c = clforge__conv_all_classes; c->name; ++c)
    if (!strcmp(c->name, cls)) return 1;
  return 0;
}

/* The tuning file's choice for d (docs/tuning.md, "Which convolution
 * algorithm"). Without the file d runs the heuristic's algorithm `heur`, so
 * another one runs only where it beat heur in one shape class: both have an
 * entry of that class (d's own; for a call of no tuned class, the class of
 * heur's nearest entry) and its measured rate is higher by the margin. A class where heur
 * was not measured (a tune cut short) is left to the heuristic (AUTO):
 * `note` then says what was measured instead; so is one where only heur
 * was. Entries of f32 storage stand in when d's storage types have none. */
static clforge_conv_algo tuned_choice(clforge_context ctx, const clforge__conv *d, clforge_conv_algo heur,
                                      clforge_conv_algo_source *source, int *from_f32, char *why, size_t cap,
                                      char *note, size_t note_cap) {
  clforge__conv_key key;
  clforge__conv_make_key(d, &key);
  const int own = tuned_class(key.shape_class);
  note[0] = '\0';
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      if (!strcmp(key.dtypes, "f32,f32,f32")) break;
      snprintf(key.dtypes, sizeof key.dtypes, "f32,f32,f32");
    }
    const char *cls = key.shape_class;
    const clforge__tuning_entry *he = NULL;
    if (own) {
      he = class_entry(ctx, heur, &key.key, cls);
    } else { /* the class of the heuristic's nearest entry, if it is near enough to stand for d */
      const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of(heur);
      if (impl && impl->family && clforge__family_lookup(ctx, impl->family, &key.key, &he) == CLFORGE__TUNING_NONE)
        he = NULL;
      if (he && he->ndims == CLFORGE_CONV_NDIMS && !clforge__conv_shape_near(key.key.shape, he->shape)) {
        if (!note[0])
          snprintf(note, note_cap, "nearest tuned %.24s too far", he->shape_class);
        return CLFORGE_CONV_ALGO_AUTO;
      }
      if (he) cls = he->shape_class;
    }
    /* the fastest other algorithm that can do d with an entry of cls */
    clforge_conv_algo other = CLFORGE_CONV_ALGO_AUTO;
    double other_rate = 0;
    for (int a = 1; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
      char ignored[160];
      if (a == (int)heur) continue;
      /* the entry first: asking an algorithm whether it can run may cost a
       * probe of the driver (FFT's), paid only where it would be chosen */
      const clforge__tuning_entry *e = class_entry(ctx, (clforge_conv_algo)a, &key.key, cls);
      if (!e || !supported(ctx, d, (clforge_conv_algo)a, ignored, sizeof ignored)) continue;
      if (other == CLFORGE_CONV_ALGO_AUTO || e->gflops > other_rate)
        other = (clforge_conv_algo)a, other_rate = e->gflops;
    }
    if (!he) {
      if (other != CLFORGE_CONV_ALGO_AUTO && !note[0])
        snprintf(note, note_cap, "%s not measured in %s, %s is", clforge_conv_algo_name(heur), cls,
                 clforge_conv_algo_name(other));
      continue;
    }
    if (other == CLFORGE_CONV_ALGO_AUTO) return CLFORGE_CONV_ALGO_AUTO; /* heur alone measured: nothing to compare */
    *source = own ? CLFORGE_CONV_ALGO_FROM_TUNED : CLFORGE_CONV_ALGO_FROM_NEAREST;
    *from_f32 = pass == 1;
    char kind[64];
    snprintf(kind, sizeof kind, "%s%s%s", own ? "tuned" : "nearest tuned ", own ? "" : cls, pass ? " (f32)" : "");
    if (other_rate > he->gflops * CLFORGE__TUNED_MARGIN) {
      snprintf(why, cap, "%s: %s %.0f > heuristic's %s %.0f GFLOP/s", kind, clforge_conv_algo_name(other), other_rate,
               clforge_conv_algo_name(heur), he->gflops);
      return other;
    }
    snprintf(why, cap, other_rate > he->gflops ? "%s: heuristic's %s %.0f ~ %s %.0f (within " CLFORGE__TUNED_MARGIN_TEXT "%%)"
                                               : "%s: heuristic's %s %.0f >= %s %.0f GFLOP/s",
             kind, clforge_conv_algo_name(heur), he->gflops, clforge_conv_algo_name(other), other_rate);
    return heur;
  }
  return CLFORGE_CONV_ALGO_AUTO;
}

/* The workspace an algorithm needs (0 when it has no hook). */
static size_t ws_need(clforge_context ctx, const clforge__conv *d, const clforge__conv_algo_impl *impl, const int *v) {
  return impl->workspace ? impl->workspace(ctx, d, v) : 0;
}

/* The table clforge__algo_choose reads for the forward convolution. */
typedef struct {
  clforge_conv_algo_source source; /* tuned or nearest */
  int from_f32;                    /* the algorithm was chosen on f32 entries: their parameters serve too */
} conv_tuned;

static const char *algo_name(int a) { return clforge_conv_algo_name((clforge_conv_algo)a); }

static int tuner_algo(clforge_context ctx, int *algo) {
  clforge_conv_algo a; /* the family being tuned (its default too: tune_force.family is NULL then) */
  if (!ctx->tuning_active || !ctx->tune_force.path || !is_conv_family(ctx->tune_force.path, &a)) return 0;
  *algo = (int)a;
  return 1;
}

static int supported_algo(clforge_context ctx, const void *d, int a, char *why, size_t cap) {
  return supported(ctx, d, (clforge_conv_algo)a, why, cap);
}

static int heuristic_algo(clforge_context ctx, const void *d, char *why, size_t cap) {
  return (int)heuristic(ctx, d, why, cap);
}

static int tuned_algo(clforge_context ctx, const void *d, int heur, const char *rule, void *user, char *why,
                      size_t cap) {
  conv_tuned *u = user;
  char note[80];
  const clforge_conv_algo a =
      tuned_choice(ctx, d, (clforge_conv_algo)heur, &u->source, &u->from_f32, why, cap, note, sizeof note);
  if (a == CLFORGE_CONV_ALGO_AUTO && note[0]) /* the file measured other algorithms, not this one: say so */
    snprintf(why, cap, "heuristic (%s):%.70s", note, rule + strlen("heuristic:"));
  return (int)a;
}

static const clforge__algo_table conv_algos = {"conv2d",         "CLFORGE_CONV_ALGO", CLFORGE_CONV_ALGO_COUNT,
                                               algo_name,        tuner_algo,          supported_algo,
                                               tuned_algo,       heuristic_algo};

/* Algorithm and its why for d: the prepared weights' (they fix it), else
 * the one order of clforge__algo_choose. */
static clforge_status choose(clforge_context ctx, const clforge__conv *d, const struct clforge_conv2d_weights_s *weights,
                             clforge_conv_choice *c, int *from_f32) {
  char reason[160];
  *from_f32 = 0;
  if (weights) {
    c->algo = weights->algo, c->source = CLFORGE_CONV_ALGO_FROM_WEIGHTS;
    snprintf(c->why, sizeof c->why, "prepared weights for %s", clforge_conv_algo_name(c->algo));
    if (!supported(ctx, d, c->algo, reason, sizeof reason))
      return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "conv2d: %s (%s): %s", clforge_conv_algo_name(c->algo), c->why,
                           reason);
    return CLFORGE_SUCCESS;
  }
  conv_tuned u = {CLFORGE_CONV_ALGO_FROM_TUNED, 0};
  clforge__algo_pick pick;
  clforge_status st = clforge__algo_choose(ctx, &conv_algos, d, (int)d->algo, &u, &pick);
  if (st != CLFORGE_SUCCESS) return st;
  static const clforge_conv_algo_source from[] = {CLFORGE_CONV_ALGO_FROM_TUNER, CLFORGE_CONV_ALGO_FROM_DESC,
                                                  CLFORGE_CONV_ALGO_FROM_ENV, CLFORGE_CONV_ALGO_FROM_TUNED,
                                                  CLFORGE_CONV_ALGO_FROM_HEURISTIC};
  c->algo = (clforge_conv_algo)pick.algo;
  c->source = pick.from == CLFORGE__ALGO_FROM_TUNED ? u.source : from[pick.from];
  snprintf(c->why, sizeof c->why, "%.*s", (int)sizeof c->why - 1, pick.why);
  *from_f32 = pick.from == CLFORGE__ALGO_FROM_TUNED && u.from_f32;
  if (pick.from >= CLFORGE__ALGO_FROM_TUNED && !supported(ctx, d, c->algo, reason, sizeof reason))
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "conv2d: no algorithm can do this problem (%s: %s)",
                         clforge_conv_algo_name(c->algo), reason);
  return CLFORGE_SUCCESS;
}

/* Algorithm, parameters and workspace for d. `weights` fixes the algorithm
 * and the parameters. */
static clforge_status make_plan(clforge_context ctx, const clforge__conv *d, const struct clforge_conv2d_weights_s *weights,
                                conv_plan *p) {
  memset(p, 0, sizeof *p);
  clforge_conv_choice *c = &p->choice;
  c->p = d->p, c->q = d->q;
  int from_f32;
  clforge_status cst = choose(ctx, d, weights, c, &from_f32);
  if (cst != CLFORGE_SUCCESS) return cst;
  const clforge_conv_algo algo = c->algo;
  const char *why = c->why;
  p->impl = clforge__conv_algo_impl_of(algo);
  clforge__conv_key key;
  clforge__conv_make_key(d, &key);
  if (from_f32) snprintf(key.dtypes, sizeof key.dtypes, "f32,f32,f32");
  c->nkernels = 0;
  if (p->impl->family) {
    if (weights) {
      memcpy(p->v, weights->v, sizeof p->v);
      clforge_status st = clforge__family_select(ctx, p->impl->family, clforge__conv_variant(d), &key.key, p->v,
                                                 &c->kernels[0]);
      if (st != CLFORGE_SUCCESS) return st;
      memcpy(p->v, weights->v, sizeof p->v); /* the weights' layout decides */
      for (int i = 0; i < c->kernels[0].nparams; ++i) c->kernels[0].values[i] = p->v[i];
    } else {
      clforge_status st = clforge__family_select(ctx, p->impl->family, clforge__conv_variant(d), &key.key, p->v,
                                                 &c->kernels[0]);
      if (st != CLFORGE_SUCCESS) return st;
    }
    c->nkernels = 1;
  }
  if (p->impl->explain)
    c->nkernels += p->impl->explain(ctx, d, p->v, c->kernels + c->nkernels, 4 - c->nkernels);
  c->workspace_bytes = ws_need(ctx, d, p->impl, p->v);
  for (int i = 0; i < c->nkernels; ++i) snprintf(c->kernels[i].route, sizeof c->kernels[i].route, "%.47s", why);
  return CLFORGE_SUCCESS;
}

/* The automatic choice's workspace could not be had (over the bound, or the
 * allocation failed): the algorithm that needs least among those that can
 * do d. */
static clforge_status fall_back(clforge_context ctx, const clforge__conv *d, size_t limit, conv_plan *p) {
  const clforge_conv_algo order[] = {CLFORGE_CONV_ALGO_IMPLICIT_GEMM, CLFORGE_CONV_ALGO_DIRECT};
  const clforge_conv_algo from = p->choice.algo;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; ++i) {
    char ignored[160];
    if (order[i] == from || !supported(ctx, d, order[i], ignored, sizeof ignored)) continue;
    conv_plan q;
    clforge__conv dd = *d;
    dd.algo = order[i];
    clforge_status st = make_plan(ctx, &dd, NULL, &q);
    if (st != CLFORGE_SUCCESS) {
      clforge__clear_error(ctx);
      continue;
    }
    if (q.choice.workspace_bytes > limit) continue;
    q.choice.source = CLFORGE_CONV_ALGO_FROM_FALLBACK;
    snprintf(q.choice.why, sizeof q.choice.why, "%s needs %zu bytes of workspace: %s", clforge_conv_algo_name(from),
             p->choice.workspace_bytes, clforge_conv_algo_name(order[i]));
    for (int k = 0; k < q.choice.nkernels; ++k)
      snprintf(q.choice.kernels[k].route, sizeof q.choice.kernels[k].route, "%.47s", q.choice.why);
    *p = q;
    return CLFORGE_SUCCESS;
  }
  return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY,
                       "conv2d: %s needs %zu bytes of workspace (at most %zu available) and no other algorithm fits",
                       clforge_conv_algo_name(from), p->choice.workspace_bytes, limit);
}

/* The plan's algorithm was chosen automatically (the table or the tuning
 * file), so it may fall back; a forced one may not. */
static int automatic(const conv_plan *p) {
  const clforge_conv_algo_source s = p->choice.source;
  return s == CLFORGE_CONV_ALGO_FROM_HEURISTIC || s == CLFORGE_CONV_ALGO_FROM_TUNED ||
         s == CLFORGE_CONV_ALGO_FROM_NEAREST;
}

/* make_plan, with the workspace limited to `limit` bytes: the caller's
 * workspace (given: 1) or the context's bound. An automatic choice that
 * needs more falls back. A forced one is kept for the queries (run: 0: they
 * report its size), and fails a call (CLFORGE_BUFFER_TOO_SMALL for the
 * caller's workspace, CLFORGE_OUT_OF_DEVICE_MEMORY for the bound). */
static clforge_status plan_within(clforge_context ctx, const clforge__conv *d,
                                  const struct clforge_conv2d_weights_s *weights, size_t limit, int given, int run,
                                  conv_plan *p) {
  clforge_status st = make_plan(ctx, d, weights, p);
  const size_t need = p->choice.workspace_bytes;
  if (st != CLFORGE_SUCCESS || need <= limit || (!run && !automatic(p))) return st;
  const char *name = clforge_conv_algo_name(p->choice.algo);
  if (automatic(p)) st = fall_back(ctx, d, limit, p);
  if (st == CLFORGE_SUCCESS && p->choice.workspace_bytes <= limit) return st;
  if (given)
    return clforge__fail(ctx, CLFORGE_BUFFER_TOO_SMALL,
                         "conv2d: %s needs a workspace of %zu bytes; the one given has %zu (size it with %s)", name,
                         need, limit,
                         weights ? "clforge_conv2d_weights_workspace_size" : "clforge_conv2d_workspace_size");
  return st != CLFORGE_SUCCESS ? st
                               : clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY,
                                               "conv2d: %s needs %zu bytes of workspace, above the bound of %zu", name,
                                               need, limit);
}

/* ----------------------------------------------------------------- checks */

/* The prepared weights fit d: the same problem except for what may change
 * between calls (x, y, bias, their offsets, alpha, beta, activation). */
static clforge_status check_weights(clforge_context ctx, const clforge__conv *d,
                                    const struct clforge_conv2d_weights_s *pw) {
  if (pw->ctx != ctx)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: the prepared weights belong to another context");
  const clforge__conv *e = &pw->d;
  const int same = d->n == e->n && d->c == e->c && d->h == e->h && d->w == e->w && d->k == e->k && d->r == e->r &&
                   d->s == e->s && d->groups == e->groups && d->stride_h == e->stride_h &&
                   d->stride_w == e->stride_w && d->dil_h == e->dil_h && d->dil_w == e->dil_w &&
                   d->pad_t == e->pad_t && d->pad_b == e->pad_b && d->pad_l == e->pad_l && d->pad_r == e->pad_r &&
                   d->x_layout == e->x_layout && d->y_layout == e->y_layout && d->w_layout == e->w_layout &&
                   d->x.type == e->x.type && d->filt.type == e->filt.type && d->y.type == e->y.type &&
                   (d->algo == CLFORGE_CONV_ALGO_AUTO || d->algo == pw->algo);
  if (!same)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: the prepared weights were made for another problem (shape, layouts, storage types "
                         "or algorithm differ)");
  return CLFORGE_SUCCESS;
}

/* ------------------------------------------------------------- validation */

typedef struct {
  void *x, *w, *bias, *y;
} host_copies;

static void free_copies(host_copies *h) {
  free(h->x);
  free(h->w);
  free(h->bias);
  free(h->y);
}

static clforge_status validate_conv(clforge_context ctx, const clforge_conv2d_desc *desc, const clforge__conv *d,
                                    clforge_conv_algo algo, cl_mem y, host_copies *h) {
  const size_t ys = clforge_dtype_size(d->y.type), n = d->y.extent;
  clforge_status fault = clforge__test_fault_apply(ctx, "conv2d", y, d->y.offset, d->y.type); /* tests only */
  if (fault != CLFORGE_SUCCESS) return fault;
  void *got = malloc(n * ys);
  if (!got) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "conv2d validation: no memory for y");
  clforge_status st = clforge__read_buffer(ctx, y, 0, n * ys, got);
  clforge_conv2d_desc rd = *desc;
  rd.algo = CLFORGE_CONV_ALGO_AUTO;
  if (st == CLFORGE_SUCCESS) st = clforge_ref_conv2d(&rd, h->x, h->w, h->bias, h->y);
  clforge__tolerance tol = clforge__conv_algo_tolerance(algo, d->y.type);
  /* The GEMM algorithms run the call's compute type: a half variant may
   * have run where it allows f16 arithmetic (and the device has it). */
  if ((algo == CLFORGE_CONV_ALGO_GEMM_1X1 || algo == CLFORGE_CONV_ALGO_IM2COL) && (ctx->info.caps & CLFORGE_CAP_FP16)) {
    const clforge__tolerance half = clforge__tolerance_for_compute(d->y.type, d->compute_type);
    if (half.nrmse > tol.nrmse) tol.nrmse = half.nrmse;
    if (half.max_abs_scaled > tol.max_abs_scaled) tol.max_abs_scaled = half.max_abs_scaled;
  }
  if (st == CLFORGE_SUCCESS) st = clforge__validate(ctx, "conv2d", d->y.type, n, got, h->y, tol);
  free(got);
  return st;
}

/* ------------------------------------------------------------------- call */

/* The call's buffers (w unused with prepared weights) and their overlaps. */
static clforge_status check_buffers(clforge_context ctx, const clforge__conv *d, cl_mem x, cl_mem w, int prepared,
                                    cl_mem bias, cl_mem y, cl_mem workspace, size_t workspace_size) {
  if (prepared) w = NULL;
  clforge_status st = clforge__conv_check_tensor(ctx, "conv2d", &d->x, x, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && !prepared) st = clforge__conv_check_tensor(ctx, "conv2d", &d->filt, w, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && bias) st = clforge__conv_check_tensor(ctx, "conv2d", &d->bias, bias, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__conv_check_tensor(ctx, "conv2d", &d->y, y,
                                    CLFORGE_ACCESS_WRITE | (d->beta != 0.0f ? CLFORGE_ACCESS_READ : 0));
  if (st == CLFORGE_SUCCESS && workspace)
    st = clforge__check_buffer(ctx, "conv2d", "workspace", workspace, 0, workspace_size, 1,
                               CLFORGE_ACCESS_READ | CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS) {
    const clforge__conv_tensor *t[4] = {&d->y, &d->x, &d->filt, &d->bias};
    const cl_mem b[4] = {y, x, w, bias};
    st = clforge__conv_check_overlaps(ctx, "conv2d", t, b, 1, 4, workspace, workspace_size);
  }
  return st;
}

/* The context's scratch, when the caller brings none (*ws stays NULL when
 * the plan needs none). Allocation failure of the automatic choice's falls
 * back as plan_within does. */
static clforge_status get_workspace(clforge_context ctx, const clforge__conv *d, conv_plan *p, cl_mem *ws,
                                    cl_event *busy) {
  if (!p->choice.workspace_bytes) return CLFORGE_SUCCESS;
  clforge_status st = clforge__workspace_get_from(ctx, &ctx->conv_workspace, p->choice.workspace_bytes, ws, busy);
  if (st == CLFORGE_OUT_OF_DEVICE_MEMORY && automatic(p)) {
    clforge__clear_error(ctx);
    st = fall_back(ctx, d, 0, p);
    *ws = NULL, *busy = NULL;
  }
  return st;
}

/* Validation's copies of the inputs (w NULL: the prepared weights' own). */
static clforge_status read_copies(clforge_context ctx, const clforge__conv *d, cl_mem x, cl_mem w, cl_mem bias,
                                  cl_mem y, host_copies *h) {
  clforge_status st = clforge__conv_read_tensor(ctx, "conv2d", &d->x, x, &h->x);
  if (st == CLFORGE_SUCCESS && w) st = clforge__conv_read_tensor(ctx, "conv2d", &d->filt, w, &h->w);
  if (st == CLFORGE_SUCCESS && bias) st = clforge__conv_read_tensor(ctx, "conv2d", &d->bias, bias, &h->bias);
  if (st == CLFORGE_SUCCESS) st = clforge__conv_read_tensor(ctx, "conv2d", &d->y, y, &h->y);
  return st;
}

/* The forward calls refuse the backward kinds, naming the call to use. */
static clforge_status forward_only(clforge_context ctx, const clforge__conv *d, const char *op) {
  if (d->kind == CLFORGE_CONV_FORWARD) return CLFORGE_SUCCESS;
  return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc.kind is %s: call clforge_conv2d_backward_%s", op,
                       d->kind == CLFORGE_CONV_BACKWARD_DATA ? "backward data" : "backward filter",
                       d->kind == CLFORGE_CONV_BACKWARD_DATA ? "data" : "filter");
}

clforge_status clforge_conv2d_ex(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem x, cl_mem w,
                                 clforge_conv2d_weights weights, cl_mem bias, cl_mem y, cl_mem workspace,
                                 size_t workspace_size, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, "conv2d", event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__conv d;
  st = clforge__conv_resolve(ctx, desc, bias != NULL, &d);
  if (st == CLFORGE_SUCCESS) st = forward_only(ctx, &d, "conv2d");
  if (st != CLFORGE_SUCCESS) return st;
  st = clforge__check_wait_list(ctx, "conv2d", num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (weights) {
    st = check_weights(ctx, &d, weights);
    if (st != CLFORGE_SUCCESS) return st;
    d.filt.offset = 0; /* the weights' own buffer */
    d.filt.extent = d.filt.count;
  }
  if (workspace && workspace_size == 0)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: a workspace is given with workspace_size 0");
  if (d.n == 0 || d.k == 0) return clforge__call_marker(ctx, "conv2d", num_events_in_wait_list, event_wait_list, event);

  const cl_mem wbuf = weights ? NULL : w;
  st = check_buffers(ctx, &d, x, w, weights != NULL, bias, y, workspace, workspace_size);
  if (st != CLFORGE_SUCCESS) return st;

  conv_plan p;
  st = plan_within(ctx, &d, weights, workspace ? workspace_size : clforge__workspace_cap(ctx), workspace != NULL, 1, &p);
  cl_mem ws = workspace;
  cl_event busy = NULL;
  if (st == CLFORGE_SUCCESS && !ws) st = get_workspace(ctx, &d, &p, &ws, &busy);
  if (st != CLFORGE_SUCCESS) return st;
  const size_t need = ws ? p.choice.workspace_bytes : 0;

  host_copies h = {NULL, NULL, NULL, NULL};
  if (ctx->validate) { /* inputs as they are when the kernels will run */
    st = clforge__call_await_inputs(ctx, "conv2d", num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = read_copies(ctx, &d, x, wbuf, bias, y, &h);
    if (st != CLFORGE_SUCCESS) {
      free_copies(&h);
      return st;
    }
  }

  /* The caller's list, the workspace's last user and the weights' transform. */
  const cl_event extra[2] = {busy && ws == ctx->conv_workspace.buffer ? busy : NULL, weights ? weights->ready : NULL};
  clforge__chain ch;
  st = clforge__chain_begin(ctx, "conv2d", &ch, num_events_in_wait_list, event_wait_list, 2, extra);
  if (st != CLFORGE_SUCCESS) {
    free_copies(&h);
    return st;
  }

  cl_event done = NULL;
  clforge__conv_exec e = {ctx, &d, p.v, x, weights ? (weights->transformed ? NULL : weights->buf) : w, bias, y,
                          weights && weights->transformed ? weights->buf : NULL, ws, need, clforge__chain_nwait(&ch),
                          clforge__chain_wait(&ch), &done};
  st = clforge__chain_end(&ch, p.impl->enqueue(&e), NULL);
  if (st == CLFORGE_SUCCESS && ws && !workspace) clforge__workspace_used_by(&ctx->conv_workspace, done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, "conv2d", done);
    if (st == CLFORGE_SUCCESS && weights) h.w = weights->host_w;
    clforge_conv2d_desc vd = *desc;
    if (weights) vd.w_offset = 0;
    if (st == CLFORGE_SUCCESS) st = validate_conv(ctx, &vd, &d, p.choice.algo, y, &h);
    if (weights) h.w = NULL;
  }
  free_copies(&h);
  return clforge__call_end(st, done, event);
}

clforge_status clforge_conv2d(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem x, cl_mem w, cl_mem bias,
                              cl_mem y, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                              cl_event *event) {
  return clforge_conv2d_ex(ctx, desc, x, w, NULL, bias, y, NULL, 0, num_events_in_wait_list, event_wait_list, event);
}

/* ----------------------------------------------------------- the queries */

clforge_status clforge_conv2d_output_size(const clforge_conv2d_desc *desc, size_t *p, size_t *q) {
  clforge__clear_error(NULL);
  if (!p || !q) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv2d_output_size: p or q is NULL");
  clforge__conv d;
  /* the int8 convolution's types too: the size does not depend on them */
  const int int8 = desc && (clforge__dtype_is_int8(desc->x_type) || clforge__dtype_is_int8(desc->w_type));
  clforge_status st = int8 ? clforge__conv_resolve_int8(NULL, desc, 0, &d) : clforge__conv_resolve(NULL, desc, 0, &d);
  if (st != CLFORGE_SUCCESS) return st;
  *p = d.p, *q = d.q;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__conv_forward_explain(clforge_context ctx, const clforge__conv *d, clforge_conv_choice *choice) {
  conv_plan p;
  clforge_status st = plan_within(ctx, d, NULL, clforge__workspace_cap(ctx), 0, 0, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}

/* The weights fix the algorithm (chosen with d.prepared, so it may differ
 * from the plain call's): the workspace clforge_conv2d_ex needs with them. */
clforge_status clforge_conv2d_weights_workspace_size(clforge_context ctx, clforge_conv2d_weights weights,
                                                     size_t *bytes) {
  clforge_status st = clforge__call_begin(ctx, "conv2d_weights_workspace_size", NULL);
  if (st != CLFORGE_SUCCESS) return st;
  if (!weights || !bytes)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d_weights_workspace_size: %s is NULL",
                         weights ? "bytes" : "weights");
  if (weights->ctx != ctx)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d_weights_workspace_size: the prepared weights belong to another context");
  clforge__conv d = weights->d;
  d.prepared = 0; /* as clforge_conv2d_ex resolves it */
  conv_plan p;
  st = plan_within(ctx, &d, weights, clforge__workspace_cap(ctx), 0, 0, &p);
  if (st == CLFORGE_SUCCESS) *bytes = p.choice.workspace_bytes;
  return st;
}

/* --------------------------------------------------------- prepared weights */

clforge_status clforge_conv2d_weights_create(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem w,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             clforge_conv2d_weights *weights) {
  clforge_status st = clforge__query_begin(ctx, "conv2d_weights_create", weights, "weights");
  if (st != CLFORGE_SUCCESS) return st;
  *weights = NULL;
  clforge__conv d;
  st = clforge__conv_resolve(ctx, desc, 0, &d);
  if (st == CLFORGE_SUCCESS) st = forward_only(ctx, &d, "conv2d_weights_create");
  d.prepared = 1; /* the choice may count on a filter transform paid once */
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, "conv2d_weights_create", num_events_in_wait_list, event_wait_list);
  if (st == CLFORGE_SUCCESS && (d.n == 0 || d.k == 0))
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d_weights_create: the problem is empty (n or k is 0)");
  if (st == CLFORGE_SUCCESS) st = clforge__conv_check_tensor(ctx, "conv2d", &d.filt, w, CLFORGE_ACCESS_READ);
  conv_plan p;
  if (st == CLFORGE_SUCCESS) st = plan_within(ctx, &d, NULL, clforge__workspace_cap(ctx), 0, 0, &p);
  if (st != CLFORGE_SUCCESS) return st;

  struct clforge_conv2d_weights_s *pw = calloc(1, sizeof *pw);
  if (!pw) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "conv2d_weights_create: no memory");
  pw->ctx = ctx, pw->d = d, pw->algo = p.choice.algo;
  memcpy(pw->v, p.v, sizeof pw->v);
  const size_t wbytes = d.filt.count * clforge_dtype_size(d.filt.type);
  pw->host_w = malloc(wbytes ? wbytes : 1);
  if (!pw->host_w) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "conv2d_weights_create: no memory");
  if (st == CLFORGE_SUCCESS && num_events_in_wait_list) {
    cl_int err = clWaitForEvents(num_events_in_wait_list, event_wait_list);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "conv2d_weights_create: waiting for the wait list");
  }
  /* The original filter, tight from element 0 (validation mode's reference). */
  if (st == CLFORGE_SUCCESS)
    st = clforge__read_buffer(ctx, w, d.filt.offset * clforge_dtype_size(d.filt.type), wbytes, pw->host_w);
  pw->d.filt.offset = 0;
  const size_t bytes = p.impl->weights_bytes ? p.impl->weights_bytes(&d, p.v) : 0;
  if (st == CLFORGE_SUCCESS && bytes) {
    cl_int err;
    pw->buf = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "clCreateBuffer (conv2d prepared weights)");
    pw->transformed = 1;
    if (st == CLFORGE_SUCCESS) {
      clforge__conv_exec e = {ctx, &d, p.v, NULL, w, NULL, NULL, NULL, NULL, 0, 0, NULL, &pw->ready};
      st = p.impl->prepare_weights(&e, pw->buf);
    }
  } else if (st == CLFORGE_SUCCESS) {
    /* The algorithm reads the filter as given: a tight copy, so that the
     * caller may reuse or free w. */
    cl_int err;
    pw->buf = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, wbytes ? wbytes : 1, pw->host_w,
                             &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "clCreateBuffer (conv2d weights copy)");
  }
  if (st != CLFORGE_SUCCESS) {
    clforge_conv2d_weights_release(pw);
    return st;
  }
  *weights = pw;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_conv2d_weights_algo(clforge_conv2d_weights weights, clforge_conv_algo *algo) {
  clforge__clear_error(NULL);
  if (!weights || !algo) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv2d_weights_algo: NULL argument");
  *algo = weights->algo;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_conv2d_weights_release(clforge_conv2d_weights weights) {
  if (!weights) return CLFORGE_SUCCESS;
  clforge__conv_weights_free(weights->ctx, weights->ready, weights->buf, weights->host_w);
  free(weights);
  return CLFORGE_SUCCESS;
}
