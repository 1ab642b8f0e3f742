/* Softmax for the tuner: a shape class's rows of random logits, the
 * reference on sampled rows, one run with the candidate, the check. The
 * "flops" of a shape are its bytes moved (x read, y written), so the rate
 * the tuner records reads as GB/s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../context.h"
#include "../error.h"
#include "../kernels/families.h"
#include "../kernels/softmax.h"
#include "../kernels/softmax_classes.h"
#include "../ref/compare.h"
#include "../softmax_desc.h"
#include "../tuning/tune_op.h"
#include "../validate.h"

/* Rows checked against the reference per candidate: spread over all of y
 * (every residue of the rows per work-group), and the last row. */
enum { CHECKED_ROWS = 64 };

typedef struct {
  clforge_context ctx;
  clforge_softmax_desc desc;
  clforge__softmax d;
  cl_mem x, y;
  size_t nrows;                 /* rows checked */
  size_t rows[CHECKED_ROWS];
  float *want;                  /* nrows x n, widened from y's type */
} softmax_problem;

/* "f32,f16" -> x and y types. */
static int parse_key(const char *dtypes, const char *layout, clforge_softmax_desc *d) {
  const char *comma = strchr(dtypes, ',');
  char a[8] = "", b[8] = "";
  if (!comma || (size_t)(comma - dtypes) >= sizeof a || strlen(comma + 1) >= sizeof b || strcmp(layout, "rows"))
    return -1;
  memcpy(a, dtypes, (size_t)(comma - dtypes));
  memcpy(b, comma + 1, strlen(comma + 1));
  return clforge_dtype_from_name(a, &d->x_type) == CLFORGE_SUCCESS &&
                 clforge_dtype_from_name(b, &d->y_type) == CLFORGE_SUCCESS
             ? 0
             : -1;
}

static void softmax_teardown(void *state) {
  softmax_problem *p = state;
  if (!p) return;
  if (p->x) clReleaseMemObject(p->x);
  if (p->y) clReleaseMemObject(p->y);
  free(p->want);
  free(p);
}

static clforge_status softmax_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                                    void **state) {
  *state = NULL;
  softmax_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune softmax: no memory");
  p->ctx = ctx;
  p->desc.rows = shape[0], p->desc.n = shape[1];
  /* the attention peer's call: scaled scores */
  p->desc.scale = 0.125f;
  if (parse_key(dtypes, layout, &p->desc)) {
    free(p);
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune softmax: bad dtypes \"%s\" or layout \"%s\"", dtypes,
                         layout);
  }
  clforge_status st = clforge__softmax_resolve(ctx, &p->desc, 0, &p->d);
  if (st != CLFORGE_SUCCESS) {
    free(p);
    return st;
  }
  const clforge__softmax *d = &p->d;
  const size_t count = d->rows * d->n, ys = clforge_dtype_size(d->y.type);
  p->nrows = d->rows < CHECKED_ROWS ? d->rows : CHECKED_ROWS;
  for (size_t i = 0; i < p->nrows; ++i) {
    const size_t step = d->rows / p->nrows;
    p->rows[i] = i == p->nrows - 1 ? d->rows - 1 : i * step + i % step;
  }
  /* logits of a few units: [-1, 1) scaled up by 8 (the scale takes it back) */
  float *hx = clforge__random_storage(count, CLFORGE_F32, 7);
  void *sx = malloc(count * clforge_dtype_size(d->x.type)), *row = malloc(d->n * ys);
  p->want = malloc(p->nrows * d->n * sizeof *p->want);
  if (!hx || !sx || !row || !p->want) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune softmax: no memory");
  if (st == CLFORGE_SUCCESS) {
    for (size_t i = 0; i < count; ++i) hx[i] *= 64.0f;
    clforge_ref_convert(count, hx, CLFORGE_F32, sx, d->x.type);
  }
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < p->nrows; ++r) {
    clforge_softmax_desc one = p->desc;
    one.rows = 1, one.x_offset = p->rows[r] * d->n, one.y_offset = 0;
    st = clforge_ref_softmax(&one, sx, NULL, row);
    if (st == CLFORGE_SUCCESS) clforge_ref_convert(d->n, row, d->y.type, p->want + r * d->n, CLFORGE_F32);
  }
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->x = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, count * clforge_dtype_size(d->x.type),
                          sx, &err);
    if (err == CL_SUCCESS) p->y = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, count * ys, NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune softmax: clCreateBuffer");
  }
  free(hx);
  free(sx);
  free(row);
  if (st != CLFORGE_SUCCESS) {
    softmax_teardown(p);
    return st;
  }
  *state = p;
  return CLFORGE_SUCCESS;
}

static int softmax_applicable(const clforge__family *f, const int *v, const size_t *shape) {
  (void)f;
  /* more items per row than vectors in it: some would idle */
  return (size_t)v[SOFTMAX_WG] * (size_t)v[SOFTMAX_VW] <= shape[1];
}

static clforge_status softmax_run(void *state) {
  softmax_problem *p = state;
  return clforge_softmax(p->ctx, &p->desc, p->x, NULL, p->y, 0, NULL, NULL);
}

static void softmax_prepare(void *state) {
  softmax_problem *p = state;
  cl_uchar ones = 0xff; /* NaN in every storage type */
  clEnqueueFillBuffer(p->ctx->queue, p->y, &ones, 1, 0, p->d.rows * p->d.n * clforge_dtype_size(p->d.y.type), 0,
                      NULL, NULL);
}

static clforge_status softmax_check(void *state, int corrupt, char *why, size_t why_cap) {
  softmax_problem *p = state;
  const size_t n = p->d.n, ys = clforge_dtype_size(p->d.y.type);
  unsigned char *raw = malloc(n * ys);
  float *got = malloc(p->nrows * n * sizeof *got);
  clforge_status st = raw && got ? CLFORGE_SUCCESS
                                 : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune softmax: no memory to check");
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < p->nrows; ++r) {
    st = clforge__read_buffer(p->ctx, p->y, p->rows[r] * n * ys, n * ys, raw);
    if (st == CLFORGE_SUCCESS) clforge_ref_convert(n, raw, p->d.y.type, got + r * n, CLFORGE_F32);
  }
  if (st == CLFORGE_SUCCESS && corrupt) got[0] = 12345.0f; /* tests only */
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(p->ctx, "tune softmax", CLFORGE_F32, p->nrows * n, got, p->want,
                           clforge__tolerance_for(p->d.y.type));
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(raw);
  free(got);
  return st;
}

/* Bytes moved at f32 storage: the rate reads as GB/s. */
static double softmax_flops(const size_t *s) { return (double)s[0] * (double)s[1] * 8.0; }

static int softmax_variant(const char *dtypes, const char *layout, const size_t *shape) {
  (void)dtypes, (void)layout;
  return shape[1] <= 512 ? SOFTMAX_VAR_SHORT : 0;
}

/* f32 in and out, and f16 in and out (the storage halves the bytes, which
 * moves the balance between memory and arithmetic). */
const clforge__tune_op clforge__tune_softmax = {
    .op = "softmax",
    .dtypes = (const char *const[]){"f32,f32", "f16,f16", NULL},
    .layouts = (const char *const[]){"rows", NULL},
    .peer = NULL,
    .ndims = CLFORGE_SOFTMAX_NDIMS,
    .setup = softmax_setup,
    .applicable = softmax_applicable,
    .run = softmax_run,
    .prepare = softmax_prepare,
    .check = softmax_check,
    .flops = softmax_flops,
    .variant = softmax_variant,
    .teardown = softmax_teardown,
};
