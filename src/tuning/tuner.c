/* clforge_tune: the generic tuner. Breadth first: class by class, the
 * family a call runs without a tuning file (the op's heuristic) and its main
 * rival get their built-in default measured and saved (the baseline), so
 * that even a short budget lets each class it reaches compare what the file
 * would choose against what a call does without it. Then for each
 * problem (family x shape class x dtypes x layout) it enumerates the
 * family's space on this device, searches it within a slice of the rest of
 * the budget, verifies every candidate against the CPU reference, times
 * CLBlast where the op has it as a peer, and saves the winner. Everything
 * family-specific comes from the descriptor and its op's tune hooks. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../core/log.h"
#include "../core/paths.h"
#include "../core/reserved.h"
#include "../core/validate.h"
#include "confirm.h"
#include "../core/tuning_file.h"
#include "measure.h"
#include "search.h"
#include "tune_op.h"

#define DEFAULT_BUDGET_S 120.0
/* How many of the search's best meet the default and the peer again. */
#define TOP_CANDIDATES 3
/* How long the paired confirmation of a winner runs (at least its minimum
 * of pairs, at most its maximum: confirm.h); the search leaves it room. */
#define PAIRED_S 1.0

typedef struct {
  const clforge__family *family;
  const clforge__tune_op *op; /* how the tuner runs the family (clforge__tunables) */
  const clforge__shape_class *cls;
  const char *dtypes, *layout;
  char half_dtypes[48];      /* a compute type's key, "<dtypes>@<type>" (dtypes points here) */
  int dtype_index, layout_index, seq; /* for the order of the run */
  double weight;
  int preference;            /* the op's rank hook (tune_op.h) */
  int rank;                  /* in its class: 0 the heuristic's family, 1 its rival, 2 the others */
  int class_seq;             /* the seq of its class's first problem (the baseline's order) */
  const void *heuristic;     /* the problem of its class's rank-0 family (itself for rank 0) */
  int searched;              /* its search ran */
  double base_default, base_tuned; /* GFLOP/s of its baseline (0: not measured) */
  char base_params[256];
} problem;

/* 1 when the list entry name[0..len) names value; "f16" names "f16,f16,f16". */
static int names(const char *name, size_t len, const char *value) {
  return (strlen(value) == len || strcspn(value, ",") == len) && !strncmp(name, value, len);
}

static int all(const char *list) { return !list || !*list || !strcmp(list, "all"); }

/* 1 when value is in the comma-separated list (NULL or "all": every value). */
static int listed(const char *list, const char *value) {
  if (all(list)) return 1;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (names(p, len, value)) return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

enum { FIELD_OP, FIELD_CLASS, FIELD_DTYPES, FIELD_LAYOUT };

static const char *field(const problem *p, int which) {
  return which == FIELD_OP ? p->op->op : which == FIELD_CLASS ? p->cls->name
                                                 : which == FIELD_DTYPES ? p->dtypes
                                                                         : p->layout;
}

/* Every name in a list must name something, so that a typo is an error and
 * not an empty run. */
static clforge_status check_list(clforge_context ctx, const char *what, const char *list, const problem *ps, int n,
                                 int which) {
  if (all(list)) return CLFORGE_SUCCESS;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    int ok = 0;
    for (int i = 0; i < n && !ok; ++i) ok = names(p, len, field(&ps[i], which));
    if (!ok) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune: unknown %s \"%.*s\"", what, (int)len, p);
    p += len + (p[len] == ',');
  }
  return CLFORGE_SUCCESS;
}

/* By dtype, then layout, then as declared: a short budget serves the most
 * common problems (the op's first dtype, no transposes) first. */
static int by_order(const void *a, const void *b) {
  const problem *x = a, *y = b;
  if (x->dtype_index != y->dtype_index) return x->dtype_index - y->dtype_index;
  if (x->layout_index != y->layout_index) return x->layout_index - y->layout_index;
  return x->seq - y->seq;
}

static int same_class(const problem *a, const problem *b) {
  return !strcmp(a->op->op, b->op->op) && !strcmp(a->cls->name, b->cls->name) &&
         !strcmp(a->dtypes, b->dtypes) && !strcmp(a->layout, b->layout);
}

/* Each problem's rank among the families of its class (same op, class,
 * dtypes and layout) in the order the op's heuristic prefers them. */
static void rank_problems(clforge_context ctx, problem *p, int n) {
  for (int i = 0; i < n; ++i) {
    const clforge__tune_op *op = p[i].op;
    p[i].preference = op->rank ? op->rank(ctx, p[i].family, p[i].dtypes, p[i].layout, p[i].cls->shape) : 0;
  }
  for (int i = 0; i < n; ++i) {
    int before = 0; /* families of the class the heuristic takes first (ties: as declared) */
    p[i].class_seq = p[i].seq;
    for (int j = 0; j < n; ++j) {
      if (j == i || !same_class(&p[i], &p[j])) continue;
      if (p[j].preference < p[i].preference || (p[j].preference == p[i].preference && p[j].seq < p[i].seq)) ++before;
      if (p[j].seq < p[i].class_seq) p[i].class_seq = p[j].seq;
    }
    p[i].rank = before < 2 ? before : 2;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (p[j].rank == 0 && same_class(&p[i], &p[j])) p[i].heuristic = &p[j];
}

/* The baseline's order: class by class, the heuristic's family and then its
 * rival (one without the other compares nothing: a call runs the heuristic
 * where its family alone was measured), the classes as the run's order but
 * the heavier ones of a dtype first. */
static int by_baseline(const void *a, const void *b) {
  const problem *x = *(const problem *const *)a, *y = *(const problem *const *)b;
  if (x->dtype_index != y->dtype_index) return x->dtype_index - y->dtype_index;
  if (x->layout_index != y->layout_index) return x->layout_index - y->layout_index;
  if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
  if (x->class_seq != y->class_seq) return x->class_seq - y->class_seq;
  return x->rank - y->rank;
}

/* The problems of a run: for a compute type allowing f16 (options'
 * compute_type), only the families with half variants, keyed by it. */
static clforge_status make_problems(clforge_context ctx, const clforge_tune_options *o, problem **out, int *count) {
  const int half = clforge__half_level_allowed(o->compute_type) > 0;
  int n = 0;
  for (const clforge__tunable *f = clforge__tunables; f->family; ++f)
    for (const clforge__shape_class *c = f->family->classes; c->name; ++c)
      for (const char *const *d = f->op->dtypes; *d; ++d)
        for (const char *const *l = f->op->layouts; *l; ++l) ++n;
  problem *p = calloc(n ? (size_t)n : 1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune: no memory");
  n = 0;
  for (const clforge__tunable *f = clforge__tunables; f->family; ++f)
    for (const clforge__shape_class *c = f->family->classes; c->name; ++c)
      for (int di = 0; f->op->dtypes[di] && (!half || f->family->precision_params); ++di)
        for (int li = 0; f->op->layouts[li]; ++li, ++n) {
          /* The op's first dtype (f32) is the most used: three times the share. */
          p[n] = (problem){.family = f->family, .op = f->op, .cls = c, .dtypes = f->op->dtypes[di],
                           .layout = f->op->layouts[li], .dtype_index = di, .layout_index = li, .seq = n,
                           .weight = (di == 0 ? 3.0 : 1.0) * c->weight};
          if (half) {
            snprintf(p[n].half_dtypes, sizeof p[n].half_dtypes, "%s@%s", p[n].dtypes,
                     clforge_compute_type_name(o->compute_type));
            p[n].dtypes = p[n].half_dtypes;
          }
        }
  clforge_status st = check_list(ctx, "op", o->ops, p, n, FIELD_OP);
  if (st == CLFORGE_SUCCESS) st = check_list(ctx, "shape class", o->shapes, p, n, FIELD_CLASS);
  if (st == CLFORGE_SUCCESS) st = check_list(ctx, "dtype", o->dtypes, p, n, FIELD_DTYPES);
  /* "first": each op's first layout (its most used: GEMM's nn, conv's nchw, q8_0 GEMM's nt, ...) */
  const int first = o->layouts && !strcmp(o->layouts, "first");
  if (st == CLFORGE_SUCCESS && !first) st = check_list(ctx, "layout", o->layouts, p, n, FIELD_LAYOUT);
  int kept = 0;
  for (int i = 0; st == CLFORGE_SUCCESS && i < n; ++i)
    if (listed(o->ops, p[i].op->op) && listed(o->shapes, p[i].cls->name) && listed(o->dtypes, p[i].dtypes) &&
        (first ? p[i].layout_index == 0 : listed(o->layouts, p[i].layout))) {
      p[kept] = p[i];
      if (half) p[kept].dtypes = p[kept].half_dtypes; /* (moved with its problem) */
      ++kept;
    }
  if (st == CLFORGE_SUCCESS && kept == 0)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune: the options select no problem to tune");
  if (st != CLFORGE_SUCCESS) {
    free(p);
    return st;
  }
  qsort(p, (size_t)kept, sizeof *p, by_order);
  for (int i = 0; half && i < kept; ++i) p[i].dtypes = p[i].half_dtypes;
  rank_problems(ctx, p, kept);
  *out = p;
  *count = kept;
  return CLFORGE_SUCCESS;
}

typedef struct {
  clforge_context ctx;
  const clforge_tune_options *o;
  problem *pb;
  void *state;
  const size_t *shape;
  double t_start, deadline, problem_deadline;
  clforge_tune_event ev;
  int evals;          /* candidates evaluated on this problem */
  int failures;
  int fault_tests;    /* tests only: the first candidate is wrong, the second fails to build */
  const int *start;   /* the built-in default's values (the search's first candidate) */
  int start_failed;   /* ... were discarded: never fall back to them */
  double search_deadline;
  int default_failed; /* the plain call failed: the problem may not run on this device at all */
  clforge__tuning_db *known; /* the target file's entries and this run's (re-tuning keeps the better of old and new) */
  const int *old;     /* this problem's existing entry's values, or NULL */
  int old_measured;   /* ... were evaluated in this run (or are the default's, measured) */
  /* The fastest verified candidates of the search, fastest first: they meet
   * the default and the peer again, side by side, at the end. */
  struct {
    int values[CLFORGE_MAX_PARAMS];
    double s;
  } top[TOP_CANDIDATES];
  int ntop;
  clforge__space_cache spaces; /* the last family's allowed sets, for its next problem */
} tuner;

/* Keep values among the TOP_CANDIDATES fastest. */
static void remember(tuner *t, const int *values, double s) {
  int n = t->ntop, i = n < TOP_CANDIDATES ? n : TOP_CANDIDATES - 1;
  if (n == TOP_CANDIDATES && s >= t->top[i].s) return;
  while (i > 0 && t->top[i - 1].s > s) {
    t->top[i] = t->top[i - 1];
    --i;
  }
  memcpy(t->top[i].values, values, sizeof t->top[i].values);
  t->top[i].s = s;
  if (n < TOP_CANDIDATES) ++t->ntop;
}

static void emit(tuner *t, clforge_tune_event *ev) {
  ev->elapsed_s = clforge__now() - t->t_start;
  ev->left_s = t->deadline > clforge__now() ? t->deadline - clforge__now() : 0.0;
  if (t->o->progress) t->o->progress(ev, t->o->user);
}

static int stop_requested(const tuner *t) { return t->o->stop && *t->o->stop; }

/* What runs in a measurement: the call as a user gets it without tuning
 * (the built-in defaults), one candidate, or the peer library. */
typedef enum { RUN_DEFAULT, RUN_CANDIDATE, RUN_PEER } run_kind;

typedef struct {
  run_kind kind;
  const clforge__family *family; /* another family of the class (the heuristic's); NULL: the problem's */
  int values[CLFORGE_MAX_PARAMS];
  double samples[16];
  int n;
  double s; /* median of the samples; 0 when it failed */
} contender;

static void force(tuner *t, run_kind kind, const int *values) {
  clforge_context ctx = t->ctx;
  const clforge__family *f = t->pb->family;
  ctx->tune_force.family = kind == RUN_DEFAULT ? NULL : f;
  ctx->tune_force.path = f;
  ctx->tune_force.provider[0] = '\0';
  if (kind == RUN_CANDIDATE) memcpy(ctx->tune_force.values, values, sizeof ctx->tune_force.values);
  if (kind == RUN_PEER) { /* force only the provider; the family's values stay the defaults */
    clforge__family_device_default(f, &ctx->info, t->pb->op->variant(t->pb->dtypes, t->pb->layout, t->shape),
                                   ctx->tune_force.values);
    snprintf(ctx->tune_force.provider, sizeof ctx->tune_force.provider, "%s", t->pb->op->peer);
  }
}

static void unforce(tuner *t) {
  t->ctx->tune_force.family = NULL;
  t->ctx->tune_force.path = NULL;
  t->ctx->tune_force.provider[0] = '\0';
}

/* The search's callback: measure one candidate; returns its median time in
 * seconds, or a negative value when discarded or cut short. */
static double evaluate(const int *values, void *user) {
  tuner *t = user;
  const clforge__family *f = t->pb->family;
  clforge_context ctx = t->ctx;
  char params[256], why[1024] = "";
  int v[CLFORGE_MAX_PARAMS] = {0}; /* values has f->nparams entries; the tuner's arrays hold the maximum */
  memcpy(v, values, sizeof(int) * (size_t)f->nparams);
  clforge__family_format(f, v, params, sizeof params);
  force(t, RUN_CANDIDATE, v);
  if (t->fault_tests && t->evals == 1) snprintf(ctx->test_fault, sizeof ctx->test_fault, "build");
  clforge__measurement m;
  clforge_tune_outcome outcome = clforge__measure(ctx, t->pb->op, t->state, t->fault_tests && t->evals == 0,
                                                  t->ntop ? t->top[0].s : 0.0, &m, why, sizeof why);
  if (t->fault_tests && t->evals == 1) ctx->test_fault[0] = '\0';
  unforce(t);
  ++t->evals;
  double flops = t->pb->op->flops(t->shape);
  if (outcome == CLFORGE_TUNE_OK) remember(t, v, m.median_s);
  if (t->old && !memcmp(values, t->old, sizeof(int) * (size_t)f->nparams)) t->old_measured = 1;
  if (outcome >= CLFORGE_TUNE_BUILD_FAILED) {
    ++t->failures;
    if (t->start && !memcmp(values, t->start, sizeof(int) * (size_t)f->nparams)) t->start_failed = 1;
    clforge__log(CLFORGE_LOG_INFO, "tune %s %s: discarded %s: %s", f->name, t->pb->cls->name, params, why);
  }
  clforge_tune_event ev = t->ev;
  ev.kind = CLFORGE_TUNE_CANDIDATE;
  ev.tried = (size_t)t->evals;
  ev.outcome = outcome;
  ev.params = params;
  ev.message = outcome == CLFORGE_TUNE_OK ? NULL : why;
  ev.gflops = m.median_s > 0 ? flops / m.median_s / 1e9 : 0.0;
  ev.build_s = m.build_s;
  ev.best_gflops = t->ntop ? flops / t->top[0].s / 1e9 : 0.0;
  ev.failures = t->failures;
  emit(t, &ev);
  return outcome == CLFORGE_TUNE_OK ? m.median_s : -1.0;
}

static int search_should_stop(int evals, void *user) {
  tuner *t = user;
  (void)evals;
  /* The default failed and so did every candidate so far: the device
   * probably cannot run this problem; do not spend the share on it. */
  if (t->default_failed && t->evals >= 3 && t->failures == t->evals) return 1;
  return stop_requested(t) || clforge__now() >= t->search_deadline ||
         (t->o->max_evals > 0 && t->evals >= t->o->max_evals);
}

/* Build, check and time the default, the peer or one set of values on
 * their own; 0 when it cannot run, is wrong or (best_s > 0) is cut short
 * as 3x slower. */
static double measure_plain(tuner *t, run_kind kind, const int *values, double best_s) {
  char why[1024];
  clforge__measurement m;
  force(t, kind, values);
  clforge_tune_outcome out = clforge__measure(t->ctx, t->pb->op, t->state, 0, best_s, &m, why, sizeof why);
  unforce(t);
  if (out != CLFORGE_TUNE_OK) {
    clforge__log(CLFORGE_LOG_INFO, "tune %s %s: %s not measured: %s", t->pb->family->name, t->pb->cls->name,
                 kind == RUN_PEER ? t->pb->op->peer : kind == RUN_DEFAULT ? "the default" : "the entry", why);
    return 0.0;
  }
  return m.median_s;
}

/* One burst of c: runs until they add up to 2 ms (at least one); the
 * median of the burst, 0 when a run failed at once. */
static double burst_of(tuner *t, const contender *c) {
  double burst[64], total = 0;
  int runs = 0;
  force(t, c->kind, c->values);
  if (c->family) t->ctx->tune_force.family = t->ctx->tune_force.path = c->family;
  while (runs < 64 && (runs == 0 || total < 2e-3)) {
    if (clforge__timed_run(t->ctx, t->pb->op, t->state, &burst[runs]) != CLFORGE_SUCCESS) break;
    total += burst[runs++];
  }
  unforce(t);
  return runs ? clforge__median(burst, runs) : 0.0;
}

/* The contenders again, side by side: rounds in which each one runs a burst
 * of at least 2 ms, so that slow phases of a shared machine hit them all
 * alike; each one's score is the median of its bursts. This picks the
 * challenger; whether it replaces the default is the paired confirmation's
 * call (confirm_winner). */
static void confirm(tuner *t, contender *c, int n) {
  const double t0 = clforge__now();
  for (int round = 0; round < 16 && (round < 3 || clforge__now() - t0 < 0.5) && !stop_requested(t); ++round)
    for (int i = 0; i < n; ++i) {
      if (c[i].n < round) continue; /* failed earlier */
      const double b = burst_of(t, &c[i]);
      if (b > 0) c[i].samples[c[i].n++] = b;
    }
  for (int i = 0; i < n; ++i) c[i].s = clforge__median(c[i].samples, c[i].n);
}

/* The paired confirmation's source: bursts of the default (0) and the
 * challenger (1), within the budget. */
typedef struct {
  tuner *t;
  const contender *pair[2];
  double t0;
} pairing;

static double pair_burst(int which, void *user) {
  pairing *p = user;
  return burst_of(p->t, p->pair[which]);
}

static int pair_must_stop(void *user) {
  const pairing *p = user;
  return stop_requested(p->t) || clforge__now() >= p->t->deadline;
}

/* A second of pairs, or what is left of the problem's share. */
static int pair_enough(int pairs, void *user) {
  const pairing *p = user;
  (void)pairs;
  const double now = clforge__now();
  return now - p->t0 >= PAIRED_S || now >= p->t->problem_deadline;
}

/* Does the challenger beat the built-in default, as measured in interleaved
 * pairs (confirm.h)? The budget spent or a stop: the default stands. */
static int confirm_winner(tuner *t, const contender *def, const contender *challenger, char *why, size_t cap) {
  pairing p = {t, {def, challenger}, clforge__now()};
  clforge__confirm_source src = {pair_burst, pair_must_stop, pair_enough, &p};
  const uint64_t seed = (t->o->seed ? t->o->seed : 0x5eedu) ^ (0x9e3779b97f4a7c15u * (uint64_t)(t->pb->seq + 1));
  clforge__confirm_result r;
  clforge__confirm_run(&src, seed, &r);
  snprintf(why, cap, "%s: median %.3fx %s, lower bound %.3fx over %d pairs (kept above %.2fx)",
           r.accepted ? "confirmed" : def->family ? "heuristic kept" : "default kept", r.median,
           def->family ? def->family->name : "the default", r.lower, r.pairs, CLFORGE__CONFIRM_MIN_GAIN);
  clforge__log(CLFORGE_LOG_INFO, "tune %s %s %s %s: %s%s%s", t->pb->family->name, t->pb->cls->name, t->pb->dtypes,
               t->pb->layout, def->family ? "" : challenger->kind == RUN_PEER ? t->pb->op->peer : "the tuned values",
               def->family ? "" : " ", why);
  return r.accepted;
}

/* The event fields every event of the current problem has. */
static clforge_tune_event problem_event(const tuner *t, clforge_tune_event_kind kind, int index, int count) {
  const problem *pb = t->pb;
  const clforge__tune_op *op = pb->op;
  clforge_tune_event ev = {0};
  ev.kind = kind;
  ev.op = op->op, ev.family = pb->family->name, ev.shape_class = pb->cls->name, ev.dtypes = pb->dtypes;
  ev.layout = pb->layout;
  ev.ndims = op->ndims < 4 ? op->ndims : 4; /* the public event shows 4 */
  memcpy(ev.shape, pb->cls->shape, sizeof ev.shape);
  ev.problem = index, ev.problems = count;
  ev.rank = pb->rank;
  return ev;
}

/* The known entry for the current problem, if its values still fit (into
 * old; *entry the entry itself when entry is not NULL); NULL when none. */
static const int *find_old(const tuner *t, int *old, const clforge__tuning_entry **entry) {
  const problem *pb = t->pb;
  const clforge__family *f = pb->family;
  char why[256];
  const int *found = NULL;
  for (size_t i = 0; t->known && i < t->known->count; ++i) {
    const clforge__tuning_entry *e = &t->known->entries[i];
    if (clforge__tuning_same_device(e, &t->ctx->info) && !strcmp(e->family, f->name) &&
        !strcmp(e->dtypes, pb->dtypes) && !strcmp(e->layout, pb->layout) && !strcmp(e->shape_class, pb->cls->name) &&
        clforge__family_entry_values(f, e, &t->ctx->info, old, why, sizeof why) == 0) {
      found = old;
      if (entry) *entry = e;
    }
  }
  return found;
}

/* The values a plain call runs (tuning files hidden, no override): the
 * built-in default, or the generic one where the device rules it out. */
static clforge_status plain_values(tuner *t, int *values) {
  const problem *pb = t->pb;
  const clforge__tune_op *op = pb->op;
  return clforge__family_select(t->ctx, pb->family, op->variant(pb->dtypes, pb->layout, pb->cls->shape), NULL, values,
                                NULL);
}

/* The problem's class's saved clforge entry of family name, NULL if none. */
static const clforge__tuning_entry *class_entry(const tuner *t, const char *name) {
  const problem *pb = t->pb;
  const clforge__tuning_entry *found = NULL;
  for (size_t i = 0; i < t->known->count; ++i) {
    const clforge__tuning_entry *e = &t->known->entries[i];
    if (clforge__tuning_same_device(e, &t->ctx->info) && !strcmp(e->family, name) && !strcmp(e->dtypes, pb->dtypes) &&
        !strcmp(e->layout, pb->layout) && !strcmp(e->shape_class, pb->cls->name) && !strcmp(e->provider, "clforge"))
      found = e;
  }
  return found;
}

/* Calls leave the heuristic's family for a rival whose entry of the class
 * is faster than the heuristic's by CLFORGE__TUNED_MARGIN (src/ops/gemm.c,
 * conv.c). The two rates were measured at different moments, and on a
 * shared machine such rates moved calls to a slower family (docs/tuning.md,
 * "never slower"), so whichever of the two entries is saved second, the
 * switch must hold in interleaved pairs too: 1 when the rival (rf, rv)
 * beats the heuristic's (hf, hv) there. */
static int rival_confirmed(tuner *t, const clforge__family *hf, const int *hv, const clforge__family *rf,
                           const int *rv) {
  contender pair[2];
  memset(pair, 0, sizeof pair);
  pair[0].kind = pair[1].kind = RUN_CANDIDATE;
  pair[0].family = hf, pair[1].family = rf;
  memcpy(pair[0].values, hv, sizeof(int) * (size_t)hf->nparams);
  memcpy(pair[1].values, rv, sizeof(int) * (size_t)rf->nparams);
  char verdict[160];
  return confirm_winner(t, &pair[0], &pair[1], verdict, sizeof verdict);
}

/* A rival saved after the heuristic's entry: its rate s, unconfirmed, is
 * recorded as the heuristic's, so that calls keep the heuristic's family.
 * (An entry whose values the family refuses is not paired: calls ignore
 * it.) Returns the time to record. */
static double guard_rival(tuner *t, const int *values, double s) {
  const problem *pb = t->pb, *h = pb->heuristic;
  if (!h || h == pb) return s;
  const clforge__tuning_entry *he = class_entry(t, h->family->name);
  const double flops = pb->op->flops(pb->cls->shape);
  if (!he || he->gflops <= 0 || flops / s / 1e9 <= he->gflops * CLFORGE__TUNED_MARGIN) return s;
  int hv[CLFORGE_MAX_PARAMS];
  char why[256];
  if (clforge__family_entry_values(h->family, he, &t->ctx->info, hv, why, sizeof why) != 0 ||
      rival_confirmed(t, h->family, hv, pb->family, values))
    return s;
  return flops / (he->gflops * 1e9);
}

static clforge_status store(tuner *t, const clforge__tuning_entry *e);

/* The heuristic's entry (rate gflops, values) saved after rivals' entries
 * of its class: the fastest rival above it by the margin meets it in
 * pairs; unconfirmed, that rival's entry is saved again at the heuristic's
 * rate, and the next one is paired, until a rival is confirmed (calls take
 * it: it is the fastest left) or none is above the margin. */
static clforge_status guard_heuristic(tuner *t, const int *values, double gflops) {
  const problem *pb = t->pb;
  if (pb->heuristic != pb) return CLFORGE_SUCCESS;
  for (;;) {
    const clforge__tuning_entry *best = NULL;
    const clforge__family *bf = NULL;
    for (const clforge__tunable *f = clforge__tunables; f->family; ++f) {
      if (f->op != pb->op || f->family == pb->family) continue;
      const clforge__tuning_entry *e = class_entry(t, f->family->name);
      if (e && e->gflops > gflops * CLFORGE__TUNED_MARGIN && (!best || e->gflops > best->gflops)) best = e, bf = f->family;
    }
    int rv[CLFORGE_MAX_PARAMS];
    char why[256];
    if (!best || (clforge__family_entry_values(bf, best, &t->ctx->info, rv, why, sizeof why) == 0 &&
                  rival_confirmed(t, pb->family, values, bf, rv)))
      return CLFORGE_SUCCESS;
    clforge__tuning_entry lowered = *best;
    lowered.gflops = gflops;
    lowered.median_s = pb->op->flops(pb->cls->shape) / (gflops * 1e9);
    clforge_status st = store(t, &lowered);
    if (st != CLFORGE_SUCCESS) return st;
  }
}

/* The winner as an entry: into the known entries and, unless dry run, the
 * file (each problem's as soon as it is known: an interrupted run keeps what
 * it measured, and concurrent tuners merge under the file's lock). params
 * gets its values as text. */
static clforge_status record(tuner *t, const int *values, double s, const char *provider, char *params, size_t cap) {
  const problem *pb = t->pb;
  const clforge__family *f = pb->family;
  if (!strcmp(provider, "clforge")) s = guard_rival(t, values, s);
  clforge__family_format(f, values, params, cap);
  clforge__tuning_entry e;
  memset(&e, 0, sizeof e);
  clforge__tuning_stamp(&e, &t->ctx->info);
  snprintf(e.family, sizeof e.family, "%s", f->name);
  snprintf(e.dtypes, sizeof e.dtypes, "%s", pb->dtypes);
  snprintf(e.layout, sizeof e.layout, "%s", pb->layout);
  snprintf(e.shape_class, sizeof e.shape_class, "%s", pb->cls->name);
  e.ndims = pb->op->ndims;
  memcpy(e.shape, pb->cls->shape, sizeof e.shape);
  snprintf(e.provider, sizeof e.provider, "%s", provider);
  e.nparams = f->nparams;
  for (int p = 0; p < f->nparams; ++p) {
    snprintf(e.names[p], sizeof e.names[p], "%s", f->params[p].name);
    e.values[p] = values[p];
  }
  e.median_s = s;
  e.gflops = pb->op->flops(pb->cls->shape) / s / 1e9;
  clforge_status st = store(t, &e);
  if (st == CLFORGE_SUCCESS && !strcmp(provider, "clforge")) st = guard_heuristic(t, values, e.gflops);
  return st;
}

/* An entry into the known entries and, unless dry run, the file (merged
 * under its lock: concurrent tuners keep each other's). */
static clforge_status store(tuner *t, const clforge__tuning_entry *e) {
  if (clforge__tuning_put(t->known, e)) return clforge__fail(t->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune: no memory");
  if (t->o->dry_run) return CLFORGE_SUCCESS;
  clforge__tuning_db one = {(clforge__tuning_entry *)e, 1, 1};
  char why[600];
  int rc = clforge__tuning_save(t->o->file, &one, why, sizeof why);
  if (rc < 0) return clforge__fail(t->ctx, CLFORGE_IO_ERROR, "tune: %s", why);
  if (rc > 0) clforge__log(CLFORGE_LOG_WARN, "tune: %s", why);
  return CLFORGE_SUCCESS;
}

/* The breadth-first pass for one problem: the built-in default measured,
 * checked and saved, so that the op can compare the class's families with
 * what a call runs without the file (src/ops/conv.c, gemm.c). No search,
 * no peer. A problem the file already has an entry for (an earlier tune)
 * is measured already: it waits for its search. */
static clforge_status baseline(tuner *t, int index, int count) {
  problem *pb = t->pb;
  const clforge__tune_op *op = pb->op;
  clforge_context ctx = t->ctx;
  int plain[CLFORGE_MAX_PARAMS] = {0};
  const clforge__tuning_entry *known = NULL;
  if (find_old(t, plain, &known)) {
    pb->base_tuned = known->gflops;
    clforge__family_format(pb->family, plain, pb->base_params, sizeof pb->base_params);
    return CLFORGE_SUCCESS;
  }
  clforge_status st = op->setup(ctx, pb->dtypes, pb->layout, pb->cls->shape, &t->state);
  if (st != CLFORGE_SUCCESS) { /* e.g. buffers too big for a small device: its search will say so */
    clforge__log(CLFORGE_LOG_WARN, "tune %s %s %s %s: baseline skipped: %s", pb->family->name, pb->cls->name,
                 pb->dtypes, pb->layout, clforge_last_error(ctx));
    clforge__clear_error(ctx);
    return CLFORGE_SUCCESS;
  }
  const double s = measure_plain(t, RUN_DEFAULT, NULL, 0.0);
  char params[256] = "";
  if (s > 0) {
    st = plain_values(t, plain);
    if (st == CLFORGE_SUCCESS) st = record(t, plain, s, "clforge", params, sizeof params);
  }
  clforge_tune_event ev = problem_event(t, CLFORGE_TUNE_BASELINE, index, count);
  ev.default_gflops = ev.tuned_gflops = ev.best_gflops = s > 0 ? op->flops(pb->cls->shape) / s / 1e9 : 0.0;
  ev.params = params[0] ? params : NULL;
  ev.provider = "clforge";
  pb->base_default = pb->base_tuned = ev.default_gflops;
  snprintf(pb->base_params, sizeof pb->base_params, "%s", params);
  emit(t, &ev);
  op->teardown(t->state);
  t->state = NULL;
  clforge__program_cache_release(&ctx->programs);
  return st;
}

/* The problem's space and its op's buffers; *skip when there is nothing to
 * tune (no candidate fits, or the buffers cannot be made: the other
 * problems go on). The space is freed on every return but success. */
static clforge_status open_problem(tuner *t, int index, int count, clforge__search_space *space, int *skip) {
  const problem *pb = t->pb;
  const clforge__family *f = pb->family;
  const clforge__tune_op *op = pb->op;
  clforge_context ctx = t->ctx;
  clforge_tune_event ev = problem_event(t, CLFORGE_TUNE_PROBLEM_START, index, count);
  *skip = 0;
  clforge_status st = clforge__space_build(ctx, f, op, pb->cls->shape, t->o->space,
                                           clforge__half_level_allowed(t->o->compute_type), &t->spaces, space);
  if (st != CLFORGE_SUCCESS) return st;
  ev.total = space->count;
  t->ev = ev;
  t->evals = t->failures = 0;
  emit(t, &ev);
  if (space->count == 0) {
    clforge__log(CLFORGE_LOG_WARN, "tune %s %s: no candidate fits this device and shape", f->name, pb->cls->name);
    clforge__space_free(space);
    *skip = 1;
    return CLFORGE_SUCCESS;
  }
  st = op->setup(ctx, pb->dtypes, pb->layout, pb->cls->shape, &t->state);
  if (st != CLFORGE_SUCCESS) { /* e.g. buffers too big for a small device: the other problems go on */
    clforge__log(CLFORGE_LOG_WARN, "tune %s %s %s %s: skipped: %s", f->name, pb->cls->name, pb->dtypes, pb->layout,
                 clforge_last_error(ctx));
    clforge__space_free(space);
    *skip = 1;
  }
  return CLFORGE_SUCCESS;
}

/* The search over the space, from the known entry (into old, which t->old
 * points to) and the built-in default (into start), within the problem's
 * deadline less the time the side-by-side round needs. */
static void search_problem(tuner *t, clforge__search_space *space, double default_s, int *start, int *old) {
  const problem *pb = t->pb;
  const clforge__family *f = pb->family;
  const clforge__tune_op *op = pb->op;
  /* The search starts from the built-in default when it is in the space,
   * and leaves time for the side-by-side round. */
  clforge__family_device_default(f, &t->ctx->info, op->variant(pb->dtypes, pb->layout, pb->cls->shape), start);
  t->start = start;
  t->start_failed = 0;
  /* The known entry for this problem (the file's, or this run's baseline),
   * if it still fits, is measured first: a re-tune keeps it unless
   * something beats it now. The default's own values were measured as the
   * default (they need not be in the space). */
  int plain[CLFORGE_MAX_PARAMS];
  t->old = find_old(t, old, NULL);
  t->old_measured = 0;
  if (t->old && default_s > 0 && plain_values(t, plain) == CLFORGE_SUCCESS &&
      !memcmp(t->old, plain, sizeof(int) * (size_t)f->nparams))
    t->old_measured = 1;
  double slice = t->problem_deadline - clforge__now();
  t->search_deadline = t->problem_deadline - (slice > 10.0 ? 2.5 : 0.25 * slice);
  clforge__search_hooks hooks = {evaluate, search_should_stop, t};
  const int *seeds[2] = {t->old, start};
  clforge__search(space, t->o->strategy, seeds, 2, t->o->seed ? t->o->seed : 0x5eed, &hooks);
  t->start = NULL;
}

/* Side by side: the default, the search's best, the peer (c holds
 * TOP_CANDIDATES + 2). Returns how many. */
static int gather_contenders(const tuner *t, double default_s, double peer_s, const int *start, contender *c) {
  int nc = 0;
  memset(c, 0, sizeof *c * (TOP_CANDIDATES + 2));
  if (default_s > 0) c[nc].kind = RUN_DEFAULT, c[nc++].s = default_s;
  for (int i = 0; i < t->ntop && i < TOP_CANDIDATES; ++i) {
    /* The default's own values run as the default already: once is enough
     * (two samples of one kernel would only show the noise as a speed-up). */
    if (default_s > 0 && !memcmp(t->top[i].values, start, sizeof(int) * (size_t)t->pb->family->nparams)) continue;
    c[nc].kind = RUN_CANDIDATE;
    c[nc].s = t->top[i].s;
    memcpy(c[nc++].values, t->top[i].values, sizeof c[0].values);
  }
  if (peer_s > 0) c[nc].kind = RUN_PEER, c[nc++].s = peer_s;
  return nc;
}

/* The round's outcome: what is saved (win, NULL for nothing, with its
 * values), the default and the peer as measured, and why. */
typedef struct {
  const contender *win, *def, *peer;
  int peer_lost; /* CLBlast was measured (the table shows it) but did not win */
  char verdict[160];
  int win_values[CLFORGE_MAX_PARAMS];
} outcome;

static void choose_winner(tuner *t, const contender *c, int nc, outcome *w) {
  w->win = w->def = w->peer = NULL;
  w->peer_lost = 0;
  w->verdict[0] = '\0';
  for (int i = 0; i < nc; ++i) {
    if (c[i].s <= 0) continue;
    if (c[i].kind == RUN_DEFAULT) w->def = &c[i];
    if (c[i].kind == RUN_PEER) w->peer = &c[i];
    else if ((c[i].kind != RUN_DEFAULT || !t->start_failed) && (!w->win || c[i].s < w->win->s)) w->win = &c[i];
  }
  /* A winner other than the default replaces it only when interleaved
   * pairs confirm the gain (confirm.h): one median each, taken at
   * different moments on a shared machine, made tuned calls slower than
   * the default (docs/performance.md). Unconfirmed (or no budget left to confirm), the
   * default is saved. A default that failed or gave a wrong result cannot
   * stand; then the fastest wins as measured. */
  if (w->def && !t->start_failed) {
    const contender *challenger = w->peer && (!w->win || w->peer->s < w->win->s) ? w->peer : w->win;
    if (challenger && challenger != w->def && challenger->s < w->def->s &&
        confirm_winner(t, w->def, challenger, w->verdict, sizeof w->verdict)) {
      /* CLBlast confirmed: the entry's own values, for calls CLBlast cannot
       * do, are the default's (the candidates were not confirmed). */
      if (challenger == w->peer) w->win = w->def;
    } else {
      w->win = w->def;
      w->peer_lost = 1;
    }
  }
  /* The default won: the entry records what a plain call uses (e.g. a skinny
   * shape the default runs on the direct kernel, out of the search's reach). */
  if (w->win && w->win->kind == RUN_DEFAULT && plain_values(t, w->win_values) != CLFORGE_SUCCESS)
    w->win = NULL;
  else if (w->win && w->win->kind == RUN_CANDIDATE)
    memcpy(w->win_values, w->win->values, sizeof w->win_values);
  /* Nothing is saved from a run that measured neither a candidate nor the
   * default, or that never measured the entry it would replace (stopped
   * early, budget spent). A default measured (and checked) alone is saved:
   * its rate is what the op compares families by (conv's algorithms). */
  if ((t->evals == 0 && !(w->win && w->win->kind == RUN_DEFAULT)) || (t->old && !t->old_measured)) w->win = NULL;
}

/* The problem's closing event, and the winner's entry saved. */
static clforge_status report_problem(tuner *t, const outcome *w, double flops) {
  const problem *pb = t->pb;
  clforge_status st = CLFORGE_SUCCESS;
  const double win_s = w->win ? w->win->s : 0, peer_s = w->peer ? w->peer->s : 0;
  clforge_tune_event ev = t->ev;
  ev.kind = CLFORGE_TUNE_PROBLEM_DONE;
  ev.tried = (size_t)t->evals;
  ev.failures = t->failures;
  ev.default_gflops = w->def ? flops / w->def->s / 1e9 : 0;
  ev.tuned_gflops = win_s > 0 ? flops / win_s / 1e9 : 0;
  ev.clblast_gflops = peer_s > 0 ? flops / peer_s / 1e9 : 0;
  ev.best_gflops = ev.tuned_gflops;
  int peer_wins = !w->peer_lost && peer_s > 0 && (win_s == 0 || peer_s < win_s);
  ev.message = w->verdict[0] ? w->verdict : NULL;
  ev.provider = peer_wins ? pb->op->peer : "clforge";
  char params[256] = "";
  if (win_s > 0) {
    st = record(t, w->win_values, peer_wins ? peer_s : win_s, ev.provider, params, sizeof params);
    ev.params = params;
  } else {
    clforge__log(CLFORGE_LOG_WARN, "tune %s %s %s %s: no candidate passed; nothing saved", pb->family->name,
                 pb->cls->name, pb->dtypes, pb->layout);
  }
  emit(t, &ev);
  return st;
}

static clforge_status tune_problem(tuner *t, int index, int count) {
  const clforge__tune_op *op = t->pb->op;
  clforge_context ctx = t->ctx;
  clforge__search_space space;
  int skip;
  clforge_status st = open_problem(t, index, count, &space, &skip);
  if (st != CLFORGE_SUCCESS || skip) return st;
  t->shape = t->pb->cls->shape;
  t->ntop = 0;
  double flops = op->flops(t->pb->cls->shape);
  double default_s = measure_plain(t, RUN_DEFAULT, NULL, 0.0);
  t->default_failed = default_s <= 0;
  int start[CLFORGE_MAX_PARAMS], old[CLFORGE_MAX_PARAMS];
  search_problem(t, &space, default_s, start, old);

  /* The peer within the problem's share only, and cut short when it is 3x
   * slower than our best (CLBlast runs 2048^3 in seconds on PoCL: a short
   * budget would go to it). */
  double peer_s = 0;
  if (op->peer && !t->o->skip_peers && !stop_requested(t) && clforge__now() < t->problem_deadline)
    peer_s = measure_plain(t, RUN_PEER, NULL, t->ntop ? t->top[0].s : default_s);

  /* The default cannot win when its values gave a wrong result in the search. */
  contender c[TOP_CANDIDATES + 2];
  const int nc = gather_contenders(t, default_s, peer_s, start, c);
  if (!stop_requested(t)) confirm(t, c, nc); /* stopped: the first measurements stand, and the default (below) */
  outcome w;
  choose_winner(t, c, nc, &w);
  st = report_problem(t, &w, flops);
  op->teardown(t->state);
  t->state = NULL;
  clforge__space_free(&space);
  /* The candidates' programs are not kept: a long tune would leave hundreds
   * in the context (the on-disk cache still has them). */
  clforge__program_cache_release(&ctx->programs);
  return st;
}

/* The options checked, the budget's default applied and the tuning file
 * to write named (path holds the default file's name). */
static clforge_status check_options(clforge_context ctx, clforge_tune_options *o, char *path, size_t cap) {
  if (o->budget_s < 0 || isnan(o->budget_s) || o->max_evals < 0 ||
      (unsigned)o->strategy > (unsigned)CLFORGE_TUNE_ANNEAL)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune: budget_s (%g), max_evals (%d) or strategy (%d) is invalid",
                         o->budget_s, o->max_evals, (int)o->strategy);
  clforge_status rst =
      clforge__check_reserved_ptrs(ctx, "tune", "clforge_tune_options.reserved", o->reserved, CLFORGE_COUNT_OF(o->reserved));
  if (rst != CLFORGE_SUCCESS) return rst;
  if ((unsigned)o->compute_type > CLFORGE_COMPUTE_16F)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune: compute_type %d (0 or 32f: strict calls; 32f_fast_16f, 16f)",
                         (int)o->compute_type);
  if (clforge__half_level_allowed(o->compute_type) > 0 && !(ctx->info.caps & CLFORGE_CAP_FP16))
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                         "tune: compute type %s: %s has no cl_khr_fp16, so no f16 arithmetic to measure (its calls "
                         "of that compute type run f32 with the strict entries)",
                         clforge_compute_type_name(o->compute_type), ctx->info.name);
  if (o->budget_s == 0) o->budget_s = DEFAULT_BUDGET_S;
  size_t need;
  if (!o->dry_run && !o->file) {
    if (clforge__path(CLFORGE_PATH_TUNING_FILE, path, cap, &need) || !strcmp(path, "off"))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "tune: no tuning file to write (CLFORGE_TUNING_FILE is off or there is no home directory); "
                           "name one with options->file");
    o->file = path;
  }
  if (!o->dry_run && (!*o->file || !strcmp(o->file, "off")))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune: no tuning file to write (\"%s\"); name one, or dry-run",
                         o->file);
  return CLFORGE_SUCCESS;
}

/* What tuning hides in the context, to be put back after. */
typedef struct {
  clforge__tuning_view view;
  char *override;
  int validate;
} hidden_state;

/* Measure against the built-in defaults: hide the tuning files' entries
 * (and the app's override) while tuning, and restore them after. */
static void hide_tuning(clforge_context ctx, hidden_state *h) {
  h->view = ctx->tuning;
  h->override = ctx->params_override;
  memset(&ctx->tuning, 0, sizeof ctx->tuning);
  ctx->tuning.loaded = 1;
  ctx->params_override = NULL;
  ctx->tuning_active = 1;
  h->validate = ctx->validate;
  ctx->validate = 0; /* the tuner checks each candidate itself */
}

static void restore_tuning(clforge_context ctx, const hidden_state *h) {
  ctx->tuning_active = 0;
  clforge__tuning_view_release(&ctx->tuning);
  ctx->tuning = h->view;
  ctx->params_override = h->override;
  ctx->validate = h->validate;
}

/* The baseline pass over first (breadth first: each class's heuristic
 * family and its rival), then the searches, the rest of the budget split
 * by weight. */
static clforge_status run_passes(tuner *t, problem *problems, int count, problem **first, int nfirst) {
  clforge_status st = CLFORGE_SUCCESS;
  for (int i = 0; i < nfirst && st == CLFORGE_SUCCESS && !stop_requested(t) && clforge__now() < t->deadline; ++i) {
    t->pb = first[i];
    st = baseline(t, i, nfirst);
  }
  double weight_left = 0;
  for (int i = 0; i < count; ++i) weight_left += problems[i].weight;
  for (int i = 0; i < count && st == CLFORGE_SUCCESS && !stop_requested(t); ++i) {
    double now = clforge__now();
    if (now >= t->deadline) break;
    t->pb = &problems[i];
    problems[i].searched = 1;
    t->problem_deadline = now + (t->deadline - now) * problems[i].weight / weight_left;
    weight_left -= problems[i].weight;
    st = tune_problem(t, i, count);
  }
  return st;
}

/* What the budget (or a stop) left out: calls of those classes use the
 * baseline's entries where there are some, else the defaults. */
static void report_not_reached(tuner *t, problem *problems, int count) {
  int left = 0;
  for (int i = 0; i < count; ++i) {
    if (problems[i].searched) continue;
    ++left;
    t->pb = &problems[i];
    clforge_tune_event ev = problem_event(t, CLFORGE_TUNE_NOT_REACHED, i, count);
    ev.default_gflops = problems[i].base_default, ev.tuned_gflops = problems[i].base_tuned;
    ev.best_gflops = ev.tuned_gflops;
    ev.params = problems[i].base_params[0] ? problems[i].base_params : NULL;
    ev.provider = "clforge";
    emit(t, &ev);
  }
  if (left)
    clforge__log(CLFORGE_LOG_WARN, "tune: %s; %d of %d problems not searched", stop_requested(t) ? "stopped" : "budget spent",
                 left, count);
}

clforge_status clforge_tune(clforge_context ctx, const clforge_tune_options *options) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "tune: context is NULL");
  clforge__clear_error(ctx);
  clforge_tune_options o = options ? *options : (clforge_tune_options){0};
  char path[4096];
  clforge_status st = check_options(ctx, &o, path, sizeof path);
  if (st != CLFORGE_SUCCESS) return st;
  problem *problems = NULL;
  int count = 0;
  st = clforge__space_validate(ctx, o.space);
  if (st == CLFORGE_SUCCESS) st = make_problems(ctx, &o, &problems, &count);
  if (st != CLFORGE_SUCCESS) return st;
  problem **first = malloc((size_t)count * sizeof *first); /* the baseline pass, in its order */
  if (!first) {
    free(problems);
    return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune: no memory");
  }
  int nfirst = 0;
  for (int i = 0; i < count; ++i)
    if (problems[i].rank <= 1) first[nfirst++] = &problems[i];
  qsort(first, (size_t)nfirst, sizeof *first, by_baseline);
  clforge__tuning_db known = {NULL, 0, 0};
  char lwhy[512];
  if (!o.dry_run) clforge__tuning_load_file(o.file, &known, lwhy, sizeof lwhy); /* a damaged file: nothing to keep */

  hidden_state hidden;
  hide_tuning(ctx, &hidden);
  tuner t = {0};
  t.ctx = ctx;
  t.o = &o;
  t.t_start = clforge__now();
  t.deadline = t.t_start + o.budget_s;
  t.known = &known;
  t.fault_tests = clforge__test_fault_armed(ctx, "tune");
  if (t.fault_tests) ctx->test_fault[0] = '\0';
  st = run_passes(&t, problems, count, first, nfirst);
  if (st == CLFORGE_SUCCESS) report_not_reached(&t, problems, count);
  clforge__space_cache_free(&t.spaces);
  clforge__tuning_free(&known);
  free(first);
  free(problems);
  restore_tuning(ctx, &hidden);
  /* This context sees the new entries from its next call. */
  if (st == CLFORGE_SUCCESS && !o.dry_run) clforge__tuning_view_release(&ctx->tuning);
  return st;
}
