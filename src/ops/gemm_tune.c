/* GEMM for the tuner: a representative problem with random inputs, its
 * reference result, one run with the tuner's parameters, and the check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../ref/compare.h"
#include "../tuning/tune_op.h"
#include "tune_common.h"
#include "../core/validate.h"
#include "gemm_launch.h"

/* Above this many multiply-adds the reference (plain C, double accumulation)
 * would take a good part of a problem's budget: candidates are then checked
 * on SAMPLED_ROWS whole rows of C against the reference: spread over all of
 * C, at every row residue modulo the tile heights, and the last row. */
#define FULL_CHECK_MAX_MNK (256.0 * 256.0 * 256.0)
enum { SAMPLED_ROWS = 64 };

typedef struct {
  clforge_context ctx;
  clforge_gemm_desc desc;
  cl_mem a, b, c;
  void *want;        /* reference rows of C, in C's storage type */
  size_t c_elems;
  size_t nrows;      /* rows of C checked: all, or a sample for big problems */
  size_t rows[SAMPLED_ROWS];
} gemm_problem;

static void gemm_teardown(void *state) {
  gemm_problem *p = state;
  if (!p) return;
  const cl_mem m[] = {p->a, p->b, p->c};
  clforge__tune_release(m, sizeof m / sizeof m[0]);
  free(p->want);
  free(p);
}

static clforge_status gemm_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                                 void **state) {
  clforge_dtype t[3];
  *state = NULL;
  if (clforge__tune_parse_dtypes(dtypes, t) || strlen(layout) != 2 || !strchr("nt", layout[0]) || !strchr("nt", layout[1]))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune gemm: bad dtypes \"%s\" or layout \"%s\"", dtypes, layout);
  gemm_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm: no memory");
  p->ctx = ctx;
  const size_t m = shape[0], n = shape[1], k = shape[2];
  p->desc = (clforge_gemm_desc){.trans_a = layout[0] == 't' ? CLFORGE_TRANS : CLFORGE_NO_TRANS,
                                .trans_b = layout[1] == 't' ? CLFORGE_TRANS : CLFORGE_NO_TRANS,
                                .m = m, .n = n, .k = k, .alpha = 1.0f, .beta = 0.0f,
                                .a_type = t[0], .b_type = t[1], .c_type = t[2],
                                /* strict unless the key names a compute type (its half variants) */
                                .compute_type = clforge__tune_compute_type(dtypes)};
  p->desc.lda = layout[0] == 't' ? m : k;
  p->desc.ldb = layout[1] == 't' ? k : n;
  p->desc.ldc = n;
  p->c_elems = m * n;
  p->nrows = (double)m * (double)n * (double)k > FULL_CHECK_MAX_MNK && m > SAMPLED_ROWS ? SAMPLED_ROWS : m;
  for (size_t i = 0; i < p->nrows && p->nrows < m; ++i) {
    size_t stride = m / SAMPLED_ROWS;
    p->rows[i] = i == SAMPLED_ROWS - 1 ? m - 1 : i * stride + i % stride;
  }
  void *ha = clforge__random_storage(m * k, t[0], 1), *hb = clforge__random_storage(k * n, t[1], 2);
  p->want = calloc(p->nrows * n, clforge_dtype_size(t[2]));
  clforge_status st = CLFORGE_SUCCESS;
  if (!ha || !hb || !p->want) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm: no memory for inputs");
  if (st == CLFORGE_SUCCESS && p->nrows == m) st = clforge_ref_gemm(&p->desc, ha, hb, p->want, NULL);
  for (size_t r = 0; st == CLFORGE_SUCCESS && p->nrows < m && r < p->nrows; ++r) {
    clforge_gemm_desc row = p->desc; /* one row of C: row i of op(A) times op(B) */
    row.m = 1;
    row.a_offset = layout[0] == 't' ? p->rows[r] : p->rows[r] * p->desc.lda;
    row.c_offset = r * n;
    st = clforge_ref_gemm(&row, ha, hb, p->want, NULL);
  }
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->a = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m * k * clforge_dtype_size(t[0]), ha, &err);
    if (err == CL_SUCCESS)
      p->b = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, k * n * clforge_dtype_size(t[1]), hb,
                            &err);
    if (err == CL_SUCCESS)
      p->c = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, p->c_elems * clforge_dtype_size(t[2]), NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune gemm: clCreateBuffer");
  }
  free(ha);
  free(hb);
  return clforge__tune_setup_done(st, p, gemm_teardown, state);
}

static int gemm_applicable(const clforge__family *f, const int *v, const size_t *shape) {
  if (f != &clforge__family_gemm) return 1; /* the direct kernel fits any shape */
  return shape[0] % (size_t)v[GEMM_MWG] == 0 && shape[1] % (size_t)v[GEMM_NWG] == 0;
}

static clforge_status gemm_run(void *state) {
  gemm_problem *p = state;
  return clforge_gemm(p->ctx, &p->desc, p->a, p->b, p->c, NULL, 0, NULL, NULL);
}

/* NaN in every storage type (all bits set): a kernel that leaves C alone
 * cannot pass the check on an earlier candidate's result. */
static void gemm_prepare(void *state) {
  gemm_problem *p = state;
  clforge__tune_poison(p->ctx, p->c, p->c_elems * clforge_dtype_size(p->desc.c_type));
}

static clforge_status gemm_check(void *state, int corrupt, char *why, size_t why_cap) {
  gemm_problem *p = state;
  const size_t cs = clforge_dtype_size(p->desc.c_type), n = p->desc.n, m = p->desc.m;
  void *got = malloc(p->c_elems * cs);
  if (!got) return clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune gemm: no memory to check");
  clforge_status st = clforge__read_buffer(p->ctx, p->c, 0, p->c_elems * cs, got);
  if (st == CLFORGE_SUCCESS && p->nrows < m) /* the sampled rows, packed like the reference's */
    for (size_t r = 0; r < p->nrows; ++r)
      memmove((char *)got + r * n * cs, (char *)got + p->rows[r] * n * cs, n * cs);
  if (st == CLFORGE_SUCCESS && corrupt) { /* tests only: a wrong result, as a miscompiling driver gives */
    float bad = 12345.0f;
    clforge_ref_convert(1, &bad, CLFORGE_F32, got, p->desc.c_type);
  }
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(p->ctx, "tune gemm", p->desc.c_type, p->nrows * n, got, p->want,
                           clforge__tolerance_for_compute(p->desc.c_type, p->desc.compute_type));
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(got);
  return st;
}

static double gemm_flops(const size_t *shape) { return 2.0 * (double)shape[0] * (double)shape[1] * (double)shape[2]; }

static int gemm_tune_variant(const char *dtypes, const char *layout, const size_t *shape) {
  clforge_dtype t[3] = {CLFORGE_F32, CLFORGE_F32, CLFORGE_F32};
  clforge__tune_parse_dtypes(dtypes, t);
  return clforge__gemm_variant(layout[0] == 't', layout[1] == 't', t[0], t[1], shape[1]);
}

/* A class of both routes: the one a plain call of the shape takes first
 * (src/ops/gemm.c); the direct kernel's class is its own. */
static int gemm_rank(clforge_context ctx, const clforge__family *f, const char *dtypes, const char *layout,
                     const size_t *shape) {
  (void)dtypes;
  if (f != &clforge__family_gemm && f != &clforge__family_gemm_packed) return 0;
  /* the tile is unknown here: the classes' shapes are whole tiles anyway */
  const int packed = clforge__gemm_heuristic_packed(ctx, shape[0], shape[1], shape[2], layout[1] == 't', 0, 0, NULL, 0);
  return (f == &clforge__family_gemm_packed) != packed;
}

const clforge__tune_op clforge__tune_gemm = {
    .op = "gemm",
    .dtypes = (const char *const[]){"f32,f32,f32", "f16,f16,f16", "bf16,bf16,bf16", NULL},
    .layouts = (const char *const[]){"nn", "nt", "tn", "tt", NULL},
    .peer = "clblast",
    .ndims = 3,
    .setup = gemm_setup,
    .applicable = gemm_applicable,
    .run = gemm_run,
    .prepare = gemm_prepare,
    .check = gemm_check,
    .flops = gemm_flops,
    .rank = gemm_rank,
    .variant = gemm_tune_variant,
    .teardown = gemm_teardown,
};
