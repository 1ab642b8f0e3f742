/* The q8_0-weight GEMM for the tuner: W random f32 quantized into q8_0
 * rows, A random, the reference result, one run with the tuner's
 * parameters, and the check. Layout "nt" only (W stored n x k). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/validate.h"
#include "../families/families.h"
#include "../ref/quant_round.h"
#include "../tuning/tune_op.h"
#include "tune_common.h"

typedef struct {
  clforge_context ctx;
  clforge_gemm_desc desc;
  cl_mem a, b, c;
  void *want;
  size_t c_bytes;
} q8_problem;

static void q8_teardown(void *state) {
  q8_problem *p = state;
  if (!p) return;
  const cl_mem m[] = {p->a, p->b, p->c};
  clforge__tune_release(m, sizeof m / sizeof m[0]);
  free(p->want);
  free(p);
}

/* n rows of k random values as q8_0 rows (k / 32 * 34 bytes each). */
static unsigned char *random_q8_0(size_t n, size_t k) {
  float *f = clforge__random_storage(n * k, CLFORGE_F32, 3);
  unsigned char *q = malloc(n * (k / 32) * 34 + 1);
  for (size_t b = 0; f && q && b < n * (k / 32); ++b) clforge__q8_0_block(f + b * 32, q + b * 34);
  free(f);
  return q;
}

static clforge_status q8_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                               void **state) {
  clforge_dtype t[3];
  *state = NULL;
  if (clforge__tune_parse_dtypes(dtypes, t) || t[1] != CLFORGE_Q8_0 || strcmp(layout, "nt") || shape[2] % 32)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune gemm_q8_0: dtypes \"%s\" / layout \"%s\" (x,q8_0,y / nt)",
                         dtypes, layout);
  q8_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm_q8_0: no memory");
  p->ctx = ctx;
  const size_t m = shape[0], n = shape[1], k = shape[2];
  p->desc = (clforge_gemm_desc){.m = m, .n = n, .k = k, .trans_b = CLFORGE_TRANS, .a_type = t[0],
                                .b_type = CLFORGE_Q8_0, .c_type = t[2]};
  p->c_bytes = m * n * clforge_dtype_size(t[2]);
  void *ha = clforge__random_storage(m * k, t[0], 1);
  unsigned char *hb = random_q8_0(n, k);
  p->want = malloc(p->c_bytes);
  clforge_status st = CLFORGE_SUCCESS;
  if (!ha || !hb || !p->want) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm_q8_0: no memory for inputs");
  if (st == CLFORGE_SUCCESS) st = clforge_ref_gemm(&p->desc, ha, hb, p->want, NULL);
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->a = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m * k * clforge_dtype_size(t[0]), ha, &err);
    if (err == CL_SUCCESS)
      p->b = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * (k / 32) * 34, hb, &err);
    if (err == CL_SUCCESS) p->c = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, p->c_bytes, NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune gemm_q8_0: clCreateBuffer");
  }
  free(ha);
  free(hb);
  return clforge__tune_setup_done(st, p, q8_teardown, state);
}

static clforge_status q8_run(void *state) {
  q8_problem *p = state;
  return clforge_gemm(p->ctx, &p->desc, p->a, p->b, p->c, NULL, 0, NULL, NULL);
}

static void q8_prepare(void *state) {
  q8_problem *p = state;
  clforge__tune_poison(p->ctx, p->c, p->c_bytes);
}

static clforge_status q8_check(void *state, int corrupt, char *why, size_t why_cap) {
  q8_problem *p = state;
  void *got = malloc(p->c_bytes);
  if (!got) return clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm_q8_0: no memory to check");
  clforge_status st = clforge__read_buffer(p->ctx, p->c, 0, p->c_bytes, got);
  if (st == CLFORGE_SUCCESS && corrupt) { /* tests only: a wrong result */
    float bad = 12345.0f;
    clforge_ref_convert(1, &bad, CLFORGE_F32, got, p->desc.c_type);
  }
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(p->ctx, "tune gemm_q8_0", p->desc.c_type, p->desc.m * p->desc.n, got, p->want,
                           clforge__tolerance_for(p->desc.c_type));
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(got);
  return st;
}

static double q8_flops(const size_t *shape) { return 2.0 * (double)shape[0] * (double)shape[1] * (double)shape[2]; }

static int q8_variant(const char *dtypes, const char *layout, const size_t *shape) {
  (void)dtypes, (void)layout, (void)shape;
  return 0;
}

/* f32 activations (decode's) and f16 ones, f32 and f16 results. */
const clforge__tune_op clforge__tune_gemm_q8_0 = {
    .op = "gemm_q8_0",
    .dtypes = (const char *const[]){"f32,q8_0,f32", "f16,q8_0,f16", NULL},
    .layouts = (const char *const[]){"nt", NULL},
    .peer = NULL,
    .ndims = 3,
    .setup = q8_setup,
    .applicable = clforge__tune_any_applicable,
    .run = q8_run,
    .prepare = q8_prepare,
    .check = q8_check,
    .flops = q8_flops,
    .variant = q8_variant,
    .teardown = q8_teardown,
};
