/* clforge_pool: the reference against hand-worked windows and PyTorch's
 * output sizes (ceil mode's last-window rule, padding, dilation, the
 * divisors), NHWC's reference against NCHW's; the device against the
 * reference for max, average (count_include_pad both ways, a divisor
 * override) and global pooling, both layouts, f32/f16/bf16 storage mixes,
 * offsets with guards left alone, the CNNs' pooling shapes, NaN; validation
 * mode; bad input changing nothing. --small: fewer, smaller cases
 * (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/ref/compare.h"
#include "../src/ref/element.h"
#include "test_util.h"

static clforge_pool_desc pool(clforge_pool_kind kind, size_t c, size_t h, size_t w, size_t k, size_t s, size_t pad) {
  clforge_pool_desc d = {.kind = kind, .n = 1, .c = c, .h = h, .w = w, .kernel_h = k, .kernel_w = k, .stride_h = s,
                         .stride_w = s, .pad_h = pad, .pad_w = pad};
  return d;
}

static void sizes(void) {
  /* {H, k, s, pad, dilation, ceil, PyTorch's output} */
  const size_t t[][7] = {{5, 2, 2, 0, 1, 0, 2}, {5, 2, 2, 0, 1, 1, 3}, {6, 3, 2, 1, 1, 1, 4}, {5, 3, 2, 1, 1, 1, 3},
                         {1, 2, 2, 1, 1, 1, 1}, /* the last window would start in the right padding: dropped */
                         {112, 3, 2, 1, 1, 0, 56}, {7, 3, 1, 1, 2, 0, 5}, {10, 3, 3, 0, 2, 1, 3},
                         {2, 3, 2, 0, 1, 1, 1}}; /* the kernel past the input, ceil mode: one window */
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
    clforge_pool_desc d = pool(CLFORGE_POOL_MAX, 1, t[i][0], 4, t[i][1], t[i][2], t[i][3]);
    d.pad_w = 0, d.kernel_w = d.stride_w = 1;
    d.dilation_h = t[i][4], d.ceil_mode = (int)t[i][5];
    size_t p = 0, q = 0;
    CHECK_OK(NULL, clforge_pool_output_size(&d, &p, &q));
    CHECK(p == t[i][6] && q == 4, "H %zu k %zu s %zu pad %zu dil %zu ceil %zu: %zu x %zu, want %zu x 4", t[i][0], t[i][1],
          t[i][2], t[i][3], t[i][4], t[i][5], p, q, t[i][6]);
  }
  clforge_pool_desc d = pool(CLFORGE_POOL_AVG, 3, 9, 5, 0, 0, 0);
  d.global_pool = 1;
  size_t p = 0, q = 0;
  CHECK_OK(NULL, clforge_pool_output_size(&d, &p, &q));
  CHECK(p == 1 && q == 1, "global: %zu x %zu", p, q);
  d = pool(CLFORGE_POOL_MAX, 1, 4, 4, 3, 1, 2); /* pad 2 > 3/2 */
  CHECK_FAILS(NULL, clforge_pool_output_size(&d, &p, &q), CLFORGE_INVALID_ARGUMENT, "more than half");
  d.pad_h = d.pad_w = 2, d.dilation_h = d.dilation_w = 2; /* the dilated kernel does not count (PyTorch's rule) */
  CHECK_FAILS(NULL, clforge_pool_output_size(&d, &p, &q), CLFORGE_INVALID_ARGUMENT, "more than half");
  d = pool(CLFORGE_POOL_MAX, 1, 4, 4, 2, 2, 0);
  CHECK_FAILS(NULL, clforge_pool_output_size(&d, NULL, &q), CLFORGE_INVALID_ARGUMENT, "NULL");
  d.kernel_w = (size_t)1 << 31;
  CHECK_FAILS(NULL, clforge_pool_output_size(&d, &p, &q), CLFORGE_LIMIT_EXCEEDED, "limit");
  d = pool(CLFORGE_POOL_AVG, 1, 4, 4, 2, 2, 0), d.divisor_override = (size_t)1 << 31;
  CHECK_FAILS(NULL, clforge_pool_output_size(&d, &p, &q), CLFORGE_LIMIT_EXCEEDED, "divisor_override");
  d = pool(CLFORGE_POOL_AVG, 1, 4, 4, 0, 0, 0), d.global_pool = 1, d.dilation_h = 3; /* global: window fields ignored */
  CHECK_OK(NULL, clforge_pool_output_size(&d, &p, &q));
  d = pool(CLFORGE_POOL_MAX, 1, 2, 2, 5, 1, 1); /* window 5 > 2 + 2 */
  CHECK_FAILS(NULL, clforge_pool_output_size(&d, &p, &q), CLFORGE_INVALID_ARGUMENT, "larger than the padded input");
}

/* One output of the reference on the 4 x 4 plane x[i][j] = 4i + j (f32). */
static void hand_values(void) {
  float x[16], y[16];
  for (int i = 0; i < 16; ++i) x[i] = (float)i;
  clforge_pool_desc d = pool(CLFORGE_POOL_MAX, 1, 4, 4, 2, 2, 0);
  CHECK_OK(NULL, clforge_ref_pool(&d, x, y));
  CHECK(y[0] == 5 && y[1] == 7 && y[2] == 13 && y[3] == 15, "max 2x2/2: %g %g %g %g", y[0], y[1], y[2], y[3]);
  d = pool(CLFORGE_POOL_AVG, 1, 4, 4, 3, 1, 1); /* corner: 0 + 1 + 4 + 5 over 9, or over 4 */
  CHECK_OK(NULL, clforge_ref_pool(&d, x, y));
  CHECK(fabsf(y[0] - 10.0f / 9.0f) < 1e-6f && fabsf(y[5] - 45.0f / 9.0f) < 1e-6f, "avg 3x3 pad 1 with the padding: %g %g",
        y[0], y[5]);
  d.exclude_pad = 1;
  CHECK_OK(NULL, clforge_ref_pool(&d, x, y));
  CHECK(y[0] == 2.5f && y[3] == (2 + 3 + 6 + 7) / 4.0f, "avg without the padding: %g %g", y[0], y[3]);
  d = pool(CLFORGE_POOL_AVG, 1, 4, 4, 2, 2, 0);
  d.divisor_override = 2;
  CHECK_OK(NULL, clforge_ref_pool(&d, x, y));
  CHECK(y[0] == 5.0f, "divisor_override 2: %g", y[0]);
  float x5[25], y9[9];
  for (int i = 0; i < 25; ++i) x5[i] = (float)i;
  d = pool(CLFORGE_POOL_AVG, 1, 5, 5, 2, 2, 0);
  d.ceil_mode = 1; /* the last window holds x[4][4] alone, and divides by 1 (clipped to the padded input) */
  CHECK_OK(NULL, clforge_ref_pool(&d, x5, y9));
  CHECK(y9[8] == 24.0f && y9[2] == (4 + 9) / 2.0f, "ceil mode's edge windows: %g %g", y9[8], y9[2]);
  d = pool(CLFORGE_POOL_AVG, 1, 5, 5, 3, 2, 1);
  d.ceil_mode = 1; /* the last window, rows and columns 3..5: two inside, one of padding, counted */
  CHECK_OK(NULL, clforge_ref_pool(&d, x5, y9));
  CHECK(fabsf(y9[8] - 84.0f / 9.0f) < 1e-5f, "ceil mode with padding counted: %g, want 84/9", y9[8]);
  d.exclude_pad = 1;
  CHECK_OK(NULL, clforge_ref_pool(&d, x5, y9));
  CHECK(y9[8] == 21.0f, "ceil mode with padding excluded: %g, want 84/4", y9[8]);
  float x4[4] = {1, -2, 3, 4}, y1[1];
  d = pool(CLFORGE_POOL_MAX, 1, 2, 2, 2, 1, 1);
  d.dilation_h = d.dilation_w = 3; /* every tap in the padding or past the input */
  size_t p1, q1;
  CHECK_OK(NULL, clforge_pool_output_size(&d, &p1, &q1));
  CHECK_OK(NULL, clforge_ref_pool(&d, x4, y9));
  (void)y1;
  CHECK(p1 == 1 && q1 == 1 && isinf(y9[0]) && y9[0] < 0, "an empty dilated window: %zu x %zu, %g", p1, q1, y9[0]);
  d = pool(CLFORGE_POOL_MAX, 1, 4, 4, 2, 1, 0);
  d.dilation_h = d.dilation_w = 2; /* taps (0,0) (0,2) (2,0) (2,2) of each window */
  CHECK_OK(NULL, clforge_ref_pool(&d, x, y));
  CHECK(y[0] == 10 && y[3] == 15, "dilated max: %g %g", y[0], y[3]);
  x[5] = NAN;
  d = pool(CLFORGE_POOL_MAX, 1, 4, 4, 2, 2, 0);
  CHECK_OK(NULL, clforge_ref_pool(&d, x, y));
  CHECK(isnan(y[0]) && y[1] == 7, "a NaN wins its window only: %g %g", y[0], y[1]);
  x[5] = 5;
  d.global_pool = 1, d.kind = CLFORGE_POOL_AVG;
  CHECK_OK(NULL, clforge_ref_pool(&d, x, y));
  CHECK(y[0] == 7.5f, "global average: %g", y[0]);
}

/* NHWC's reference is NCHW's, transposed. */
static void layouts(void) {
  enum { N = 2, C = 3, H = 7, W = 6 };
  static float a[N * C * H * W], b[N * C * H * W], ya[N * C * H * W], yb[N * C * H * W];
  unsigned seed = 5;
  tu_fill(a, CLFORGE_F32, sizeof a / sizeof a[0], &seed);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int i = 0; i < H * W; ++i) b[(n * H * W + i) * C + c] = a[(n * C + c) * H * W + i];
  for (int kind = 0; kind < 2; ++kind) {
    clforge_pool_desc d = pool((clforge_pool_kind)kind, C, H, W, 3, 2, 1);
    d.n = N, d.ceil_mode = 1;
    size_t p, q;
    CHECK_OK(NULL, clforge_pool_output_size(&d, &p, &q));
    CHECK_OK(NULL, clforge_ref_pool(&d, a, ya));
    d.layout = CLFORGE_NHWC;
    CHECK_OK(NULL, clforge_ref_pool(&d, b, yb));
    int same = 1;
    for (size_t n = 0; n < N; ++n)
      for (size_t c = 0; c < C; ++c)
        for (size_t i = 0; i < p * q; ++i) same &= ya[(n * C + c) * p * q + i] == yb[(n * p * q + i) * C + c];
    CHECK(same, "kind %d: NHWC's reference is not NCHW's transposed", kind);
  }
}

typedef struct {
  clforge_pool_desc d;
  const char *what;
  int nan; /* a NaN in the input */
} pcase;

static void run(clforge_context ctx, const pcase *c) {
  clforge_pool_desc d = c->d;
  d.x_offset = 3, d.y_offset = 5;
  size_t p = 0, q = 0;
  CHECK_OK(NULL, clforge_pool_output_size(&d, &p, &q));
  const size_t nx = d.n * d.c * d.h * d.w + d.x_offset, ny = d.n * d.c * p * q + d.y_offset + 4;
  const clforge_dtype xt = d.x_type ? d.x_type : CLFORGE_F32, yt = d.y_type ? d.y_type : CLFORGE_F32;
  const size_t xs = clforge_dtype_size(xt), ys = clforge_dtype_size(yt);
  void *hx = malloc(nx * xs), *want = malloc(ny * ys), *got = malloc(ny * ys);
  unsigned seed = 99 + (unsigned)nx;
  tu_fill(hx, xt, nx, &seed);
  if (c->nan) clforge__ref_store(hx, xt, d.x_offset + nx / 2, NAN);
  memset(want, 0x5a, ny * ys);
  cl_mem x = tu_buffer(ctx, nx * xs), y = tu_buffer(ctx, ny * ys);
  tu_write(ctx, x, 0, nx * xs, hx), tu_write(ctx, y, 0, ny * ys, want);
  CHECK_OK(NULL, clforge_ref_pool(&d, hx, want));
  CHECK_OK(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL));
  tu_read(ctx, y, 0, ny * ys, got);
  float *g = malloc(ny * 4), *w = malloc(ny * 4);
  clforge_ref_convert(ny, got, yt, g, CLFORGE_F32), clforge_ref_convert(ny, want, yt, w, CLFORGE_F32);
  clforge__error_stats s;
  clforge__compare_f32(ny - d.y_offset - 4, g + d.y_offset, w + d.y_offset, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(yt)), "%s: nrmse %.3g max_abs %.3g special mismatches %zu",
        c->what, s.nrmse, s.max_abs, (size_t)s.special_mismatches);
  CHECK(!memcmp(got, want, d.y_offset * ys) && !memcmp((char *)got + (ny - 4) * ys, (char *)want + (ny - 4) * ys, 4 * ys),
        "%s: elements outside y changed", c->what);
  if (d.kind == CLFORGE_POOL_MAX) /* the largest of stored values: exact */
    CHECK(!memcmp(got, want, ny * ys), "%s: max pooling is not bit for bit", c->what);
  free(hx), free(want), free(got), free(g), free(w);
  clReleaseMemObject(x), clReleaseMemObject(y);
}

static void device_cases(clforge_context ctx, int small) {
  const clforge_dtype F = CLFORGE_F32, H = CLFORGE_F16, B = CLFORGE_BF16;
  pcase cs[16];
  int n = 0;
  /* ResNet's stem pooling (3x3/2 pad 1) and the heads' global average, NHWC */
  cs[n] = (pcase){pool(CLFORGE_POOL_MAX, small ? 5 : 64, small ? 12 : 112, small ? 12 : 112, 3, 2, 1), "resnet stem max", 0};
  cs[n++].d.layout = CLFORGE_NHWC;
  cs[n] = (pcase){pool(CLFORGE_POOL_AVG, small ? 17 : 2048, 7, 7, 0, 0, 0), "global average 7x7 NHWC", 0};
  cs[n].d.global_pool = 1, cs[n++].d.layout = CLFORGE_NHWC;
  /* NCHW: f16 through, ceil mode and a NaN; bf16 in, f32 out, dilation */
  cs[n] = (pcase){pool(CLFORGE_POOL_MAX, 6, 13, 11, 3, 2, 1), "max f16 ceil NaN", 1};
  cs[n].d.x_type = cs[n].d.y_type = H, cs[n].d.ceil_mode = 1, cs[n].d.n = 2, ++n;
  cs[n] = (pcase){pool(CLFORGE_POOL_MAX, 4, 15, 9, 3, 1, 1), "max bf16 -> f32 dilated", 0};
  cs[n].d.x_type = B, cs[n].d.y_type = F, cs[n].d.dilation_h = cs[n].d.dilation_w = 2, ++n;
  /* average: with the padding (ceil mode), without it, a divisor override;
   * rectangular windows and strides */
  cs[n] = (pcase){pool(CLFORGE_POOL_AVG, 5, 10, 9, 3, 2, 1), "avg with padding, ceil", 0};
  cs[n].d.ceil_mode = 1, cs[n].d.n = 3, ++n;
  cs[n] = (pcase){pool(CLFORGE_POOL_AVG, 8, 9, 14, 3, 2, 1), "avg without padding NHWC f16 -> bf16", 0};
  cs[n].d.exclude_pad = 1, cs[n].d.layout = CLFORGE_NHWC, cs[n].d.x_type = H, cs[n].d.y_type = B;
  cs[n].d.kernel_w = 4, cs[n].d.stride_w = 3, cs[n].d.pad_w = 2, ++n;
  cs[n] = (pcase){pool(CLFORGE_POOL_AVG, 3, 8, 8, 2, 2, 0), "avg divisor override", 0};
  cs[n].d.divisor_override = 3, ++n;
  cs[n] = (pcase){pool(CLFORGE_POOL_AVG, 3, 2, 3, 3, 2, 0), "avg kernel past the input, ceil", 0};
  cs[n++].d.ceil_mode = 1;
  cs[n] = (pcase){pool(CLFORGE_POOL_MAX, 7, 5, 6, 0, 0, 0), "global max NCHW", 1};
  cs[n].d.global_pool = 1, cs[n].d.n = 2, ++n;
  for (int i = 0; i < n; ++i) run(ctx, &cs[i]);
}

static void bad_input(clforge_context ctx) {
  cl_mem x = tu_buffer(ctx, 4096), y = tu_buffer(ctx, 4096), small = tu_buffer(ctx, 16);
  float sent[1024];
  for (int i = 0; i < 1024; ++i) sent[i] = 7.0f;
  tu_write(ctx, y, 0, 4096, sent);
  const clforge_pool_desc good = pool(CLFORGE_POOL_MAX, 4, 8, 8, 2, 2, 0); /* 256 in, 64 out */
  clforge_pool_desc d = good;
  CHECK_FAILS(NULL, clforge_pool(NULL, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_pool(ctx, NULL, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.kind = (clforge_pool_kind)3;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "kind");
  d = good, d.layout = (clforge_tensor_layout)2;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "layout");
  d = good, d.reserved[0] = &d;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.kernel_h = 0;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, ">= 1");
  d = good, d.y_type = CLFORGE_U8;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "f32, f16 or bf16");
  d = good, d.exclude_pad = 1;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "average pooling's");
  d = good, d.kind = CLFORGE_POOL_AVG, d.dilation_w = 2;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "no dilation");
  d = good, d.h = 0;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "empty");
  d = good, d.c = (size_t)1 << 30, d.n = (size_t)1 << 30;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "overflow");
  d = good, d.y_offset = SIZE_MAX - 10;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "offset");
  d = good;
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, small, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "x");
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, small, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "y");
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y");
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "x");
  d.y_offset = 200; /* y inside x's 256 elements */
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps");
  CHECK_FAILS(ctx, clforge_pool(ctx, &good, x, y, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "wait");
  float back[1024];
  tu_read(ctx, y, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote y");
  d = good, d.n = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_pool(ctx, &d, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "n 0 gives a marker event");
  if (ev) clReleaseEvent(ev);
  clforge_kernel_choice ch;
  CHECK_OK(ctx, clforge_pool_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.family, "pool") && ch.nparams == 2, "explain names the family: %s", ch.family);
  d = good, d.kernel_h = 0;
  CHECK_FAILS(ctx, clforge_pool_explain(ctx, &d, &ch), CLFORGE_INVALID_ARGUMENT, ">= 1");
  clReleaseMemObject(x), clReleaseMemObject(y), clReleaseMemObject(small);
}

static void validation(clforge_context ctx) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  pcase c = {pool(CLFORGE_POOL_AVG, 3, 9, 9, 3, 2, 1), "validated avg", 0};
  run(ctx, &c);
  cl_mem x = tu_buffer(ctx, 4 * 81), y = tu_buffer(ctx, 4 * 81);
  float h[81];
  for (int i = 0; i < 81; ++i) h[i] = (float)(i % 7) - 3.0f;
  tu_write(ctx, x, 0, sizeof h, h);
  const clforge_pool_desc d = pool(CLFORGE_POOL_MAX, 1, 9, 9, 3, 3, 0);
  clforge__test_set_fault(ctx, "pool");
  CHECK_FAILS(ctx, clforge_pool(ctx, &d, x, y, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "pool");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  clReleaseMemObject(x), clReleaseMemObject(y);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  sizes();
  hand_values();
  layouts();
  clforge_context ctx = tu_context();
  device_cases(ctx, small);
  bad_input(ctx);
  if (!small) validation(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
