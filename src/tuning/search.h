/* The tuner's search: a family's space on one device and shape, and the
 * strategies that walk it (exhaustive, random + local search, annealing). */
#ifndef CLFORGE_SRC_TUNING_SEARCH_H
#define CLFORGE_SRC_TUNING_SEARCH_H

#include <stddef.h>

#include "tune_op.h"

typedef struct clforge__search_space {
  const clforge__family *f;
  size_t count;            /* candidates that pass the family's and the op's checks */
  int *values;             /* count x f->nparams */
  unsigned char *visited;  /* per candidate */
  int *index_of;           /* mixed-radix code of candidate-value indices -> candidate, or -1 */
  size_t ncodes;
} clforge__search_space;

/* The candidates of f that pass its checks on ctx's device and the op's
 * applicability to shape, restricted by `restrict_spec` (may be NULL; the
 * syntax of clforge_tune_options.space). */
clforge_status clforge__space_build(clforge_context ctx, const clforge__family *f, const clforge__tune_op *op,
                                    const size_t *shape, const char *restrict_spec, clforge__search_space *s);
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
