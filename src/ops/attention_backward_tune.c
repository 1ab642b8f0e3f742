/* Attention backward for the tuner: a shape class's problem with random
 * Q, K, V and dO, the forward (O, LSE) and the backward (dQ, dK, dV) by the
 * CPU reference once, one run of clforge_attention_backward with the
 * candidate, the check of all three gradients. The classes are the short
 * prefill ones (S 512): the reference's cost is the whole backward in
 * double, once per class. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/attention_classes.h"
#include "../families/families.h"
#include "../ref/compare.h"
#include "../tuning/tune_op.h"
#include "tune_common.h"
#include "../core/validate.h"
#include "attention_algo.h"
#include "attention_tune.h"

typedef struct {
  clforge_context ctx;
  clforge_attention_desc desc; /* kind BACKWARD */
  clforge__attn d;
  cl_mem q, k, v, o, lse, d_o, out[3]; /* out: dQ, dK, dV */
  size_t n[3];                         /* their elements */
  float *want[3];
} bwd_problem;

static void bwd_teardown(void *state) {
  bwd_problem *p = state;
  if (!p) return;
  const cl_mem all[] = {p->q, p->k, p->v, p->o, p->lse, p->d_o, p->out[0], p->out[1], p->out[2]};
  clforge__tune_release(all, sizeof all / sizeof all[0]);
  for (int i = 0; i < 3; ++i) free(p->want[i]);
  free(p);
}

static clforge_status bwd_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                                void **state) {
  *state = NULL;
  bwd_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune attention_backward: no memory");
  p->ctx = ctx;
  clforge__attn_tune_shape(shape, &p->desc);
  if (clforge__attn_tune_parse_key(dtypes, layout, &p->desc) || p->desc.q_type != CLFORGE_F32 || p->desc.kv_type != CLFORGE_F32 ||
      p->desc.o_type != CLFORGE_F32) {
    free(p);
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune attention_backward: dtypes \"%s\" or layout \"%s\"",
                         dtypes, layout);
  }
  const clforge_attention_buffers with_lse = {.lse = (cl_mem)1}; /* resolves LSE's tensor; never used as a buffer */
  clforge_status st = clforge__attn_resolve(ctx, &p->desc, &with_lse, &p->d);
  if (st != CLFORGE_SUCCESS) {
    free(p);
    return st;
  }
  const clforge__attn *d = &p->d;
  float *hq = clforge__random_storage(d->q.extent, CLFORGE_F32, 11), *hk = clforge__random_storage(d->k.extent, CLFORGE_F32, 12);
  float *hv = clforge__random_storage(d->v.extent, CLFORGE_F32, 13), *hdo = clforge__random_storage(d->o.extent, CLFORGE_F32, 14);
  float *ho = calloc(d->o.extent + 1, sizeof *ho), *hl = calloc(d->lse.extent + 1, sizeof *hl);
  p->n[0] = d->q.extent, p->n[1] = d->k.extent, p->n[2] = d->v.extent;
  for (int i = 0; i < 3; ++i) p->want[i] = calloc(p->n[i] + 1, sizeof(float));
  if (!hq || !hk || !hv || !hdo || !ho || !hl || !p->want[0] || !p->want[1] || !p->want[2])
    st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune attention_backward: no memory for inputs");
  clforge_attention_desc fwd = p->desc;
  p->desc.kind = CLFORGE_ATTENTION_BACKWARD;
  const clforge_attention_grads g = {0};
  if (st == CLFORGE_SUCCESS) st = clforge_ref_attention(&fwd, hq, hk, hv, NULL, NULL, NULL, ho, hl);
  if (st == CLFORGE_SUCCESS)
    st = clforge_ref_attention_backward(&p->desc, &g, hq, hk, hv, NULL, NULL, NULL, hdo, p->want[0], p->want[1],
                                        p->want[2]);
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->q = clforge__attn_tune_copy(ctx, hq, d->q.extent * 4, &err), p->k = clforge__attn_tune_copy(ctx, hk, d->k.extent * 4, &err);
    p->v = clforge__attn_tune_copy(ctx, hv, d->v.extent * 4, &err), p->o = clforge__attn_tune_copy(ctx, ho, d->o.extent * 4, &err);
    p->lse = clforge__attn_tune_copy(ctx, hl, d->lse.extent * 4, &err), p->d_o = clforge__attn_tune_copy(ctx, hdo, d->o.extent * 4, &err);
    for (int i = 0; i < 3 && err == CL_SUCCESS; ++i)
      p->out[i] = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, p->n[i] * 4, NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune attention_backward: clCreateBuffer");
  }
  free(hq), free(hk), free(hv), free(hdo), free(ho), free(hl);
  return clforge__tune_setup_done(st, p, bwd_teardown, state);
}

static clforge_status bwd_run(void *state) {
  bwd_problem *p = state;
  const clforge_attention_buffers ex = {.lse = p->lse};
  const clforge_attention_grads g = {0};
  return clforge_attention_backward(p->ctx, &p->desc, &g, p->q, p->k, p->v, p->o, p->d_o, &ex, p->out[0], p->out[1],
                                    p->out[2], 0, NULL, NULL);
}

static void bwd_prepare(void *state) {
  bwd_problem *p = state;
  for (int i = 0; i < 3; ++i) clforge__tune_poison(p->ctx, p->out[i], p->n[i] * 4);
}

static clforge_status bwd_check(void *state, int corrupt, char *why, size_t why_cap) {
  bwd_problem *p = state;
  static const char *const names[3] = {"tune attention_backward (dq)", "tune attention_backward (dk)",
                                       "tune attention_backward (dv)"};
  clforge_status st = CLFORGE_SUCCESS;
  /* f32 exp and sums in another order than the double reference's */
  clforge__tolerance t = clforge__tolerance_for(CLFORGE_F32);
  t.nrmse *= 4, t.max_abs_scaled *= 4;
  for (int i = 0; i < 3 && st == CLFORGE_SUCCESS; ++i) {
    float *got = malloc(p->n[i] * 4 + 4);
    st = got ? clforge__read_buffer(p->ctx, p->out[i], 0, p->n[i] * 4, got)
             : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune attention_backward: no memory");
    if (st == CLFORGE_SUCCESS && corrupt && i == 0) got[0] = 12345.0f; /* tests only */
    if (st == CLFORGE_SUCCESS) st = clforge__validate(p->ctx, names[i], CLFORGE_F32, p->n[i], got, p->want[i], t);
    free(got);
  }
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  return st;
}

/* The backward's five products against the forward's two. */
static double bwd_flops(const size_t *s) {
  clforge_attention_desc desc = {0};
  clforge__attn_tune_shape(s, &desc);
  clforge__attn d;
  return clforge__attn_resolve(NULL, &desc, NULL, &d) == CLFORGE_SUCCESS ? 2.5 * d.flops : 0.0;
}

/* f32 (training's master precision; the 16-bit mixes widen into the same blocks). */
const clforge__tune_op clforge__tune_attention_backward = {
    .op = "attention_backward",
    .dtypes = (const char *const[]){"f32,f32,f32", NULL},
    .layouts = (const char *const[]){"bhsd", NULL},
    .peer = NULL,
    .ndims = CLFORGE_ATTN_NDIMS,
    .setup = bwd_setup,
    .applicable = clforge__tune_any_applicable,
    .run = bwd_run,
    .prepare = bwd_prepare,
    .check = bwd_check,
    .flops = bwd_flops,
    .variant = clforge__attn_tune_variant,
    .teardown = bwd_teardown,
};
