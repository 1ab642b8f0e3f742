/* clforge_conv2d_quantized against clforge_ref_conv2d_quantized bit for bit
 * (s32, requantized s8/u8 and float y), and the s32 sums against a direct
 * int64 convolution written here: 1x1 in place and through the column
 * matrix (stride 2), 3x3 with padding (which reads x's zero point),
 * asymmetric padding, stride and dilation, a 3-channel 7x7 stem, KRSC and
 * KCRS filters, u8 and s8 x with their zero points, per-tensor and
 * per-channel weight scales, bias, ReLU, alpha and beta, guard regions
 * around y, a workspace bound that forces passes of pixel ranges, groups
 * (one GEMM each) and depthwise layers (their direct kernel); every
 * case again with prepared weights (clforge_conv2d_quantized_ex, w NULL and
 * its buffer overwritten after the weights were made: the same bytes);
 * then bad inputs with y untouched (weights of another filter included) and
 * validation mode (with prepared weights too). --small: Oclgrind's run. */
#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "oclgrind_keep.h"
#include "test_util.h"

enum { GUARD = 48 };
static const unsigned char SENT = 0x5A;

typedef struct {
  size_t n, c, h, w, k, r, s, sh, sw, dh, dw, pt, pb, pl, pr;
  clforge_filter_layout wl;
  clforge_dtype xt, yt;
  int32_t zpx, zpw;
  clforge_quant_scheme ws;
  int bias;
  clforge_activation act;
  float alpha, beta, y_scale;
  int32_t zpy;
  size_t g; /* groups (0: 1) */
} qc_case;

static int32_t val(const void *p, clforge_dtype t, size_t i) {
  return t == CLFORGE_S8 ? (int32_t)((const int8_t *)p)[i] : (int32_t)((const uint8_t *)p)[i];
}

/* The exact sum of output (n, op, oq, k) of a direct convolution (NHWC x,
 * w in its layout, groups): written here, independent of the column
 * matrix and the GEMMs the op and the reference share. */
static int64_t direct_sum(const qc_case *t, const clforge_conv2d_desc *d, const uint8_t *x, const uint8_t *w,
                          size_t n, size_t op, size_t oq, size_t k) {
  const size_t g = t->g ? t->g : 1, cg = t->c / g, kg = t->k / g;
  int64_t acc = 0;
  for (size_t r = 0; r < t->r; ++r)
    for (size_t s = 0; s < t->s; ++s) {
      const long long ih = (long long)(op * t->sh + r * t->dh) - (long long)t->pt;
      const long long iw = (long long)(oq * t->sw + s * t->dw) - (long long)t->pl;
      if (ih < 0 || iw < 0 || ih >= (long long)t->h || iw >= (long long)t->w) continue;
      for (size_t c = 0; c < cg; ++c) { /* the group's channels */
        const size_t xi = d->x_offset + ((n * t->h + (size_t)ih) * t->w + (size_t)iw) * t->c + k / kg * cg + c;
        const size_t wi = d->w_offset + (t->wl == CLFORGE_KRSC ? ((k * t->r + r) * t->s + s) * cg + c
                                                              : ((k * cg + c) * t->r + r) * t->s + s);
        acc += (int64_t)(val(x, t->xt, xi) - t->zpx) * (val(w, CLFORGE_S8, wi) - t->zpw);
      }
    }
  return acc;
}

/* y against the direct sums: s32 exactly; f32 (the sums dequantized with
 * x's and w's scales, alpha, beta * y, the bias, ReLU) within 1e-5 of the
 * magnitude, which a wrong group's scale or bias offset exceeds. */
static int direct_ok(const qc_case *t, const clforge_conv2d_desc *d, const uint8_t *x, const uint8_t *w,
                     const unsigned char *y, const unsigned char *y0, float xs, const float *wsc, const float *bias,
                     size_t p, size_t q) {
  for (size_t n = 0; n < t->n; ++n)
    for (size_t op = 0; op < p; ++op)
      for (size_t oq = 0; oq < q; ++oq)
        for (size_t k = 0; k < t->k; ++k) {
          const int64_t acc = direct_sum(t, d, x, w, n, op, oq, k);
          const size_t at = d->y_offset + ((n * p + op) * q + oq) * t->k + k;
          if (t->yt == CLFORGE_S32) {
            int32_t got;
            memcpy(&got, y + at * 4, 4);
            if (got != (int32_t)acc) {
              CHECK(0, "direct sum at n %zu (%zu, %zu) k %zu: %d, expected %lld", n, op, oq, k, (int)got,
                    (long long)acc);
              return 0;
            }
            continue;
          }
          float got, before;
          memcpy(&got, y + at * 4, 4), memcpy(&before, y0 + at * 4, 4);
          double want = (double)t->alpha * xs * wsc[t->ws == CLFORGE_QUANT_PER_ROW ? k : 0] * (double)acc +
                        t->beta * before + (t->bias ? bias[d->bias_offset + k] : 0.0);
          if (t->act == CLFORGE_ACT_RELU && want < 0) want = 0;
          if (!(fabs(got - want) <= 1e-5 * (1 + fabs(want)))) {
            CHECK(0, "direct f32 at n %zu (%zu, %zu) k %zu: %g, expected %g", n, op, oq, k, (double)got, want);
            return 0;
          }
        }
  return 1;
}

static void run_case(clforge_context ctx, const qc_case *t, unsigned seed) {
  clforge_conv2d_desc d = {.n = t->n, .c = t->c, .h = t->h, .w = t->w, .k = t->k, .r = t->r, .s = t->s,
                           .stride_h = t->sh, .stride_w = t->sw, .dilation_h = t->dh, .dilation_w = t->dw,
                           .pad_top = t->pt, .pad_bottom = t->pb, .pad_left = t->pl, .pad_right = t->pr,
                           .x_layout = CLFORGE_NHWC, .y_layout = CLFORGE_NHWC, .w_layout = t->wl,
                           .x_type = t->xt, .w_type = CLFORGE_S8, .y_type = t->yt, .x_offset = 3, .w_offset = 5,
                           .y_offset = GUARD, .bias_offset = 1, .alpha = t->alpha, .beta = t->beta,
                           .activation = t->act, .groups = t->g};
  size_t p, q;
  CHECK_OK(NULL, clforge_conv2d_output_size(&d, &p, &q));
  const size_t nx = d.x_offset + t->n * t->h * t->w * t->c,
               nw = d.w_offset + t->k * (t->c / (t->g ? t->g : 1)) * t->r * t->s;
  const size_t ny = GUARD + t->n * p * q * t->k + GUARD, es = clforge_dtype_size(t->yt);
  uint8_t *x = malloc(nx), *w = malloc(nw);
  unsigned char *y0 = malloc(ny * es), *want = malloc(ny * es), *got = malloc(ny * es);
  float xs = 0.0123f, wsc[512], bias[512];
  for (size_t i = 0; i < nx; ++i) x[i] = (uint8_t)tu_rand(&seed);
  for (size_t i = 0; i < nw; ++i) w[i] = (uint8_t)tu_rand(&seed);
  for (int i = 0; i < 512; ++i) {
    wsc[i] = 0.001f * (float)(1 + tu_rand(&seed) % 50);
    bias[i] = (float)(int)(tu_rand(&seed) % 200) / 50.0f - 2.0f;
  }
  memset(y0, SENT, ny * es);
  if (t->beta != 0.0f) { /* a y to read: small values of y's type */
    for (size_t i = GUARD; i < ny - GUARD; ++i) {
      float v = (float)(int)(tu_rand(&seed) % 9) - 4.0f;
      if (t->yt == CLFORGE_S8 || t->yt == CLFORGE_U8) y0[i] = (unsigned char)(int)(v + 10);
      else clforge_ref_convert(1, &v, CLFORGE_F32, y0 + i * es, t->yt);
    }
  }
  memcpy(want, y0, ny * es);
  const int scaled = t->yt != CLFORGE_S32;
  const clforge_conv_quant cq0 = {.w_scheme = t->ws, .x_zero_point = t->zpx, .w_zero_point = t->zpw,
                                  .y_scale = t->y_scale, .y_zero_point = t->zpy};
  CHECK_OK(NULL, clforge_ref_conv2d_quantized(&d, &cq0, x, w, t->bias ? bias : NULL, want, scaled ? &xs : NULL,
                                              scaled ? wsc : NULL));
  cl_mem bx = tu_buffer(ctx, nx), bw = tu_buffer(ctx, nw), by = tu_buffer(ctx, ny * es);
  cl_mem bs = tu_buffer(ctx, sizeof wsc), bxs = tu_buffer(ctx, sizeof xs), bb = tu_buffer(ctx, sizeof bias);
  tu_write(ctx, bx, 0, nx, x), tu_write(ctx, bw, 0, nw, w), tu_write(ctx, by, 0, ny * es, y0);
  tu_write(ctx, bs, 0, sizeof wsc, wsc), tu_write(ctx, bxs, 0, sizeof xs, &xs), tu_write(ctx, bb, 0, sizeof bias, bias);
  clforge_conv_quant cq = cq0;
  if (scaled) cq.x_scale = bxs, cq.w_scale = bs;
  CHECK_OK(ctx, clforge_conv2d_quantized(ctx, &d, &cq, bx, bw, t->bias ? bb : NULL, by, 0, NULL, NULL));
  tu_read(ctx, by, 0, ny * es, got);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < ny * es; ++i)
    if (got[i] != want[i] && !bad++) first = i;
  CHECK(bad == 0, "%zux%zu s%zu d%zu pad %zu/%zu/%zu/%zu C %zu K %zu x %s y %s: %zu bytes differ from the reference "
        "(first: element %zu)", t->r, t->s, t->sh, t->dh, t->pt, t->pb, t->pl, t->pr, t->c, t->k,
        clforge_dtype_name(t->xt), clforge_dtype_name(t->yt), bad, first / es);
  if (t->yt == CLFORGE_S32 || (t->yt == CLFORGE_F32 && t->act != CLFORGE_ACT_GELU_TANH && t->act != CLFORGE_ACT_GELU_ERF))
    direct_ok(t, &d, x, w, got, y0, xs, wsc, bias, p, q);
  /* prepared weights: the same bytes without reading w again */
  clforge_conv2d_quantized_weights pw = NULL;
  CHECK_OK(ctx, clforge_conv2d_quantized_weights_create(ctx, &d, bw, 0, NULL, &pw));
  clFinish(ctx->queue);
  memset(w, 0x7F, nw);
  tu_write(ctx, bw, 0, nw, w), tu_write(ctx, by, 0, ny * es, y0);
  CHECK_OK(ctx, clforge_conv2d_quantized_ex(ctx, &d, &cq, bx, NULL, pw, t->bias ? bb : NULL, by, 0, NULL, NULL));
  tu_read(ctx, by, 0, ny * es, got);
  CHECK(!memcmp(got, want, ny * es), "%zux%zu C %zu K %zu: prepared weights give other bytes", t->r, t->s, t->c,
        t->k);
  CHECK_OK(ctx, clforge_conv2d_quantized_weights_release(pw));
  keep_release(bx), keep_release(bw), keep_release(by), keep_release(bs), keep_release(bxs), keep_release(bb);
  free(x), free(w), free(y0), free(want), free(got);
}

static void bad_inputs(clforge_context ctx) {
  const clforge_conv2d_desc good = {.n = 2, .c = 8, .h = 5, .w = 5, .k = 4, .r = 3, .s = 3, .pad_top = 1,
                                    .pad_bottom = 1, .pad_left = 1, .pad_right = 1, .x_layout = CLFORGE_NHWC,
                                    .y_layout = CLFORGE_NHWC, .w_layout = CLFORGE_KRSC, .x_type = CLFORGE_U8,
                                    .w_type = CLFORGE_S8, .y_type = CLFORGE_F32};
  const size_t nx = 2 * 5 * 5 * 8, nw = 4 * 9 * 8, ny = 2 * 5 * 5 * 4;
  cl_mem x = tu_buffer(ctx, nx), w = tu_buffer(ctx, nw), y = tu_buffer(ctx, ny * 4), s = tu_buffer(ctx, 64);
  unsigned char fill[2 * 5 * 5 * 4 * 4], after[sizeof fill];
  memset(fill, 0x3C, sizeof fill);
  unsigned char xs[2 * 5 * 5 * 8], ws[4 * 9 * 8];
  memset(xs, 1, sizeof xs), memset(ws, 2, sizeof ws);
  const float one[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  tu_write(ctx, x, 0, nx, xs), tu_write(ctx, w, 0, nw, ws), tu_write(ctx, y, 0, sizeof fill, fill);
  tu_write(ctx, s, 0, sizeof one, one);
  const clforge_conv_quant gq = {.x_scale = s, .w_scale = s, .x_zero_point = 128};
  clforge_conv2d_desc d;
  clforge_conv_quant qq;
#define BAD(setup, want, needle)                                                                     \
  do {                                                                                               \
    d = good, qq = gq;                                                                               \
    setup;                                                                                           \
    CHECK_FAILS(ctx, clforge_conv2d_quantized(ctx, &d, &qq, x, w, NULL, y, 0, NULL, NULL), want, needle); \
  } while (0)
  BAD(d.x_layout = CLFORGE_NCHW, CLFORGE_UNSUPPORTED, "NHWC");
  BAD(d.y_layout = CLFORGE_NCHW, CLFORGE_UNSUPPORTED, "NHWC");
  BAD((d.groups = 3, d.k = 6), CLFORGE_INVALID_ARGUMENT, "groups");
  BAD(d.x_type = CLFORGE_F32, CLFORGE_INVALID_ARGUMENT, "must be s8 or u8");
  BAD(d.w_type = CLFORGE_S32, CLFORGE_INVALID_ARGUMENT, "must be s8 or u8");
  BAD(d.bias_type = CLFORGE_S8, CLFORGE_INVALID_ARGUMENT, "bias a float type");
  BAD(d.kind = CLFORGE_CONV_BACKWARD_DATA, CLFORGE_INVALID_ARGUMENT, "forward only");
  BAD(d.algo = CLFORGE_CONV_ALGO_IM2COL, CLFORGE_INVALID_ARGUMENT, "leave algo 0");
  BAD(qq.w_scheme = CLFORGE_QUANT_PER_COLUMN, CLFORGE_INVALID_ARGUMENT, "w_scheme = 2");
  BAD(qq.x_zero_point = 300, CLFORGE_INVALID_ARGUMENT, "x_zero_point 300");
  BAD((d.y_type = CLFORGE_S32, d.alpha = 2.0f), CLFORGE_INVALID_ARGUMENT, "raw sums");
  BAD(qq.w_scale = NULL, CLFORGE_INVALID_ARGUMENT, "w_scale are needed");
  BAD((d.y_type = CLFORGE_S8, qq.y_scale = 0.0f), CLFORGE_INVALID_ARGUMENT, "y_scale 0");
  BAD(qq.reserved[0] = &qq, CLFORGE_INVALID_ARGUMENT, "reserved");
  BAD(d.n = 3, CLFORGE_BUFFER_TOO_SMALL, "x");
  BAD(d.y_offset = 10, CLFORGE_BUFFER_TOO_SMALL, "y");
  BAD((qq.w_scheme = CLFORGE_QUANT_PER_ROW, qq.w_scale_offset = 13), CLFORGE_BUFFER_TOO_SMALL, "w_scale");
  CHECK_FAILS(ctx, clforge_conv2d_quantized(ctx, &good, NULL, x, w, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "quant is NULL");
  cl_mem both = tu_buffer(ctx, 1024); /* x and y in one buffer, overlapping */
  tu_write(ctx, both, 0, nx, xs);
  CHECK_FAILS(ctx, clforge_conv2d_quantized(ctx, &good, &gq, both, w, NULL, both, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "y overlaps x");
  keep_release(both);
#undef BAD
  tu_read(ctx, y, 0, sizeof after, after);
  CHECK(!memcmp(fill, after, sizeof fill), "%s", "a refused call changed y");
  /* validation mode passes a right result and catches a corrupted one */
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  CHECK_OK(ctx, clforge_conv2d_quantized(ctx, &good, &gq, x, w, NULL, y, 0, NULL, NULL));
  clforge__test_set_fault(ctx, "conv2d_quantized");
  CHECK_FAILS(ctx, clforge_conv2d_quantized(ctx, &good, &gq, x, w, NULL, y, 0, NULL, NULL),
              CLFORGE_VALIDATION_FAILED, "element 0");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  keep_release(x), keep_release(w), keep_release(y), keep_release(s);
}

/* Prepared weights of another filter are refused (y untouched), a NULL
 * weights pointer or an empty filter too; validation mode checks a call
 * with prepared weights against the filter they were made from. */
static void prepared_checks(clforge_context ctx) {
  enum { C = 8, K = 6, HW = 16 };
  const clforge_conv2d_desc d = {.n = 1, .c = C, .h = 4, .w = 4, .k = K, .r = 1, .s = 1, .x_layout = CLFORGE_NHWC,
                                 .y_layout = CLFORGE_NHWC, .w_layout = CLFORGE_KRSC, .x_type = CLFORGE_U8,
                                 .w_type = CLFORGE_S8, .y_type = CLFORGE_S32};
  uint8_t x[HW * C], w[K * C];
  int32_t y0[HW * K], y[HW * K];
  unsigned seed = 5;
  for (size_t i = 0; i < sizeof x; ++i) x[i] = (uint8_t)tu_rand(&seed);
  for (size_t i = 0; i < sizeof w; ++i) w[i] = (uint8_t)tu_rand(&seed);
  for (int i = 0; i < HW * K; ++i) y0[i] = -7 - i;
  cl_mem bx = tu_buffer(ctx, sizeof x), bw = tu_buffer(ctx, sizeof w), by = tu_buffer(ctx, sizeof y);
  tu_write(ctx, bx, 0, sizeof x, x), tu_write(ctx, bw, 0, sizeof w, w), tu_write(ctx, by, 0, sizeof y0, y0);
  const clforge_conv_quant cq = {.x_zero_point = 128};
  clforge_conv2d_quantized_weights pw = NULL;
  CHECK_FAILS(ctx, clforge_conv2d_quantized_weights_create(ctx, &d, bw, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "weights is NULL");
  clforge_conv2d_desc e = d;
  e.k = 0;
  CHECK_FAILS(ctx, clforge_conv2d_quantized_weights_create(ctx, &e, bw, 0, NULL, &pw), CLFORGE_INVALID_ARGUMENT,
              "empty");
  CHECK_OK(ctx, clforge_conv2d_quantized_weights_create(ctx, &d, bw, 0, NULL, &pw));
  e = d;
  e.k = K - 2; /* another filter: K differs */
  CHECK_FAILS(ctx, clforge_conv2d_quantized_ex(ctx, &e, &cq, bx, NULL, pw, NULL, by, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "prepared weights are for");
  e = d;
  e.w_layout = CLFORGE_KCRS;
  CHECK_FAILS(ctx, clforge_conv2d_quantized_ex(ctx, &e, &cq, bx, NULL, pw, NULL, by, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "KRSC");
  tu_read(ctx, by, 0, sizeof y, y);
  CHECK(!memcmp(y, y0, sizeof y), "%s", "a refused call with prepared weights wrote y");
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  CHECK_OK(ctx, clforge_conv2d_quantized_ex(ctx, &d, &cq, bx, NULL, pw, NULL, by, 0, NULL, NULL));
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  CHECK_OK(ctx, clforge_conv2d_quantized_weights_release(pw));
  CHECK_OK(ctx, clforge_conv2d_quantized_weights_release(NULL));
  keep_release(bx), keep_release(bw), keep_release(by);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  if (small) keep_start_sized(ctx, (size_t)64 << 10);
  bad_inputs(ctx);
  prepared_checks(ctx);
  const clforge_dtype U8 = CLFORGE_U8, S8 = CLFORGE_S8, S32 = CLFORGE_S32, F32 = CLFORGE_F32;
  const clforge_filter_layout KRSC = CLFORGE_KRSC, KCRS = CLFORGE_KCRS;
  const clforge_quant_scheme PT = CLFORGE_QUANT_PER_TENSOR, PR = CLFORGE_QUANT_PER_ROW;
  /* n c h w k r s sh sw dh dw pt pb pl pr, wl, xt yt, zpx zpw, ws, bias act alpha beta y_scale zpy */
  const qc_case cases[] = {
      /* 1x1 in place, s32 */
      {2, 24, 6, 7, 20, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, KRSC, U8, S32, 128, 0, PT, 0, 0, 1, 0, 0, 0, 1},
      /* 1x1 stride 2 (the column matrix), 3x3 padded, asymmetric pads with stride 2 and dilation 2 */
      {2, 16, 7, 7, 12, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, KRSC, U8, S32, 128, 0, PT, 0, 0, 1, 0, 0, 0, 1},
      {2, 13, 6, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, S32, 131, 0, PT, 0, 0, 1, 0, 0, 0, 1},
      {1, 8, 9, 8, 6, 3, 3, 2, 2, 2, 2, 2, 0, 1, 3, KCRS, S8, S32, -3, 2, PT, 0, 0, 1, 0, 0, 0, 1},
      /* the stem: 3 channels, 7x7 stride 2 pad 3 */
      {1, 3, 16, 16, 8, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, KRSC, U8, S32, 128, 0, PT, 0, 0, 1, 0, 0, 0, 1},
      /* dequantized f32 with per-channel scales, bias, ReLU, alpha, beta */
      {2, 16, 6, 6, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, F32, 128, 0, PR, 1, CLFORGE_ACT_RELU, 1.5f, 0.5f, 0, 0, 1},
      {2, 32, 5, 5, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, KRSC, U8, F32, 128, 0, PR, 1, CLFORGE_ACT_RELU, 1.0f, 0, 0, 0, 1},
      /* requantized s8 and u8 */
      {2, 16, 6, 6, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, S8, 128, 0, PR, 1, CLFORGE_ACT_RELU, 1, 0, 0.05f, -4, 1},
      {1, 12, 7, 6, 10, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, KCRS, S8, CLFORGE_U8, 0, 0, PT, 0, 0, 1, 0, 0.02f, 128, 1},
      /* half outputs */
      {1, 8, 5, 5, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, CLFORGE_F16, 128, 0, PR, 1, 0, 1, 0, 0, 0, 1},
      /* grouped (2 groups, 3x3 padded, s32; per-channel scales, bias, ReLU), depthwise (multiplier 1
       * and 2, stride 2, KCRS), grouped 1x1 in place */
      {2, 12, 6, 5, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, S32, 128, 0, PT, 0, 0, 1, 0, 0, 0, 2},
      {1, 12, 6, 6, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, F32, 128, 0, PR, 1, CLFORGE_ACT_RELU, 1, 0, 0, 0, 3},
      {2, 8, 7, 7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, S32, 131, 0, PT, 0, 0, 1, 0, 0, 0, 8},
      {1, 6, 7, 6, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, KCRS, S8, S32, -3, 2, PT, 0, 0, 1, 0, 0, 0, 6},
      {2, 16, 4, 5, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, KRSC, U8, S8, 128, 0, PR, 1, 0, 1, 0, 0.05f, -4, 4},
      /* depthwise through its direct kernel's epilogue: f32 with per-channel scales, bias, ReLU, beta;
       * requantized u8 with dilation */
      {2, 8, 6, 6, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KRSC, U8, F32, 128, 3, PR, 1, CLFORGE_ACT_RELU, 1.5f, 0.5f, 0, 0,
       8},
      {1, 12, 7, 7, 12, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, KCRS, S8, CLFORGE_U8, -1, 0, PT, 1, 0, 1, 0, 0.03f, 120, 12},
  };
  const size_t ncases = sizeof cases / sizeof cases[0];
  unsigned seed = 7;
  for (size_t i = 0; i < ncases; ++i) {
    qc_case t = cases[i];
    if (t.alpha == 0) t.alpha = 1;
    if (small && (i == 4 || i == 9)) continue; /* Oclgrind: the stem's and f16's builds are the slowest there */
    if (small) t.n = 1;
    run_case(ctx, &t, seed++);
  }
  if (!small) {
    /* passes: a workspace bound of a few rows of the column matrix (pixel
     * ranges of one image) and one of a few images */
    const size_t caps[2] = {3 * 9 * 13 + 5, 2 * 30 * 9 * 13};
    for (int i = 0; i < 2; ++i) {
      ctx->workspace.cap = caps[i];
      run_case(ctx, &cases[2], 40u + (unsigned)i);
    }
    /* a bound below the filter (1x1 in place, 20 x 24 bytes): the GEMM
     * reads it transposed where it lies */
    ctx->workspace.cap = 100;
    run_case(ctx, &cases[0], 42);
    ctx->workspace.cap = 0;
  }
  if (small) keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
