/* clforge_gemm with q8_0 weights (b_type CLFORGE_Q8_0: W n x k in ggml's
 * blocks, op(B) = W^T): first the meaning, decode's y = x W^T against the
 * blocks decoded here (scale times s8) in double, and against the float
 * weights within q8_0's step; then the device against clforge_ref_gemm_ex
 * for decode and prefill shapes, edges in m and n, every activation type,
 * biases, the gated MLP over interleaved q8_0 rows, batches, padded rows
 * and offsets in bytes, A transposed; parameter sets with one item per row
 * (KS 1) and a row's blocks split (KS > 1, reduced in local memory), each
 * vector width; bad input; validation mode catching a spoiled result.
 * --small: fewer cases (Oclgrind). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/desc/gemm_desc.h"
#include "../src/ref/compare.h"
#include "device_array.h"
#include "test_util.h"

static unsigned seed = 9191;

/* rows x k floats quantized into q8_0 rows of k / 32 * 34 bytes, ld bytes apart. */
static void quantize_rows(const float *w, size_t rows, size_t k, size_t ld, unsigned char *q) {
  const clforge_quant_desc qd = {.scheme = CLFORGE_QUANT_Q8_0, .rows = rows, .cols = k, .ldq = ld};
  CHECK_OK(NULL, clforge_ref_quantize(&qd, w, q, NULL, NULL));
}

/* Decode: y = x W^T for x (m x k) f32 and W quantized; against the blocks
 * decoded here and against the float W (q8_0's error: each weight within
 * half its block's step d = max|w| / 127, so |y - x W_f^T| <= sum |x| d / 2). */
static void meaning(clforge_context ctx, size_t m, size_t n, size_t k) {
  const size_t row = k / 32 * 34;
  float *x = malloc(m * k * 4), *w = malloc(n * k * 4), *y = malloc(m * n * 4);
  unsigned char *q = malloc(n * row);
  tu_fill_scaled(x, CLFORGE_F32, m * k, 1.0f, &seed), tu_fill_scaled(w, CLFORGE_F32, n * k, 0.2f, &seed);
  quantize_rows(w, n, k, row, q);
  cl_mem X = tu_buffer(ctx, m * k * 4), W = tu_buffer(ctx, n * row), Y = tu_buffer(ctx, m * n * 4);
  tu_write(ctx, X, 0, m * k * 4, x), tu_write(ctx, W, 0, n * row, q);
  const clforge_gemm_desc d = {.m = m, .n = n, .k = k, .trans_b = CLFORGE_TRANS, .b_type = CLFORGE_Q8_0};
  CHECK_OK(ctx, clforge_gemm(ctx, &d, X, W, Y, NULL, 0, NULL, NULL));
  tu_read(ctx, Y, 0, m * n * 4, y);
  double worst_dec = 0, worst_float = 0;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double dec = 0, flt = 0, mag = 0, step = 0;
      for (size_t p = 0; p < k; ++p) {
        const unsigned char *blk = q + j * row + p / 32 * 34;
        const double dq = (double)clforge_ref_f16_to_f32((uint16_t)(blk[0] | blk[1] << 8));
        dec += (double)x[i * k + p] * dq * (double)(int8_t)blk[2 + p % 32];
        flt += (double)x[i * k + p] * w[j * k + p];
        mag += fabs((double)x[i * k + p] * dq * (double)(int8_t)blk[2 + p % 32]);
        step += fabs((double)x[i * k + p]) * dq / 2;
      }
      /* f32: a block's 32 products, its scale, k / 32 blocks: within
       * (k + 34) * 2^-24 of the magnitudes' sum */
      worst_dec = fmax(worst_dec, fabs(y[i * n + j] - dec) / (1e-30 + (double)(k + 34) * 0x1p-24 * mag));
      worst_float = fmax(worst_float, fabs(y[i * n + j] - flt) / (1e-30 + step * 1.01 + (double)(k + 34) * 0x1p-24 * mag));
    }
  CHECK(worst_dec <= 1.0, "meaning %zux%zux%zu: y against the decoded blocks at %.3g x the f32 bound", m, n, k, worst_dec);
  CHECK(worst_float <= 1.0, "meaning %zux%zux%zu: y against the float weights at %.3g x q8_0's bound", m, n, k,
        worst_float);
  clReleaseMemObject(X), clReleaseMemObject(W), clReleaseMemObject(Y);
  free(x), free(w), free(y), free(q);
}

typedef struct {
  clforge_gemm_desc d;
  const char *params, *what;
} qcase;

/* B's extent as q8_0 rows: quantized random values, the padding bytes
 * between rows random too (never read as values). */
static void make_weights(clforge_context ctx, const clforge__gemm *g, tu_array *b) {
  b->n = g->b.extent ? g->b.extent : 1, b->es = 1;
  b->host = malloc(b->n), b->want = malloc(b->n);
  for (size_t i = 0; i < b->n; ++i) ((unsigned char *)b->host)[i] = (unsigned char)tu_rand(&seed);
  float *w = malloc(g->k * 4);
  for (size_t it = 0; it < (g->b.stride ? g->batch : 1); ++it)
    for (size_t r = 0; r < g->n; ++r) {
      tu_fill_scaled(w, CLFORGE_F32, g->k, 0.5f, &seed);
      quantize_rows(w, 1, g->k, 0, (unsigned char *)b->host + g->b.offset + it * g->b.stride + r * g->b.ld);
    }
  memcpy(b->want, b->host, b->n);
  b->buf = tu_buffer(ctx, b->n);
  tu_write(ctx, b->buf, 0, b->n, b->host);
  free(w);
}

static void run(clforge_context ctx, const qcase *c) {
  if (clforge_context_set_params(ctx, c->params) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: set_params(\"%s\"): %s", c->what, c->params, clforge_last_error(ctx));
    return;
  }
  clforge__gemm g;
  if (clforge__gemm_resolve(NULL, &c->d, &g) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: resolve: %s", c->what, clforge_last_error(NULL));
    return;
  }
  tu_array a, b, cc, bias = {0};
  tu_array_make(ctx, &a, g.a.extent, g.a.type, 1.0f, &seed);
  make_weights(ctx, &g, &b);
  tu_array_make(ctx, &cc, g.c.extent, g.c.type, 1.0f, &seed);
  if (g.bias_mode) tu_array_make(ctx, &bias, g.bias.extent, g.bias.type, 1.0f, &seed);
  clforge_status st = clforge_gemm(ctx, &c->d, a.buf, b.buf, cc.buf, g.bias_mode ? bias.buf : NULL, 0, NULL, NULL);
  CHECK(st == CLFORGE_SUCCESS, "%s (%s): %s", c->what, c->params, clforge_last_error(ctx));
  if (st == CLFORGE_SUCCESS) {
    CHECK_OK(NULL, clforge_ref_gemm_ex(&c->d, a.want, b.want, cc.want, g.bias_mode ? bias.want : NULL, NULL));
    clforge__error_stats s;
    CHECK(tu_array_within(ctx, &cc, g.c.type, &s), "%s (%s): nrmse %.3g max_abs %.3g (max %.3g)", c->what, c->params,
          s.nrmse, s.max_abs, s.max_want);
  }
  tu_array_free(&a), tu_array_free(&b), tu_array_free(&cc), tu_array_free(&bias);
}

static void bad_input(clforge_context ctx) {
  cl_mem a = tu_buffer(ctx, 4 * 64 * 4), b = tu_buffer(ctx, 8 * 68), c = tu_buffer(ctx, 4 * 8 * 4);
  const clforge_gemm_desc good = {.m = 4, .n = 8, .k = 64, .trans_b = CLFORGE_TRANS, .b_type = CLFORGE_Q8_0};
  clforge_gemm_desc d = good;
  d.k = 48;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "multiple of 32");
  d = good, d.trans_b = CLFORGE_NO_TRANS;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "trans_b");
  d = good, d.layout = CLFORGE_COL_MAJOR;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "row-major");
  d = good, d.ldb = 67; /* a row of W holds 68 bytes */
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "ldb = 67");
  d = good, d.n = 9; /* one row of W more than the buffer holds */
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "b needs 612 bytes");
  d = good, d.a_type = CLFORGE_Q8_0;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "dtype");
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
}

static void validation(clforge_context ctx) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  const qcase v = {{.m = 3, .n = 10, .k = 64, .trans_b = CLFORGE_TRANS, .b_type = CLFORGE_Q8_0}, "", "validated"};
  run(ctx, &v);
  clforge__test_set_fault(ctx, "gemm");
  cl_mem a = tu_buffer(ctx, 3 * 64 * 4), b = tu_buffer(ctx, 10 * 68), c = tu_buffer(ctx, 3 * 10 * 4);
  float x[3 * 64], w[10 * 64], y[30] = {0};
  unsigned char q[10 * 68];
  tu_fill_scaled(x, CLFORGE_F32, 3 * 64, 1.0f, &seed), tu_fill_scaled(w, CLFORGE_F32, 10 * 64, 1.0f, &seed);
  quantize_rows(w, 10, 64, 68, q);
  tu_write(ctx, a, 0, sizeof x, x), tu_write(ctx, b, 0, sizeof q, q), tu_write(ctx, c, 0, sizeof y, y);
  CHECK_FAILS(ctx, clforge_gemm(ctx, &v.d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "gemm");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
}

#define Q8 .trans_b = CLFORGE_TRANS, .b_type = CLFORGE_Q8_0
#define F16 CLFORGE_F16
#define BF16 CLFORGE_BF16

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  bad_input(ctx);
  meaning(ctx, small ? 2 : 4, small ? 24 : 200, small ? 64 : 512); /* the device's own parameters */
  if (!small) { /* a row's blocks split over items, reduced in local memory */
    CHECK_OK(ctx, clforge_context_set_params(ctx, "gemm_q8_0:MR=2,NC=2,KS=4,NG=4,VK=16"));
    meaning(ctx, 3, 40, 256);
  }
  const qcase cases[] = {
      {{.m = 1, .n = 37, .k = 96, Q8}, "gemm_q8_0:MR=1,NC=1,KS=1,NG=8,VK=16", "decode m 1, one row an item"},
      {{.m = 5, .n = 30, .k = 128, .a_type = F16, .c_type = F16, .bias_mode = CLFORGE_BIAS_COLUMN,
        .activation = CLFORGE_ACT_SILU, Q8},
       "gemm_q8_0:MR=4,NC=2,KS=4,NG=4,VK=8", "decode m 5, f16, blocks split over 4 items, bias, SiLU"},
      {{.m = 3, .n = 23, .k = 64, .activation = CLFORGE_ACT_SILU, .gate = CLFORGE_GEMM_GATE_INTERLEAVED, Q8},
       "gemm_q8_0:MR=2,NC=1,KS=2,NG=4,VK=4", "SwiGLU over interleaved q8_0 rows (NC 1 widened to 2), an n edge"},
      {{.m = 37, .n = 19, .k = 160, .a_type = BF16, .c_type = BF16, .bias_mode = CLFORGE_BIAS_ROW,
        .activation = CLFORGE_ACT_GELU_ERF, .ldb = 5 * 34 + 6, .b_offset = 10, .ldc = 21, .c_offset = 2, Q8},
       "gemm_q8_0:MR=8,NC=4,KS=1,NG=4,VK=8", "prefill m 37, bf16, padded rows and offsets in bytes, GELU"},
      {{.m = 6, .n = 11, .k = 64, .trans_a = CLFORGE_TRANS, .batch = 3, .stride_a = 6 * 64, .stride_b = 11 * 68 + 4,
        .stride_c = 6 * 11, .alpha = 0.5f, .beta = 0.25f, Q8},
       "", "A transposed, batch, alpha and beta, the device's defaults"},
      {{.m = 2, .n = 9, .k = 64, .batch = 2, .stride_a = 2 * 64, .stride_b = 0, .stride_c = 2 * 9, .a_type = F16,
        .trans_a = CLFORGE_TRANS, .lda = 2, Q8},
       "gemm_q8_0:MR=2,NC=2,KS=8,NG=4,VK=16", "W shared by the batch, f16 A transposed, more items than blocks"},
      {{.m = 3, .n = 7, .k = 0, .beta = 0.5f, .bias_mode = CLFORGE_BIAS_COLUMN, Q8}, "", "k = 0: beta C + bias"},
  };
  const size_t ncases = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < ncases; ++i)
    if (!small || i == 1 || i == 2) run(ctx, &cases[i]);
  CHECK_OK(ctx, clforge_context_set_params(ctx, ""));
  if (!small) validation(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
