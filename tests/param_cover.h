/* A sample of a kernel family's parameter space for the tests: few sets
 * that together take every candidate value of every parameter at least
 * once (each set is a kernel build: seconds on PoCL, so the sample is what
 * costs, and the shapes each set then runs are free). Greedy and fixed:
 * each pick is the allowed set that takes the most values not yet taken,
 * ties going to the cheaper set (cost()), then to a fixed-seed order. */
#ifndef CLFORGE_TESTS_PARAM_COVER_H
#define CLFORGE_TESTS_PARAM_COVER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/kernels/family.h"
#include "test_util.h"

enum { PARAM_COVER_MAX = 24 };

typedef struct {
  const clforge__family *f;
  int *all; /* every allowed set, nparams values each */
  size_t n, cap;
} param_cover_space_;

static int param_cover_collect_(const int *v, void *user) {
  param_cover_space_ *s = user;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->all = realloc(s->all, s->cap * (size_t)s->f->nparams * sizeof *s->all);
  }
  memcpy(s->all + s->n++ * (size_t)s->f->nparams, v, (size_t)s->f->nparams * sizeof *v);
  return 0;
}

static int param_cover_index_(const clforge__param *p, int value) {
  for (int i = 0; i < p->count; ++i)
    if (p->values[i] == value) return i;
  return -1;
}

/* Fill out[] (at most cap sets) so that, with the `ngiven` sets in given
 * (the defaults other cases already run: their values count as taken),
 * every value allowed on dev is taken. Returns the number of sets; their
 * count is also the fewest that can cover the parameter with the most
 * values not given. cost may be NULL. */
static int param_cover(const clforge__family *f, const clforge_device_info *dev, const int (*given)[CLFORGE_MAX_PARAMS],
                       int ngiven, int (*cost)(const int *v), unsigned seed, int (*out)[CLFORGE_MAX_PARAMS], int cap) {
  param_cover_space_ s = {f, NULL, 0, 0};
  clforge__family_enumerate(f, dev, param_cover_collect_, &s);
  const int np = f->nparams;
  unsigned char taken[CLFORGE_MAX_PARAMS][CLFORGE_MAX_CANDIDATES] = {{0}}, exists[CLFORGE_MAX_PARAMS][CLFORGE_MAX_CANDIDATES] = {{0}};
  for (size_t i = 0; i < s.n; ++i)
    for (int p = 0; p < np; ++p) exists[p][param_cover_index_(&f->params[p], s.all[i * (size_t)np + p])] = 1;
  for (int g = 0; g < ngiven; ++g)
    for (int p = 0; p < np; ++p) {
      const int vi = param_cover_index_(&f->params[p], given[g][p]);
      if (vi >= 0) taken[p][vi] = 1;
    }
  /* A fixed-seed order of the sets, for the ties. */
  size_t *order = malloc((s.n ? s.n : 1) * sizeof *order);
  for (size_t i = 0; i < s.n; ++i) order[i] = i;
  for (size_t i = s.n; i > 1; --i) {
    const size_t j = tu_rand(&seed) % i, t = order[i - 1];
    order[i - 1] = order[j], order[j] = t;
  }
  int n = 0;
  while (n < cap) {
    long best = -1;
    int best_gain = 0, best_cost = 0;
    for (size_t oi = 0; oi < s.n; ++oi) {
      const int *v = s.all + order[oi] * (size_t)np;
      int gain = 0;
      for (int p = 0; p < np; ++p) gain += !taken[p][param_cover_index_(&f->params[p], v[p])];
      const int c = cost ? cost(v) : 0;
      if (gain > best_gain || (gain == best_gain && gain > 0 && c < best_cost))
        best = (long)order[oi], best_gain = gain, best_cost = c;
    }
    if (best < 0) break; /* every value taken */
    memcpy(out[n], s.all + (size_t)best * (size_t)np, (size_t)np * sizeof(int));
    for (int p = 0; p < np; ++p) taken[p][param_cover_index_(&f->params[p], out[n][p])] = 1;
    ++n;
  }
  for (int p = 0; p < np; ++p)
    for (int i = 0; i < f->params[p].count; ++i)
      CHECK(!exists[p][i] || taken[p][i], "%s: %s=%d in no sampled set", f->name, f->params[p].name,
            f->params[p].values[i]);
  free(order);
  free(s.all);
  return n;
}

/* "family:NAME=V,..." for clforge_context_set_params. */
static void param_cover_spec(const clforge__family *f, const int *v, char *buf, size_t cap) {
  size_t used = (size_t)snprintf(buf, cap, "%s:", f->name);
  for (int p = 0; p < f->nparams && used < cap; ++p)
    used += (size_t)snprintf(buf + used, cap - used, "%s%s=%d", p ? "," : "", f->params[p].name, v[p]);
}

#endif
