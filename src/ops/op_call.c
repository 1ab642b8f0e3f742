/* clforge__call_*: see op_call.h. */
#include "op_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/validate.h"

clforge_status clforge__call_begin(clforge_context ctx, const char *op, cl_event *event) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: context is NULL", op);
  clforge__clear_error(ctx);
  if (event) *event = NULL;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__query_begin(clforge_context ctx, const char *op, const void *out, const char *what) {
  clforge_status st = clforge__call_begin(ctx, op, NULL);
  if (st == CLFORGE_SUCCESS && !out) st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s is NULL", op, what);
  return st;
}

clforge_status clforge__call_marker(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait,
                                    cl_event *event) {
  if (!event) return CLFORGE_SUCCESS;
  cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, nwait, wait, event);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail(ctx, err, "clEnqueueMarkerWithWaitList (%s) failed", op);
}

clforge_status clforge__call_await_inputs(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait) {
  cl_int err = nwait ? clWaitForEvents(nwait, wait) : CL_SUCCESS;
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail(ctx, err, "%s validation: waiting for the wait list failed", op);
}

clforge_status clforge__call_await_done(clforge_context ctx, const char *op, cl_event done) {
  cl_int err = clWaitForEvents(1, &done);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail(ctx, err, "%s: waiting for the result to validate failed", op);
}

clforge_status clforge__explain_plain(clforge_context ctx, const clforge__family *family, clforge_status st,
                                      clforge_kernel_choice *choice) {
  int v[CLFORGE_MAX_PARAMS];
  return st == CLFORGE_SUCCESS ? clforge__family_select(ctx, family, 0, NULL, v, choice) : st;
}

clforge_status clforge__call_read_elements(clforge_context ctx, const char *op, cl_mem buf, clforge_dtype t, size_t off,
                                           size_t count, void **out) {
  const size_t es = clforge_dtype_size(t);
  *out = malloc(count * es + 1);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s validation: no memory", op);
  return clforge__read_buffer(ctx, buf, off * es, count * es, *out);
}

clforge_status clforge__call_end(clforge_status st, cl_event done, cl_event *event) {
  if (event && st == CLFORGE_SUCCESS) *event = done;
  else if (done) clReleaseEvent(done);
  return st;
}

/* The environment's algorithm (0: unset); an unknown name fails, listing the
 * op's names. */
static clforge_status env_algo(clforge_context ctx, const clforge__algo_table *t, int *algo) {
  *algo = 0;
  const char *v = t->env && !ctx->tuning_active ? getenv(t->env) : NULL;
  if (!v || !*v) return CLFORGE_SUCCESS;
  for (int a = 0; a < t->count; ++a)
    if (!strcasecmp(v, t->name(a))) {
      *algo = a;
      return CLFORGE_SUCCESS;
    }
  char names[256] = "";
  for (int a = 0; a < t->count; ++a) {
    const size_t len = strlen(names);
    snprintf(names + len, sizeof names - len, "%s%s", a == 0 ? "" : a + 1 == t->count ? " or " : ", ", t->name(a));
  }
  return clforge__fail(ctx, CLFORGE_INVALID_ENVIRONMENT, "%s=\"%s\": use %s", t->env, v, names);
}

clforge_status clforge__algo_choose(clforge_context ctx, const clforge__algo_table *t, const void *d, int desc_algo,
                                    void *user, clforge__algo_pick *pick) {
  memset(pick, 0, sizeof *pick);
  if (t->tuner && t->tuner(ctx, &pick->algo)) {
    pick->from = CLFORGE__ALGO_FROM_TUNER;
    snprintf(pick->why, sizeof pick->why, "tuner: measuring %s", t->name(pick->algo));
  } else if (desc_algo) {
    pick->algo = desc_algo, pick->from = CLFORGE__ALGO_FROM_DESC;
    snprintf(pick->why, sizeof pick->why, "desc.algo = %s", t->name(pick->algo));
  } else {
    clforge_status st = env_algo(ctx, t, &pick->algo);
    if (st != CLFORGE_SUCCESS) return st;
    pick->from = CLFORGE__ALGO_FROM_ENV;
    snprintf(pick->why, sizeof pick->why, "%s=%s", t->env ? t->env : "", t->name(pick->algo));
  }
  if (pick->algo) { /* forced: it must do d */
    char reason[160] = "";
    if (!t->supported(ctx, d, pick->algo, reason, sizeof reason))
      return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "%s: %s (%s): %s", t->op, t->name(pick->algo), pick->why, reason);
    return CLFORGE_SUCCESS;
  }
  char rule[160];
  const int heur = t->heuristic(ctx, d, rule, sizeof rule);
  pick->why[0] = '\0';
  const int tuned = t->tuned ? t->tuned(ctx, d, heur, rule, user, pick->why, sizeof pick->why) : 0;
  if (tuned) {
    pick->algo = tuned, pick->from = CLFORGE__ALGO_FROM_TUNED;
  } else {
    pick->algo = heur, pick->from = CLFORGE__ALGO_FROM_HEURISTIC;
    if (!pick->why[0]) snprintf(pick->why, sizeof pick->why, "%s", rule);
  }
  return CLFORGE_SUCCESS;
}
