/* clforge_gemm's gated epilogue (CLFORGE_GEMM_GATE_INTERLEAVED: SwiGLU,
 * GeGLU, ReGLU, the bilinear gate): first the meaning, a Llama MLP's gate
 * and up projections from a checkpoint's two weights
 * (clforge_gemm_gate_interleave) against silu(x Wg^T) * (x Wu^T) in double
 * written here; then the device against clforge_ref_gemm_ex on each route
 * (tiled with the direct kernel's edges, direct, packed), storage mixes,
 * biases, batches, strided C; a tiled kernel of VW 1 (widened to 2) and of one
 * column per item (left to the direct kernel); validation mode catching a
 * spoiled result. The families run with the GPU classes' defaults, cheap to
 * compile (as test_gemm_epilogue), but for the decode shape on the device's
 * own.
 * --small: fewer cases (Oclgrind). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/desc/gemm_desc.h"
#include "../src/families/families.h"
#include "../src/ref/compare.h"
#include "../src/ref/element.h"
#include "device_array.h"
#include "param_cover.h"
#include "test_util.h"

static unsigned seed = 777;

/* The GPU classes' defaults of the three families, the tiled one's VW and
 * NWI set where given (> 0). */
static void gemm_params(clforge_context ctx, int vw, int nwi) {
  const clforge__family *fs[3] = {&clforge__family_gemm, &clforge__family_gemm_direct, &clforge__family_gemm_packed};
  char spec[512] = "";
  for (int i = 0; i < 3; ++i) {
    param_set v;
    clforge__family_default(fs[i], CLFORGE_DEVICE_CLASS_GENERIC, 0, v.v);
    if (i == 0 && vw > 0)
      v.v[GEMM_VW] = vw;
    if (i == 0 && nwi > 0)
      v.v[GEMM_NWI] = nwi;
    cover_spec(fs[i], &v, spec, sizeof spec);
  }
  if (clforge_context_set_params(ctx, spec) != CLFORGE_SUCCESS)
    CHECK(0, "clforge_context_set_params(\"%s\"): %s", spec, clforge_last_error(ctx));
}

/* A Llama MLP's first half at decode: x (m x k) against gate and up
 * weights [n, k] as a checkpoint stores them, fused by the helper, one
 * gated GEMM; against the two projections and SiLU in double. */
static void meaning(clforge_context ctx, size_t m, size_t n, size_t k) {
  float *x = malloc(m * k * 4), *wg = malloc(n * k * 4), *wu = malloc(n * k * 4), *w = malloc(2 * n * k * 4),
        *y = malloc(m * n * 4);
  tu_fill_scaled(x, CLFORGE_F32, m * k, 1.0f, &seed), tu_fill_scaled(wg, CLFORGE_F32, n * k, 0.3f, &seed),
      tu_fill_scaled(wu, CLFORGE_F32, n * k, 0.3f, &seed);
  CHECK_OK(NULL, clforge_gemm_gate_interleave(wg, wu, n, k * 4, w));
  cl_mem X = tu_buffer(ctx, m * k * 4), W = tu_buffer(ctx, 2 * n * k * 4), Y = tu_buffer(ctx, m * n * 4);
  tu_write(ctx, X, 0, m * k * 4, x), tu_write(ctx, W, 0, 2 * n * k * 4, w);
  const clforge_gemm_desc d = {.m = m,
                               .n = n,
                               .k = k,
                               .trans_b = CLFORGE_TRANS,
                               .activation = CLFORGE_ACT_SILU,
                               .gate = CLFORGE_GEMM_GATE_INTERLEAVED};
  CHECK_OK(ctx, clforge_gemm(ctx, &d, X, W, Y, NULL, 0, NULL, NULL));
  tu_read(ctx, Y, 0, m * n * 4, y);
  double worst = 0, got_w = 0, want_w = 0;
  size_t wi = 0, wj = 0;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double g = 0, u = 0, bound = 0;
      for (size_t p = 0; p < k; ++p) {
        g += (double)x[i * k + p] * wg[j * k + p], u += (double)x[i * k + p] * wu[j * k + p];
        bound += fabs((double)x[i * k + p]) * (fabs((double)wg[j * k + p]) + fabs((double)wu[j * k + p]));
      }
      const double want = g / (1.0 + exp(-g)) * u;
      /* f32 sums of k products: within k * 2^-24 of the magnitudes' sum each,
       * amplified by at most (1.1 |u| + |g|) through the gate's product */
      const double err = fabs(y[i * n + j] - want), tol = 1e-6 + 4.0 * (double)k * 0x1p-24 * bound * (1.0 + bound);
      if (err / tol > worst)
        worst = err / tol, wi = i, wj = j, got_w = y[i * n + j], want_w = want;
    }
  CHECK(worst <= 1.0,
        "meaning %zux%zux%zu: y[%zu][%zu] = %.9g, silu(gate) * up = %.9g (%.3g "
        "x the bound)",
        m, n, k, wi, wj, got_w, want_w, worst);
  clReleaseMemObject(X), clReleaseMemObject(W), clReleaseMemObject(Y);
  free(x), free(wg), free(wu), free(w), free(y);
}

typedef struct {
  clforge_gemm_desc d;
  const char *path, *what;
} gcase;

/* One case on its route against the reference, C's whole extent (the
 * gaps between rows and items must keep their values). */
static void run(clforge_context ctx, const gcase *c) {
  setenv("CLFORGE_GEMM_PATH", c->path, 1);
  clforge__gemm g;
  if (clforge__gemm_resolve(NULL, &c->d, &g) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: resolve: %s", c->what, clforge_last_error(NULL));
    unsetenv("CLFORGE_GEMM_PATH");
    return;
  }
  /* the route asked for is the one that runs */
  clforge_kernel_choice ch[2];
  int nch = 0;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &c->d, ch, 2, &nch));
  const char *fam = !strcmp(c->path, "tiled") ? "gemm" : !strcmp(c->path, "direct") ? "gemm_direct" : "gemm_packed";
  CHECK(nch >= 1 && !strcmp(ch[0].family, fam), "%s: the %s path runs %s", c->what, c->path, nch ? ch[0].family : "nothing");
  tu_array a, b, cc, bias = {0};
  tu_array_make(ctx, &a, g.a.extent, g.a.type, 1.0f, &seed), tu_array_make(ctx, &b, g.b.extent, g.b.type, 1.0f, &seed);
  tu_array_make(ctx, &cc, g.c.extent, g.c.type, 1.0f, &seed);
  if (g.bias_mode)
    tu_array_make(ctx, &bias, g.bias.extent, g.bias.type, 1.0f, &seed);
  clforge_status st = clforge_gemm(ctx, &c->d, a.buf, b.buf, cc.buf, g.bias_mode ? bias.buf : NULL, 0, NULL, NULL);
  CHECK(st == CLFORGE_SUCCESS, "%s (%s): %s", c->what, c->path, clforge_last_error(ctx));
  if (st == CLFORGE_SUCCESS) {
    CHECK_OK(NULL, clforge_ref_gemm_ex(&c->d, a.want, b.want, cc.want, g.bias_mode ? bias.want : NULL, NULL));
    clforge__error_stats s;
    CHECK(tu_array_within(ctx, &cc, g.c.type, &s), "%s (%s): nrmse %.3g max_abs %.3g (max %.3g)", c->what, c->path,
          s.nrmse, s.max_abs, s.max_want);
  }
  tu_array_free(&a), tu_array_free(&b), tu_array_free(&cc), tu_array_free(&bias);
  unsetenv("CLFORGE_GEMM_PATH");
}

/* What the plan runs for a gated call whose tiled parameters are `extra`. */
static void route_of(clforge_context ctx, const clforge_gemm_desc *d, int nwi, const char *want_family, int want_vw) {
  gemm_params(ctx, 1, nwi);
  clforge_kernel_choice ch[2];
  int n = 0;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, d, ch, 2, &n));
  int found = 0;
  for (int i = 0; i < n; ++i)
    if (!strcmp(ch[i].family, want_family)) {
      found = 1;
      for (int p = 0; p < ch[i].nparams; ++p)
        if (!strcmp(ch[i].names[p], "VW"))
          CHECK(ch[i].values[p] == want_vw, "VW 1, NWI %d: %s runs VW %d, want %d (a gated call's pairs)", nwi,
                want_family, ch[i].values[p], want_vw);
    }
  CHECK(found, "VW 1, NWI %d: the plan runs no %s (%d kernels, route \"%s\")", nwi, want_family, n,
        n ? ch[0].route : "");
  if (!strcmp(want_family, "gemm_direct"))
    for (int i = 0; i < n; ++i)
      CHECK(strcmp(ch[i].family, "gemm"), "NWI %d: the tiled kernel runs a gated call", nwi);
}

static void validation(clforge_context ctx, const gcase *c) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  run(ctx, c);
  clforge__test_set_fault(ctx, "gemm");
  clforge__gemm g;
  CHECK_OK(NULL, clforge__gemm_resolve(NULL, &c->d, &g));
  cl_mem a = tu_buffer(ctx, g.a.extent * 4), b = tu_buffer(ctx, g.b.extent * 4), y = tu_buffer(ctx, g.c.extent * 4);
  float *h = malloc((g.a.extent + g.b.extent + g.c.extent) * 4);
  tu_fill_scaled(h, CLFORGE_F32, g.a.extent + g.b.extent + g.c.extent, 1.0f, &seed);
  tu_write(ctx, a, 0, g.a.extent * 4, h), tu_write(ctx, b, 0, g.b.extent * 4, h + g.a.extent);
  tu_write(ctx, y, 0, g.c.extent * 4, h + g.a.extent + g.b.extent);
  CHECK_FAILS(ctx, clforge_gemm(ctx, &c->d, a, b, y, NULL, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "gemm");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(y);
  free(h);
}

static void bad_input(void) {
  float g[8] = {0}, u[8] = {0}, out[16];
  CHECK_FAILS(NULL, clforge_gemm_gate_interleave(NULL, u, 2, 16, out), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_gemm_gate_interleave(g, u, 2, 16, g + 4), CLFORGE_INVALID_ARGUMENT, "out overlaps gate");
  CHECK_FAILS(NULL, clforge_gemm_gate_interleave(g, u, (size_t)1 << 40, (size_t)1 << 40, out), CLFORGE_SIZE_OVERFLOW,
              "overflow");
  float gg[4] = {1, 2, 3, 4}, uu[4] = {5, 6, 7, 8}, w[8];
  CHECK_OK(NULL, clforge_gemm_gate_interleave(gg, uu, 2, 8, w));
  const float want[8] = {1, 2, 5, 6, 3, 4, 7, 8};
  CHECK(!memcmp(w, want, sizeof w), "interleaved rows: %g %g %g %g %g %g %g %g", (double)w[0], (double)w[1],
        (double)w[2], (double)w[3], (double)w[4], (double)w[5], (double)w[6], (double)w[7]);
}

#define F16 CLFORGE_F16
#define BF16 CLFORGE_BF16
#define GATED .gate = CLFORGE_GEMM_GATE_INTERLEAVED

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  bad_input();
  meaning(ctx, small ? 2 : 5, small ? 24 : 96, small ? 40 : 128); /* the device's own parameters */
  gemm_params(ctx, 0, 0);
  gcase cases[] = {
      {{.m = 37, .n = 20, .k = 29, .trans_b = CLFORGE_TRANS, .a_type = F16, .b_type = F16, .c_type = F16,
        .bias_mode = CLFORGE_BIAS_COLUMN, .activation = CLFORGE_ACT_GELU_TANH, GATED},
       "tiled", "GeGLU tanh, f16, bias per product column"},
      {{.m = 9, .n = 13, .k = 33, .c_type = BF16, .bias_mode = CLFORGE_BIAS_ROW, .bias_type = BF16,
        .activation = CLFORGE_ACT_GELU_ERF, .batch = 2, .stride_a = 9 * 33 + 1, .stride_b = 0, .ldc = 17,
        .stride_c = 9 * 17 + 2, .c_offset = 3, GATED},
       "direct", "GeGLU erf, bf16 c, bias per row, batch (B shared), strided C"},
      {{.m = 40, .n = 36, .k = 70, .trans_b = CLFORGE_TRANS, .activation = CLFORGE_ACT_RELU, .alpha = 0.5f,
        .bias_mode = CLFORGE_BIAS_COLUMN, GATED},
       "packed", "ReGLU, alpha 0.5, bias per product column"},
      {{.m = 33, .n = 34, .k = 20, .b_type = BF16, .activation = CLFORGE_ACT_NONE, GATED}, "tiled", "bilinear, bf16 B"},
      {{.m = 18, .n = 40, .k = 64, .trans_b = CLFORGE_TRANS, .activation = CLFORGE_ACT_SILU, .batch = 2,
        .stride_a = 18 * 64, .stride_b = 80 * 64, .stride_c = 18 * 40, GATED},
       "packed", "SwiGLU, batch"},
  };
  const size_t ncases = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < ncases; ++i)
    if (!small || i == 1 || i == 3) run(ctx, &cases[i]);
  if (!small) {
    /* the tiled kernel's pairs: VW 1 widened to 2, a one-column tile left out */
    const clforge_gemm_desc big = {.m = 64, .n = 64, .k = 600, .trans_b = CLFORGE_TRANS,
                                   .activation = CLFORGE_ACT_SILU, GATED};
    setenv("CLFORGE_GEMM_PATH", "tiled", 1);
    route_of(ctx, &big, 4, "gemm", 2);
    route_of(ctx, &big, 1, "gemm_direct", 2);
    unsetenv("CLFORGE_GEMM_PATH");
    /* the device's own parameters on the packed route, reading A in place
     * (n <= NC); (the tiled kernel's are the same store at another VW, and
     * its CPU tile costs 8 s to build: the direct kernel's own run above) */
    CHECK_OK(ctx, clforge_context_set_params(ctx, ""));
    const gcase prod = {{.m = 40, .n = 8, .k = 64, .activation = CLFORGE_ACT_GELU_TANH, GATED}, "packed",
                        "GeGLU, the device's packed parameters, A in place"};
    run(ctx, &prod);
    gemm_params(ctx, 0, 0);
    const gcase v = {{.m = 9, .n = 13, .k = 33, .activation = CLFORGE_ACT_SILU, GATED}, "direct", "validation"};
    validation(ctx, &v);
  }
  clforge_context_destroy(ctx);
  return tu_summary();
}
