/* clforge_quantize / clforge_dequantize against clforge_ref_quantize /
 * clforge_ref_dequantize bit for bit (q bytes, computed scales and zero
 * points, dequantized values), plus checks that do not lean on the
 * reference: hand-worked rounding corners (ties to even, saturation, zero
 * points at the range ends, NaN, infinities, a zero scale), a hand-worked
 * q8_0 block, the round trip's error within half a step, guard bytes and
 * row gaps untouched, bad input refused with outputs untouched, validation
 * mode catching a corrupted result. --small: the short run under Oclgrind. */
#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "oclgrind_keep.h"
#include "oclgrind_keep.h"
#include "test_util.h"

enum { GUARD = 16 };
static const unsigned char SENT = 0xA5;
static const clforge_dtype xts[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};
static const char *const scheme_name[] = {"tensor", "row", "column", "q8_0"};

static size_t nscales(int scheme, size_t rows, size_t cols) {
  return scheme == CLFORGE_QUANT_PER_TENSOR ? 1 : scheme == CLFORGE_QUANT_PER_ROW ? rows
                                              : scheme == CLFORGE_QUANT_PER_COLUMN ? cols : 0;
}

/* Float inputs as f32: multiples of 1/32 (ties for power-of-two scales),
 * each row scaled differently so that per-row and per-column scales differ. */
static void fill_x(float *x, size_t n, size_t ldx, size_t cols, unsigned seed) {
  for (size_t i = 0; i < n; ++i) {
    const size_t r = i / ldx, c = i % ldx;
    const int k = (int)(tu_rand(&seed) % 8001) - 4000;
    x[i] = c < cols ? (float)k / 32.0f * (float)(1 + r % 4) / (float)(1 + c % 3) : 7.0f; /* gaps hold 7 */
  }
}

typedef struct qcase {
  int scheme, compute;
  clforge_dtype xt, qt;
  size_t rows, cols, ldx_pad, ldq_pad, xoff, qoff, soff, zoff;
  int with_zp;
} qcase;

/* One quantize and dequantize of a case on the device against the
 * reference, with the independent round-trip bound. Returns failures. */
static int run_case(clforge_context ctx, const qcase *t, unsigned seed) {
  const int q8 = t->scheme == CLFORGE_QUANT_Q8_0;
  const size_t rowb = q8 ? t->cols / 32 * 34 : t->cols;
  const clforge_quant_desc d = {.scheme = t->scheme, .scales = t->compute ? CLFORGE_QUANT_SCALES_COMPUTE : 0,
                                .rows = t->rows, .cols = t->cols, .x_type = t->xt, .q_type = t->qt,
                                .ldx = t->cols + t->ldx_pad, .ldq = rowb + t->ldq_pad, .x_offset = t->xoff,
                                .q_offset = t->qoff, .scale_offset = t->soff, .zero_point_offset = t->zoff};
  const size_t xs = clforge_dtype_size(t->xt), xn = t->xoff + (t->rows - 1) * d.ldx + t->cols;
  const size_t qn = t->qoff + (t->rows - 1) * d.ldq + rowb + GUARD, ns = nscales(t->scheme, t->rows, t->cols);
  float *xf = malloc(xn * 4), *scale = calloc(t->soff + ns + 1, 4), *dscale = calloc(t->soff + ns + 1, 4);
  int32_t *zp = calloc(t->zoff + ns + 1, 4), *dzp = calloc(t->zoff + ns + 1, 4);
  unsigned char *xh = malloc(xn * xs), *qref = malloc(qn), *qdev = malloc(qn), *xref = malloc(xn * xs),
                *xdev = malloc(xn * xs);
  fill_x(xf, xn, d.ldx, t->cols, seed);
  clforge_ref_convert(xn, xf, CLFORGE_F32, xh, t->xt);
  if (!t->compute) /* given: powers of two (exact 1 / scale, so ties stay ties) and zero points in range */
    for (size_t i = 0; i < ns; ++i) {
      scale[t->soff + i] = ldexpf(1.0f, -(int)(i % 6));
      zp[t->zoff + i] = t->qt == CLFORGE_S8 ? (int32_t)(i % 7) - 3 : (int32_t)(120 + i % 17);
    }
  memcpy(dscale, scale, (t->soff + ns + 1) * 4);
  memcpy(dzp, zp, (t->zoff + ns + 1) * 4);
  memset(qref, SENT, qn);
  const int zp_on = t->with_zp && !q8;
  int fails = 0;
  CHECK_OK(NULL, clforge_ref_quantize(&d, xh, qref, q8 ? NULL : scale, zp_on ? zp : NULL));

  cl_mem bx = tu_buffer(ctx, xn * xs), bq = tu_buffer(ctx, qn), bs = tu_buffer(ctx, (t->soff + ns + 1) * 4),
         bz = tu_buffer(ctx, (t->zoff + ns + 1) * 4), bx2 = tu_buffer(ctx, xn * xs);
  tu_write(ctx, bx, 0, xn * xs, xh);
  memset(qdev, SENT, qn);
  tu_write(ctx, bq, 0, qn, qdev);
  tu_write(ctx, bs, 0, (t->soff + ns + 1) * 4, dscale);
  tu_write(ctx, bz, 0, (t->zoff + ns + 1) * 4, dzp);
  cl_event ev = NULL;
  clforge_status st = clforge_quantize(ctx, &d, bx, bq, q8 ? NULL : bs, zp_on ? bz : NULL, 0, NULL, &ev);
  char what[160];
  snprintf(what, sizeof what, "%s %s->%s %s %zux%zu ldx+%zu ldq+%zu off %zu/%zu/%zu/%zu zp %d",
           scheme_name[t->scheme], clforge_dtype_name(t->xt), clforge_dtype_name(t->qt),
           t->compute ? "computed" : "given", t->rows, t->cols, t->ldx_pad, t->ldq_pad, t->xoff, t->qoff, t->soff,
           t->zoff, zp_on);
  CHECK(st == CLFORGE_SUCCESS && ev, "%s: quantize: %s", what, clforge_last_error(ctx));
  if (ev) clWaitForEvents(1, &ev), clReleaseEvent(ev);
  tu_read(ctx, bq, 0, qn, qdev);
  tu_read(ctx, bs, 0, (t->soff + ns + 1) * 4, dscale);
  tu_read(ctx, bz, 0, (t->zoff + ns + 1) * 4, dzp);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < qn; ++i) /* guards and row gaps included: both sides left them SENT */
    if (qdev[i] != qref[i] && !bad++) first = i;
  CHECK(!bad, "%s: %zu q bytes differ, first at %zu: 0x%02x vs the reference's 0x%02x", what, bad, first,
        qdev[first], qref[first]);
  fails += bad != 0;
  if (t->compute && !q8) {
    CHECK(!memcmp(dscale, scale, (t->soff + ns + 1) * 4), "%s: computed scales differ from the reference's", what);
    CHECK(!memcmp(dzp, zp, (t->zoff + ns + 1) * 4), "%s: zero points differ from the reference's", what);
    /* independently: s8's scale is max|x| / 127 over the channel */
    if (t->qt == CLFORGE_S8)
      for (size_t c = 0; c < ns; ++c) {
        float amax = 0;
        for (size_t r = 0; r < t->rows; ++r)
          for (size_t j = 0; j < t->cols; ++j) {
            const size_t ch = t->scheme == CLFORGE_QUANT_PER_ROW ? r : t->scheme == CLFORGE_QUANT_PER_COLUMN ? j : 0;
            float v;
            clforge_ref_convert(1, xh + (t->xoff + r * d.ldx + j) * xs, t->xt, &v, CLFORGE_F32);
            if (ch == c && fabsf(v) > amax) amax = fabsf(v);
          }
        if (dscale[t->soff + c] != amax / 127.0f) {
          CHECK(0, "%s: scale %zu is %g, max|x|/127 = %g", what, c, (double)dscale[t->soff + c], (double)(amax / 127.0f));
          ++fails;
          break;
        }
      }
  }
  /* dequantize the device's q: against the reference, and within a step of x */
  memset(xref, 0x5A, xn * xs);
  tu_write(ctx, bx2, 0, xn * xs, xref);
  clforge_quant_desc dd = d;
  dd.scales = 0;
  st = clforge_dequantize(ctx, &dd, bq, q8 ? NULL : bs, zp_on ? bz : NULL, bx2, 0, NULL, NULL);
  CHECK(st == CLFORGE_SUCCESS, "%s: dequantize: %s", what, clforge_last_error(ctx));
  tu_read(ctx, bx2, 0, xn * xs, xdev);
  CHECK_OK(NULL, clforge_ref_dequantize(&dd, qdev, q8 ? NULL : dscale, zp_on ? dzp : NULL, xref));
  bad = 0;
  size_t far = 0;
  for (size_t r = 0; r < t->rows; ++r)
    for (size_t c = 0; c < t->cols; ++c) {
      const size_t i = t->xoff + r * d.ldx + c;
      bad += memcmp(xdev + i * xs, xref + i * xs, xs) != 0;
      float x, y;
      clforge_ref_convert(1, xh + i * xs, t->xt, &x, CLFORGE_F32);
      clforge_ref_convert(1, xdev + i * xs, t->xt, &y, CLFORGE_F32);
      float step;
      if (q8) {
        const unsigned char *blk = qdev + t->qoff + r * d.ldq + c / 32 * 34;
        step = clforge_ref_f16_to_f32((uint16_t)(blk[0] | blk[1] << 8));
      } else {
        const size_t s = t->scheme == CLFORGE_QUANT_PER_ROW ? r : t->scheme == CLFORGE_QUANT_PER_COLUMN ? c : 0;
        step = dscale[t->soff + s];
      }
      /* computed scales never saturate (u8's rounded zero point may: one step); given ones may */
      const float qv = x / (step ? step : 1.0f);
      const int in_range = t->compute || q8 || fabsf(qv) < 100.0f;
      const float bound = (t->compute && t->qt == CLFORGE_U8 ? 1.0f : 0.5f) * step * 1.0001f +
                          (q8 ? step * 0.0625f : 0.0f) + /* d rounded to f16: up to 127 * 2^-11 of d */
                          fabsf(x) * (t->xt == CLFORGE_BF16 ? 1.0f / 128 : t->xt == CLFORGE_F16 ? 1.0f / 1024 : 1e-6f);
      far += in_range && !(fabsf(x - y) <= bound);
    }
  CHECK(!bad, "%s: %zu dequantized values differ from the reference's", what, bad);
  CHECK(!far, "%s: %zu dequantized values are farther than a step from x", what, far);
  fails += (bad != 0) + (far != 0);
  keep_release(bx), keep_release(bq), keep_release(bs), keep_release(bz);
  keep_release(bx2);
  free(xf), free(scale), free(dscale), free(zp), free(dzp), free(xh), free(qref), free(qdev), free(xref), free(xdev);
  return fails;
}

/* Per-tensor, given scale and zero point, one row of f32: each value's q
 * worked out by hand. */
static void hand_case(clforge_context ctx, clforge_dtype qt, float scale, int32_t zp, const float *x, const int *want,
                      size_t n) {
  const clforge_quant_desc d = {.rows = 1, .cols = n, .q_type = qt};
  cl_mem bx = tu_buffer(ctx, n * 4), bq = tu_buffer(ctx, n), bs = tu_buffer(ctx, 4), bz = tu_buffer(ctx, 4);
  tu_write(ctx, bx, 0, n * 4, x);
  tu_write(ctx, bs, 0, 4, &scale);
  tu_write(ctx, bz, 0, 4, &zp);
  unsigned char got[32], ref[32];
  CHECK_OK(ctx, clforge_quantize(ctx, &d, bx, bq, bs, bz, 0, NULL, NULL));
  tu_read(ctx, bq, 0, n, got);
  CHECK_OK(NULL, clforge_ref_quantize(&d, x, ref, &scale, &zp));
  for (size_t i = 0; i < n; ++i) {
    const int g = qt == CLFORGE_S8 ? (int)(int8_t)got[i] : (int)got[i];
    const int r = qt == CLFORGE_S8 ? (int)(int8_t)ref[i] : (int)ref[i];
    CHECK(g == want[i] && r == want[i], "%s scale %g zp %d: x = %g quantized to %d (reference %d), want %d",
          clforge_dtype_name(qt), (double)scale, zp, (double)x[i], g, r, want[i]);
  }
  keep_release(bx), keep_release(bq), keep_release(bs), keep_release(bz);
}

static void hand_cases(clforge_context ctx) {
  const float inf = INFINITY, nan = NAN;
  { /* s8, scale 1: ties to even, saturation, specials */
    const float x[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 127.4f, 127.5f, 200, -128.5f, -129, inf, -inf, nan, -0.0f};
    const int w[] = {0, 2, 2, 0, -2, -2, 127, 127, 127, -128, -128, 127, -128, 0, 0};
    hand_case(ctx, CLFORGE_S8, 1.0f, 0, x, w, 15);
  }
  { /* u8 with the zero point at the top of its range */
    const float x[] = {0, -1, 1, -255, -256, 0.5f, -0.5f, nan};
    const int w[] = {255, 254, 255, 0, 0, 255, 255, 255};
    hand_case(ctx, CLFORGE_U8, 1.0f, 255, x, w, 8);
  }
  { /* u8 with the zero point at the bottom */
    const float x[] = {-1, 255.5f, 254.5f, 0.5f, 1.5f};
    const int w[] = {0, 255, 254, 0, 2};
    hand_case(ctx, CLFORGE_U8, 1.0f, 0, x, w, 5);
  }
  { /* s8 with the zero point at the bottom of its range */
    const float x[] = {0, -1, 255, 254.5f, 253.5f};
    const int w[] = {-128, -128, 127, 126, 126};
    hand_case(ctx, CLFORGE_S8, 1.0f, -128, x, w, 5);
  }
  { /* scale 0.5: x * 2 */
    const float x[] = {0.25f, 0.75f, -0.25f, -0.75f, 63.75f, 64};
    const int w[] = {0, 2, 0, -2, 127, 127};
    hand_case(ctx, CLFORGE_S8, 0.5f, 0, x, w, 6);
  }
  { /* a zero scale quantizes everything to the zero point */
    const float x[] = {5, -3, nan, inf};
    const int w[] = {3, 3, 3, 3};
    hand_case(ctx, CLFORGE_S8, 0.0f, 3, x, w, 4);
  }
  { /* a q8_0 block worked out by hand: amax 254 -> d 2 (f16 0x4000), x / 2
     * with ties to even; then an all-zero block: d 0, q 0 */
    float x[64] = {254, -127, 3, 5, -1, NAN, 7};
    const clforge_quant_desc d = {.scheme = CLFORGE_QUANT_Q8_0, .rows = 1, .cols = 64};
    cl_mem bx = tu_buffer(ctx, sizeof x), bq = tu_buffer(ctx, 68);
    tu_write(ctx, bx, 0, sizeof x, x);
    unsigned char q[68];
    CHECK_OK(ctx, clforge_quantize(ctx, &d, bx, bq, NULL, NULL, 0, NULL, NULL));
    tu_read(ctx, bq, 0, 68, q);
    const int w[] = {127, -64, 2, 2, 0, 0, 4};
    CHECK(q[0] == 0x00 && q[1] == 0x40, "q8_0 block 0: d bytes %02x %02x, want 00 40", q[0], q[1]);
    for (int i = 0; i < 32; ++i)
      CHECK((int)(int8_t)q[2 + i] == (i < 7 ? w[i] : 0), "q8_0 x[%d] = %g: q %d", i, (double)x[i], (int)(int8_t)q[2 + i]);
    int zero = 1;
    for (int i = 34; i < 68; ++i) zero &= q[i] == 0;
    CHECK(zero, "%s", "an all-zero q8_0 block is d 0 and q 0");
    float back[64];
    cl_mem by = tu_buffer(ctx, sizeof back);
    CHECK_OK(ctx, clforge_dequantize(ctx, &d, bq, NULL, NULL, by, 0, NULL, NULL));
    tu_read(ctx, by, 0, sizeof back, back);
    CHECK(back[0] == 254 && back[1] == -128 && back[2] == 4 && back[3] == 4 && back[6] == 8 && back[40] == 0,
          "q8_0 dequantized %g %g %g %g %g %g", (double)back[0], (double)back[1], (double)back[2], (double)back[3],
          (double)back[6], (double)back[40]);
    keep_release(bx), keep_release(bq), keep_release(by);
  }
  { /* dequantize by hand: s8 scale 0.5 zp 1, u8 scale 2 zp 128 */
    const unsigned char qs[3] = {0x80, 0x7F, 0x00}, qu[2] = {0, 255};
    float s = 0.5f, s2 = 2.0f, out[3];
    int32_t z = 1, z2 = 128;
    cl_mem bq = tu_buffer(ctx, 3), bs = tu_buffer(ctx, 4), bz = tu_buffer(ctx, 4), by = tu_buffer(ctx, 12);
    tu_write(ctx, bq, 0, 3, qs), tu_write(ctx, bs, 0, 4, &s), tu_write(ctx, bz, 0, 4, &z);
    clforge_quant_desc d = {.rows = 1, .cols = 3};
    CHECK_OK(ctx, clforge_dequantize(ctx, &d, bq, bs, bz, by, 0, NULL, NULL));
    tu_read(ctx, by, 0, 12, out);
    CHECK(out[0] == -64.5f && out[1] == 63.0f && out[2] == -0.5f, "s8 dequantized %g %g %g", (double)out[0],
          (double)out[1], (double)out[2]);
    tu_write(ctx, bq, 0, 2, qu), tu_write(ctx, bs, 0, 4, &s2), tu_write(ctx, bz, 0, 4, &z2);
    d.cols = 2, d.q_type = CLFORGE_U8;
    CHECK_OK(ctx, clforge_dequantize(ctx, &d, bq, bs, bz, by, 0, NULL, NULL));
    tu_read(ctx, by, 0, 8, out);
    CHECK(out[0] == -256.0f && out[1] == 254.0f, "u8 dequantized %g %g", (double)out[0], (double)out[1]);
    keep_release(bq), keep_release(bs), keep_release(bz), keep_release(by);
  }
}

/* Bad input: refused with a message naming the problem, q and the scales
 * untouched. */
static void bad_inputs(clforge_context ctx) {
  enum { R = 4, C = 64, QN = R * C + 64 };
  cl_mem bx = tu_buffer(ctx, R * C * 4), bq = tu_buffer(ctx, QN), bs = tu_buffer(ctx, 64), bz = tu_buffer(ctx, 64),
         small = tu_buffer(ctx, 8);
  cl_context cc;
  clforge_context_cl_context(ctx, &cc);
  cl_int err;
  cl_mem ro = clCreateBuffer(cc, CL_MEM_READ_ONLY, QN, NULL, &err);
  float xs[R * C];
  for (int i = 0; i < R * C; ++i) xs[i] = (float)i;
  tu_write(ctx, bx, 0, sizeof xs, xs);
  unsigned char sent[QN];
  memset(sent, SENT, QN);
  tu_write(ctx, bq, 0, QN, sent);
  tu_write(ctx, bs, 0, 64, sent);
  const clforge_quant_desc ok = {.scheme = CLFORGE_QUANT_PER_ROW, .scales = CLFORGE_QUANT_SCALES_COMPUTE, .rows = R,
                                 .cols = C, .q_type = CLFORGE_U8};
  clforge_quant_desc d;
  int dummy;
#define BAD(change, call, want, needle) \
  do {                                       \
    d = ok;                                  \
    (void)(change);                          \
    CHECK_FAILS(ctx, call, want, needle);    \
  } while (0)
#define QZ(b1, b2, b3, b4) clforge_quantize(ctx, &d, b1, b2, b3, b4, 0, NULL, NULL)
  BAD(0, clforge_quantize(ctx, NULL, bx, bq, bs, bz, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc is NULL");
  CHECK_FAILS(NULL, clforge_quantize(NULL, &ok, bx, bq, bs, bz, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "context is NULL");
  BAD(d.scheme = (clforge_quant_scheme)9, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "unknown scheme");
  BAD(d.scales = (clforge_quant_scales)5, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "unknown scales");
  BAD(d.x_type = CLFORGE_S8, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "x_type");
  BAD(d.q_type = CLFORGE_F16, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "q_type");
  BAD(d.q_type = CLFORGE_S32, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "not s8 or u8");
  BAD((d.scheme = CLFORGE_QUANT_Q8_0, d.scales = 0), QZ(bx, bq, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "u8");
  BAD((d.scheme = CLFORGE_QUANT_Q8_0, d.q_type = CLFORGE_S8), QZ(bx, bq, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
      "leave desc->scales 0");
  BAD((d.scheme = CLFORGE_QUANT_Q8_0, d.scales = 0, d.q_type = 0, d.cols = 48, d.ldx = 64), QZ(bx, bq, NULL, NULL),
      CLFORGE_INVALID_ARGUMENT, "multiple of its block");
  BAD((d.scheme = CLFORGE_QUANT_Q8_0, d.scales = 0, d.q_type = 0), QZ(bx, bq, bs, NULL), CLFORGE_INVALID_ARGUMENT,
      "must be NULL");
  BAD(d.ldx = C - 1, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "ldx");
  BAD(d.ldq = C - 1, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "ldq");
  BAD(d.reserved[1] = &dummy, QZ(bx, bq, bs, bz), CLFORGE_INVALID_ARGUMENT, "reserved");
  BAD(0, QZ(bx, bq, NULL, bz), CLFORGE_INVALID_ARGUMENT, "scale is NULL");
  BAD(0, QZ(bx, bq, bs, NULL), CLFORGE_INVALID_ARGUMENT, "zero_point is NULL");
  BAD(0, QZ(bx, bq, small, bz), CLFORGE_BUFFER_TOO_SMALL, "scale");
  BAD(d.scale_offset = 13, QZ(bx, bq, bs, bz), CLFORGE_BUFFER_TOO_SMALL, "scale");
  BAD(d.rows = R + 1, QZ(bx, bq, bs, bz), CLFORGE_BUFFER_TOO_SMALL, "x");
  BAD(d.q_offset = 65, QZ(bx, bq, bs, bz), CLFORGE_BUFFER_TOO_SMALL, "q");
  BAD(d.ldq = (size_t)1 << 62, QZ(bx, bq, bs, bz), CLFORGE_SIZE_OVERFLOW, "overflows");
  BAD(0, QZ(bx, ro, bs, bz), CLFORGE_INVALID_ARGUMENT, "q");
  BAD(0, QZ(bx, bq, bs, bs), CLFORGE_INVALID_ARGUMENT, "overlap");
  BAD(0, QZ(bx, bx, bs, bz), CLFORGE_INVALID_ARGUMENT, "overlap");
  BAD(0, clforge_quantize(ctx, &d, bx, bq, bs, bz, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "wait");
  BAD(0, clforge_dequantize(ctx, &d, bq, bs, bz, bx, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "quantize's");
  BAD(d.scales = 0, clforge_dequantize(ctx, &d, bq, NULL, bz, bx, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
      "scale is NULL");
  BAD(d.scales = 0, clforge_dequantize(ctx, &d, bx, bs, bz, bx, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlap");
  CHECK_FAILS(NULL, clforge_ref_quantize(&ok, xs, NULL, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
#undef QZ
#undef BAD
  unsigned char after[QN];
  tu_read(ctx, bq, 0, QN, after);
  CHECK(!memcmp(after, sent, QN), "%s", "a refused call changed q");
  tu_read(ctx, bs, 0, 64, after);
  CHECK(!memcmp(after, sent, 64), "%s", "a refused call changed the scales");
  /* empty is a no-op that still hands out an event */
  cl_event ev = NULL;
  d = ok, d.rows = 0;
  CHECK_OK(ctx, clforge_quantize(ctx, &d, NULL, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "%s", "an empty quantize hands out a marker event");
  if (ev) clReleaseEvent(ev);
  keep_release(bx), keep_release(bq), keep_release(bs), keep_release(bz);
  keep_release(small), keep_release(ro);
}

/* Validation mode passes a correct result and catches a corrupted one. */
static void validation(clforge_context ctx) {
  enum { R = 3, C = 64 };
  float x[R * C];
  for (int i = 0; i < R * C; ++i) x[i] = (float)(i % 37) - 18.25f;
  cl_mem bx = tu_buffer(ctx, sizeof x), bq = tu_buffer(ctx, R * C / 32 * 34), bs = tu_buffer(ctx, 4 * R),
         bz = tu_buffer(ctx, 4 * R);
  tu_write(ctx, bx, 0, sizeof x, x);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  const clforge_quant_desc d = {.scheme = CLFORGE_QUANT_PER_ROW, .scales = CLFORGE_QUANT_SCALES_COMPUTE, .rows = R,
                                .cols = C, .q_type = CLFORGE_U8};
  const clforge_quant_desc q8 = {.scheme = CLFORGE_QUANT_Q8_0, .rows = R, .cols = C};
  clforge_quant_desc dd = d;
  dd.scales = 0;
  CHECK_OK(ctx, clforge_quantize(ctx, &d, bx, bq, bs, bz, 0, NULL, NULL));
  CHECK_OK(ctx, clforge_dequantize(ctx, &dd, bq, bs, bz, bx, 0, NULL, NULL));
  /* the faulted calls write another q: the hook's one-byte host write
   * leaves a buffer's kernel-written bytes undefined to Oclgrind's
   * uninitialized-value check, and bq is read below */
  cl_mem bq2 = tu_buffer(ctx, R * C / 32 * 34);
  clforge__test_set_fault(ctx, "quantize");
  CHECK_FAILS(ctx, clforge_quantize(ctx, &d, bx, bq2, bs, bz, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "q byte");
  CHECK_FAILS(ctx, clforge_quantize(ctx, &q8, bx, bq2, NULL, NULL, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "q byte");
  clforge__test_set_fault(ctx, "dequantize");
  CHECK_FAILS(ctx, clforge_dequantize(ctx, &dd, bq, bs, bz, bx, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "element");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  keep_release(bq2);
  keep_release(bx), keep_release(bq), keep_release(bs), keep_release(bz);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  if (small) keep_start_sized(ctx, (size_t)64 << 10); /* Oclgrind: no buffer index reused (tests/oclgrind_keep.h) */
  hand_cases(ctx);
  bad_inputs(ctx);
  validation(ctx);
  /* every scheme x float type x q type x scales given/computed: shapes
   * with row and column counts off every work-group size, padded strides,
   * offsets; under Oclgrind, one small shape each */
  int fails = 0, cases = 0;
  unsigned seed = 17;
  for (int xi = 0; xi < 3; ++xi)
    for (int qi = 0; qi < 2; ++qi)
      for (int scheme = 0; scheme < 4; ++scheme)
        for (int compute = 0; compute < 2; ++compute) {
          if (scheme == CLFORGE_QUANT_Q8_0 && (qi == 1 || compute)) continue;
          const size_t shapes[3][2] = {{3, 64}, {37, 96}, {130, 160}};
          const int nshape = small ? 1 : 3;
          for (int s = 0; s < nshape; ++s) {
            const qcase t = {.scheme = scheme, .compute = compute, .xt = xts[xi],
                             .qt = qi ? CLFORGE_U8 : CLFORGE_S8, .rows = shapes[s][0], .cols = shapes[s][1],
                             .ldx_pad = (size_t)(s * 3), .ldq_pad = (size_t)(s * 5), .xoff = (size_t)s,
                             .qoff = (size_t)(GUARD + s), .soff = (size_t)(s * 2), .zoff = (size_t)s,
                             .with_zp = qi == 1 || s % 2 == 1};
            fails += run_case(ctx, &t, seed++);
            ++cases;
          }
        }
  printf("%d cases, %d failing\n", cases, fails);
  clforge_context_destroy(ctx);
  return tu_summary();
}
