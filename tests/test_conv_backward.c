/* Convolution backward data and backward filter (with dbias):
 *  - the references against the forward reference: the adjoint identity
 *    <conv(x, w), dy> = <x, bwd_data(dy, w)> = <w, bwd_filter(x, dy)> in
 *    double, dbias against its closed form (the sum of dy), and central
 *    finite differences of the device forward op at sampled elements;
 *  - the device against the references on every feature (strides,
 *    dilation, asymmetric padding, groups, depthwise, both layouts of each
 *    tensor, every storage mix, alpha, beta, offsets) and every route
 *    (backward data: the gather and the forward route with each forward
 *    algorithm; backward filter: direct, im2col, gemm_1x1), with guards
 *    around the output unchanged and a second run giving the same bits;
 *  - validation mode catching a corrupted result, explain naming the route.
 * --small: fewer cases (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/core/validate.h"
#include "conv_cases.h"
#include "oclgrind_keep.h"

static int small;

typedef struct bcase {
  clforge_conv2d_desc d;
  int bias;             /* backward filter: compute dbias */
  const char *algo_want; /* explain's algorithm, or NULL */
} bcase;

/* Host arrays of a resolved problem, filled at random (outputs too: beta reads them). */
typedef struct host {
  void *x, *w, *y, *b;
  size_t xn, wn, yn, bn;
} host;

static void host_make(const clforge__conv *d, host *h) {
  h->xn = d->x.extent, h->wn = d->filt.extent, h->yn = d->y.extent, h->bn = d->k + d->bias.offset;
  h->x = malloc(h->xn * 4 + 4), h->w = malloc(h->wn * 4 + 4), h->y = malloc(h->yn * 4 + 4), h->b = malloc(h->bn * 4 + 4);
  conv_fill(h->x, d->x.type, h->xn), conv_fill(h->w, d->filt.type, h->wn), conv_fill(h->y, d->y.type, h->yn);
  conv_fill(h->b, d->bias.type, h->bn);
}
static void host_free(host *h) { free(h->x), free(h->w), free(h->y), free(h->b); }

/* A device copy of n elements of type t with CONV_GUARD guard elements each side. */
static cl_mem guarded(clforge_context ctx, const void *src, size_t n, clforge_dtype t, size_t *off_bytes) {
  const size_t es = clforge_dtype_size(t), bytes = (n + 2 * CONV_GUARD) * es;
  char *tmp = malloc(bytes);
  memset(tmp, 0x5a, bytes);
  memcpy(tmp + CONV_GUARD * es, src, n * es);
  cl_mem m = tu_buffer(ctx, bytes);
  tu_write(ctx, m, 0, bytes, tmp);
  free(tmp);
  *off_bytes = CONV_GUARD * es;
  return m;
}

/* The output (n elements of t, guard-wrapped in m) against want; guards intact. */
static void check_out(clforge_context ctx, cl_mem m, size_t n, clforge_dtype t, const void *want, clforge__tolerance tol,
                      const char *what, const char *desc) {
  const size_t es = clforge_dtype_size(t), bytes = (n + 2 * CONV_GUARD) * es;
  unsigned char *got = malloc(bytes);
  tu_read(ctx, m, 0, bytes, got);
  int guards = 1;
  for (size_t i = 0; i < CONV_GUARD * es; ++i) guards &= got[i] == 0x5a && got[bytes - 1 - i] == 0x5a;
  CHECK(guards, "%s: a guard element changed (%s)", what, desc);
  float *g = malloc(n * sizeof *g + 4), *w = malloc(n * sizeof *w + 4);
  clforge_ref_convert(n, got + CONV_GUARD * es, t, g, CLFORGE_F32);
  clforge_ref_convert(n, want, t, w, CLFORGE_F32);
  clforge__error_stats s;
  clforge__compare_f32(n, g, w, &s);
  CHECK(clforge__within_tolerance(&s, tol), "%s: nrmse %.3g max_abs %.3g (max %.3g) specials %zu (%s)", what, s.nrmse,
        s.max_abs, s.max_want, s.special_mismatches, desc);
  free(got), free(g), free(w);
}

/* explain's choice for d, checked to be `want` (NULL: any). */
static void explain(clforge_context ctx, const clforge_conv2d_desc *d, const char *want, const char *dsc,
                    clforge_conv_choice *ch) {
  CHECK_OK(ctx, clforge_conv2d_explain(ctx, d, ch));
  if (want)
    CHECK(!strcmp(clforge_conv_algo_name(ch->algo), want), "explain: %s (%s), wanted %s (%s)",
          clforge_conv_algo_name(ch->algo), ch->why, want, dsc);
}

/* Offsets in elements = the guard: the call sees tensors CONV_GUARD in. */
static void run_data(clforge_context ctx, bcase *c) {
  clforge_conv2d_desc dd = c->d;
  dd.kind = CLFORGE_CONV_BACKWARD_DATA;
  clforge__conv d;
  char dsc[400];
  conv_describe(&dd, 0, dsc, sizeof dsc);
  if (clforge__conv_resolve(NULL, &dd, 0, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "resolve: %s (%s)", clforge_last_error(NULL), dsc);
    return;
  }
  host h;
  host_make(&d, &h);
  size_t o;
  cl_mem dy = guarded(ctx, h.y, h.yn, d.y.type, &o), w = guarded(ctx, h.w, h.wn, d.filt.type, &o),
         dx = guarded(ctx, h.x, h.xn, d.x.type, &o);
  clforge_conv2d_desc rd = dd; /* the device sees the guards as extra offset */
  rd.x_offset += CONV_GUARD, rd.w_offset += CONV_GUARD, rd.y_offset += CONV_GUARD;
  clforge_conv_choice ch;
  explain(ctx, &rd, c->algo_want, dsc, &ch);
  clforge_status st = clforge_conv2d_backward_data(ctx, &rd, dy, w, dx, 0, NULL, NULL);
  CHECK(st == CLFORGE_SUCCESS, "backward data: %s (%s)", clforge_last_error(ctx), dsc);
  if (st == CLFORGE_SUCCESS) {
    void *want = malloc(h.xn * 4 + 4);
    memcpy(want, h.x, h.xn * clforge_dtype_size(d.x.type));
    CHECK_OK(NULL, clforge_ref_conv2d_backward_data(&dd, h.y, h.w, want));
    check_out(ctx, dx, h.xn, d.x.type, want, clforge__conv_algo_tolerance(ch.algo, d.x.type), "dx", dsc);
    free(want);
  }
  keep_release(dy), keep_release(w), keep_release(dx);
  host_free(&h);
}

static void run_filter(clforge_context ctx, bcase *c) {
  clforge_conv2d_desc fd = c->d;
  fd.kind = CLFORGE_CONV_BACKWARD_FILTER;
  clforge__conv d;
  char dsc[400];
  conv_describe(&fd, c->bias, dsc, sizeof dsc);
  if (clforge__conv_resolve(NULL, &fd, c->bias, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "resolve: %s (%s)", clforge_last_error(NULL), dsc);
    return;
  }
  host h;
  host_make(&d, &h);
  size_t o;
  cl_mem x = guarded(ctx, h.x, h.xn, d.x.type, &o), dy = guarded(ctx, h.y, h.yn, d.y.type, &o),
         dw = guarded(ctx, h.w, h.wn, d.filt.type, &o), db = c->bias ? guarded(ctx, h.b, h.bn, d.bias.type, &o) : NULL;
  clforge_conv2d_desc rd = fd;
  rd.x_offset += CONV_GUARD, rd.w_offset += CONV_GUARD, rd.y_offset += CONV_GUARD, rd.bias_offset += CONV_GUARD;
  clforge_conv_choice ch;
  explain(ctx, &rd, c->algo_want, dsc, &ch);
  clforge_status st = clforge_conv2d_backward_filter(ctx, &rd, x, dy, dw, db, 0, NULL, NULL);
  CHECK(st == CLFORGE_SUCCESS, "backward filter: %s (%s)", clforge_last_error(ctx), dsc);
  if (st == CLFORGE_SUCCESS) {
    const size_t wes = clforge_dtype_size(d.filt.type), bes = clforge_dtype_size(d.bias.type);
    void *want_w = malloc(h.wn * 4 + 4), *want_b = malloc(h.bn * 4 + 4);
    memcpy(want_w, h.w, h.wn * wes);
    memcpy(want_b, h.b, h.bn * bes);
    CHECK_OK(NULL, clforge_ref_conv2d_backward_filter(&fd, h.x, h.y, want_w, c->bias ? want_b : NULL));
    check_out(ctx, dw, h.wn, d.filt.type, want_w, clforge__tolerance_for(d.filt.type), "dw", dsc);
    if (c->bias) check_out(ctx, db, h.bn, d.bias.type, want_b, clforge__tolerance_for(d.bias.type), "dbias", dsc);
    /* a second run from the same inputs: the same bits (fixed-order sums) */
    const size_t bytes = (h.wn + 2 * CONV_GUARD) * wes;
    unsigned char *first = malloc(bytes), *second = malloc(bytes);
    tu_read(ctx, dw, 0, bytes, first);
    rd.beta = 0.0f;
    CHECK_OK(ctx, clforge_conv2d_backward_filter(ctx, &rd, x, dy, dw, db, 0, NULL, NULL));
    tu_read(ctx, dw, 0, bytes, first);
    CHECK_OK(ctx, clforge_conv2d_backward_filter(ctx, &rd, x, dy, dw, db, 0, NULL, NULL));
    tu_read(ctx, dw, 0, bytes, second);
    CHECK(!memcmp(first, second, bytes), "dw differs between two runs (%s)", dsc);
    free(first), free(second), free(want_w), free(want_b);
  }
  keep_release(x), keep_release(dy), keep_release(dw);
  if (db) keep_release(db);
  host_free(&h);
}

/* ------------------------------------------------------------- reference */

static double dot(const void *a, const void *b, clforge_dtype t, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += (double)conv_get(a, t, i) * conv_get(b, t, i);
  return s;
}

/* <conv(x, w), dy> = <x, dx> = <w, dw>; dbias = the sum of dy per channel. */
static void reference_identities(const clforge_conv2d_desc *base) {
  clforge_conv2d_desc f = *base, bd = *base, bf = *base;
  f.kind = CLFORGE_CONV_FORWARD, bd.kind = CLFORGE_CONV_BACKWARD_DATA, bf.kind = CLFORGE_CONV_BACKWARD_FILTER;
  f.alpha = bd.alpha = bf.alpha = 1.0f, f.beta = bd.beta = bf.beta = 0.0f;
  clforge__conv d;
  if (clforge__conv_resolve(NULL, &f, 1, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "resolve: %s", clforge_last_error(NULL));
    return;
  }
  host h;
  host_make(&d, &h);
  float *y = calloc(h.yn + 1, 4), *dx = calloc(h.xn + 1, 4), *dw = calloc(h.wn + 1, 4), *db = calloc(h.bn + 1, 4);
  CHECK_OK(NULL, clforge_ref_conv2d(&f, h.x, h.w, NULL, y));
  CHECK_OK(NULL, clforge_ref_conv2d_backward_data(&bd, h.y, h.w, dx));
  CHECK_OK(NULL, clforge_ref_conv2d_backward_filter(&bf, h.x, h.y, dw, db));
  const double a = dot(y, h.y, CLFORGE_F32, h.yn), b = dot(h.x, dx, CLFORGE_F32, h.xn),
               c = dot(h.w, dw, CLFORGE_F32, h.wn);
  char dsc[400];
  conv_describe(&f, 0, dsc, sizeof dsc);
  const double scale = fabs(a) + 1.0;
  CHECK(fabs(a - b) < 1e-5 * scale && fabs(a - c) < 1e-5 * scale, "adjoint: <y,dy> %.9g <x,dx> %.9g <w,dw> %.9g (%s)",
        a, b, c, dsc);
  double worst = 0;
  for (size_t k = 0; k < d.k; ++k) {
    double s = 0;
    for (size_t n = 0; n < d.n; ++n)
      for (size_t p = 0; p < d.p; ++p)
        for (size_t q = 0; q < d.q; ++q)
          s += ((float *)h.y)[d.y.offset + n * d.y.stride[0] + k * d.y.stride[1] + p * d.y.stride[2] + q * d.y.stride[3]];
    worst = fmax(worst, fabs(s - db[d.bias.offset + k]));
  }
  CHECK(worst < 1e-4, "dbias is not the sum of dy: off by %g (%s)", worst, dsc);
  free(y), free(dx), free(dw), free(db);
  host_free(&h);
}

/* Central differences of the device forward op: L(x) = <conv(x, w), dy>
 * is linear in x and w, so (L(x + e) - L(x - e)) / 2e at one element is
 * that element's gradient up to the f32 rounding of the forward outputs. */
static void finite_differences(clforge_context ctx) {
  clforge_conv2d_desc f = {.n = 2, .c = 4, .h = 7, .w = 6, .k = 6, .r = 3, .s = 2, .groups = 2, .stride_h = 2,
                           .dilation_w = 2, .pad_top = 1, .pad_bottom = 2, .pad_left = 1, .x_layout = CLFORGE_NHWC};
  clforge__conv d;
  CHECK_OK(NULL, clforge__conv_resolve(NULL, &f, 0, &d));
  host h;
  host_make(&d, &h);
  cl_mem x = tu_buffer(ctx, h.xn * 4), w = tu_buffer(ctx, h.wn * 4), y = tu_buffer(ctx, h.yn * 4);
  float *out = malloc(h.yn * 4);
  clforge_conv2d_desc bd = f, bf = f;
  bd.kind = CLFORGE_CONV_BACKWARD_DATA, bf.kind = CLFORGE_CONV_BACKWARD_FILTER;
  float *dx = calloc(h.xn, 4), *dw = calloc(h.wn, 4);
  CHECK_OK(NULL, clforge_ref_conv2d_backward_data(&bd, h.y, h.w, dx));
  CHECK_OK(NULL, clforge_ref_conv2d_backward_filter(&bf, h.x, h.y, dw, NULL));
  const float eps = 0.25f;
  for (int which = 0; which < 2; ++which)
    for (size_t i = 0; i < (which ? h.wn : h.xn); i += which ? 7 : 13) {
      float *v = which ? h.w : h.x;
      const float keep = v[i];
      double L[2];
      for (int sgn = 0; sgn < 2; ++sgn) {
        v[i] = keep + (sgn ? -eps : eps);
        tu_write(ctx, x, 0, h.xn * 4, h.x), tu_write(ctx, w, 0, h.wn * 4, h.w);
        CHECK_OK(ctx, clforge_conv2d(ctx, &f, x, w, NULL, y, 0, NULL, NULL));
        tu_read(ctx, y, 0, h.yn * 4, out);
        L[sgn] = dot(out, h.y, CLFORGE_F32, h.yn);
      }
      v[i] = keep;
      const double fd = (L[0] - L[1]) / (2.0 * eps), want = which ? dw[i] : dx[i];
      CHECK(fabs(fd - want) < 1e-3 * (1.0 + fabs(want)), "d%s[%zu]: central difference %.6g, reference %.6g",
            which ? "w" : "x", i, fd, want);
    }
  free(out), free(dx), free(dw);
  keep_release(x), keep_release(w), keep_release(y);
  host_free(&h);
}

/* ------------------------------------------------------------------ cases */

#define F16 CLFORGE_F16
#define BF16 CLFORGE_BF16
#define NHWC CLFORGE_NHWC
#define KRSC CLFORGE_KRSC
#define A(x) CLFORGE_CONV_ALGO_##x

int main(int argc, char **argv) {
  small = argc > 1 && !strcmp(argv[1], "--small");
  (void)conv_run_case, (void)conv_desc; /* the forward harness's runner: the forward tests use it */
  /* the reference's identities on every feature */
  const clforge_conv2d_desc ref_shapes[] = {
      {.n = 2, .c = 3, .h = 7, .w = 8, .k = 4, .r = 3, .s = 3, .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1},
      {.n = 1, .c = 4, .h = 9, .w = 7, .k = 6, .r = 3, .s = 2, .groups = 2, .stride_h = 2, .stride_w = 3,
       .dilation_h = 2, .pad_top = 2, .pad_bottom = 0, .pad_left = 1, .pad_right = 3, .x_layout = NHWC, .w_layout = KRSC},
      {.n = 2, .c = 6, .h = 5, .w = 5, .k = 6, .r = 3, .s = 3, .groups = 6, .pad_top = 1, .pad_left = 2, .y_layout = NHWC},
      {.n = 2, .c = 5, .h = 6, .w = 6, .k = 7, .r = 1, .s = 1, .stride_h = 2, .stride_w = 2},
  };
  for (size_t i = 0; i < sizeof ref_shapes / sizeof ref_shapes[0]; ++i) reference_identities(&ref_shapes[i]);

  clforge_context ctx = tu_context();
  /* Oclgrind (tests/oclgrind_keep.h): workspaces of the largest scratch
   * --small asks for there, the convolutions' 101 KB and the GEMMs' 36 KB
   * at most (each launch's checks cost with the size of the buffers alive) */
  if (small) keep_start_sizes(ctx, (size_t)104 << 10, (size_t)36 << 10);
  finite_differences(ctx);

  /* backward data: the routes and the features */
  bcase data[] = {
      /* stride 1: the forward route (the forward heuristic's algorithm) */
      {{.n = 2, .c = 16, .h = 9, .w = 10, .k = 16, .r = 3, .s = 3, .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1}, 0, NULL},
      {{.n = 2, .c = 8, .h = 6, .w = 7, .k = 12, .r = 1, .s = 1}, 0, "gemm_1x1"},
      {{.n = 1, .c = 6, .h = 8, .w = 8, .k = 6, .r = 3, .s = 3, .groups = 6, .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1}, 0, "depthwise"},
      /* forced forward algorithms, asymmetric padding, dilation, groups, layouts */
      {{.n = 2, .c = 8, .h = 7, .w = 9, .k = 8, .r = 3, .s = 3, .pad_top = 2, .pad_bottom = 0, .pad_left = 1, .pad_right = 2,
        .x_layout = NHWC, .y_layout = NHWC, .w_layout = KRSC, .algo = A(IMPLICIT_GEMM)}, 0, "implicit_gemm"},
      {{.n = 1, .c = 16, .h = 8, .w = 8, .k = 16, .r = 3, .s = 3, .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1,
        .algo = A(WINOGRAD_2X2)}, 0, "winograd_2x2"},
      {{.n = 2, .c = 6, .h = 7, .w = 6, .k = 4, .r = 3, .s = 2, .groups = 2, .dilation_h = 2, .pad_top = 3, .pad_bottom = 1,
        .x_type = BF16, .w_type = BF16, .y_type = BF16, .algo = A(IM2COL), .beta = 0.5f}, 0, "im2col"},
      /* the gather: strides, offsets, every storage mix, alpha and beta */
      {{.n = 2, .c = 5, .h = 9, .w = 8, .k = 6, .r = 3, .s = 3, .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1,
        .pad_bottom = 1, .pad_right = 1}, 0, "direct"},
      {{.n = 1, .c = 6, .h = 11, .w = 9, .k = 4, .r = 3, .s = 2, .groups = 2, .stride_h = 3, .stride_w = 2, .dilation_w = 2,
        .pad_top = 0, .pad_bottom = 2, .pad_left = 2, .x_layout = NHWC, .w_layout = KRSC, .x_type = F16, .w_type = F16,
        .y_type = F16, .alpha = -1.5f, .beta = 2.0f}, 0, "direct"},
      {{.n = 2, .c = 12, .h = 8, .w = 8, .k = 12, .r = 3, .s = 3, .groups = 12, .stride_h = 2, .stride_w = 2, .pad_top = 1,
        .pad_left = 1, .y_layout = NHWC, .x_type = BF16, .w_type = F16, .y_type = CLFORGE_F32}, 0, "direct"},
      {{.n = 2, .c = 4, .h = 6, .w = 6, .k = 8, .r = 1, .s = 1, .stride_h = 2, .stride_w = 2, .algo = A(DIRECT)}, 0, "direct"},
      /* strides > 1 with enough channels: GEMM + col2im */
      {{.n = 2, .c = 8, .h = 9, .w = 10, .k = 32, .r = 3, .s = 3, .stride_h = 2, .stride_w = 2, .pad_top = 1,
        .pad_bottom = 1, .pad_left = 1, .pad_right = 1}, 0, "im2col"},
      {{.n = 3, .c = 16, .h = 8, .w = 7, .k = 24, .r = 1, .s = 1, .groups = 2, .stride_h = 2, .stride_w = 2,
        .x_layout = NHWC, .y_layout = NHWC, .w_layout = KRSC, .algo = A(IM2COL)}, 0, "im2col"},
      {{.n = 2, .c = 6, .h = 11, .w = 9, .k = 32, .r = 3, .s = 2, .stride_h = 2, .stride_w = 3, .dilation_w = 2,
        .pad_top = 2, .pad_bottom = 0, .pad_left = 1, .pad_right = 2, .y_layout = NHWC, .x_type = BF16, .w_type = BF16,
        .y_type = BF16, .alpha = -2.0f, .beta = 0.5f, .algo = A(IM2COL)}, 0, "im2col"},
      {{.n = 1, .c = 3, .h = 5, .w = 5, .k = 4, .r = 3, .s = 3, .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1,
        .algo = A(DIRECT)}, 0, "direct"},
  };
  const size_t ndata = sizeof data / sizeof data[0];
  for (size_t i = 0; i < ndata; ++i)
    if (!small || i % 3 == 0) run_data(ctx, &data[i]);

  /* one image's columns above the workspace bound: pixel ranges of one
   * image, each pass adding to dx (the first one applying beta) */
  if (!small) {
    const size_t keep = ctx->workspace.cap;
    ctx->workspace.cap = 24 << 10;
    bcase split = {{.n = 2, .c = 8, .h = 20, .w = 18, .k = 32, .r = 3, .s = 3, .stride_h = 2, .stride_w = 2,
                    .pad_top = 1, .pad_left = 1, .beta = 1.5f, .algo = A(IM2COL)}, 0, "im2col"};
    run_data(ctx, &split);
    split.d.y_layout = NHWC;
    run_data(ctx, &split);
    ctx->workspace.cap = keep;
  }

  bcase filt[] = {
      {{.n = 2, .c = 5, .h = 9, .w = 8, .k = 6, .r = 3, .s = 3, .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1,
        .pad_bottom = 1, .pad_right = 1}, 1, "direct"},
      {{.n = 1, .c = 6, .h = 11, .w = 9, .k = 4, .r = 3, .s = 2, .groups = 2, .stride_h = 3, .stride_w = 2, .dilation_w = 2,
        .pad_top = 0, .pad_bottom = 2, .pad_left = 2, .x_layout = NHWC, .w_layout = KRSC, .x_type = F16, .w_type = F16,
        .y_type = F16, .bias_type = F16, .alpha = -1.5f, .beta = 2.0f}, 1, "direct"},
      {{.n = 3, .c = 12, .h = 8, .w = 8, .k = 12, .r = 3, .s = 3, .groups = 12, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
        .pad_right = 1, .y_layout = NHWC, .x_type = BF16, .w_type = BF16, .bias_type = BF16}, 1, "direct"},
      {{.n = 2, .c = 16, .h = 9, .w = 10, .k = 16, .r = 3, .s = 3, .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1}, 1, "im2col"},
      {{.n = 3, .c = 8, .h = 7, .w = 9, .k = 32, .r = 3, .s = 3, .stride_h = 2, .pad_top = 2, .pad_bottom = 0, .pad_left = 1,
        .pad_right = 2, .x_layout = NHWC, .y_layout = NHWC, .w_layout = KRSC, .beta = 1.0f}, 1, "im2col"},
      {{.n = 2, .c = 8, .h = 6, .w = 7, .k = 32, .r = 3, .s = 2, .groups = 2, .dilation_h = 2, .pad_top = 1, .x_type = BF16,
        .w_type = BF16, .y_type = BF16, .algo = A(IM2COL)}, 0, "im2col"},
      {{.n = 2, .c = 8, .h = 6, .w = 7, .k = 12, .r = 1, .s = 1}, 1, "gemm_1x1"},
      {{.n = 3, .c = 16, .h = 5, .w = 4, .k = 8, .r = 1, .s = 1, .groups = 2, .x_layout = NHWC, .y_layout = NHWC,
        .w_layout = KRSC, .x_type = F16, .y_type = F16, .w_type = CLFORGE_F32, .alpha = 0.5f, .beta = -1.0f}, 1, "gemm_1x1"},
      {{.n = 0, .c = 3, .h = 5, .w = 5, .k = 4, .r = 3, .s = 3, .beta = 0.5f}, 1, "direct"},
  };
  const size_t nfilt = sizeof filt / sizeof filt[0];
  /* --small: im2col's plain case on a 5 x 6 image (its three runs were a
   * third of the simulation; still edges of the pad all round) */
  if (small) filt[3].d.h = 5, filt[3].d.w = 6;
  for (size_t i = 0; i < nfilt; ++i)
    if (!small || i % 3 == 0) run_filter(ctx, &filt[i]);

  /* validation mode catches a corrupted result of each pass */
  if (!small) {
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    run_data(ctx, &data[0]);
    run_data(ctx, &data[6]);
    run_filter(ctx, &filt[0]);
    run_filter(ctx, &filt[3]);
    clforge_conv2d_desc d = {.kind = CLFORGE_CONV_BACKWARD_DATA, .n = 1, .c = 2, .h = 4, .w = 4, .k = 3, .r = 3, .s = 3,
                             .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1};
    cl_mem a = tu_buffer(ctx, 4096), b = tu_buffer(ctx, 4096), c = tu_buffer(ctx, 4096);
    float zero[1024] = {0};
    for (int i = 0; i < 1024; ++i) zero[i] = (float)(i % 5) / 8.0f;
    tu_write(ctx, a, 0, 4096, zero), tu_write(ctx, b, 0, 4096, zero), tu_write(ctx, c, 0, 4096, zero);
    clforge__test_set_fault(ctx, "conv2d_backward_data");
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &d, a, b, c, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
                "conv2d_backward_data");
    d.kind = CLFORGE_CONV_BACKWARD_FILTER;
    clforge__test_set_fault(ctx, "conv2d_backward_filter");
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &d, a, b, c, NULL, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
                "conv2d_backward_filter");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    keep_release(a), keep_release(b), keep_release(c);
  }
  if (small) keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
