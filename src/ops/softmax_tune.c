/* Softmax and its backward pass for the tuner: a shape class's rows of
 * random inputs (logits; or probabilities and gradients), the reference on
 * sampled rows, one run with the candidate, the check. The "flops" of a
 * shape are its bytes moved (read and written), so the rate the tuner
 * records reads as GB/s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../families/softmax.h"
#include "../families/softmax_backward.h"
#include "../families/softmax_classes.h"
#include "../ref/compare.h"
#include "../desc/softmax_desc.h"
#include "../tuning/tune_op.h"
#include "../core/validate.h"
#include "tune_common.h"

/* Rows checked against the reference per candidate: spread over all of y
 * (every residue of the rows per work-group), and the last row. */
enum { CHECKED_ROWS = 64 };

typedef struct {
  clforge_context ctx;
  int backward;                 /* clforge_softmax_backward: in = y, out = dx */
  clforge_softmax_desc desc;
  clforge__softmax d;
  const clforge__softmax_tensor *out_t; /* y, or the backward's dx (x) */
  cl_mem in, dy, out;
  size_t nrows;                 /* rows checked */
  size_t rows[CHECKED_ROWS];
  float *want;                  /* nrows x n, widened from y's type */
} softmax_problem;

/* "f32,f16" -> x and y types; backward "y,dy,dx". */
static int parse_key(int backward, const char *dtypes, const char *layout, clforge_softmax_desc *d) {
  if (backward) {
    clforge_dtype t[3];
    if (clforge__tune_parse_dtypes(dtypes, t) || strcmp(layout, "rows")) return -1;
    d->y_type = t[0], d->dy_type = t[1], d->x_type = t[2];
    return 0;
  }
  return clforge__tune_row_key(dtypes, layout, &d->x_type, &d->y_type);
}

static void softmax_teardown(void *state) {
  softmax_problem *p = state;
  if (!p) return;
  const cl_mem m[] = {p->in, p->dy, p->out};
  clforge__tune_release(m, sizeof m / sizeof m[0]);
  free(p->want);
  free(p);
}

/* The inputs as stored: logits of a few units ([-1, 1) scaled up by 8; the
 * scale takes it back), or backward y in [0, 2/n) (rows that sum to about
 * 1) and dy in [-1, 1). */
static clforge_status make_inputs(softmax_problem *p, void **sin, void **sdy) {
  const clforge__softmax *d = &p->d;
  const size_t count = d->rows * d->n;
  const clforge__softmax_tensor *in = p->backward ? &d->y : &d->x;
  float *h = clforge__random_storage(count, CLFORGE_F32, 7);
  *sin = malloc(count * clforge_dtype_size(in->type));
  *sdy = p->backward ? clforge__random_storage(count, d->dy.type, 11) : NULL;
  clforge_status st = h && *sin && (*sdy || !p->backward)
                          ? CLFORGE_SUCCESS
                          : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune %s: no memory", d->op);
  if (st == CLFORGE_SUCCESS) {
    const float k = p->backward ? 1.0f / (float)d->n : 64.0f;
    for (size_t i = 0; i < count; ++i) h[i] = p->backward ? (h[i] + 1.0f) * k : h[i] * k;
    clforge_ref_convert(count, h, CLFORGE_F32, *sin, in->type);
  }
  free(h);
  return st;
}

static clforge_status setup(int backward, clforge_context ctx, const char *dtypes, const char *layout,
                            const size_t *shape, void **state) {
  *state = NULL;
  softmax_problem *p = calloc(1, sizeof *p);
  const char *op = backward ? "softmax_backward" : "softmax";
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune %s: no memory", op);
  p->ctx = ctx;
  p->backward = backward;
  p->desc.rows = shape[0], p->desc.n = shape[1];
  /* the attention peer's call: scaled scores */
  p->desc.scale = 0.125f;
  if (parse_key(backward, dtypes, layout, &p->desc)) {
    free(p);
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune %s: bad dtypes \"%s\" or layout \"%s\"", op, dtypes,
                         layout);
  }
  clforge_status st = backward ? clforge__softmax_resolve_backward(ctx, &p->desc, &p->d)
                               : clforge__softmax_resolve(ctx, &p->desc, 0, &p->d);
  if (st != CLFORGE_SUCCESS) {
    free(p);
    return st;
  }
  const clforge__softmax *d = &p->d;
  p->out_t = backward ? &d->x : &d->y;
  const clforge__softmax_tensor *in = backward ? &d->y : &d->x;
  const size_t count = d->rows * d->n, os = clforge_dtype_size(p->out_t->type);
  p->nrows = d->rows < CHECKED_ROWS ? d->rows : CHECKED_ROWS;
  for (size_t i = 0; i < p->nrows; ++i) {
    const size_t step = d->rows / p->nrows;
    p->rows[i] = i == p->nrows - 1 ? d->rows - 1 : i * step + i % step;
  }
  void *sin = NULL, *sdy = NULL, *row = malloc(d->n * os);
  p->want = malloc(p->nrows * d->n * sizeof *p->want);
  st = row && p->want ? make_inputs(p, &sin, &sdy) : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune %s: no memory", op);
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < p->nrows; ++r) {
    clforge_softmax_desc one = p->desc;
    one.rows = 1, one.x_offset = one.y_offset = one.dy_offset = p->rows[r] * d->n;
    if (backward) one.x_offset = 0;
    else one.y_offset = 0;
    st = backward ? clforge_ref_softmax_backward(&one, sin, sdy, row) : clforge_ref_softmax(&one, sin, NULL, row);
    if (st == CLFORGE_SUCCESS) clforge_ref_convert(d->n, row, p->out_t->type, p->want + r * d->n, CLFORGE_F32);
  }
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->in = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, count * clforge_dtype_size(in->type),
                           sin, &err);
    if (err == CL_SUCCESS && backward)
      p->dy = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             count * clforge_dtype_size(d->dy.type), sdy, &err);
    if (err == CL_SUCCESS) p->out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, count * os, NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune softmax: clCreateBuffer");
  }
  free(sin);
  free(sdy);
  free(row);
  return clforge__tune_setup_done(st, p, softmax_teardown, state);
}

static clforge_status softmax_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                                    void **state) {
  return setup(0, ctx, dtypes, layout, shape, state);
}

static clforge_status softmax_backward_setup(clforge_context ctx, const char *dtypes, const char *layout,
                                             const size_t *shape, void **state) {
  return setup(1, ctx, dtypes, layout, shape, state);
}

static clforge_status softmax_run(void *state) {
  softmax_problem *p = state;
  return p->backward ? clforge_softmax_backward(p->ctx, &p->desc, p->in, p->dy, p->out, 0, NULL, NULL)
                     : clforge_softmax(p->ctx, &p->desc, p->in, NULL, p->out, 0, NULL, NULL);
}

static void softmax_prepare(void *state) {
  softmax_problem *p = state;
  clforge__tune_poison(p->ctx, p->out, p->d.rows * p->d.n * clforge_dtype_size(p->out_t->type));
}

static clforge_status softmax_check(void *state, int corrupt, char *why, size_t why_cap) {
  softmax_problem *p = state;
  const size_t n = p->d.n, ys = clforge_dtype_size(p->out_t->type);
  unsigned char *raw = malloc(n * ys);
  float *got = malloc(p->nrows * n * sizeof *got);
  clforge_status st = raw && got ? CLFORGE_SUCCESS
                                 : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune %s: no memory to check", p->d.op);
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < p->nrows; ++r) {
    st = clforge__read_buffer(p->ctx, p->out, p->rows[r] * n * ys, n * ys, raw);
    if (st == CLFORGE_SUCCESS) clforge_ref_convert(n, raw, p->out_t->type, got + r * n, CLFORGE_F32);
  }
  if (st == CLFORGE_SUCCESS && corrupt) got[0] = 12345.0f; /* tests only */
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(p->ctx, p->backward ? "tune softmax_backward" : "tune softmax", CLFORGE_F32, p->nrows * n,
                           got, p->want, clforge__tolerance_for(p->out_t->type));
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(raw);
  free(got);
  return st;
}

/* The backward's bytes moved at f32 storage (y and dy read, dx written), as
 * clforge__tune_row_bytes counts the forward's. */
static double softmax_backward_flops(const size_t *s) { return (double)s[0] * (double)s[1] * 12.0; }

/* f32 in and out, and f16 in and out (the storage halves the bytes, which
 * moves the balance between memory and arithmetic). */
const clforge__tune_op clforge__tune_softmax = {
    .op = "softmax",
    .dtypes = (const char *const[]){"f32,f32", "f16,f16", NULL},
    .layouts = (const char *const[]){"rows", NULL},
    .peer = NULL,
    .ndims = CLFORGE_SOFTMAX_NDIMS,
    .setup = softmax_setup,
    .applicable = clforge__tune_row_applicable,
    .run = softmax_run,
    .prepare = softmax_prepare,
    .check = softmax_check,
    .flops = clforge__tune_row_bytes,
    .variant = clforge__tune_row_variant,
    .teardown = softmax_teardown,
};

/* f32 throughout, and bf16 throughout (what mixed-precision training
 * stores activations and gradients in). */
const clforge__tune_op clforge__tune_softmax_backward = {
    .op = "softmax_backward",
    .dtypes = (const char *const[]){"f32,f32,f32", "bf16,bf16,bf16", NULL},
    .layouts = (const char *const[]){"rows", NULL},
    .peer = NULL,
    .ndims = CLFORGE_SOFTMAX_NDIMS,
    .setup = softmax_backward_setup,
    .applicable = clforge__tune_row_applicable,
    .run = softmax_run,
    .prepare = softmax_prepare,
    .check = softmax_check,
    .flops = softmax_backward_flops,
    .variant = clforge__tune_row_variant,
    .teardown = softmax_teardown,
};
