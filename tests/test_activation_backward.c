/* clforge_activation_backward: the reference against closed forms and
 * central differences of the forward activations (ReLU, GELU's two forms,
 * SiLU) (clforge__ref_activate,
 * what the GEMM and convolution epilogues compute); the device against the
 * reference for every activation and storage mix, offsets, beta, in place;
 * validation mode; bad input changing nothing. --small: fewer cases. */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/ref/compare.h"
#include "../src/ref/element.h"
#include "test_util.h"

static unsigned seed = 777;

static float rnd(void) { return (float)(tu_rand(&seed) % 4001) / 1000.0f - 2.0f; }

static double ref_one(int act, double z) {
  float zf = (float)z, one = 1.0f, dx = 0.0f;
  clforge_activation_backward_desc d = {.count = 1, .activation = (clforge_activation)act};
  clforge_status st = clforge_ref_activation_backward(&d, &zf, &one, &dx);
  CHECK(st == CLFORGE_SUCCESS, "reference: %s", clforge_last_error(NULL));
  return dx;
}

static void reference_checks(void) {
  CHECK(ref_one(CLFORGE_ACT_RELU, 2.0) == 1.0 && ref_one(CLFORGE_ACT_RELU, -1.0) == 0.0 &&
            ref_one(CLFORGE_ACT_RELU, 0.0) == 0.0,
        "ReLU' is 1 above 0, else 0");
  CHECK(fabs(ref_one(CLFORGE_ACT_GELU_ERF, 0.0) - 0.5) < 1e-7 && fabs(ref_one(CLFORGE_ACT_GELU_TANH, 0.0) - 0.5) < 1e-7,
        "GELU'(0) = 1/2");
  CHECK(ref_one(CLFORGE_ACT_NONE, 3.0) == 1.0, "no activation: dx = dy");
  /* central differences of the forward in double, off ReLU's kink */
  const double zs[] = {-3.1, -1.2, -0.3, 0.2, 0.7, 1.9, 4.4};
  for (int act = 1; act <= 4; ++act)
    for (size_t i = 0; i < sizeof zs / sizeof zs[0]; ++i) {
      const double h = 1e-5, z = (float)zs[i];
      const double fd = (clforge__ref_activate(act, z + h) - clforge__ref_activate(act, z - h)) / (2 * h);
      CHECK(fabs(fd - ref_one(act, z)) < 2e-6 * (1 + fabs(fd)), "act %d at %g: central difference %.9g, reference %.9g",
            act, z, fd, ref_one(act, z));
    }
}

typedef struct {
  int act;
  clforge_dtype zt, yt, xt;
  size_t n;
  float beta;
  int in_place;
} acase;

static void run(clforge_context ctx, const acase *c) {
  const size_t off = 5, tot = c->n + 2 * off;
  const size_t zs = clforge_dtype_size(c->zt), ys = clforge_dtype_size(c->yt), xs = clforge_dtype_size(c->xt);
  float *f = malloc(tot * sizeof *f);
  void *hz = malloc(tot * zs), *hy = malloc(tot * ys), *hx = malloc(tot * xs), *want = malloc(tot * xs),
       *got = malloc(tot * xs);
  for (size_t i = 0; i < tot; ++i) f[i] = rnd();
  f[off] = 0.0f; /* ReLU's kink */
  clforge_ref_convert(tot, f, CLFORGE_F32, hz, c->zt);
  for (size_t i = 0; i < tot; ++i) f[i] = rnd();
  clforge_ref_convert(tot, f, CLFORGE_F32, hy, c->yt);
  for (size_t i = 0; i < tot; ++i) f[i] = rnd();
  clforge_ref_convert(tot, f, CLFORGE_F32, hx, c->xt);
  cl_mem z = tu_buffer(ctx, tot * zs), y = tu_buffer(ctx, tot * ys), x = c->in_place ? y : tu_buffer(ctx, tot * xs);
  tu_write(ctx, z, 0, tot * zs, hz), tu_write(ctx, y, 0, tot * ys, hy);
  if (!c->in_place) tu_write(ctx, x, 0, tot * xs, hx);
  clforge_activation_backward_desc d = {.count = c->n, .activation = (clforge_activation)c->act, .z_type = c->zt,
                                        .dy_type = c->yt, .dx_type = c->xt, .z_offset = off, .dy_offset = off,
                                        .dx_offset = off, .beta = c->beta};
  memcpy(want, c->in_place ? hy : hx, tot * xs);
  CHECK_OK(NULL, clforge_ref_activation_backward(&d, hz, hy, want));
  CHECK_OK(ctx, clforge_activation_backward(ctx, &d, z, y, x, 0, NULL, NULL));
  tu_read(ctx, x, 0, tot * xs, got);
  float *g = malloc(tot * 4), *w = malloc(tot * 4);
  clforge_ref_convert(tot, got, c->xt, g, CLFORGE_F32), clforge_ref_convert(tot, want, c->xt, w, CLFORGE_F32);
  clforge__error_stats s;
  clforge__compare_f32(c->n, g + off, w + off, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(c->xt)),
        "act %d types %d,%d,%d n %zu beta %g in place %d: nrmse %.3g max_abs %.3g", c->act, (int)c->zt, (int)c->yt,
        (int)c->xt, c->n, c->beta, c->in_place, s.nrmse, s.max_abs);
  CHECK(!memcmp(got, c->in_place ? hy : hx, off * xs) &&
            !memcmp((char *)got + (off + c->n) * xs, (char *)(c->in_place ? hy : hx) + (off + c->n) * xs, off * xs),
        "elements outside dx changed (act %d)", c->act);
  free(f), free(hz), free(hy), free(hx), free(want), free(got), free(g), free(w);
  clReleaseMemObject(z), clReleaseMemObject(y);
  if (!c->in_place) clReleaseMemObject(x);
}

static void bad_input(clforge_context ctx) {
  cl_mem a = tu_buffer(ctx, 4096), b = tu_buffer(ctx, 4096), c = tu_buffer(ctx, 4096), small = tu_buffer(ctx, 16);
  float sent[1024];
  for (int i = 0; i < 1024; ++i) sent[i] = 7.0f;
  tu_write(ctx, c, 0, 4096, sent);
  const clforge_activation_backward_desc good = {.count = 100, .activation = CLFORGE_ACT_RELU};
  clforge_activation_backward_desc d = good;
  CHECK_FAILS(NULL, clforge_activation_backward(NULL, &d, a, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, NULL, a, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.activation = (clforge_activation)7;
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, a, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "activation 7");
  d = good, d.dx_type = (clforge_dtype)9;
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, a, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "storage type");
  d = good, d.reserved[1] = &d;
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, a, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.dy_offset = SIZE_MAX - 3;
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, a, b, c, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "dy");
  d = good;
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, NULL, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "z");
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, a, small, c, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "dy");
  d = good, d.dx_offset = 10;
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, a, c, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps dy");
  d = good, d.dx_type = CLFORGE_BF16;
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, c, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps z");
  d = good; /* dx being z exactly: only dy may be dx */
  CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, c, b, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dx overlaps z (only dy may be dx");
  float back[1024];
  tu_read(ctx, c, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote dx");
  d = good;
  d.activation = CLFORGE_ACT_NONE;
  CHECK_OK(ctx, clforge_activation_backward(ctx, &d, NULL, b, c, 0, NULL, NULL)); /* no activation: no z */
  d.count = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_activation_backward(ctx, &d, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "count 0 gives a marker event");
  if (ev) clReleaseEvent(ev);
  clforge_kernel_choice ch;
  CHECK_OK(ctx, clforge_activation_backward_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.family, "activation_backward") && ch.nparams == 2, "explain names the family: %s", ch.family);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c), clReleaseMemObject(small);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  reference_checks();
  clforge_context ctx = tu_context();
  const clforge_dtype F = CLFORGE_F32, H = CLFORGE_F16, B = CLFORGE_BF16;
  const acase cases[] = {
      {CLFORGE_ACT_RELU, F, F, F, 1037, 0.0f, 0},      {CLFORGE_ACT_GELU_TANH, F, F, F, 333, 0.0f, 0},
      {CLFORGE_ACT_GELU_ERF, F, F, F, 1, 0.0f, 0},     {CLFORGE_ACT_NONE, F, F, F, 77, 0.0f, 0},
      {CLFORGE_ACT_RELU, B, B, B, 515, 0.5f, 0},       {CLFORGE_ACT_GELU_ERF, H, B, F, 700, -1.0f, 0},
      {CLFORGE_ACT_GELU_TANH, B, H, H, 4099, 0.0f, 0}, {CLFORGE_ACT_RELU, F, F, F, 300, 0.0f, 1},
      {CLFORGE_ACT_GELU_TANH, B, B, B, 301, 2.0f, 1}, {CLFORGE_ACT_SILU, H, F, F, 519, 0.0f, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    if (!small || i % 2 == 0) run(ctx, &cases[i]);
  bad_input(ctx);
  if (!small) { /* validation mode passes a right result and catches a wrong one */
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    run(ctx, &cases[1]);
    run(ctx, &cases[8]);
    cl_mem a = tu_buffer(ctx, 400), b = tu_buffer(ctx, 400), c = tu_buffer(ctx, 400);
    float h[100];
    for (int i = 0; i < 100; ++i) h[i] = (float)(i % 9) / 4.0f - 1.0f;
    tu_write(ctx, a, 0, 400, h), tu_write(ctx, b, 0, 400, h), tu_write(ctx, c, 0, 400, h);
    const clforge_activation_backward_desc d = {.count = 100, .activation = CLFORGE_ACT_GELU_ERF};
    clforge__test_set_fault(ctx, "activation_backward");
    CHECK_FAILS(ctx, clforge_activation_backward(ctx, &d, a, b, c, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
                "activation_backward");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
  }
  clforge_context_destroy(ctx);
  return tu_summary();
}
