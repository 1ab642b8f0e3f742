/* The tuner's search: a family's space on one device and shape, and the
 * strategies that walk it (exhaustive, random + local search, annealing). */
#ifndef CLFORGE_SRC_TUNING_SEARCH_H
#define CLFORGE_SRC_TUNING_SEARCH_H

#include <stddef.h>

#include "tune_op.h"

typedef struct clforge__search_space {
  const clforge__family *f;
  size_t count;            /* candidates that pass the family's and the op's checks */
  /* Each candidate as the mixed-radix code of its values' candidate indices
   * (the first parameter the fastest digit), ascending: the enumeration's
   * order. 4 bytes a candidate, not a value array and a code-indexed table:
   * conv_implicit_gemm has 12.7M candidates in 72.6M combinations (900 MB
   * that way, 51 MB this). */
  unsigned *codes;
  unsigned char *visited;  /* per candidate */
} clforge__search_space;

enum { CLFORGE__SPACE_CACHE_FAMILIES = 32 }; /* more than the tunable families */

/* A family's allowed parameter sets on one device, as ascending codes: one
 * tune walks the family's combinations once for all its problems
 * (conv_implicit_gemm's 72.6M take seconds), not once per class. */
typedef struct clforge__space_codes {
  const clforge__family *f; /* NULL: unused */
  unsigned *codes;
  size_t count, cap;
} clforge__space_codes;
typedef struct clforge__space_cache {
  clforge__space_codes e[CLFORGE__SPACE_CACHE_FAMILIES];
} clforge__space_cache;
void clforge__space_cache_free(clforge__space_cache *c);

/* The candidates of f that pass its checks on ctx's device and the op's
 * applicability to shape, restricted by `restrict_spec` (may be NULL; the
 * syntax of clforge_tune_options.space), precision parameters up to
 * precision_max (clforge__family_enumerate). cache (may be NULL) keeps the
 * family's allowed sets for the next build of the same family on the same
 * context (one precision_max per run). */
clforge_status clforge__space_build(clforge_context ctx, const clforge__family *f, const clforge__tune_op *op,
                                    const size_t *shape, const char *restrict_spec, int precision_max,
                                    clforge__space_cache *cache, clforge__search_space *s);
void clforge__space_free(clforge__search_space *s);

typedef struct clforge__search_hooks {
  /* Measure one candidate: its time in seconds, or < 0 when discarded. */
  double (*evaluate)(const int *values, void *user);
  /* Nonzero when the search must end (budget, evaluations, Ctrl-C). */
  int (*should_stop)(int evals, void *user);
  void *user;
} clforge__search_hooks;

/* Walk the space with `strategy`, evaluating the seeds first (those in the
 * space; NULL entries are skipped) and starting from the best of them. Each
 * candidate is evaluated at most once. */
void clforge__search(clforge__search_space *s, clforge_tune_strategy strategy, const int *const *seeds, int nseeds,
                     unsigned seed, const clforge__search_hooks *h);

/* Check a whole clforge_tune_options.space up front: every clause names a
 * tunable family, every parameter and value exists. */
clforge_status clforge__space_validate(clforge_context ctx, const char *spec);

#endif
