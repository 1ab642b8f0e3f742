/* How the generic tuner runs an op: the few things it cannot read from a
 * family descriptor (build a problem, run it, check it against the CPU
 * reference). One per op, shared by the op's families. */
#ifndef CLFORGE_SRC_TUNING_TUNE_OP_H
#define CLFORGE_SRC_TUNING_TUNE_OP_H

#include <stddef.h>
#include <stdint.h>

#include "../families/family.h"
#include "../families/registry.h"

typedef struct clforge__tune_op {
  const char *op;                   /* "gemm": what --op names */
  const char *const *dtypes;        /* keys the tuner covers, NULL-terminated */
  const char *const *layouts;
  const char *peer;                 /* a peer library the tuner also times ("clblast"), or NULL */
  int ndims;                        /* dimensions of a shape (m, n, k: 3) */
  /* Make a problem of `shape` (buffers, inputs, reference result); *state
   * is the op's. On failure nothing is left allocated. */
  clforge_status (*setup)(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                          void **state);
  /* 1 when a candidate of f can run the representative shape in the way it
   * is meant to (e.g. its tiles divide the shape). */
  int (*applicable)(const clforge__family *f, const int *values, const size_t *shape);
  /* Before a candidate's checked run: spoil the output (e.g. NaN), so that
   * a kernel that writes nothing cannot pass on an earlier result. */
  void (*prepare)(void *state);
  /* Enqueue one run on ctx's queue (the tuner has chosen the parameters). */
  clforge_status (*run)(void *state);
  /* Compare the last run's output with the reference: CLFORGE_SUCCESS or
   * CLFORGE_VALIDATION_FAILED with why. `corrupt` (tests only) spoils the
   * output first. */
  clforge_status (*check)(void *state, int corrupt, char *why, size_t why_cap);
  double (*flops)(const size_t *shape);
  /* Optional: where a call of `shape` without a tuning file puts family f
   * among the families tuned on the same class: 0 for the one it runs (the
   * op's heuristic), 1 for the next it would take, more for the others
   * (only the order counts). NULL: each class has one family. The tuner
   * measures each class's first two before any search. */
  int (*rank)(clforge_context ctx, const clforge__family *f, const char *dtypes, const char *layout,
              const size_t *shape);
  /* The variant bits the family's built-in defaults depend on. */
  int (*variant)(const char *dtypes, const char *layout, const size_t *shape);
  void (*teardown)(void *state);
} clforge__tune_op;

/* Each op the tuner knows (the registry's CLFORGE__TUNE_OPS): how it runs
 * that op, defined by the op (src/ops/<op>_tune.c). */
#define CLFORGE__TUNE_OP_EXTERN(op) extern const clforge__tune_op clforge__tune_##op;
CLFORGE__TUNE_OPS(CLFORGE__TUNE_OP_EXTERN)
#undef CLFORGE__TUNE_OP_EXTERN

/* The families the tuner searches and the op that runs each, from the
 * registry's TUNED rows (src/tuning/tunables.c): registered here, above
 * the ops, so that a family's descriptor names no op. In the registry's
 * order; terminated by a NULL family. */
typedef struct clforge__tunable {
  const clforge__family *family;
  const clforge__tune_op *op;
} clforge__tunable;
extern const clforge__tunable clforge__tunables[];

/* "a,b,c": three storage type names (a tuning key's dtypes, perhaps with a
 * compute type's "@16f") into t; 0, or -1 when it is not that. */
int clforge__tune_parse_dtypes(const char *s, clforge_dtype t[3]);

/* The compute type a key's dtypes are tuned for: "...@32f_fast_16f" or
 * "...@16f" (clforge_tune_options.compute_type), else 32F; DEFAULT (0) for
 * an unknown suffix. */
clforge_compute_type clforge__tune_compute_type(const char *dtypes);

/* n values in [-1, 1) from a fixed LCG seeded with seed, stored as t
 * (malloc'd; NULL when out of memory): the tuner's problems' inputs. */
void *clforge__random_storage(size_t n, clforge_dtype t, uint32_t seed);

#endif
