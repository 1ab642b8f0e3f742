/* The optimizer step for the tuner: one tensor of a class's size with
 * random weights, gradients and moments, the reference step on the host,
 * one run from the same inputs with the candidate, the check of the
 * parameters and master weights. The "flops" of a shape are its bytes
 * moved at f32 (AdamW: 7 reads and writes of 4 bytes per element), so the
 * rate the tuner records reads as GB/s. Layouts name the kind: "adamw",
 * "sgd" (momentum 0.9). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../families/optimizer.h"
#include "../ref/compare.h"
#include "../tuning/tune_op.h"
#include "tune_common.h"
#include "../core/validate.h"

typedef struct {
  clforge_context ctx;
  clforge_optimizer_desc desc;
  clforge_optimizer_tensor t;
  cl_mem state;
  size_t count;
  void *param0, *grad;          /* the inputs as stored */
  float *master0, *m0, *v0;
  float *want_master;
  void *want_param;
} opt_problem;

static void opt_teardown(void *state) {
  opt_problem *p = state;
  if (!p) return;
  const cl_mem m[] = {p->t.param, p->t.master, p->t.grad, p->t.m, p->t.v, p->state};
  clforge__tune_release(m, sizeof m / sizeof m[0]);
  free(p->param0), free(p->grad), free(p->master0), free(p->m0), free(p->v0), free(p->want_master);
  free(p->want_param);
  free(p);
}

static const clforge_train_state start = {1.0f, 0, 0, 3}; /* the fourth step: bias correction at work */

static clforge_status upload(opt_problem *p, cl_mem b, const void *host, size_t bytes) {
  cl_int err = clEnqueueWriteBuffer(p->ctx->queue, b, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(p->ctx, err, "tune optimizer: clEnqueueWriteBuffer");
}

static clforge_status opt_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                                void **state) {
  *state = NULL;
  clforge_dtype t[3];
  char key[32];
  snprintf(key, sizeof key, "%s,f32", dtypes); /* "param,grad" + a third for the parser */
  const int adamw = !strcmp(layout, "adamw");
  if (clforge__tune_parse_dtypes(key, t) || (!adamw && strcmp(layout, "sgd")))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune optimizer: bad dtypes \"%s\" or layout \"%s\"", dtypes,
                         layout);
  opt_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune optimizer: no memory");
  p->ctx = ctx;
  p->count = shape[0];
  p->desc = (clforge_optimizer_desc){.kind = adamw ? CLFORGE_OPTIMIZER_ADAMW : CLFORGE_OPTIMIZER_SGD, .lr = 1e-3f,
                                     .momentum = adamw ? 0.0f : 0.9f, .weight_decay = 0.01f};
  const size_t n = p->count, ps = clforge_dtype_size(t[0]), gs = clforge_dtype_size(t[1]);
  p->t.count = n, p->t.param_type = t[0], p->t.grad_type = t[1];
  p->master0 = clforge__random_storage(n, CLFORGE_F32, 3);
  p->grad = clforge__random_storage(n, t[1], 4);
  p->m0 = clforge__random_storage(n, CLFORGE_F32, 5);
  p->v0 = clforge__random_storage(n, CLFORGE_F32, 6);
  p->param0 = malloc(n * ps), p->want_param = malloc(n * ps), p->want_master = malloc(n * 4);
  clforge_status st = p->master0 && p->grad && p->m0 && p->v0 && p->param0 && p->want_param && p->want_master
                          ? CLFORGE_SUCCESS
                          : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune optimizer: no memory");
  if (st == CLFORGE_SUCCESS) {
    for (size_t i = 0; i < n; ++i) p->v0[i] *= p->v0[i]; /* a second moment is >= 0 */
    clforge_ref_convert(n, p->master0, CLFORGE_F32, p->param0, t[0]);
    float *m = malloc(n * 4), *v = malloc(n * 4);
    if (!m || !v) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune optimizer: no memory");
    if (st == CLFORGE_SUCCESS) {
      memcpy(p->want_master, p->master0, n * 4), memcpy(m, p->m0, n * 4), memcpy(v, p->v0, n * 4);
      memcpy(p->want_param, p->param0, n * ps);
      clforge_ref_optimizer_tensor rt = {n, p->want_param, t[0] == CLFORGE_F32 ? NULL : p->want_master, p->grad, m,
                                         adamw ? v : NULL, t[0], t[1]};
      if (t[0] == CLFORGE_F32) rt.param = p->want_master; /* f32: the params are the master weights */
      clforge_train_state s = start;
      st = clforge_ref_optimizer_step(&p->desc, 1, &rt, &s);
      if (t[0] == CLFORGE_F32) memcpy(p->want_param, p->want_master, n * 4);
    }
    free(m), free(v);
  }
  cl_int err = CL_SUCCESS;
  cl_mem *bufs[6] = {&p->t.param, &p->t.master, &p->t.grad, &p->t.m, &p->t.v, &p->state};
  const size_t sizes[6] = {n * ps, t[0] == CLFORGE_F32 ? 0 : n * 4, n * gs, n * 4, adamw ? n * 4 : 0,
                           sizeof(clforge_train_state)};
  for (int i = 0; i < 6 && st == CLFORGE_SUCCESS && err == CL_SUCCESS; ++i)
    if (sizes[i]) *bufs[i] = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, sizes[i], NULL, &err);
  if (st == CLFORGE_SUCCESS && err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune optimizer: clCreateBuffer");
  if (st == CLFORGE_SUCCESS) st = upload(p, p->t.grad, p->grad, n * gs);
  return clforge__tune_setup_done(st, p, opt_teardown, state);
}

static int opt_applicable(const clforge__family *f, const int *v, const size_t *shape) {
  (void)f;
  /* at least a few work-groups */
  return (size_t)v[OPT_WG] * (size_t)v[OPT_EPI] * 4 <= shape[0];
}

static clforge_status opt_run(void *state) {
  opt_problem *p = state;
  return clforge_optimizer_step(p->ctx, &p->desc, 1, &p->t, p->state, 0, NULL, NULL);
}

/* The inputs again (the timed runs moved them on), the params poisoned. */
static void opt_prepare(void *state) {
  opt_problem *p = state;
  const size_t n = p->count;
  if (p->t.master) upload(p, p->t.master, p->master0, n * 4);
  else upload(p, p->t.param, p->master0, n * 4);
  if (p->t.master) clforge__tune_poison(p->ctx, p->t.param, n * clforge_dtype_size(p->t.param_type));
  upload(p, p->t.m, p->m0, n * 4);
  if (p->t.v) upload(p, p->t.v, p->v0, n * 4);
  upload(p, p->state, &start, sizeof start);
}

static clforge_status opt_check(void *state, int corrupt, char *why, size_t why_cap) {
  opt_problem *p = state;
  const size_t n = p->count, ps = clforge_dtype_size(p->t.param_type);
  void *raw = malloc(n * ps);
  float *got = malloc(n * 4), *want = malloc(n * 4);
  clforge_status st = raw && got && want ? CLFORGE_SUCCESS
                                         : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune optimizer: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(p->ctx, p->t.param, 0, n * ps, raw);
  if (st == CLFORGE_SUCCESS) {
    clforge_ref_convert(n, raw, p->t.param_type, got, CLFORGE_F32);
    clforge_ref_convert(n, p->want_param, p->t.param_type, want, CLFORGE_F32);
    if (corrupt) got[0] = 12345.0f; /* tests only */
    st = clforge__validate(p->ctx, "tune optimizer", CLFORGE_F32, n, got, want,
                           clforge__tolerance_for(p->t.param_type));
  }
  if (st == CLFORGE_SUCCESS && p->t.master) {
    st = clforge__read_buffer(p->ctx, p->t.master, 0, n * 4, got);
    if (st == CLFORGE_SUCCESS)
      st = clforge__validate(p->ctx, "tune optimizer (master)", CLFORGE_F32, n, got, p->want_master,
                             clforge__tolerance_for(CLFORGE_F32));
  }
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(raw), free(got), free(want);
  return st;
}

/* Bytes moved at f32: AdamW reads param, grad, m, v and writes param, m, v. */
static double opt_flops(const size_t *s) { return (double)s[0] * 28.0; }

static int opt_variant(const char *dtypes, const char *layout, const size_t *shape) {
  (void)dtypes, (void)layout, (void)shape;
  return 0;
}

/* f16 and bf16 weights with f32 masters and 16-bit gradients (mixed
 * precision), and f32 throughout. */
const clforge__tune_op clforge__tune_optimizer = {
    .op = "optimizer",
    .dtypes = (const char *const[]){"f32,f32", "bf16,bf16", "f16,f16", NULL},
    .layouts = (const char *const[]){"adamw", "sgd", NULL},
    .peer = NULL,
    .ndims = CLFORGE_OPT_NDIMS,
    .setup = opt_setup,
    .applicable = opt_applicable,
    .run = opt_run,
    .prepare = opt_prepare,
    .check = opt_check,
    .flops = opt_flops,
    .variant = opt_variant,
    .teardown = opt_teardown,
};
