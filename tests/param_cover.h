/* The tests' parameter sweeps: a fixed-seed sample of a kernel family's
 * allowed parameter sets that holds every candidate value of every
 * parameter at least once (each set is a program build, about a second
 * plus a compile per kernel on PoCL, so the sample is kept to the fewest
 * sets the greedy choice finds; each set then runs several shapes, which
 * cost nothing to compile). */
#ifndef CLFORGE_TESTS_PARAM_COVER_H
#define CLFORGE_TESTS_PARAM_COVER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/families/family.h"

typedef struct {
  int v[CLFORGE_MAX_PARAMS];
} param_set;

typedef struct {
  const clforge__family *f;
  unsigned char *all; /* every allowed set: nparams candidate indices each */
  size_t n, cap;
} cover_list;

static inline int cover_index(const clforge__family *f, int p, int value) {
  for (int c = 0; c < f->params[p].count; ++c)
    if (f->params[p].values[c] == value) return c;
  return 0; /* not reached: enumerate visits candidates only */
}

static inline int cover_collect(const int *v, void *user) {
  cover_list *l = user;
  const size_t np = (size_t)l->f->nparams;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 1024;
    unsigned char *grown = realloc(l->all, cap * np);
    if (!grown) return 1;
    l->all = grown, l->cap = cap;
  }
  for (size_t p = 0; p < np; ++p) l->all[l->n * np + p] = (unsigned char)cover_index(l->f, (int)p, v[p]);
  l->n++;
  return 0;
}

/* Which candidate values some allowed set holds. */
static inline void cover_held(const cover_list *l, int held[CLFORGE_MAX_PARAMS][CLFORGE_MAX_CANDIDATES]) {
  const size_t np = (size_t)l->f->nparams;
  memset(held, 0, sizeof(int) * CLFORGE_MAX_PARAMS * CLFORGE_MAX_CANDIDATES);
  for (size_t i = 0; i < l->n; ++i)
    for (size_t p = 0; p < np; ++p) held[p][l->all[i * np + p]] = 1;
}

/* Up to cap sets into out, the count returned: first one set for each of
 * the nreq partial assignments in req (nreq x nparams values, -1 = free),
 * then sets until every value that some allowed set holds is covered, and
 * at least min_sets in all. The ngiven sets in given (defaults that other
 * cases already run) count as covered. Each pick is the allowed set, in a
 * fixed-seed shuffled order, that covers the most values not covered yet,
 * ties going to the cheaper set when cost is given (a build-time estimate). */
static inline size_t cover_sample_given(const clforge__family *f, const clforge_device_info *dev, unsigned long long seed,
                                 const int *req, size_t nreq, size_t min_sets, const param_set *given, size_t ngiven,
                                 int (*cost)(const int *v), param_set *out, size_t cap) {
  cover_list l = {f, NULL, 0, 0};
  clforge__family_enumerate(f, dev, 0, cover_collect, &l);
  const size_t np = (size_t)f->nparams;
  size_t *order = malloc((l.n ? l.n : 1) * sizeof *order);
  for (size_t i = 0; i < l.n; ++i) order[i] = i;
  for (size_t i = l.n; i > 1; --i) { /* Fisher-Yates, 64-bit LCG */
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const size_t j = (size_t)((seed >> 33) % i), t = order[i - 1];
    order[i - 1] = order[j], order[j] = t;
  }
  int covered[CLFORGE_MAX_PARAMS][CLFORGE_MAX_CANDIDATES] = {{0}}, held[CLFORGE_MAX_PARAMS][CLFORGE_MAX_CANDIDATES];
  cover_held(&l, held);
  for (size_t g = 0; g < ngiven; ++g)
    for (size_t p = 0; p < np; ++p)
      for (int c = 0; c < f->params[p].count; ++c) covered[p][c] |= f->params[p].values[c] == given[g].v[p];
  int want[CLFORGE_MAX_PARAMS];
  size_t n = 0;
  while (n < cap) {
    size_t missing = 0;
    for (size_t p = 0; p < np; ++p)
      for (int c = 0; c < f->params[p].count; ++c) missing += held[p][c] && !covered[p][c];
    if (n >= nreq && !missing && n >= min_sets) break;
    for (size_t p = 0; p < np; ++p)
      want[p] = n < nreq && req[n * np + p] >= 0 ? cover_index(f, (int)p, req[n * np + p]) : -1;
    size_t best = l.n;
    int best_gain = -1, best_cost = 0;
    for (size_t o = 0; o < l.n; ++o) {
      const unsigned char *v = l.all + order[o] * np;
      int gain = 0, fits = 1;
      for (size_t p = 0; p < np && fits; ++p) {
        fits = want[p] < 0 || want[p] == v[p];
        gain += !covered[p][v[p]];
      }
      int vals[CLFORGE_MAX_PARAMS], c = 0;
      if (fits && cost) {
        for (size_t p = 0; p < np; ++p) vals[p] = f->params[p].values[v[p]];
        c = cost(vals);
      }
      if (!fits || gain < best_gain || (gain == best_gain && (!cost || c >= best_cost))) continue;
      int taken = 0; /* never the same set twice */
      for (size_t s = 0; s < n && !taken; ++s) {
        taken = 1;
        for (size_t p = 0; p < np && taken; ++p) taken = out[s].v[p] == f->params[p].values[v[p]];
      }
      if (!taken) best = order[o], best_gain = gain, best_cost = c;
    }
    if (best == l.n) break; /* nothing fits: the caller sees the count */
    memset(&out[n], 0, sizeof out[n]);
    for (size_t p = 0; p < np; ++p) {
      const int c = l.all[best * np + p];
      out[n].v[p] = f->params[p].values[c];
      covered[p][c] = 1;
    }
    ++n;
  }
  free(order);
  free(l.all);
  return n;
}

static inline size_t cover_sample(const clforge__family *f, const clforge_device_info *dev, unsigned long long seed,
                                  const int *req, size_t nreq, size_t min_sets, param_set *out, size_t cap) {
  return cover_sample_given(f, dev, seed, req, nreq, min_sets, NULL, 0, NULL, out, cap);
}

/* 1 when the sets hold every value of every parameter that some allowed
 * set holds (what cover_sample promises; the tests check it), else 0 with
 * the values missed printed. */
static inline int cover_complete(const clforge__family *f, const clforge_device_info *dev, const param_set *sets, size_t n) {
  cover_list l = {f, NULL, 0, 0};
  clforge__family_enumerate(f, dev, 0, cover_collect, &l);
  int held[CLFORGE_MAX_PARAMS][CLFORGE_MAX_CANDIDATES], ok = 1;
  cover_held(&l, held);
  free(l.all);
  for (int p = 0; p < f->nparams; ++p)
    for (int c = 0; c < f->params[p].count; ++c) {
      int hit = 0;
      for (size_t s = 0; s < n && !hit; ++s) hit = sets[s].v[p] == f->params[p].values[c];
      if (held[p][c] && !hit) {
        printf("%s: %s=%d is in no sampled set\n", f->name, f->params[p].name, f->params[p].values[c]);
        ok = 0;
      }
    }
  return ok;
}

/* "family:NAME=V,..." of a set, for CLFORGE_PARAMS and messages; appended
 * to buf (so that two families' clauses can share one spec). */
static inline void cover_spec(const clforge__family *f, const param_set *s, char *buf, size_t cap) {
  size_t used = strlen(buf);
  used += (size_t)snprintf(buf + used, cap - used, "%s%s:", used ? ";" : "", f->name);
  for (int p = 0; p < f->nparams && used < cap; ++p)
    used += (size_t)snprintf(buf + used, cap - used, "%s%s=%d", p ? "," : "", f->params[p].name, s->v[p]);
}

#endif
