/* The call sequence every op's public entry follows, in this order; the op
 * keeps only what is its own (resolving its descriptor, its buffer checks,
 * its plan, its enqueue, comparing its result):
 *   1. clforge__call_begin: the context (NULL refused), the last error
 *      cleared, *event NULL until the call succeeds;
 *   2. its descriptor, then clforge__check_wait_list (buffer_check.h);
 *   3. an empty problem: clforge__call_marker (the only marker in ops/);
 *   4. checks and plan, all before anything is enqueued;
 *   5. validation mode: clforge__call_await_inputs before reading inputs back;
 *   6. the enqueue, its wait list built by launch_chain.h;
 *   7. validation mode: clforge__call_await_done, then the comparison;
 *   8. clforge__call_end: the last command handed back, or released. */
#ifndef CLFORGE_SRC_OPS_OP_CALL_H
#define CLFORGE_SRC_OPS_OP_CALL_H

#include <clforge/clforge.h>

#include "../families/family.h"

/* Step 1: CLFORGE_INVALID_ARGUMENT "<op>: context is NULL" without a context. */
clforge_status clforge__call_begin(clforge_context ctx, const char *op, cl_event *event);
/* Step 1 of a query (explain, workspace_size, weights_create): the above,
 * then CLFORGE_INVALID_ARGUMENT "<op>: <what> is NULL" when its output
 * `out` is NULL. */
clforge_status clforge__query_begin(clforge_context ctx, const char *op, const void *out, const char *what);
/* Step 3: nothing to compute; the caller's event (if asked for) completes
 * after the wait list. */
clforge_status clforge__call_marker(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait,
                                    cl_event *event);
/* Step 5: the inputs as they will be when the kernels run. */
clforge_status clforge__call_await_inputs(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait);
/* Step 7: the result, for validation mode to read. */
clforge_status clforge__call_await_done(clforge_context ctx, const char *op, cl_event done);
/* The explain of an op whose family has one variant (memory-bound ops, no
 * shape classes): st is the descriptor's resolution; the family's
 * parameters for this context into *choice. */
clforge_status clforge__explain_plain(clforge_context ctx, const clforge__family *family, clforge_status st,
                                      clforge_kernel_choice *choice);
/* Validation's host copy: count elements of type t from element off of
 * buf into a malloc'd array of count (the reference then runs on a copy of
 * the descriptor with that offset 0). */
clforge_status clforge__call_read_elements(clforge_context ctx, const char *op, cl_mem buf, clforge_dtype t, size_t off,
                                           size_t count, void **out);
/* Step 8: with st CLFORGE_SUCCESS and event non-NULL, *event = done (the
 * caller owns it), else done (NULL ignored) is released; returns st. */
clforge_status clforge__call_end(clforge_status st, cl_event done, cl_event *event);

/* Step 4's algorithm choice, in the one order docs/tuning.md documents:
 * the tuner's forced family (while it measures one of the op's), the API's
 * explicit choice (desc.algo), the environment variable, the tuning file,
 * the heuristic. One table per op; a NULL member skips its step. Algorithm
 * 0 is "auto" in every op's enum. */
typedef enum {
  CLFORGE__ALGO_FROM_TUNER,
  CLFORGE__ALGO_FROM_DESC,
  CLFORGE__ALGO_FROM_ENV,
  CLFORGE__ALGO_FROM_TUNED,
  CLFORGE__ALGO_FROM_HEURISTIC
} clforge__algo_from;

typedef struct clforge__algo_table {
  const char *op;   /* the messages' prefix */
  const char *env;  /* its variable (ignored while the tuner runs), or NULL */
  int count;        /* algorithms 0 (auto) .. count - 1 */
  const char *(*name)(int algo);
  /* 1 with *algo when the tuner is measuring one of the op's families */
  int (*tuner)(clforge_context ctx, int *algo);
  /* 1 when algo can do d, else 0 with the reason */
  int (*supported)(clforge_context ctx, const void *d, int algo, char *why, size_t cap);
  /* the tuning file's choice against the heuristic's `heur` (whose line is
   * rule), or 0 to keep heur; why may then be set to replace rule */
  int (*tuned)(clforge_context ctx, const void *d, int heur, const char *rule, void *user, char *why, size_t cap);
  int (*heuristic)(clforge_context ctx, const void *d, char *why, size_t cap);
} clforge__algo_table;

typedef struct {
  int algo;
  clforge__algo_from from;
  char why[160];
} clforge__algo_pick;

/* The choice for d (desc_algo: its explicit one, 0 for auto; user: the
 * tuned step's). A forced choice (tuner, desc, environment) that cannot do
 * d fails CLFORGE_UNSUPPORTED "<op>: <algo> (<why>): <reason>"; whether an
 * automatic one can is the op's to check (each has its own fallback). */
clforge_status clforge__algo_choose(clforge_context ctx, const clforge__algo_table *t, const void *d, int desc_algo,
                                    void *user, clforge__algo_pick *pick);

#endif
