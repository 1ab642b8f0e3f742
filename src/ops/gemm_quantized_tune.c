/* The int8 GEMM for the tuner: u8 A (zero point 128) times s8 B into s32,
 * random bytes, the exact sums of sampled rows as the reference, one run
 * with the tuner's parameters, and a bit-for-bit check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../tuning/tune_op.h"
#include "tune_common.h"
#include "../core/validate.h"

enum { CHECKED_ROWS = 32 };

typedef struct {
  clforge_context ctx;
  clforge_gemm_desc desc;
  clforge_gemm_quant quant;
  cl_mem a, b, c;
  size_t rows[CHECKED_ROWS];
  int32_t *want; /* the checked rows of C */
} q_problem;

static void q_teardown(void *state) {
  q_problem *p = state;
  if (!p) return;
  const cl_mem m[] = {p->a, p->b, p->c};
  clforge__tune_release(m, sizeof m / sizeof m[0]);
  free(p->want);
  free(p);
}

static clforge_status q_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                              void **state) {
  *state = NULL;
  if (strcmp(dtypes, "u8,s8,s32") || strcmp(layout, "nn"))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune gemm_quantized: dtypes \"%s\" / layout \"%s\" (u8,s8,s32 / nn)",
                         dtypes, layout);
  q_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm_quantized: no memory");
  p->ctx = ctx;
  const size_t m = shape[0], n = shape[1], k = shape[2];
  p->desc = (clforge_gemm_desc){.m = m, .n = n, .k = k, .a_type = CLFORGE_U8, .b_type = CLFORGE_S8,
                                .c_type = CLFORGE_S32};
  p->quant = (clforge_gemm_quant){.a_zero_point = 128};
  uint8_t *ha = malloc(m * k), *hb = malloc(k * n);
  p->want = malloc(CHECKED_ROWS * n * sizeof *p->want);
  clforge_status st = ha && hb && p->want ? CLFORGE_SUCCESS
                                          : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm_quantized: no memory");
  uint32_t seed = 0x9E3779B9u;
  for (size_t i = 0; st == CLFORGE_SUCCESS && i < m * k; ++i) ha[i] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
  for (size_t i = 0; st == CLFORGE_SUCCESS && i < k * n; ++i) hb[i] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
  /* rows spread over C (every residue of small tiles), the last one too */
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < CHECKED_ROWS; ++r) {
    const size_t i = r == CHECKED_ROWS - 1 ? m - 1 : (r * 7919u + r) % m;
    p->rows[r] = i;
    for (size_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (size_t q = 0; q < k; ++q) acc += (int64_t)((int)ha[i * k + q] - 128) * (int8_t)hb[q * n + j];
      p->want[r * n + j] = (int32_t)acc;
    }
  }
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->a = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m * k, ha, &err);
    if (err == CL_SUCCESS) p->b = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, k * n, hb, &err);
    if (err == CL_SUCCESS) p->c = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, m * n * 4, NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune gemm_quantized: clCreateBuffer");
  }
  free(ha), free(hb);
  return clforge__tune_setup_done(st, p, q_teardown, state);
}

static clforge_status q_run(void *state) {
  q_problem *p = state;
  return clforge_gemm_quantized(p->ctx, &p->desc, &p->quant, p->a, p->b, p->c, NULL, 0, NULL, NULL);
}

/* 0x7F7F7F7F in every s32 of C: no sum of these shapes reaches it, so a
 * kernel that writes nothing cannot pass on an earlier candidate's C. */
static void q_prepare(void *state) {
  q_problem *p = state;
  cl_uchar b = 0x7F;
  clEnqueueFillBuffer(p->ctx->queue, p->c, &b, 1, 0, p->desc.m * p->desc.n * 4, 0, NULL, NULL);
}

static clforge_status q_check(void *state, int corrupt, char *why, size_t why_cap) {
  q_problem *p = state;
  const size_t n = p->desc.n;
  int32_t *row = malloc(n * sizeof *row);
  if (!row) return clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm_quantized: no memory to check");
  clforge_status st = CLFORGE_SUCCESS;
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < CHECKED_ROWS; ++r) {
    st = clforge__read_buffer(p->ctx, p->c, p->rows[r] * n * 4, n * 4, row);
    if (st == CLFORGE_SUCCESS && corrupt && r == 0) row[0] ^= 1; /* tests only */
    for (size_t j = 0; st == CLFORGE_SUCCESS && j < n; ++j)
      if (row[j] != p->want[r * n + j])
        st = clforge__fail(p->ctx, CLFORGE_VALIDATION_FAILED, "tune gemm_quantized: C[%zu][%zu] = %d, exactly %d",
                           p->rows[r], j, (int)row[j], (int)p->want[r * n + j]);
  }
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(row);
  return st;
}

static double q_flops(const size_t *shape) { return 2.0 * (double)shape[0] * (double)shape[1] * (double)shape[2]; }

static int q_variant(const char *dtypes, const char *layout, const size_t *shape) {
  (void)dtypes, (void)layout, (void)shape;
  return 0;
}

/* u8 activations (zero point 128) times s8 weights: what inference runs. */
const clforge__tune_op clforge__tune_gemm_quantized = {
    .op = "gemm_quantized",
    .dtypes = (const char *const[]){"u8,s8,s32", NULL},
    .layouts = (const char *const[]){"nn", NULL},
    .peer = NULL,
    .ndims = 3,
    .setup = q_setup,
    .applicable = clforge__tune_any_applicable,
    .run = q_run,
    .prepare = q_prepare,
    .check = q_check,
    .flops = q_flops,
    .variant = q_variant,
    .teardown = q_teardown,
};
