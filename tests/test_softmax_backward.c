/* clforge_softmax_backward against clforge_ref_softmax_backward, and the
 * reference itself against closed forms and central differences of the
 * forward reference (clforge_ref_softmax). Device cases: softmax and
 * log-softmax, y taken from real forward outputs (masked elements: y = 0,
 * or -inf), row lengths that are multiples of no vector width, every
 * storage type in every position (y, dy, dx), scale, strided rows with
 * guard elements around and between dx's rows (unchanged), in place over
 * dy and over y, special rows (NaN in dy, every logit masked), a sample of
 * the parameter space covering every value, validation mode (a corrupted
 * result is caught), explain, and the tuner's op.
 * --small: tiny cases only (Oclgrind). */
#include <math.h>

#include "../src/core/context.h"
#include "../src/families/families.h"
#include "../src/families/softmax_backward.h"
#include "../src/ref/compare.h"
#include "../src/desc/softmax_desc.h"
#include "../src/tuning/tune_op.h"
#include "param_cover.h"
#include "test_util.h"

enum { GUARD = 13 }; /* elements before dx's offset and after its extent */

static unsigned seed = 4242;
static double frand(void) { return (double)(tu_rand(&seed) % 20001) / 10000.0 - 1.0; }

/* ------------------------------------------------- the reference itself */

/* The reference's dx on one row of f32 values. */
static void ref_row(clforge_softmax_kind kind, size_t n, float scale, const float *y, const float *dy, float *dx) {
  clforge_softmax_desc d = {.kind = kind, .rows = 1, .n = n, .scale = scale};
  CHECK_OK(NULL, clforge_ref_softmax_backward(&d, y, dy, dx));
}

/* n = 2 in closed form: softmax is a logistic; uniform rows; log-softmax's
 * gradient sums to scale * (sum dy)(1 - sum exp(y)) = 0 over a row. */
static void closed_forms(void) {
  for (int i = 0; i < 20; ++i) {
    const float a = (float)(3 * frand()), b = (float)(3 * frand()), g0 = (float)frand(), g1 = (float)frand();
    const float scale = i % 2 ? 0.5f : 1.0f;
    const double p = 1 / (1 + exp(-(double)scale * (a - b)));
    const float y[2] = {(float)p, (float)(1 - p)}, dy[2] = {g0, g1};
    float dx[2];
    ref_row(CLFORGE_SOFTMAX, 2, scale, y, dy, dx);
    const double want = scale * (double)y[0] * y[1] * (g0 - g1); /* d/da of g0 y0 + g1 y1 */
    CHECK(fabs(dx[0] - want) <= 1e-6 * (1 + fabs(want)) && fabs(dx[0] + dx[1]) <= 1e-6,
          "closed form n=2: dx %g %g, want %g %g", (double)dx[0], (double)dx[1], want, -want);
    const float ly[2] = {(float)log(p), (float)log(1 - p)};
    ref_row(CLFORGE_LOG_SOFTMAX, 2, scale, ly, dy, dx);
    const double lw = scale * (g0 - exp((double)ly[0]) * (g0 + g1));
    CHECK(fabs(dx[0] - lw) <= 1e-6 * (1 + fabs(lw)) && fabs(dx[0] + dx[1]) <= 1e-6,
          "closed form n=2 log: dx %g %g, want %g", (double)dx[0], (double)dx[1], lw);
  }
  /* uniform row of 8, dy = e_3: dx_i = (1/8)(delta_i3 - 1/8) */
  float y[8], dy[8] = {0}, dx[8];
  for (int i = 0; i < 8; ++i) y[i] = 0.125f;
  dy[3] = 1;
  ref_row(CLFORGE_SOFTMAX, 8, 1.0f, y, dy, dx);
  int ok = 1;
  for (int i = 0; i < 8; ++i) ok &= fabs(dx[i] - 0.125 * ((i == 3) - 0.125)) < 1e-9;
  CHECK(ok, "uniform row: dx[3] = %g, dx[0] = %g", (double)dx[3], (double)dx[0]);
}

/* Rows of x with a mask (some -inf), the loss sum(dy * y(x)); the
 * reference's dx against central differences of the forward reference,
 * for both kinds, with a scale. dy is 0 where the mask is -inf, so that
 * log-softmax's -inf outputs do not enter the loss. */
static void finite_differences(void) {
  enum { R = 3, N = 7 };
  for (int kind = 0; kind < 2; ++kind)
    for (int s = 0; s < 2; ++s) {
      const float scale = s ? 0.7f : 1.0f;
      float x[R * N], mask[R * N], y[R * N], dy[R * N], dx[R * N], yp[R * N];
      for (int i = 0; i < R * N; ++i) {
        x[i] = (float)(2 * frand());
        mask[i] = i % N == 4 && i / N == 1 ? -INFINITY : (float)(0.5 * frand());
        dy[i] = isinf(mask[i]) ? 0.0f : (float)frand();
      }
      clforge_softmax_desc d = {.kind = (clforge_softmax_kind)kind, .rows = R, .n = N, .scale = scale};
      CHECK_OK(NULL, clforge_ref_softmax(&d, x, mask, y));
      CHECK_OK(NULL, clforge_ref_softmax_backward(&d, y, dy, dx));
      double worst = 0;
      const float h = 1e-2f;
      for (int i = 0; i < R * N; ++i) {
        double l[2];
        for (int side = 0; side < 2; ++side) {
          const float keep = x[i];
          x[i] = keep + (side ? -h : h);
          CHECK_OK(NULL, clforge_ref_softmax(&d, x, mask, yp));
          x[i] = keep;
          l[side] = 0;
          for (int j = 0; j < R * N; ++j)
            if (dy[j] != 0.0f) l[side] += (double)dy[j] * yp[j];
        }
        const double fd = (l[0] - l[1]) / (2.0 * h), err = fabs(fd - dx[i]) / (1e-3 + fabs(fd));
        if (err > worst) worst = err;
      }
      CHECK(worst < 2e-3, "%s scale %g: dx against central differences: worst relative error %g",
            kind ? "log_softmax" : "softmax", (double)scale, worst);
    }
}

/* --------------------------------------------------------- device cases */

typedef struct {
  clforge_dtype yt, dyt, dxt;
  clforge_softmax_kind kind;
} bkey;
#define SM CLFORGE_SOFTMAX
#define LSM CLFORGE_LOG_SOFTMAX
/* Every type in each position and both kinds; the first two are the
 * tuner's problems (softmax, f32 and bf16 throughout). Each key is a
 * program per parameter set (a second or so on PoCL): the sweeps with the
 * default parameters run the keys in `plain`, the other parameter sets the
 * rest (log-softmax where EXP acts). */
static const bkey keys[] = {
    {CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, SM},  {CLFORGE_BF16, CLFORGE_BF16, CLFORGE_BF16, SM},
    {CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, LSM}, {CLFORGE_F16, CLFORGE_F16, CLFORGE_F16, LSM},
    {CLFORGE_F16, CLFORGE_BF16, CLFORGE_F32, SM}, {CLFORGE_BF16, CLFORGE_F32, CLFORGE_F16, LSM},
    {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16, SM}};
#undef SM
#undef LSM
static const int plain[] = {0, 1, 3}, logs[] = {3, 2, 5}, others[] = {4, 6, 2, 5};

/* How a case's rows are filled. */
enum { FILL_RANDOM, FILL_SPECIAL };

typedef struct {
  bkey k;
  size_t rows, n;
  float scale;
  int fill;
  int in_place; /* 0 apart, 1 dx over dy, 2 dx over y */
  size_t ygap, dygap, dxgap, yo, dyo, dxo;
} bcase;

static void describe(const bcase *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%s %zux%zu y %s dy %s dx %s scale %g fill %d in_place %d gaps %zu,%zu,%zu off %zu,%zu,%zu",
           c->k.kind ? "log_softmax" : "softmax", c->rows, c->n, clforge_dtype_name(c->k.yt),
           clforge_dtype_name(c->k.dyt), clforge_dtype_name(c->k.dxt), (double)c->scale, c->fill, c->in_place,
           c->ygap, c->dygap, c->dxgap, c->yo, c->dyo, c->dxo);
}

static clforge_softmax_desc make_desc(const bcase *c) {
  clforge_softmax_desc d = {.kind = c->k.kind, .rows = c->rows, .n = c->n, .scale = c->scale, .y_type = c->k.yt,
                            .dy_type = c->k.dyt, .x_type = c->k.dxt, .y_offset = c->yo, .dy_offset = c->dyo,
                            .x_offset = c->dxo + GUARD, .y_stride = c->ygap ? c->n + c->ygap : 0,
                            .dy_stride = c->dygap ? c->n + c->dygap : 0, .x_stride = c->dxgap ? c->n + c->dxgap : 0};
  if (c->in_place == 1) d.dy_offset = d.x_offset, d.dy_stride = d.x_stride, d.dy_type = d.x_type;
  if (c->in_place == 2) d.y_offset = d.x_offset, d.y_stride = d.x_stride, d.y_type = d.x_type;
  return d;
}

/* y: forward outputs of random logits (some masked: -inf), and special rows
 * (every logit masked); dy random, with a NaN in special rows. Both as f32
 * tight rows. */
static void fill_rows(const bcase *c, float *y, float *dy) {
  const size_t total = c->rows * c->n;
  float *t = malloc(total * sizeof *t);
  for (size_t r = 0; r < c->rows; ++r)
    for (size_t j = 0; j < c->n; ++j) {
      const size_t i = r * c->n + j;
      t[i] = (float)(4 * frand());
      dy[i] = (float)(2 * frand());
      if (c->fill != FILL_SPECIAL) continue;
      if (r % 4 == 0 && j % 3 == 1) t[i] = -INFINITY;
      if (r % 4 == 1) t[i] = -INFINITY;
      if (r % 4 == 2 && j == (r * 5) % c->n) dy[i] = NAN;
    }
  clforge_softmax_desc f = {.kind = c->k.kind, .rows = c->rows, .n = c->n};
  CHECK_OK(NULL, clforge_ref_softmax(&f, t, NULL, y));
  free(t);
}

/* Rows of tight f32 values into a buffer of `total` elements of type t at
 * offset/stride (NaN elsewhere, or `rest` where given). */
static void *place(const float *rows, size_t nrows, size_t n, size_t offset, size_t stride, size_t total,
                   clforge_dtype t, const void *rest) {
  float *f = malloc(total * sizeof *f);
  if (rest) clforge_ref_convert(total, rest, t, f, CLFORGE_F32);
  else
    for (size_t i = 0; i < total; ++i) f[i] = NAN;
  for (size_t r = 0; r < nrows; ++r) memcpy(f + offset + r * stride, rows + r * n, n * sizeof *f);
  void *out = malloc(total * clforge_dtype_size(t));
  clforge_ref_convert(total, f, CLFORGE_F32, out, t);
  free(f);
  return out;
}

/* Run c; 1 when dx's rows match the reference and nothing else in dx's
 * buffer changed. */
static int run_case(clforge_context ctx, const bcase *c) {
  char label[320];
  describe(c, label, sizeof label);
  clforge_softmax_desc desc = make_desc(c);
  clforge__softmax d;
  if (clforge__softmax_resolve_backward(NULL, &desc, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: does not resolve: %s", label, clforge_last_error(NULL));
    return 0;
  }
  const size_t total = c->rows * c->n, xs = clforge_dtype_size(d.x.type);
  float *y = malloc(total * sizeof *y), *dy = malloc(total * sizeof *dy);
  fill_rows(c, y, dy);
  /* dx's buffer: sentinels around and between the rows; in place, it holds
   * the input it replaces */
  const size_t dxtotal = d.x.extent + GUARD;
  float *sent = malloc(dxtotal * sizeof *sent);
  for (size_t i = 0; i < dxtotal; ++i) sent[i] = 777.0f;
  void *hsent = malloc(dxtotal * xs);
  clforge_ref_convert(dxtotal, sent, CLFORGE_F32, hsent, d.x.type);
  void *hdx = c->in_place ? place(c->in_place == 1 ? dy : y, c->rows, c->n, d.x.offset, d.x.stride, dxtotal, d.x.type,
                                  hsent)
                          : place(y, 0, c->n, 0, 1, dxtotal, d.x.type, hsent);
  void *hy = c->in_place == 2 ? NULL : place(y, c->rows, c->n, d.y.offset, d.y.stride, d.y.extent, d.y.type, NULL);
  void *hdy = c->in_place == 1 ? NULL : place(dy, c->rows, c->n, d.dy.offset, d.dy.stride, d.dy.extent, d.dy.type, NULL);
  cl_mem bdx = tu_buffer(ctx, dxtotal * xs);
  cl_mem by = hy ? tu_buffer(ctx, d.y.extent * clforge_dtype_size(d.y.type)) : bdx;
  cl_mem bdy = hdy ? tu_buffer(ctx, d.dy.extent * clforge_dtype_size(d.dy.type)) : bdx;
  tu_write(ctx, bdx, 0, dxtotal * xs, hdx);
  if (hy) tu_write(ctx, by, 0, d.y.extent * clforge_dtype_size(d.y.type), hy);
  if (hdy) tu_write(ctx, bdy, 0, d.dy.extent * clforge_dtype_size(d.dy.type), hdy);

  int ok = 0;
  clforge_status st = clforge_softmax_backward(ctx, &desc, by, bdy, bdx, 0, NULL, NULL);
  if (st != CLFORGE_SUCCESS) {
    CHECK(0, "%s: %s: %s", label, clforge_status_name(st), clforge_last_error(ctx));
  } else {
    void *got = malloc(dxtotal * xs), *want = malloc(dxtotal * xs);
    tu_read(ctx, bdx, 0, dxtotal * xs, got);
    memcpy(want, hdx, dxtotal * xs);
    CHECK_OK(NULL, clforge_ref_softmax_backward(&desc, hy ? hy : hdx, hdy ? hdy : hdx, want));
    size_t bad_guard = 0;
    for (size_t i = 0; i < dxtotal; ++i) {
      const int in_row = i >= d.x.offset && i < d.x.extent && (i - d.x.offset) % d.x.stride < d.n;
      if (!in_row && memcmp((char *)got + i * xs, (char *)want + i * xs, xs)) ++bad_guard;
    }
    CHECK(!bad_guard, "%s: %zu elements outside dx's rows changed", label, bad_guard);
    float *g = malloc(total * sizeof *g), *w = malloc(total * sizeof *w);
    for (size_t r = 0; r < d.rows; ++r) {
      clforge_ref_convert(d.n, (char *)got + (d.x.offset + r * d.x.stride) * xs, d.x.type, g + r * d.n, CLFORGE_F32);
      clforge_ref_convert(d.n, (char *)want + (d.x.offset + r * d.x.stride) * xs, d.x.type, w + r * d.n, CLFORGE_F32);
    }
    clforge__error_stats es;
    clforge__compare_f32(total, g, w, &es);
    const clforge__tolerance tol = clforge__tolerance_for(d.x.type);
    const int within = clforge__within_tolerance(&es, tol);
    if (!within) {
      const size_t wi = clforge__worst_index(&es, tol);
      CHECK(0, "%s: dx[row %zu, %zu] = %g, want %g (nrmse %g, max_abs %g of %g, %zu special)", label, wi / d.n,
            wi % d.n, (double)g[wi], (double)w[wi], es.nrmse, es.max_abs, es.max_want, es.special_mismatches);
    } else {
      CHECK(1, "ok");
    }
    ok = within && !bad_guard;
    free(g), free(w), free(got), free(want);
  }
  clReleaseMemObject(bdx);
  if (by != bdx) clReleaseMemObject(by);
  if (bdy != bdx) clReleaseMemObject(bdy);
  free(y), free(dy), free(sent), free(hsent), free(hdx), free(hy), free(hdy);
  return ok;
}

/* The configurations the sweeps rotate through: scale, fill, strides,
 * offsets, in place (where dx shares the input's type). */
static bcase configure(size_t rows, size_t n, size_t i, const bkey *k) {
  bcase c = {.k = *k, .rows = rows, .n = n};
  c.fill = i % 3 == 1 ? FILL_SPECIAL : FILL_RANDOM;
  c.scale = i % 4 == 2 ? 0.125f : i % 4 == 3 ? -1.5f : 0.0f;
  c.ygap = i % 3 == 2 ? 5 : 0, c.dygap = i % 4 == 1 ? 3 : 0, c.dxgap = i % 2 ? 4 : 0;
  c.yo = i % 3, c.dyo = i % 5, c.dxo = i % 4 == 2 ? 7 : 0;
  if (i % 5 == 3) c.in_place = k->dxt == k->dyt ? 1 : k->dxt == k->yt ? 2 : 0;
  return c;
}

/* The parameter sets: every value of every parameter (RPI is the host's:
 * no build), the CPU defaults among them. */
static size_t param_sets(const clforge_device_info *dev, param_set *sets, size_t cap) {
  int req[SMB_NPARAMS];
  const int *def = clforge__family_softmax_backward.defaults[CLFORGE_DEVICE_CLASS_CPU];
  for (int p = 0; p < SMB_NPARAMS; ++p) req[p] = def[p];
  return cover_sample(&clforge__family_softmax_backward, dev, 77, req, 1, 1, sets, cap);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  closed_forms();
  finite_differences();
  clforge_context ctx = tu_context();

  /* lengths that are multiples of no vector width, each key in turn */
  const size_t lens[] = {1, 3, 17, 100, 129, 1000, 4097};
  const size_t small_lens[] = {1, 5, 33};
  const size_t nl = small ? sizeof small_lens / sizeof small_lens[0] : sizeof lens / sizeof lens[0];
  size_t rot = 0;
  for (size_t i = 0; i < nl; ++i)
    for (int k = 0; k < (small ? 2 : 3); ++k, ++rot) {
      const size_t n = small ? small_lens[i] : lens[i];
      bcase c = configure(n >= 4097 ? 3 : 9, n, rot, &keys[plain[(rot + i) % 3]]);
      run_case(ctx, &c);
    }
  /* special rows and in place (over dy, over y) in each kind, strided */
  for (int kind = 0; kind < 2; ++kind)
    for (int ip = 0; ip < 3; ++ip) {
      bcase c = configure(8, small ? 19 : 301, 0, &keys[kind ? 3 : 1]);
      c.fill = FILL_SPECIAL, c.in_place = ip, c.scale = 0.5f, c.dxgap = ip ? 2 : 0, c.dxo = 3;
      run_case(ctx, &c);
    }

  /* the parameter sets, each on a key of its own (log-softmax where EXP
   * is 1, so that it acts; the first set, the CPU defaults, on a key the
   * sweeps built), lengths around the width, many rows */
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  param_set sets[16];
  const size_t nsets = param_sets(&dev, sets, 16);
  CHECK(nsets >= 9 && cover_complete(&clforge__family_softmax_backward, &dev, sets, nsets),
        "softmax_backward: %zu parameter sets, not every value", nsets);
  for (size_t j = 0; j < nsets; ++j) {
    char spec[160] = "";
    cover_spec(&clforge__family_softmax_backward, &sets[j], spec, sizeof spec);
    CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
    const bkey *k = &keys[sets[j].v[SMB_EXP] ? logs[j % 3] : others[j % 4]];
    const size_t vw = (size_t)sets[j].v[SMB_VW];
    const size_t shapes[4][2] = {{5, vw > 1 ? vw - 1 : 1}, {5, vw * 3 + 1}, {3, small ? 50 : 1000}, {small ? 40 : 150, 17}};
    for (size_t i = 0; i < (small ? 2 : 4); ++i) {
      bcase c = configure(shapes[i][0], shapes[i][1], j * 4 + i, k);
      if (!run_case(ctx, &c)) fprintf(stderr, "  with params %s\n", spec);
    }
    clforge_context_set_params(ctx, NULL);
  }
  printf("softmax_backward: %zu parameter sets run\n", nsets);

  /* explain names the family, the key and the class */
  {
    clforge_softmax_desc desc = {.rows = 2, .n = 2048, .y_type = CLFORGE_BF16, .dy_type = CLFORGE_BF16,
                                 .x_type = CLFORGE_F32};
    clforge_kernel_choice kc;
    CHECK_OK(ctx, clforge_softmax_backward_explain(ctx, &desc, &kc));
    CHECK(!strcmp(kc.family, "softmax_backward") && kc.nparams == SMB_NPARAMS, "explain: family %s, %d params",
          kc.family, kc.nparams);
    CHECK(!strcmp(kc.dtypes, "bf16,bf16,f32") && !strcmp(kc.layout, "rows") && !strcmp(kc.shape_class, "attn_2048"),
          "explain: keys %s / %s / %s", kc.dtypes, kc.layout, kc.shape_class);
    CHECK_OK(ctx, clforge_context_set_params(ctx, "softmax_backward:VW=2,WG=4"));
    CHECK_OK(ctx, clforge_softmax_backward_explain(ctx, &desc, &kc));
    CHECK(kc.source == CLFORGE_PARAMS_FROM_API && kc.values[SMB_VW] == 2 && kc.values[SMB_WG] == 4,
          "explain after set_params: source %d VW %d", (int)kc.source, kc.values[SMB_VW]);
    clforge_context_set_params(ctx, NULL);
  }

  /* validation mode: correct results pass (special rows, in place), a
   * corrupted one is caught and no event comes back */
  {
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    bcase c = configure(6, small ? 21 : 333, 1, &keys[3]);
    c.fill = FILL_SPECIAL, c.dxgap = 3;
    run_case(ctx, &c);
    c.in_place = 1;
    run_case(ctx, &c);
    clforge_softmax_desc desc = {.rows = 3, .n = 40};
    cl_mem b = tu_buffer(ctx, 3 * 40 * 4);
    float h[120];
    for (int i = 0; i < 120; ++i) h[i] = (float)(i % 7) / 40.0f;
    tu_write(ctx, b, 0, sizeof h, h);
    cl_mem dx = tu_buffer(ctx, sizeof h);
    CHECK_OK(ctx, clforge_softmax_backward(ctx, &desc, b, b, dx, 0, NULL, NULL));
    clforge__test_set_fault(ctx, "softmax_backward");
    cl_event ev = NULL;
    CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &desc, b, b, dx, 0, NULL, &ev), CLFORGE_VALIDATION_FAILED,
                "softmax_backward");
    CHECK(ev == NULL, "an event after a failed validation");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    clReleaseMemObject(b), clReleaseMemObject(dx);
  }

  /* the tuner's op on a small shape of each key: set up, run, check, and a
   * corrupted output is refused */
  if (!small) {
    const clforge__tune_op *op = &clforge__tune_softmax_backward;
    const size_t shape[2] = {70, 513};
    for (const char *const *dt = op->dtypes; *dt; ++dt) {
      void *state = NULL;
      CHECK_OK(ctx, op->setup(ctx, *dt, "rows", shape, &state));
      if (!state) continue;
      char why[256] = "";
      op->prepare(state);
      CHECK_OK(ctx, op->run(state));
      CHECK_OK(ctx, op->check(state, 0, why, sizeof why));
      CHECK(op->check(state, 1, why, sizeof why) == CLFORGE_VALIDATION_FAILED, "tune %s: corruption passes", *dt);
      op->teardown(state);
    }
    void *state = NULL;
    CHECK_FAILS(ctx, op->setup(ctx, "f32,f32", "rows", shape, &state), CLFORGE_INVALID_ARGUMENT, "dtypes");
    CHECK_FAILS(ctx, op->setup(ctx, "f32,f32,f32", "nn", shape, &state), CLFORGE_INVALID_ARGUMENT, "layout");
    CHECK(op->flops(shape) == (double)shape[0] * shape[1] * 12.0, "bytes as the op's count");
  }

  clforge_context_destroy(ctx);
  return tu_summary();
}
