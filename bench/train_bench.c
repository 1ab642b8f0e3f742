/* `clforge bench train`: the training ops that stream memory, timed with
 * profiling events and checked against the reference before a number is
 * shown:
 *   - clforge_cross_entropy (loss and dlogits in one call, MEAN, label
 *     smoothing 0.1) against the unfused composite a library without the
 *     fused op runs: log-softmax forward into a buffer, then its backward
 *     with dy = -onehot / rows (the same dlogits, with no smoothing);
 *   - clforge_optimizer_step, AdamW over a model's worth of tensors (f32;
 *     bf16 or f16 weights with f32 masters and moments, f16 with loss
 *     scaling);
 *   - clforge_attention_backward against the unfused composite a library
 *     without it runs (S = QK^T, P = softmax(S) into an Sq x Sk buffer, dV =
 *     P^T dO, dP = dO V^T, dS = softmax_backward, dQ = dS K, dK = dS^T Q),
 *     non-causal and causal (the H 8, S 2048, D 64); the fused
 *     result checked against the composite's (two independent routes). 
 * The figure of merit is bandwidth: GB/s of the bytes each must move, and
 * its fraction of the device's streaming bandwidth. */
#include "train_bench.h"

#include <cjson/cJSON.h>
#include <clforge/clforge.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "data.h"
#include "report.h"
#include "session.h"
#include "stats.h"
#include "table.h"
#include "timer.h"

enum { DEFAULT_RUNS = 10, DEFAULT_WARMUP = 2, MIN_RUNS = CLFORGE_BENCH_MIN_RUNS, NTENSORS = 8 };

typedef struct {
  clforge_bench_cli cli;
  int ce, opt, attn;         /* --op */
  clforge_dtype dtypes[3];
  int ndtypes;
  size_t ce_rows[3], ce_n[3];
  int nce;
  size_t opt_elems;          /* elements over NTENSORS tensors */
} tb_options;

void clforge_bench_train_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench train [options]\n"
          "\n"
          "Time the training ops that stream memory, each result checked against the\n"
          "reference first:\n"
          "  cross_entropy  clforge_cross_entropy (mean loss and dlogits, label smoothing\n"
          "                 0.1) against the unfused log-softmax forward + backward\n"
          "  optimizer      clforge_optimizer_step, AdamW over %d tensors (f16: with loss\n"
          "                 scaling; f16/bf16 weights keep f32 masters)\n"
          "  attention      clforge_attention_backward (B 1, H 8, S 2048, D 64; not causal\n"
          "                 and causal) against the unfused composite backward (GEMMs and\n"
          "                 softmax forward + backward through an Sq x Sk buffer)\n"
          "\n"
          "Options:\n"
          "  --op OP         cross_entropy, optimizer, attention or all (default all)\n"
          "  --dtype LIST    f32,f16,bf16 or a subset (default all three): the logits and\n"
          "                  dlogits; the weights and gradients\n"
          "  --reps N        timed runs per row, at least %d (default %d); --runs too\n"
          "  --warmup N      untimed runs first, at least 1 (default %d)\n"
          "  --quick         small shapes, %d runs: checks the harness in seconds\n"
          "  --no-peak       do not measure the device's peak first (no %% bw)\n"
          "  --json          one JSON object per line per row, nothing else on stdout\n"
          "  -h, --help      show this help\n"
          "\n"
          "Columns: median and p95 (nearest rank) in ms; GB/s = the bytes the op must\n"
          "move / median (cross-entropy: logits read and dlogits written; AdamW: weights,\n"
          "gradients and moments read, weights and moments written); %% bw against the\n"
          "device's streaming bandwidth; 'unfused ms' and 'x' for cross-entropy and\n"
          "attention: the composite's median and how many times faster the fused call is.\n"
          "Exit status: 0 success, 1 a row failed or was wrong, or no device, 2 usage error.\n",
          NTENSORS, MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP, MIN_RUNS);
}

static int tb_option(clforge_bench_cli *cli, int argc, char **argv, int *a, void *user) {
  tb_options *o = user;
  const char *v = NULL;
  if (clforge_bench_option(argc, argv, a, "--op", &v)) {
    if (v && !strcmp(v, "cross_entropy")) o->ce = 1, o->opt = o->attn = 0;
    else if (v && !strcmp(v, "optimizer")) o->ce = o->attn = 0, o->opt = 1;
    else if (v && !strcmp(v, "attention")) o->ce = o->opt = 0, o->attn = 1;
    else if (v && !strcmp(v, "all")) o->ce = o->opt = o->attn = 1;
    else return clforge_bench_usage_error(cli, "--op needs cross_entropy, optimizer, attention or all");
  } else if (clforge_bench_option(argc, argv, a, "--dtype", &v)) {
    return clforge_bench_cli_dtypes(cli, "--dtype", v, o->dtypes, &o->ndtypes, 3);
  } else {
    return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------- rows */

typedef struct {
  const char *op;
  char shape[48];
  clforge_dtype dtype;
  char kernel[96];
  int ok;
  char error[400];
  double median_ms, p95_ms, gbps, bytes, unfused_ms;
  const char *timer;
} tb_row;

typedef struct {
  clforge_bench_session s;
  const tb_options *o;
  clforge_bench_table table;
} tb_env;

static void kernel_text(const clforge_kernel_choice *k, char *buf, size_t cap) {
  int len = snprintf(buf, cap, "%s", k->family);
  for (int i = 0; i < k->nparams && len > 0 && (size_t)len < cap; ++i)
    len += snprintf(buf + len, cap - (size_t)len, " %s=%d", k->names[i], k->values[i]);
}

/* Time fn; 0 with the row's times, or -1 with its error. */
static int time_row(tb_env *env, clforge_bench_enqueue_fn fn, void *user, tb_row *r, double *median_ms) {
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_time_queue(env->s.queue, fn, user, env->o->cli.warmup, env->o->cli.runs, &t, &where);
  if (rc) {
    snprintf(r->error, sizeof r->error, "%s failed (%s): %s", where, clforge_status_name(rc),
             clforge_last_error(env->s.ctx));
    clFinish(env->s.queue);
    return -1;
  }
  clforge_bench_stats st;
  const int bad = clforge_bench_summarize(t.seconds, (size_t)t.runs, &st);
  r->timer = clforge_bench_timer_name(t.timer);
  clforge_bench_timing_free(&t);
  if (bad) {
    snprintf(r->error, sizeof r->error, "out of host memory");
    return -1;
  }
  *median_ms = st.median * 1e3;
  if (median_ms == &r->median_ms) r->p95_ms = st.p95 * 1e3;
  return 0;
}

/* ---------------------------------------------------------- cross-entropy */

typedef struct {
  clforge_context ctx;
  clforge_cross_entropy_desc desc;
  clforge_softmax_desc fwd;
  cl_mem z, t, loss, dz, y, g, dx; /* y, g, dx: the composite's */
} ce_case;

static int run_fused(void *user, cl_command_queue q) {
  ce_case *c = user;
  (void)q;
  return clforge_cross_entropy(c->ctx, &c->desc, c->z, c->t, c->loss, c->dz, NULL, 0, NULL, NULL);
}

static int run_unfused(void *user, cl_command_queue q) {
  ce_case *c = user;
  (void)q;
  int rc = clforge_softmax(c->ctx, &c->fwd, c->z, NULL, c->y, 0, NULL, NULL);
  return rc ? rc : clforge_softmax_backward(c->ctx, &c->fwd, c->y, c->g, c->dx, 0, NULL, NULL);
}

static cl_mem upload(tb_env *env, const void *host, size_t bytes) {
  cl_int err;
  cl_mem b = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            (void *)host, &err);
  return err == CL_SUCCESS ? b : NULL;
}

/* Rows of dlogits (every 97th and the last) against the reference, and the
 * loss. (The composite computes the same without smoothing; its parts are
 * checked by their own tests and benchmarks.) */
static int ce_check(tb_env *env, ce_case *c, const void *z, const int32_t *t, char *why, size_t cap) {
  const size_t rows = c->desc.rows, n = c->desc.n, es = clforge_dtype_size(c->desc.dlogits_type);
  float loss = 0, want_loss = 0;
  void *want = malloc(rows * n * es), *got = malloc(n * es);
  float *g = malloc(n * sizeof *g), *w = malloc(n * sizeof *w);
  int rc = -1;
  if (!want || !got || !g || !w) {
    snprintf(why, cap, "out of host memory for the check");
    goto out;
  }
  if (clforge_ref_cross_entropy(&c->desc, z, t, &want_loss, want, NULL) != CLFORGE_SUCCESS ||
      clEnqueueReadBuffer(env->s.queue, c->loss, CL_TRUE, 0, 4, &loss, 0, NULL, NULL) != CL_SUCCESS) {
    snprintf(why, cap, "the reference or the read failed: %s", clforge_last_error(NULL));
    goto out;
  }
  if (!(fabs(loss - want_loss) <= 1e-5 * fabs(want_loss) + 1e-6)) {
    snprintf(why, cap, "wrong loss %.7g, the reference's %.7g", (double)loss, (double)want_loss);
    goto out;
  }
  const double tol = 2 * clforge_bench_unit_roundoff(c->desc.dlogits_type) + 1e-5;
  for (size_t r = 0; r < rows; r = r + 97 < rows || r == rows - 1 ? r + 97 : rows - 1) {
    if (clEnqueueReadBuffer(env->s.queue, c->dz, CL_TRUE, r * n * es, n * es, got, 0, NULL, NULL) != CL_SUCCESS) {
      snprintf(why, cap, "reading dlogits failed");
      goto out;
    }
    clforge_ref_convert(n, got, c->desc.dlogits_type, g, CLFORGE_F32);
    clforge_ref_convert(n, (char *)want + r * n * es, c->desc.dlogits_type, w, CLFORGE_F32);
    double big = 0;
    for (size_t i = 0; i < n; ++i) big = fmax(big, fabs(w[i]));
    for (size_t i = 0; i < n; ++i)
      if (!(fabs(g[i] - w[i]) <= tol * fabs(w[i]) + 1e-6 * big)) {
        snprintf(why, cap, "wrong dlogits[%zu][%zu] = %.7g, the reference's %.7g", r, i, (double)g[i], (double)w[i]);
        goto out;
      }
    if (r == rows - 1) break;
  }
  rc = 0;
out:
  free(want), free(got), free(g), free(w);
  return rc;
}

static void measure_ce(tb_env *env, size_t rows, size_t n, clforge_dtype dt, tb_row *r) {
  memset(r, 0, sizeof *r);
  r->op = "cross_entropy", r->dtype = dt;
  snprintf(r->shape, sizeof r->shape, "%zux%zu", rows, n);
  ce_case c;
  memset(&c, 0, sizeof c);
  c.ctx = env->s.ctx;
  c.desc = (clforge_cross_entropy_desc){.rows = rows, .n = n, .logits_type = dt, .dlogits_type = dt,
                                        .label_smoothing = 0.1f};
  c.fwd = (clforge_softmax_desc){.kind = CLFORGE_LOG_SOFTMAX, .rows = rows, .n = n, .x_type = dt, .y_type = dt,
                                 .dy_type = dt};
  const size_t elems = rows * n, es = clforge_dtype_size(dt);
  r->bytes = 2.0 * (double)elems * (double)es;
  clforge_kernel_choice k;
  if (clforge_cross_entropy_explain(env->s.ctx, &c.desc, &k) == CLFORGE_SUCCESS) kernel_text(&k, r->kernel, sizeof r->kernel);
  float *z32 = malloc(elems * sizeof *z32), *g32 = calloc(elems, sizeof *g32);
  void *z = malloc(elems * es), *g = malloc(elems * es);
  int32_t *t = malloc(rows * sizeof *t);
  if (!z32 || !g32 || !z || !g || !t) {
    snprintf(r->error, sizeof r->error, "out of host memory for the data");
    goto done;
  }
  clforge_bench_fill_random(z32, elems, 0x5151u, 8.0f);
  clforge_ref_convert(elems, z32, CLFORGE_F32, z, dt);
  for (size_t i = 0; i < rows; ++i) {
    t[i] = (int32_t)((i * 2654435761u) % n);
    g32[i * n + (size_t)t[i]] = -1.0f / (float)rows; /* d(mean nll)/d(log-softmax) */
  }
  clforge_ref_convert(elems, g32, CLFORGE_F32, g, dt);
  c.z = upload(env, z, elems * es), c.t = upload(env, t, rows * 4), c.loss = upload(env, NULL, 4);
  c.dz = upload(env, NULL, elems * es), c.y = upload(env, NULL, elems * es), c.g = upload(env, g, elems * es);
  c.dx = upload(env, NULL, elems * es);
  if (!c.z || !c.t || !c.loss || !c.dz || !c.y || !c.g || !c.dx) {
    snprintf(r->error, sizeof r->error, "device buffers of %zu bytes failed", elems * es);
    goto done;
  }
  clforge_bench_progress(&env->s, "cross_entropy %zux%zu %s", rows, n, clforge_dtype_name(dt));
  if (time_row(env, run_fused, &c, r, &r->median_ms) || time_row(env, run_unfused, &c, r, &r->unfused_ms)) goto done;
  r->gbps = r->bytes / (r->median_ms * 1e-3) * 1e-9;
  if (run_fused(&c, env->s.queue) == CLFORGE_SUCCESS && clFinish(env->s.queue) == CL_SUCCESS &&
      ce_check(env, &c, z, t, r->error, sizeof r->error) == 0)
    r->ok = 1;
  else if (!r->error[0])
    snprintf(r->error, sizeof r->error, "the checked run failed: %s", clforge_last_error(env->s.ctx));
done:;
  cl_mem all[] = {c.z, c.t, c.loss, c.dz, c.y, c.g, c.dx};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (all[i]) clReleaseMemObject(all[i]);
  free(z32), free(g32), free(z), free(g), free(t);
}

/* -------------------------------------------------------------- optimizer */

typedef struct {
  clforge_context ctx;
  clforge_optimizer_desc desc;
  clforge_optimizer_tensor t[NTENSORS];
  cl_mem state;
} opt_case;

static int run_opt(void *user, cl_command_queue q) {
  opt_case *c = user;
  (void)q;
  return clforge_optimizer_step(c->ctx, &c->desc, NTENSORS, c->t, c->state, 0, NULL, NULL);
}

/* The first tensor's weights after one step from the inputs, against the
 * reference's. */
static int opt_check(tb_env *env, opt_case *c, const float *w0, const void *grad, const clforge_train_state *s0,
                     char *why, size_t cap) {
  const clforge_optimizer_tensor *t = &c->t[0];
  const size_t n = t->count, ps = clforge_dtype_size(t->param_type);
  float *master = malloc(n * 4), *m = calloc(n, 4), *v = calloc(n, 4), *got = malloc(n * 4), *want = malloc(n * 4);
  void *param = malloc(n * ps), *raw = malloc(n * ps);
  int rc = -1;
  if (!master || !m || !v || !got || !want || !param || !raw) {
    snprintf(why, cap, "out of host memory for the check");
    goto out;
  }
  memcpy(master, w0, n * 4);
  clforge_ref_convert(n, w0, CLFORGE_F32, param, t->param_type);
  clforge_ref_optimizer_tensor rt = {n, param, t->master ? master : NULL, grad, m, v, t->param_type, t->grad_type};
  if (!t->master) rt.param = master;
  clforge_train_state s = *s0;
  if (clforge_ref_optimizer_step(&c->desc, 1, &rt, &s) != CLFORGE_SUCCESS ||
      clEnqueueReadBuffer(env->s.queue, t->param, CL_TRUE, 0, n * ps, raw, 0, NULL, NULL) != CL_SUCCESS) {
    snprintf(why, cap, "the reference or the read failed");
    goto out;
  }
  clforge_ref_convert(n, raw, t->param_type, got, CLFORGE_F32);
  clforge_ref_convert(n, t->master ? param : (void *)master, t->param_type, want, CLFORGE_F32);
  const double tol = 2 * clforge_bench_unit_roundoff(t->param_type) + 1e-6;
  for (size_t i = 0; i < n; ++i)
    if (!(fabs(got[i] - want[i]) <= tol * fabs(want[i]) + 1e-7)) {
      snprintf(why, cap, "wrong weight [%zu] = %.7g, the reference's %.7g", i, (double)got[i], (double)want[i]);
      goto out;
    }
  rc = 0;
out:
  free(master), free(m), free(v), free(got), free(want), free(param), free(raw);
  return rc;
}

static void measure_opt(tb_env *env, size_t elems, clforge_dtype dt, tb_row *r) {
  memset(r, 0, sizeof *r);
  r->op = "optimizer", r->dtype = dt;
  const size_t per = elems / NTENSORS, ps = clforge_dtype_size(dt);
  snprintf(r->shape, sizeof r->shape, "%dx%zu%s", NTENSORS, per, dt == CLFORGE_F16 ? " scaled" : "");
  opt_case c;
  memset(&c, 0, sizeof c);
  c.ctx = env->s.ctx;
  c.desc = (clforge_optimizer_desc){.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 1e-4f, .weight_decay = 0.01f,
                                    .loss_scaling = dt == CLFORGE_F16, .growth_interval = 1000000};
  /* param + grad read, param written at its type; master (when 16-bit), m and v read and written at f32 */
  r->bytes = (double)elems * (3.0 * (double)ps + (dt == CLFORGE_F32 ? 16.0 : 24.0));
  const clforge_train_state s0 = {1.0f, 0, 0, 0};
  float *w0 = malloc(per * 4), *g32 = malloc(per * 4);
  void *w0s = malloc(per * ps), *g = malloc(per * ps), *zero = calloc(per, 4);
  if (!w0 || !g32 || !w0s || !g || !zero) {
    snprintf(r->error, sizeof r->error, "out of host memory for the data");
    goto done;
  }
  clforge_bench_fill_random(w0, per, 0x77u, 1.0f);
  clforge_bench_fill_random(g32, per, 0x78u, 1e-2f);
  clforge_ref_convert(per, w0, CLFORGE_F32, w0s, dt);
  clforge_ref_convert(per, g32, CLFORGE_F32, g, dt);
  c.state = upload(env, &s0, sizeof s0);
  int okb = c.state != NULL;
  for (int i = 0; i < NTENSORS && okb; ++i) {
    clforge_optimizer_tensor *t = &c.t[i];
    t->count = per, t->param_type = t->grad_type = dt;
    t->param = upload(env, w0s, per * ps), t->grad = upload(env, g, per * ps);
    t->m = upload(env, zero, per * 4), t->v = upload(env, zero, per * 4);
    if (dt != CLFORGE_F32) t->master = upload(env, w0, per * 4);
    okb = t->param && t->grad && t->m && t->v && (dt == CLFORGE_F32 || t->master);
  }
  if (!okb) {
    snprintf(r->error, sizeof r->error, "device buffers for %zu elements failed", elems);
    goto done;
  }
  clforge_kernel_choice k;
  if (clforge_optimizer_explain(env->s.ctx, &c.desc, &c.t[0], &k) == CLFORGE_SUCCESS)
    kernel_text(&k, r->kernel, sizeof r->kernel);
  /* the checked step first, from the inputs; then the timed ones */
  if (run_opt(&c, env->s.queue) != CLFORGE_SUCCESS || clFinish(env->s.queue) != CL_SUCCESS) {
    snprintf(r->error, sizeof r->error, "clforge_optimizer_step failed: %s", clforge_last_error(env->s.ctx));
    goto done;
  }
  if (opt_check(env, &c, w0, g, &s0, r->error, sizeof r->error)) goto done;
  clforge_bench_progress(&env->s, "optimizer %zu %s", elems, clforge_dtype_name(dt));
  if (time_row(env, run_opt, &c, r, &r->median_ms)) goto done;
  r->gbps = r->bytes / (r->median_ms * 1e-3) * 1e-9;
  r->ok = 1;
done:
  for (int i = 0; i < NTENSORS; ++i) {
    cl_mem b[5] = {c.t[i].param, c.t[i].master, c.t[i].grad, c.t[i].m, c.t[i].v};
    for (int j = 0; j < 5; ++j)
      if (b[j]) clReleaseMemObject(b[j]);
  }
  if (c.state) clReleaseMemObject(c.state);
  free(w0), free(g32), free(w0s), free(g), free(zero);
}

/* -------------------------------------------------------------- attention */

typedef struct {
  clforge_context ctx;
  clforge_attention_desc fwd, bwd;
  clforge_attention_grads grads;
  clforge_attention_buffers extra;
  size_t b, h, sq, sk, d;
  int causal;
  cl_mem q, k, v, o, lse, d_o, dq, dk, dv;  /* the fused call's */
  cl_mem s, dp, mask, uq, uk, uv;           /* the composite's (S/P, dP/dS, its outputs) */
  clforge_gemm_desc qk, dv_g, dp_g, dq_g, dk_g;
  clforge_softmax_desc sm;
} attn_case;

static int run_attn(void *user, cl_command_queue q) {
  attn_case *c = user;
  (void)q;
  return clforge_attention_backward(c->ctx, &c->bwd, &c->grads, c->q, c->k, c->v, c->o, c->d_o, &c->extra, c->dq, c->dk,
                                    c->dv, 0, NULL, NULL);
}

/* The composite: S = scale Q K^T; P = softmax(S) (+ the causal mask, one
 * call per head); dV = P^T dO; dP = dO V^T; dS = P (dP - rowsum(dP P));
 * dQ = scale dS K; dK = scale dS^T Q. */
static int run_attn_unfused(void *user, cl_command_queue q) {
  attn_case *c = user;
  (void)q;
  int rc = clforge_gemm(c->ctx, &c->qk, c->q, c->k, c->s, NULL, 0, NULL, NULL);
  const size_t heads = c->b * c->h, per = c->sq * c->sk;
  for (size_t i = 0; !rc && i < (c->causal ? heads : 1); ++i) {
    clforge_softmax_desc sm = c->sm;
    sm.x_offset = sm.y_offset = c->causal ? i * per : 0;
    rc = clforge_softmax(c->ctx, &sm, c->s, c->causal ? c->mask : NULL, c->s, 0, NULL, NULL);
  }
  if (!rc) rc = clforge_gemm(c->ctx, &c->dv_g, c->s, c->d_o, c->uv, NULL, 0, NULL, NULL);
  if (!rc) rc = clforge_gemm(c->ctx, &c->dp_g, c->d_o, c->v, c->dp, NULL, 0, NULL, NULL);
  clforge_softmax_desc sb = c->sm;
  sb.rows = heads * c->sq, sb.mask_stride = 0, sb.dy_type = CLFORGE_F32;
  if (!rc) rc = clforge_softmax_backward(c->ctx, &sb, c->s, c->dp, c->dp, 0, NULL, NULL);
  if (!rc) rc = clforge_gemm(c->ctx, &c->dq_g, c->dp, c->k, c->uq, NULL, 0, NULL, NULL);
  if (!rc) rc = clforge_gemm(c->ctx, &c->dk_g, c->dp, c->q, c->uk, NULL, 0, NULL, NULL);
  return rc;
}

/* max |a - b| / max |b| of n elements of type t in two buffers. */
static double buf_diff(tb_env *env, cl_mem a, cl_mem b, size_t n, clforge_dtype t) {
  const size_t es = clforge_dtype_size(t);
  void *ha = malloc(n * es), *hb = malloc(n * es);
  float *fa = malloc(n * 4), *fb = malloc(n * 4);
  double worst = INFINITY;
  if (ha && hb && fa && fb && clEnqueueReadBuffer(env->s.queue, a, CL_TRUE, 0, n * es, ha, 0, NULL, NULL) == CL_SUCCESS &&
      clEnqueueReadBuffer(env->s.queue, b, CL_TRUE, 0, n * es, hb, 0, NULL, NULL) == CL_SUCCESS) {
    clforge_ref_convert(n, ha, t, fa, CLFORGE_F32), clforge_ref_convert(n, hb, t, fb, CLFORGE_F32);
    double big = 0, d = 0;
    for (size_t i = 0; i < n; ++i) big = fmax(big, fabs(fb[i])), d = fmax(d, fabs(fa[i] - fb[i]));
    worst = big > 0 ? d / big : d;
    for (size_t i = 0; i < n; ++i)
      if (isnan(fa[i]) != isnan(fb[i])) worst = INFINITY;
  }
  free(ha), free(hb), free(fa), free(fb);
  return worst;
}

static void measure_attn(tb_env *env, size_t h, size_t sq, size_t d, int causal, clforge_dtype dt, tb_row *r) {
  memset(r, 0, sizeof *r);
  r->op = "attention_bwd", r->dtype = dt;
  snprintf(r->shape, sizeof r->shape, "H%zu S%zu D%zu%s", h, sq, d, causal ? " causal" : "");
  attn_case c;
  memset(&c, 0, sizeof c);
  c.ctx = env->s.ctx, c.b = 1, c.h = h, c.sq = c.sk = sq, c.d = d, c.causal = causal;
  const float scale = (float)(1.0 / sqrt((double)d));
  c.fwd = (clforge_attention_desc){.batch = 1, .heads_q = h, .seq_q = sq, .seq_kv = sq, .head_dim = d, .q_type = dt,
                                   .kv_type = dt, .o_type = dt,
                                   .causal = causal ? CLFORGE_CAUSAL_TOP_LEFT : CLFORGE_CAUSAL_NONE};
  c.bwd = c.fwd, c.bwd.kind = CLFORGE_ATTENTION_BACKWARD;
  c.grads = (clforge_attention_grads){.do_type = dt, .dq_type = dt, .dkv_type = dt};
  const size_t heads = h, tok = heads * sq * d, es = clforge_dtype_size(dt), ss = heads * sq * sq;
  r->bytes = 8.0 * (double)tok * (double)es; /* q k v o dO read, dq dk dv written */
  clforge_attention_choice ch;
  if (clforge_attention_explain(env->s.ctx, &c.bwd, &ch) == CLFORGE_SUCCESS) kernel_text(&ch.kernels[0], r->kernel, sizeof r->kernel);
  float *x32 = malloc(tok * sizeof *x32);
  void *x = malloc(tok * es);
  float *m = causal ? malloc(sq * sq * sizeof *m) : NULL;
  if (!x32 || !x || (causal && !m)) {
    snprintf(r->error, sizeof r->error, "out of host memory");
    goto done;
  }
  cl_mem *ins[4] = {&c.q, &c.k, &c.v, &c.d_o};
  for (int i = 0; i < 4; ++i) {
    clforge_bench_fill_random(x32, tok, 0x1000u + (uint32_t)i, 1.0f);
    clforge_ref_convert(tok, x32, CLFORGE_F32, x, dt);
    *ins[i] = upload(env, x, tok * es);
  }
  c.o = upload(env, NULL, tok * es), c.lse = upload(env, NULL, heads * sq * 4);
  c.dq = upload(env, NULL, tok * es), c.dk = upload(env, NULL, tok * es), c.dv = upload(env, NULL, tok * es);
  c.uq = upload(env, NULL, tok * es), c.uk = upload(env, NULL, tok * es), c.uv = upload(env, NULL, tok * es);
  c.s = upload(env, NULL, ss * 4), c.dp = upload(env, NULL, ss * 4);
  if (causal) {
    for (size_t i = 0; i < sq; ++i)
      for (size_t j = 0; j < sq; ++j) m[i * sq + j] = j <= i ? 0.0f : -INFINITY;
    c.mask = upload(env, m, sq * sq * 4);
  }
  if (!c.q || !c.k || !c.v || !c.d_o || !c.o || !c.lse || !c.dq || !c.dk || !c.dv || !c.uq || !c.uk || !c.uv || !c.s ||
      !c.dp || (causal && !c.mask)) {
    snprintf(r->error, sizeof r->error, "device buffers failed (the composite's Sq x Sk buffers: %.0f MiB)",
             2.0 * (double)ss * 4 / 1048576.0);
    goto done;
  }
  c.extra.lse = c.lse;
  /* the forward once: O and LSE as a training step has them */
  if (clforge_attention(env->s.ctx, &c.fwd, c.q, c.k, c.v, c.o, &c.extra, 0, NULL, NULL) != CLFORGE_SUCCESS) {
    snprintf(r->error, sizeof r->error, "the forward failed: %s", clforge_last_error(env->s.ctx));
    goto done;
  }
  const size_t hd = sq * d, hs = sq * sq;
  c.qk = (clforge_gemm_desc){.m = sq, .n = sq, .k = d, .trans_b = CLFORGE_TRANS, .alpha = scale, .a_type = dt,
                             .b_type = dt, .c_type = CLFORGE_F32, .batch = heads, .stride_a = hd, .stride_b = hd,
                             .stride_c = hs};
  c.sm = (clforge_softmax_desc){.rows = causal ? sq : heads * sq, .n = sq, .x_type = CLFORGE_F32,
                                .y_type = CLFORGE_F32, .mask_type = CLFORGE_F32, .mask_stride = causal ? sq : 0};
  c.dv_g = (clforge_gemm_desc){.m = sq, .n = d, .k = sq, .trans_a = CLFORGE_TRANS, .a_type = CLFORGE_F32, .b_type = dt,
                               .c_type = dt, .batch = heads, .stride_a = hs, .stride_b = hd, .stride_c = hd};
  c.dp_g = (clforge_gemm_desc){.m = sq, .n = sq, .k = d, .trans_b = CLFORGE_TRANS, .a_type = dt, .b_type = dt,
                               .c_type = CLFORGE_F32, .batch = heads, .stride_a = hd, .stride_b = hd, .stride_c = hs};
  c.dq_g = (clforge_gemm_desc){.m = sq, .n = d, .k = sq, .alpha = scale, .a_type = CLFORGE_F32, .b_type = dt,
                               .c_type = dt, .batch = heads, .stride_a = hs, .stride_b = hd, .stride_c = hd};
  c.dk_g = (clforge_gemm_desc){.m = sq, .n = d, .k = sq, .trans_a = CLFORGE_TRANS, .alpha = scale,
                               .a_type = CLFORGE_F32, .b_type = dt, .c_type = dt, .batch = heads, .stride_a = hs,
                               .stride_b = hd, .stride_c = hd};
  clforge_bench_progress(&env->s, "attention backward %s %s", r->shape, clforge_dtype_name(dt));
  if (time_row(env, run_attn, &c, r, &r->median_ms) || time_row(env, run_attn_unfused, &c, r, &r->unfused_ms)) goto done;
  r->gbps = r->bytes / (r->median_ms * 1e-3) * 1e-9;
  /* both routes once more, then the fused outputs against the composite's */
  if (run_attn(&c, env->s.queue) || run_attn_unfused(&c, env->s.queue) || clFinish(env->s.queue) != CL_SUCCESS) {
    snprintf(r->error, sizeof r->error, "the checked run failed: %s", clforge_last_error(env->s.ctx));
    goto done;
  }
  const double tol = dt == CLFORGE_F32 ? 1e-3 : 3e-2;
  const char *names[3] = {"dq", "dk", "dv"};
  cl_mem fused[3] = {c.dq, c.dk, c.dv}, comp[3] = {c.uq, c.uk, c.uv};
  for (int i = 0; i < 3; ++i) {
    const double diff = buf_diff(env, fused[i], comp[i], tok, dt);
    if (!(diff <= tol)) {
      snprintf(r->error, sizeof r->error, "%s differs from the composite's by %.3g of its largest (tolerance %.0e)",
               names[i], diff, tol);
      goto done;
    }
  }
  r->ok = 1;
done:;
  cl_mem all[] = {c.q, c.k, c.v, c.o, c.lse, c.d_o, c.dq, c.dk, c.dv, c.s, c.dp, c.mask, c.uq, c.uk, c.uv};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (all[i]) clReleaseMemObject(all[i]);
  free(x32), free(x), free(m);
}

/* ----------------------------------------------------------------- output */

static void emit(tb_env *env, const tb_row *r) {
  clforge_bench_progress_clear(&env->s);
  if (env->o->cli.json) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return;
    clforge_bench_json_string(o, "op", r->op);
    clforge_bench_json_string(o, "shape", r->shape);
    clforge_bench_json_string(o, "dtype", clforge_dtype_name(r->dtype));
    clforge_bench_json_string(o, "kernel", r->kernel);
    clforge_bench_json_string(o, "status", r->ok ? "ok" : "error");
    clforge_bench_json_times(o, r->ok, r->median_ms, r->p95_ms);
    clforge_bench_json_number(o, "gbps", r->ok, r->gbps);
    clforge_bench_json_number(o, "bytes", 1, r->bytes);
    clforge_bench_json_number(o, "frac_peak_bw", r->ok && env->s.peak.gbps > 0,
                              clforge_bench_fraction(r->gbps, env->s.peak.gbps));
    clforge_bench_json_number(o, "unfused_ms", r->ok && r->unfused_ms > 0, r->unfused_ms);
    clforge_bench_json_number(o, "speedup_vs_unfused", r->ok && r->unfused_ms > 0, r->unfused_ms / r->median_ms);
    clforge_bench_json_run(o, env->o->cli.runs, env->o->cli.warmup, r->ok ? r->timer : NULL, NULL, env->s.device);
    if (!r->ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
    clforge_bench_json_line(stdout, o);
    return;
  }
  clforge_bench_table *t = &env->table;
  clforge_bench_table_cell(t, r->op);
  clforge_bench_table_cell(t, r->shape);
  clforge_bench_table_cell(t, clforge_dtype_name(r->dtype));
  if (!r->ok) {
    char note[600];
    snprintf(note, sizeof note, "%s %s %s: %s", r->op, r->shape, clforge_dtype_name(r->dtype), r->error);
    clforge_bench_table_status(t, 6, "error", note);
  } else {
    clforge_bench_table_results(t, r->median_ms, r->p95_ms, r->timer, "", 0, 0, r->gbps);
    clforge_bench_table_peak_cells(t, &env->s.peak, 0, 0, r->gbps, r->bytes);
    if (r->unfused_ms > 0) {
      clforge_bench_table_cellf(t, "%.3f", r->unfused_ms);
      clforge_bench_table_cellf(t, "%.2f", r->unfused_ms / r->median_ms);
    } else {
      clforge_bench_table_cell(t, "-");
      clforge_bench_table_cell(t, "-");
    }
  }
  clforge_bench_table_cell(t, r->kernel);
  clforge_bench_table_end_row(t);
}

int clforge_bench_train_main(int argc, char **argv) {
  tb_options o;
  memset(&o, 0, sizeof o);
  o.ce = o.opt = o.attn = 1;
  o.cli = clforge_bench_cli_for("train", clforge_bench_train_help, CLFORGE_BENCH_OPT_TIMED | CLFORGE_BENCH_OPT_QUICK,
                                DEFAULT_RUNS, DEFAULT_WARMUP);
  int rc = clforge_bench_cli_parse(&o.cli, argc, argv, tb_option, &o);
  if (rc >= 0) return rc;
  if (o.cli.quick) {
    if (!o.cli.runs_given) o.cli.runs = MIN_RUNS;
    o.cli.warmup = 1;
  }
  if (o.ndtypes == 0) o.dtypes[0] = CLFORGE_F32, o.dtypes[1] = CLFORGE_BF16, o.dtypes[2] = CLFORGE_F16, o.ndtypes = 3;
  /* a language model's logits (1024 tokens of a 32000 vocabulary), a
   * classifier's, few classes; 16M parameters */
  const size_t rows[3] = {1024, 256, 8192}, ns[3] = {32000, 1000, 10}, qrows[2] = {50, 9}, qns[2] = {300, 1000};
  o.nce = o.cli.quick ? 2 : 3;
  for (int i = 0; i < o.nce; ++i) o.ce_rows[i] = o.cli.quick ? qrows[i] : rows[i], o.ce_n[i] = o.cli.quick ? qns[i] : ns[i];
  o.opt_elems = o.cli.quick ? (size_t)NTENSORS * 1000 : (size_t)16 << 20;
  tb_env env;
  memset(&env, 0, sizeof env);
  env.o = &o;
  if (clforge_bench_session_open(&env.s, "train", o.cli.peak)) return 1;
  env.s.peak.gflops = env.s.peak.host_gflops = 0; /* bandwidth only */
  if (!o.cli.json) {
    clforge_bench_print_title(&env.s);
    printf("%d runs after %d warm-up; median and p95 in ms; GB/s of the bytes each op must move\n", o.cli.runs,
           o.cli.warmup);
    clforge_bench_print_peak(&env.s, NULL, "% bw");
    printf("\n");
    clforge_bench_table *t = &env.table;
    clforge_bench_table_init(t, stdout);
    clforge_bench_table_column(t, "op", 13, 1);
    clforge_bench_table_column(t, "shape", 17, 1);
    clforge_bench_table_column(t, "dtype", 5, 1);
    clforge_bench_table_result_columns(t, 0);
    clforge_bench_table_column(t, "% bw", 6, 0);
    clforge_bench_table_column(t, "unfused ms", 10, 0);
    clforge_bench_table_column(t, "x", 5, 0);
    clforge_bench_table_column(t, "kernel (parameters)", 0, 1);
  }
  int failed = 0;
  for (int d = 0; d < o.ndtypes; ++d) {
    tb_row r;
    for (int i = 0; o.ce && i < o.nce; ++i) {
      measure_ce(&env, o.ce_rows[i], o.ce_n[i], o.dtypes[d], &r);
      if (!r.ok) ++failed, clforge_bench_warn(&env.s, "%s %s %s: %s", r.op, r.shape, clforge_dtype_name(r.dtype), r.error);
      emit(&env, &r);
    }
    if (o.opt) {
      measure_opt(&env, o.opt_elems, o.dtypes[d], &r);
      if (!r.ok) ++failed, clforge_bench_warn(&env.s, "%s %s %s: %s", r.op, r.shape, clforge_dtype_name(r.dtype), r.error);
      emit(&env, &r);
    }
    for (int causal = 0; o.attn && causal < 2; ++causal) {
      measure_attn(&env, o.cli.quick ? 2 : 8, o.cli.quick ? 96 : 2048, o.cli.quick ? 32 : 64, causal, o.dtypes[d], &r);
      if (!r.ok) ++failed, clforge_bench_warn(&env.s, "%s %s %s: %s", r.op, r.shape, clforge_dtype_name(r.dtype), r.error);
      emit(&env, &r);
    }
  }
  if (!o.cli.json) clforge_bench_table_finish(&env.table);
  clforge_bench_session_close(&env.s);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
