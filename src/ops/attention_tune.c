/* Attention for the tuner: a shape class's problem with random inputs, the
 * reference at sampled query rows, one run with the candidate (the tuner
 * forces the family, so the op runs that family's algorithm: fused for the
 * prefill classes, split_kv for the decode ones), the check. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../families/attention_classes.h"
#include "../families/families.h"
#include "../ref/attention.h"
#include "../ref/compare.h"
#include "../tuning/tune_op.h"
#include "tune_common.h"
#include "../core/validate.h"
#include "attention_algo.h"
#include "attention_tune.h"

/* Query rows checked against the reference per candidate: spread over
 * batch, heads and positions (the first and last rows included). */
enum { CHECKED_ROWS = 48 };

typedef struct {
  clforge_context ctx;
  clforge_attention_desc desc;
  clforge__attn d;
  cl_mem q, k, v, o;
  size_t row[CHECKED_ROWS]; /* b * Hq * Sq + h * Sq + i */
  float *want;              /* CHECKED_ROWS x Dv, stored as O's type and widened */
} attn_problem;

int clforge__attn_tune_parse_key(const char *dtypes, const char *layout, clforge_attention_desc *d) {
  clforge_dtype t[3];
  if (clforge__tune_parse_dtypes(dtypes, t) || strcmp(layout, "bhsd")) return -1;
  d->q_type = t[0], d->kv_type = t[1], d->o_type = t[2];
  d->compute_type = clforge__tune_compute_type(dtypes); /* strict unless the key names one */
  return 0;
}

void clforge__attn_tune_shape(const size_t *s, clforge_attention_desc *d) {
  d->batch = s[ATTN_DIM_B], d->heads_q = s[ATTN_DIM_HQ], d->heads_kv = s[ATTN_DIM_HKV];
  d->seq_q = s[ATTN_DIM_SQ], d->seq_kv = s[ATTN_DIM_SK];
  d->head_dim = d->head_dim_v = s[ATTN_DIM_D];
  d->causal = (clforge_causal)s[ATTN_DIM_CAUSAL];
}

static void attn_teardown(void *state) {
  attn_problem *p = state;
  if (!p) return;
  const cl_mem all[] = {p->q, p->k, p->v, p->o};
  clforge__tune_release(all, sizeof all / sizeof all[0]);
  free(p->want);
  free(p);
}

cl_mem clforge__attn_tune_copy(clforge_context ctx, const void *host, size_t bytes, cl_int *err) {
  if (*err != CL_SUCCESS) return NULL;
  return clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)host, err);
}

/* A q8_0 cache of `bytes` (rows of d values): random values in [-1, 1)
 * quantized by the reference, so that the blocks are what a cache holds
 * (random bytes would make NaN or huge scales). NULL when out of memory. */
static void *random_q8_0(size_t bytes, size_t d, uint32_t seed) {
  const size_t row = d / 32 * 34, rows = bytes / row;
  float *x = clforge__random_storage(rows * d, CLFORGE_F32, seed);
  unsigned char *q = calloc(bytes ? bytes : 1, 1);
  clforge_quant_desc qd = {0};
  qd.scheme = CLFORGE_QUANT_Q8_0, qd.rows = rows, qd.cols = d;
  if (x && q && clforge_ref_quantize(&qd, x, q, NULL, NULL) != CLFORGE_SUCCESS) free(q), q = NULL;
  if (!x) free(q), q = NULL;
  free(x);
  return q;
}

static clforge_status attn_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                                 void **state) {
  *state = NULL;
  attn_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune attention: no memory");
  p->ctx = ctx;
  clforge__attn_tune_shape(shape, &p->desc);
  if (clforge__attn_tune_parse_key(dtypes, layout, &p->desc)) {
    free(p);
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune attention: bad dtypes \"%s\" or layout \"%s\"", dtypes,
                         layout);
  }
  clforge_status st = clforge__attn_resolve(ctx, &p->desc, NULL, &p->d);
  if (st != CLFORGE_SUCCESS) {
    free(p);
    return st;
  }
  const clforge__attn *d = &p->d;
  void *hq = clforge__random_storage(d->q.extent, d->q.type, 1);
  void *hk = d->kv_q8 ? random_q8_0(d->k.extent, d->d, 2) : clforge__random_storage(d->k.extent, d->k.type, 2);
  void *hv = d->kv_q8 ? random_q8_0(d->v.extent, d->dv, 3) : clforge__random_storage(d->v.extent, d->v.type, 3);
  p->want = malloc(CHECKED_ROWS * d->dv * sizeof *p->want);
  double *row = malloc(d->dv * sizeof *row), *scores = malloc(d->sk * sizeof *scores);
  if (!hq || !hk || !hv || !p->want || !row || !scores)
    st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune attention: no memory for inputs");
  const size_t rows = d->b * d->hq * d->sq;
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < CHECKED_ROWS; ++r) {
    size_t e = r == CHECKED_ROWS - 1 ? rows - 1 : (r * 7919u + r * (rows / CHECKED_ROWS)) % rows;
    p->row[r] = e;
    const size_t b = e / (d->hq * d->sq), h = (e / d->sq) % d->hq, i = e % d->sq;
    double lse;
    clforge__ref_attention_row(d, hq, hk, hv, NULL, NULL, b, h, i, d->sk, d->sq, scores, row, &lse);
    for (size_t c = 0; c < d->dv; ++c) {
      float v = (float)row[c];
      unsigned char raw[4];
      clforge_ref_convert(1, &v, CLFORGE_F32, raw, d->o.type);
      clforge_ref_convert(1, raw, d->o.type, &p->want[r * d->dv + c], CLFORGE_F32);
    }
  }
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->q = clforge__attn_tune_copy(ctx, hq, d->q.extent * clforge_dtype_size(d->q.type), &err);
    const size_t kvs = d->kv_q8 ? 1 : clforge_dtype_size(d->k.type); /* (q8_0 extents count bytes) */
    p->k = clforge__attn_tune_copy(ctx, hk, d->k.extent * kvs, &err);
    p->v = clforge__attn_tune_copy(ctx, hv, d->v.extent * kvs, &err);
    if (err == CL_SUCCESS)
      p->o = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, d->o.extent * clforge_dtype_size(d->o.type), NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune attention: clCreateBuffer");
  }
  free(hq), free(hk), free(hv), free(row), free(scores);
  return clforge__tune_setup_done(st, p, attn_teardown, state);
}

static clforge_status attn_run(void *state) {
  attn_problem *p = state;
  return clforge_attention(p->ctx, &p->desc, p->q, p->k, p->v, p->o, NULL, 0, NULL, NULL);
}

static void attn_prepare(void *state) {
  attn_problem *p = state;
  clforge__tune_poison(p->ctx, p->o, p->d.o.extent * clforge_dtype_size(p->d.o.type));
}

static clforge_status attn_check(void *state, int corrupt, char *why, size_t why_cap) {
  attn_problem *p = state;
  const clforge__attn *d = &p->d;
  const size_t os = clforge_dtype_size(d->o.type), n = CHECKED_ROWS * d->dv;
  unsigned char *got = malloc(d->o.extent * os);
  float *sample = malloc(n * sizeof *sample);
  clforge_status st = got && sample ? clforge__read_buffer(p->ctx, p->o, 0, d->o.extent * os, got)
                                    : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune attention: no memory");
  for (size_t r = 0; st == CLFORGE_SUCCESS && r < CHECKED_ROWS; ++r) {
    const size_t e = p->row[r], b = e / (d->hq * d->sq), h = (e / d->sq) % d->hq, i = e % d->sq;
    for (size_t c = 0; c < d->dv; ++c) {
      const size_t at = d->o.offset + b * d->o.stride[0] + h * d->o.stride[1] + i * d->o.stride[2] + c * d->o.stride[3];
      clforge_ref_convert(1, got + at * os, d->o.type, &sample[r * d->dv + c], CLFORGE_F32);
    }
  }
  if (st == CLFORGE_SUCCESS && corrupt) sample[0] = 12345.0f; /* tests only */
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(p->ctx, "tune attention", CLFORGE_F32, n, sample, p->want,
                           clforge__tolerance_for_compute(d->o.type, d->compute_type));
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(got);
  free(sample);
  return st;
}

static double attn_flops(const size_t *s) {
  clforge_attention_desc desc = {0};
  clforge__attn_tune_shape(s, &desc);
  clforge__attn d;
  return clforge__attn_resolve(NULL, &desc, NULL, &d) == CLFORGE_SUCCESS ? d.flops : 0.0;
}

int clforge__attn_tune_variant(const char *dtypes, const char *layout, const size_t *shape) {
  clforge_attention_desc desc = {0};
  clforge__attn_tune_shape(shape, &desc);
  if (clforge__attn_tune_parse_key(dtypes, layout, &desc)) return 0;
  clforge__attn d;
  return clforge__attn_resolve(NULL, &desc, NULL, &d) == CLFORGE_SUCCESS ? clforge__attn_variant(&d) : 0;
}

/* f32 throughout, an f16 KV cache under an f32 query (the decoder's), f16
 * throughout, and a q8_0 cache under f16 (the quantized decoder's, last:
 * a short budget reaches the others first). */
const clforge__tune_op clforge__tune_attention = {
    .op = "attention",
    .dtypes = (const char *const[]){"f32,f32,f32", "f32,f16,f32", "f16,f16,f16", "f16,q8_0,f16", NULL},
    .layouts = (const char *const[]){"bhsd", NULL},
    .peer = NULL,
    .ndims = CLFORGE_ATTN_NDIMS,
    .setup = attn_setup,
    .applicable = clforge__tune_any_applicable,
    .run = attn_run,
    .prepare = attn_prepare,
    .check = attn_check,
    .flops = attn_flops,
    .variant = clforge__attn_tune_variant,
    .teardown = attn_teardown,
};
