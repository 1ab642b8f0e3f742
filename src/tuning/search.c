/* Search strategies over a family's parameter space (see search.h). */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"

/* At most this many candidates (each a full build and run) are worth an
 * exhaustive sweep when the strategy is left to the tuner. */
#define AUTO_EXHAUSTIVE_MAX 64

typedef struct {
  const clforge__family *f;
  const clforge__tune_op *op;
  const size_t *shape;
  clforge__search_space *s;
  size_t cap;
  int oom, unsorted;
  unsigned allowed[CLFORGE_MAX_PARAMS]; /* bit c: candidate c of the parameter may be used */
} build_ctx;

/* "fam:NAME=v|v,NAME=v;fam2:..." -> allowed bits for f; -1 with why on a
 * name or value that f does not have. */
static int parse_restriction(const clforge__family *f, const char *spec, unsigned *allowed, char *why, size_t cap) {
  for (int p = 0; p < f->nparams; ++p) allowed[p] = ~0u;
  size_t flen = strlen(f->name);
  for (const char *e = spec; e && *e;) {
    while (*e == ';' || *e == ' ') ++e;
    const char *end = strchr(e, ';');
    if (!end) end = e + strlen(e);
    if ((size_t)(end - e) > flen && !strncmp(e, f->name, flen) && e[flen] == ':') {
      for (const char *q = e + flen + 1; q < end;) {
        size_t nlen = strcspn(q, "=,;");
        int p = 0;
        while (p < f->nparams && (strlen(f->params[p].name) != nlen || strncmp(q, f->params[p].name, nlen))) ++p;
        if (p == f->nparams || q[nlen] != '=') {
          snprintf(why, cap, "tune space: %s has no parameter \"%.*s\"", f->name, (int)nlen, q);
          return -1;
        }
        allowed[p] = 0;
        q += nlen + 1;
        if (q >= end || *q == ',') {
          snprintf(why, cap, "tune space: %s= needs values", f->params[p].name);
          return -1;
        }
        while (q < end && *q != ',') {
          char *num_end;
          long v = strtol(q, &num_end, 10);
          int c = 0;
          while (c < f->params[p].count && f->params[p].values[c] != v) ++c;
          if (num_end == q || c == f->params[p].count) {
            snprintf(why, cap, "tune space: %.*s is not a candidate of %s", (int)strcspn(q, "|,;"), q,
                     f->params[p].name);
            return -1;
          }
          allowed[p] |= 1u << c;
          q = num_end + (*num_end == '|');
        }
        q += q < end;
      }
    }
    e = *end ? end + 1 : end;
  }
  return 0;
}

/* Mixed-radix code of a value set: the candidate index of each parameter. */
static long code_of(const clforge__family *f, const int *values) {
  long code = 0;
  for (int p = f->nparams - 1; p >= 0; --p) {
    int idx = -1;
    for (int c = 0; c < f->params[p].count; ++c)
      if (f->params[p].values[c] == values[p]) idx = c;
    if (idx < 0) return -1;
    code = code * f->params[p].count + idx;
  }
  return code;
}

static void decode(const clforge__family *f, unsigned code, int *values) {
  for (int p = 0; p < f->nparams; ++p) {
    values[p] = f->params[p].values[code % (unsigned)f->params[p].count];
    code /= (unsigned)f->params[p].count;
  }
}

/* The candidate with that code (binary search: codes ascend), or -1. */
static long index_of(const clforge__search_space *s, long code) {
  size_t lo = 0, hi = s->count;
  while (code >= 0 && lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (s->codes[mid] == (unsigned long)code) return (long)mid;
    if (s->codes[mid] < (unsigned long)code) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

static int add_candidate(const int *values, void *user) {
  build_ctx *b = user;
  unsigned long code = 0;
  for (int p = b->f->nparams - 1; p >= 0; --p) {
    int c = 0;
    while (b->f->params[p].values[c] != values[p]) ++c;
    if (!(b->allowed[p] >> c & 1u)) return 0;
    code = code * (unsigned long)b->f->params[p].count + (unsigned long)c;
  }
  if (!b->op->applicable(b->f, values, b->shape)) return 0;
  clforge__search_space *s = b->s;
  if (s->count && code <= s->codes[s->count - 1]) return b->unsorted = 1; /* index_of's binary search needs it */
  if (s->count == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    unsigned *c = realloc(s->codes, cap * sizeof *c);
    if (!c) return b->oom = 1; /* stops the walk; caught below */
    s->codes = c;
    b->cap = cap;
  }
  s->codes[s->count++] = (unsigned)code;
  return 0;
}

/* The enumeration into a cache entry: every allowed set's code. */
static int cache_code(const int *values, void *user) {
  clforge__space_codes *c = user;
  const long code = code_of(c->f, values); /* >= 0: values are candidates */
  if (c->count == c->cap) {
    const size_t cap = c->cap ? 2 * c->cap : 256;
    unsigned *g = realloc(c->codes, cap * sizeof *g);
    if (!g) return 1; /* stops the walk; the count tells */
    c->codes = g, c->cap = cap;
  }
  c->codes[c->count++] = (unsigned)code;
  return 0;
}

void clforge__space_cache_free(clforge__space_cache *c) {
  for (int i = 0; i < CLFORGE__SPACE_CACHE_FAMILIES; ++i) free(c->e[i].codes);
  memset(c, 0, sizeof *c);
}

clforge_status clforge__space_validate(clforge_context ctx, const char *spec) {
  unsigned allowed[CLFORGE_MAX_PARAMS];
  char why[256];
  int len;
  const char *bad = clforge__spec_unknown_family(spec, clforge__tunable_families, &len);
  if (bad) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune space \"%.*s\": no tunable kernel family", len, bad);
  for (const clforge__family *const *f = clforge__tunable_families; *f; ++f)
    if (parse_restriction(*f, spec, allowed, why, sizeof why))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s", why);
  return CLFORGE_SUCCESS;
}

clforge_status clforge__space_build(clforge_context ctx, const clforge__family *f, const clforge__tune_op *op,
                                    const size_t *shape, const char *restrict_spec, int precision_max,
                                    clforge__space_cache *cache, clforge__search_space *s) {
  memset(s, 0, sizeof *s);
  build_ctx b = {f, op, shape, s, 0, 0, 0, {0}};
  char why[256];
  if (parse_restriction(f, restrict_spec, b.allowed, why, sizeof why))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s", why);
  s->f = f;
  unsigned long long ncodes = 1;
  for (int p = 0; p < f->nparams; ++p) {
    ncodes *= (unsigned long long)f->params[p].count;
    if (ncodes > 0xffffffffull) /* codes are unsigned ints; descriptors stay far below */
      return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "tune: family %s has more than 2^32 combinations", f->name);
  }
  int slot = -1; /* f's cache entry: found, or the first free one */
  for (int i = 0; cache && i < CLFORGE__SPACE_CACHE_FAMILIES && slot < 0; ++i)
    if (cache->e[i].f == f || !cache->e[i].f) slot = i;
  if (slot >= 0 && !cache->e[slot].f) { /* walk the combinations once, keep the allowed */
    clforge__space_codes c = {f, NULL, 0, 0};
    const size_t n = clforge__family_enumerate(f, &ctx->info, precision_max, cache_code, &c);
    if (n != c.count) {
      free(c.codes);
      return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune: no memory for the search space");
    }
    cache->e[slot] = c;
  }
  if (slot >= 0) {
    int v[CLFORGE_MAX_PARAMS];
    for (size_t i = 0; i < cache->e[slot].count && !b.oom && !b.unsorted; ++i) {
      decode(f, cache->e[slot].codes[i], v);
      add_candidate(v, &b);
    }
  } else {
    clforge__family_enumerate(f, &ctx->info, precision_max, add_candidate, &b);
  }
  if (b.unsorted) {
    clforge__space_free(s);
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "tune: %s's enumeration is not in code order", f->name);
  }
  s->visited = calloc(s->count ? s->count : 1, 1);
  if (!s->visited || b.oom) {
    clforge__space_free(s);
    return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune: no memory for the search space");
  }
  return CLFORGE_SUCCESS;
}

void clforge__space_free(clforge__search_space *s) {
  free(s->codes);
  free(s->visited);
  memset(s, 0, sizeof *s);
}

typedef struct {
  clforge__search_space *s;
  const clforge__search_hooks *h;
  unsigned rng;
  int evals;
  size_t unvisited;
  long best;        /* candidate index, -1 = none */
  double best_t;
  int values[CLFORGE_MAX_PARAMS]; /* values_at's */
} walker;

static unsigned next_rand(walker *w) { /* xorshift32: reproducible for a seed */
  w->rng ^= w->rng << 13;
  w->rng ^= w->rng >> 17;
  w->rng ^= w->rng << 5;
  return w->rng;
}

/* Candidate i's values, into the walker's buffer (valid until the next call). */
static const int *values_at(walker *w, long i) {
  decode(w->s->f, w->s->codes[i], w->values);
  return w->values;
}

static int done(walker *w) { return w->unvisited == 0 || w->h->should_stop(w->evals, w->h->user); }

/* Evaluate candidate i (not yet visited); returns its time or < 0. */
static double visit(walker *w, long i) {
  w->s->visited[i] = 1;
  --w->unvisited;
  ++w->evals;
  double t = w->h->evaluate(values_at(w, i), w->h->user);
  if (t > 0 && (w->best < 0 || t < w->best_t)) w->best = i, w->best_t = t;
  return t;
}

static long random_unvisited(walker *w) {
  if (w->unvisited == 0) return -1;
  for (int tries = 0; tries < 64; ++tries) {
    long i = (long)(next_rand(w) % w->s->count);
    if (!w->s->visited[i]) return i;
  }
  long start = (long)(next_rand(w) % w->s->count); /* dense visits: scan */
  for (size_t k = 0; k < w->s->count; ++k) {
    long i = (long)((start + (long)k) % (long)w->s->count);
    if (!w->s->visited[i]) return i;
  }
  return -1;
}

/* The candidate that differs from `from` in parameter p by `step` candidate
 * positions, or -1 when there is none in the space. */
static long neighbour(walker *w, long from, int p, int step) {
  const clforge__family *f = w->s->f;
  int v[CLFORGE_MAX_PARAMS];
  memcpy(v, values_at(w, from), sizeof(int) * (size_t)f->nparams);
  int idx = -1;
  for (int c = 0; c < f->params[p].count; ++c)
    if (f->params[p].values[c] == v[p]) idx = c;
  idx += step;
  if (idx < 0 || idx >= f->params[p].count) return -1;
  v[p] = f->params[p].values[idx];
  return index_of(w->s, code_of(f, v));
}

/* Hill climbing from the best: try its unvisited neighbours (one parameter
 * one or two positions away); move on each improvement; stop when none is
 * left to try. */
static void local_search(walker *w) {
  const int steps[4] = {-1, 1, -2, 2};
  int improved = 1;
  while (improved && w->best >= 0 && !done(w)) {
    improved = 0;
    long from = w->best;
    for (int si = 0; si < 4 && !improved && !done(w); ++si)
      for (int p = 0; p < w->s->f->nparams && !improved && !done(w); ++p) {
        long n = neighbour(w, from, p, steps[si]);
        if (n >= 0 && !w->s->visited[n]) {
          visit(w, n);
          improved = w->best != from;
        }
      }
  }
}

static void anneal(walker *w, long cur, double cur_t) {
  const double t0 = 0.3, t_min = 0.005; /* temperature in log(time): 0.3 accepts ~35% slower early */
  double temp = t0;
  while (!done(w)) {
    long n = -1;
    for (int tries = 0; tries < 32 && n < 0; ++tries) {
      int p = (int)(next_rand(w) % (unsigned)w->s->f->nparams);
      int step = (next_rand(w) & 1) ? 1 : -1;
      long c = cur >= 0 ? neighbour(w, cur, p, step) : -1;
      if (c >= 0 && !w->s->visited[c]) n = c;
    }
    if (n < 0) n = random_unvisited(w); /* stuck: jump */
    if (n < 0) return;
    double t = visit(w, n);
    if (t > 0) {
      double u = (double)(next_rand(w) % 1000000u) / 1e6;
      if (cur_t <= 0 || t < cur_t || u < exp(-(log(t) - log(cur_t)) / temp)) cur = n, cur_t = t;
    }
    temp = temp * 0.97 > t_min ? temp * 0.97 : t_min;
  }
}

void clforge__search(clforge__search_space *s, clforge_tune_strategy strategy, const int *const *seeds, int nseeds,
                     unsigned seed, const clforge__search_hooks *h) {
  walker w = {s, h, seed ? seed : 1u, 0, s->count, -1, 0.0, {0}};
  if (s->count == 0) return;
  long first = -1;
  double first_t = -1;
  for (int i = 0; i < nseeds && !done(&w); ++i) {
    long idx = seeds[i] ? index_of(s, code_of(s->f, seeds[i])) : -1;
    if (idx < 0 || s->visited[idx]) continue;
    double t = visit(&w, idx);
    if (first < 0 || (t > 0 && (first_t <= 0 || t < first_t))) first = idx, first_t = t;
  }
  if (strategy == CLFORGE_TUNE_AUTO)
    strategy = s->count <= AUTO_EXHAUSTIVE_MAX ? CLFORGE_TUNE_EXHAUSTIVE : CLFORGE_TUNE_RANDOM;
  switch (strategy) {
    case CLFORGE_TUNE_EXHAUSTIVE:
      for (size_t i = 0; i < s->count && !done(&w); ++i)
        if (!s->visited[i]) visit(&w, (long)i);
      break;
    case CLFORGE_TUNE_ANNEAL:
      anneal(&w, first >= 0 && first_t > 0 ? first : -1, first_t);
      break;
    default: /* random + local search: climb from the start, then from random restarts */
      local_search(&w);
      while (!done(&w)) {
        for (int r = 0; r < 8 && !done(&w); ++r) {
          long i = random_unvisited(&w);
          if (i < 0) return;
          visit(&w, i);
        }
        local_search(&w);
      }
      break;
  }
}
