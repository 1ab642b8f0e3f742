/* Cross-entropy for the tuner: a shape class's rows of random logits and
 * targets (a few ignored), the mean loss and dlogits from the reference,
 * one run with the candidate, the check of both. The "flops" of a shape are
 * its bytes moved at f32 (logits read, dlogits written), so the rate the
 * tuner records reads as GB/s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../desc/cross_entropy_desc.h"
#include "../core/error.h"
#include "../families/cross_entropy.h"
#include "../families/families.h"
#include "../ref/compare.h"
#include "../tuning/tune_op.h"
#include "../core/validate.h"
#include "tune_common.h"

typedef struct {
  clforge_context ctx;
  clforge_cross_entropy_desc desc;
  clforge__ce d;
  cl_mem logits, targets, loss, dlogits;
  float want_loss;
  float *want;  /* dlogits widened to f32 */
} ce_problem;

static void ce_teardown(void *state) {
  ce_problem *p = state;
  if (!p) return;
  const cl_mem m[] = {p->logits, p->targets, p->loss, p->dlogits};
  clforge__tune_release(m, sizeof m / sizeof m[0]);
  free(p->want);
  free(p);
}

static clforge_status ce_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                               void **state) {
  *state = NULL;
  ce_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune cross_entropy: no memory");
  p->ctx = ctx;
  p->desc.rows = shape[0], p->desc.n = shape[1];
  p->desc.label_smoothing = 0.1f; /* the common training setting: every term of the formula runs */
  if (clforge__tune_row_key(dtypes, layout, &p->desc.logits_type, &p->desc.dlogits_type)) {
    free(p);
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune cross_entropy: bad dtypes \"%s\" or layout \"%s\"",
                         dtypes, layout);
  }
  clforge_status st = clforge__ce_resolve(ctx, &p->desc, &p->d);
  if (st != CLFORGE_SUCCESS) {
    free(p);
    return st;
  }
  const clforge__ce *d = &p->d;
  const size_t count = d->rows * d->n, zs = clforge_dtype_size(d->logits.type), ds = clforge_dtype_size(d->dlogits.type);
  float *hz = clforge__random_storage(count, CLFORGE_F32, 5);
  void *sz = malloc(count * zs), *sd = malloc(count * ds);
  int32_t *t = malloc(d->rows * sizeof *t);
  p->want = malloc(count * sizeof *p->want);
  if (!hz || !sz || !sd || !t || !p->want) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune cross_entropy: no memory");
  if (st == CLFORGE_SUCCESS) {
    for (size_t i = 0; i < count; ++i) hz[i] *= 8.0f;
    clforge_ref_convert(count, hz, CLFORGE_F32, sz, d->logits.type);
    uint32_t s = 12345u;
    for (size_t r = 0; r < d->rows; ++r) {
      s = s * 1664525u + 1013904223u;
      t[r] = r % 17 == 5 ? -100 : (int32_t)((s >> 8) % d->n);
    }
    st = clforge_ref_cross_entropy(&p->desc, sz, t, &p->want_loss, sd, NULL);
  }
  if (st == CLFORGE_SUCCESS) clforge_ref_convert(count, sd, d->dlogits.type, p->want, CLFORGE_F32);
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    const cl_mem_flags ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    p->logits = clCreateBuffer(ctx->cl_ctx, ro, count * zs, sz, &err);
    if (err == CL_SUCCESS) p->targets = clCreateBuffer(ctx->cl_ctx, ro, d->rows * sizeof *t, t, &err);
    if (err == CL_SUCCESS) p->loss = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, sizeof(float), NULL, &err);
    if (err == CL_SUCCESS) p->dlogits = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, count * ds, NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune cross_entropy: clCreateBuffer");
  }
  free(hz), free(sz), free(sd), free(t);
  return clforge__tune_setup_done(st, p, ce_teardown, state);
}

static clforge_status ce_run(void *state) {
  ce_problem *p = state;
  return clforge_cross_entropy(p->ctx, &p->desc, p->logits, p->targets, p->loss, p->dlogits, NULL, 0, NULL, NULL);
}

static void ce_prepare(void *state) {
  ce_problem *p = state;
  clforge__tune_poison(p->ctx, p->dlogits, p->d.rows * p->d.n * clforge_dtype_size(p->d.dlogits.type));
  clforge__tune_poison(p->ctx, p->loss, sizeof(float));
}

static clforge_status ce_check(void *state, int corrupt, char *why, size_t why_cap) {
  ce_problem *p = state;
  const size_t count = p->d.rows * p->d.n, ds = clforge_dtype_size(p->d.dlogits.type);
  void *raw = malloc(count * ds);
  float *got = malloc(count * sizeof *got), loss = 0;
  clforge_status st = raw && got ? CLFORGE_SUCCESS
                                 : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune cross_entropy: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(p->ctx, p->dlogits, 0, count * ds, raw);
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(p->ctx, p->loss, 0, sizeof loss, &loss);
  if (st == CLFORGE_SUCCESS) {
    clforge_ref_convert(count, raw, p->d.dlogits.type, got, CLFORGE_F32);
    if (corrupt) got[0] = 12345.0f; /* tests only */
    st = clforge__validate(p->ctx, "tune cross_entropy", CLFORGE_F32, count, got, p->want,
                           clforge__tolerance_for(p->d.dlogits.type));
  }
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(p->ctx, "tune cross_entropy (loss)", CLFORGE_F32, 1, &loss, &p->want_loss,
                           clforge__tolerance_for(CLFORGE_F32));
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(raw);
  free(got);
  return st;
}

/* f32 logits and gradients, and bf16 (mixed-precision training). */
const clforge__tune_op clforge__tune_cross_entropy = {
    .op = "cross_entropy",
    .dtypes = (const char *const[]){"f32,f32", "bf16,bf16", NULL},
    .layouts = (const char *const[]){"rows", NULL},
    .peer = NULL,
    .ndims = CLFORGE_CE_NDIMS,
    .setup = ce_setup,
    .applicable = clforge__tune_row_applicable,
    .run = ce_run,
    .prepare = ce_prepare,
    .check = ce_check,
    .flops = clforge__tune_row_bytes, /* logits read, dlogits written */
    .variant = clforge__tune_row_variant,
    .teardown = ce_teardown,
};
