/* `clforge bench conv`'s measurements of clforge: the timing loops
 * (device and host, up to --min-time), then one row per algorithm:
 * explained, timed (with prepared weights under --network) and checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_bench_parts.h"
#include "data.h"
#include "stats.h"

/* --- timing --- */

/* How many more runs t needs for their sum to reach --min-time (at most
 * MAX_RUNS samples in all); 0 when it has enough. */
static int runs_wanted(const bench_env *env, const clforge_bench_timing *t) {
  if (!(env->o->min_time > 0) || t->runs >= MAX_RUNS) return 0;
  double sum = 0;
  for (int i = 0; i < t->runs; ++i) sum += t->seconds[i];
  if (sum >= env->o->min_time || !(sum > 0)) return 0;
  double more = ceil((env->o->min_time - sum) / (sum / t->runs));
  return more > (double)(MAX_RUNS - t->runs) ? MAX_RUNS - t->runs : (int)more;
}

/* t2's samples after t's when both have the same timer; t2 freed. 0, or -1
 * when they could not be joined (t keeps its own). */
static int append_runs(clforge_bench_timing *t, clforge_bench_timing *t2) {
  double *all = t2->timer == t->timer ? realloc(t->seconds, (size_t)(t->runs + t2->runs) * sizeof *all) : NULL;
  if (all) {
    memcpy(all + t->runs, t2->seconds, (size_t)t2->runs * sizeof *all);
    t->seconds = all;
    t->runs += t2->runs;
  }
  clforge_bench_timing_free(t2);
  return all ? 0 : -1;
}

/* `runs` timed runs, then more until their sum reaches --min-time (the
 * same timer throughout; at most MAX_RUNS samples). */
int clforge_bench_conv_time_device(bench_env *env, clforge_bench_enqueue_fn fn, void *user, clforge_bench_timing *t,
                                   const char **where) {
  int rc = clforge_bench_time_queue(env->s.queue, fn, user, env->o->cli.warmup, env->o->cli.runs, t, where);
  for (int extra; rc == 0 && (extra = runs_wanted(env, t)) > 0;) {
    clforge_bench_timing t2;
    rc = clforge_bench_time_queue(env->s.queue, fn, user, 0, extra, &t2, where);
    if (rc != 0 || append_runs(t, &t2) != 0) break;
  }
  return rc;
}

int clforge_bench_conv_time_host(bench_env *env, clforge_bench_host_fn fn, void *user, clforge_bench_timing *t) {
  if (clforge_bench_time_host(fn, user, env->o->cli.warmup, env->o->cli.runs, t)) return -1;
  for (int extra; (extra = runs_wanted(env, t)) > 0;) {
    clforge_bench_timing t2;
    if (clforge_bench_time_host(fn, user, 0, extra, &t2) || append_runs(t, &t2) != 0) break;
  }
  return 0;
}

/* --- the timed operations --- */

typedef struct {
  conv_case *c;
  clforge_conv2d_desc desc;
  clforge_conv2d_weights weights; /* --network: prepared once */
} clforge_run;

static int enqueue_clforge(void *user, cl_command_queue queue) {
  clforge_run *r = user;
  (void)queue; /* the context's own queue */
  const conv_case *c = r->c;
  if (c->pass == CLFORGE_CONV_BACKWARD_DATA)
    return clforge_conv2d_backward_data(c->env->s.ctx, &r->desc, c->y, c->w, c->x, 0, NULL, NULL);
  if (c->pass == CLFORGE_CONV_BACKWARD_FILTER)
    return clforge_conv2d_backward_filter(c->env->s.ctx, &r->desc, c->x, c->y, c->w, NULL, 0, NULL, NULL);
  if (r->weights)
    return clforge_conv2d_ex(c->env->s.ctx, &r->desc, c->x, NULL, r->weights, NULL, c->y, NULL, 0, 0, NULL, NULL);
  return clforge_conv2d(c->env->s.ctx, &r->desc, c->x, c->w, NULL, c->y, 0, NULL, NULL);
}

/* --- one provider each --- */

void clforge_bench_conv_row_init(conv_row *r, const conv_case *c, clforge_conv_algo algo) {
  memset(r, 0, sizeof *r);
  r->layer = c->layer;
  r->s = c->s;
  r->dtype = c->dtype;
  r->layout = c->layout;
  r->algo = algo;
  r->chosen = algo;
  snprintf(r->label, sizeof r->label, "%s", clforge_conv_algo_name(algo));
  r->peers[PEER_CLBLAST].name = "clblast";
  r->peers[PEER_ONEDNN].name = "onednn";
}

/* clforge's message without what the row already says: the status's
 * description, "conv2d: " and, for an algorithm asked for by name,
 * "<algo> (desc.algo = <algo>): ". */
static const char *reason(clforge_context ctx) {
  const char *m = clforge_last_error(ctx);
  if (!m || !*m) return "no reason given";
  const char *op = strstr(m, "conv2d");
  const char *colon = op ? strstr(op, ": ") : NULL;
  if (colon && colon - op <= 23) m = colon + 2; /* conv2d, conv2d_backward_data, conv2d_backward_filter */
  const char *forced = strstr(m, "(desc.algo = ");
  const char *rest = forced ? strstr(forced, "): ") : NULL;
  return rest ? rest + 3 : m;
}

/* Ask explain whether `algo` can run the case; fill the row's choice. 0:
 * go on and time it; otherwise the row is final (unsupported or error). */
static int explain_row(conv_case *c, conv_row *r, clforge_conv2d_desc *desc) {
  bench_env *env = c->env;
  clforge_conv_choice ch;
  clforge_status st = clforge_conv2d_explain(env->s.ctx, desc, &ch);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    if (r->status == ROW_UNSUPPORTED) snprintf(r->error, sizeof r->error, "%s", reason(env->s.ctx));
    else snprintf(r->error, sizeof r->error, "clforge_conv2d_explain failed (%s): %s", clforge_status_name(st),
                  reason(env->s.ctx));
    return -1;
  }
  r->chosen = ch.algo;
  r->source = clforge_conv_algo_source_name(ch.source);
  for (int i = 0; i < ch.nkernels; ++i)
    if ((int)ch.kernels[i].compute_type > r->arith) r->arith = (int)ch.kernels[i].compute_type;
  snprintf(r->why, sizeof r->why, "%s", ch.why);
  r->have_ws = 1;
  r->workspace = ch.workspace_bytes;
  if (r->algo != CLFORGE_CONV_ALGO_AUTO) return 0;
  snprintf(r->label, sizeof r->label, "auto:%s", clforge_conv_algo_name(ch.algo));
  /* The automatic choice must be an algorithm that can run the case: asked
   * for by name, it answers whether it can (and why not). */
  clforge_conv2d_desc forced = *desc;
  forced.algo = ch.algo;
  st = clforge_conv2d_explain(env->s.ctx, &forced, &ch);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    snprintf(r->error, sizeof r->error, "auto chose %s (%s), which cannot run it: %s", clforge_conv_algo_name(r->chosen),
             r->why, reason(env->s.ctx));
    r->have_ws = 0;
    return -1;
  }
  return 0;
}

/* --network: w transformed once for the row's algorithm, timed on the host
 * clock to the end of the transform. 0 on success; otherwise the row is
 * final. */
static int prepare_weights(conv_case *c, conv_row *r, clforge_run *run) {
  bench_env *env = c->env;
  clforge_bench_conv_progress(env, c, "preparing weights");
  const double t0 = clforge_bench_now();
  clforge_status st = clforge_conv2d_weights_create(env->s.ctx, &run->desc, c->w, 0, NULL, &run->weights);
  if (st == CLFORGE_SUCCESS) st = clFinish(env->s.queue);
  if (st != CLFORGE_SUCCESS) {
    r->status = st == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    snprintf(r->error, sizeof r->error, "clforge_conv2d_weights_create failed (%s): %s", clforge_status_name(st),
             reason(env->s.ctx));
    clforge_conv2d_weights_release(run->weights);
    run->weights = NULL;
    return -1;
  }
  r->prepared = 1;
  r->weights_ms = (clforge_bench_now() - t0) * 1e3;
  return 0;
}

static int measure_run(conv_case *c, conv_row *r, float *result, clforge_run *run);

/* Time clforge with one algorithm and check its result; *result gets y
 * (NCHW f32) when it is right. Returns 0 when the row has numbers. */
int clforge_bench_conv_measure_clforge(conv_case *c, conv_row *r, float *result) {
  clforge_run run = {c, c->desc, NULL};
  run.desc.algo = r->algo;
  if (explain_row(c, r, &run.desc)) return -1;
  if (c->env->o->nnetworks && c->pass == CLFORGE_CONV_FORWARD && prepare_weights(c, r, &run)) return -1;
  const int rc = measure_run(c, r, result, &run);
  clforge_conv2d_weights_release(run.weights);
  return rc;
}

static int measure_run(conv_case *c, conv_row *r, float *result, clforge_run *run) {
  bench_env *env = c->env;
  clforge_bench_conv_progress(env, c, r->label);
  cl_int pe = clforge_bench_conv_poison_out(c);
  if (pe != CL_SUCCESS) {
    r->status = ROW_ERROR;
    snprintf(r->error, sizeof r->error, "clEnqueueFillBuffer of %s failed (%s)", clforge_bench_conv_out_name(c), clforge_status_name(pe));
    return -1;
  }
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_conv_time_device(env, enqueue_clforge, run, &t, &where);
  if (rc != 0) {
    const int in_op = !strcmp(where, "the operation");
    r->status = in_op && rc == CLFORGE_UNSUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
    if (r->status == ROW_UNSUPPORTED) snprintf(r->error, sizeof r->error, "%s", reason(env->s.ctx));
    else if (in_op)
      snprintf(r->error, sizeof r->error, "%s failed (%s): %s",
               c->pass == CLFORGE_CONV_BACKWARD_DATA     ? "clforge_conv2d_backward_data"
               : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? "clforge_conv2d_backward_filter"
                                                         : "clforge_conv2d",
               clforge_status_name(rc),
               reason(env->s.ctx));
    else snprintf(r->error, sizeof r->error, "%s failed (%s)", where, clforge_status_name(rc));
    clFinish(env->s.queue);
    return -1;
  }
  clforge_bench_stats st;
  if (clforge_bench_summarize(t.seconds, (size_t)t.runs, &st)) {
    clforge_bench_timing_free(&t);
    r->status = ROW_ERROR;
    snprintf(r->error, sizeof r->error, "out of host memory");
    return -1;
  }
  r->timer = clforge_bench_timer_name(t.timer);
  snprintf(r->timer_note, sizeof r->timer_note, "%s", t.timer == CLFORGE_BENCH_TIMER_WALL ? t.why_wall : "");
  r->median_ms = st.median * 1e3;
  r->p95_ms = st.p95 * 1e3;
  r->gflops = clforge_bench_conv_flops(&c->s) / st.median * 1e-9;
  r->gbps = clforge_bench_conv_bytes(c) / st.median * 1e-9;
  clforge_bench_timing_free(&t);
  if (clforge_bench_conv_read_out(c, result, r->error, sizeof r->error) ||
      clforge_bench_conv_spot_check(c, result, clforge_bench_conv_accumulation_tolerance(r->chosen), r->error, sizeof r->error)) {
    r->status = ROW_ERROR;
    return -1;
  }
  /* Small problems: every output against the CPU reference too. */
  if (clforge_bench_conv_flops(&c->s) / 2 <= REF_FULL_MACS) {
    const float *ref = clforge_bench_conv_ensure_ref(c);
    const double d = ref ? clforge_bench_max_rel_diff(result, ref, clforge_bench_conv_out_elems(c)) : 0;
    const double tol = clforge_bench_conv_full_tolerance(c->dtype, r->chosen);
    if (!ref) {
      snprintf(r->error, sizeof r->error, "the CPU reference failed: %s", clforge_last_error(NULL));
    } else if (!(d < tol)) {
      snprintf(r->error, sizeof r->error,
               "wrong result: max |%s - the reference's| = %.3g of max |%s| (tolerance %.0e)", clforge_bench_conv_out_name(c), d,
               clforge_bench_conv_out_name(c), tol);
    } else {
      return 0;
    }
    r->status = ROW_ERROR;
    return -1;
  }
  return 0;
}
