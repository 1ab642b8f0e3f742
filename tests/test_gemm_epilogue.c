/* clforge_gemm_ex's auxiliary epilogues (cuBLASLt's model): the forward
 * storing the pre-activation, the backward multiplying by act'(aux) and
 * writing the bias gradient; on each route (tiled with the direct kernel's
 * edges, direct, packed), every activation, storage mixes, column-major,
 * transposes, batches, beta, the backward in place over aux; against
 * clforge_ref_gemm_ex, and the layer's gradients against central
 * differences of the forward reference. The three GEMM families run with
 * the GPU classes' defaults (cheap to compile: the CPU defaults' 12 x 32
 * and 8 x 32 accumulator blocks cost seconds per epilogue and storage mix
 * on PoCL, and epilogues are the subject here, not the micro-kernels), but
 * for one case on the packed and one on the direct kernel's CPU defaults
 * (production: the CPU defaults' own runs are in test_gemm and
 * test_gemm_packed). --small: fewer cases (Oclgrind). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/desc/gemm_desc.h"
#include "../src/families/families.h"
#include "../src/ref/compare.h"
#include "../src/ref/element.h"
#include "param_cover.h"
#include "device_array.h"
#include "test_util.h"

static unsigned seed = 4321;

typedef struct {
  clforge_gemm_desc d;
  int in_place; /* the backward's aux is C itself */
  const char *what;
} ecase;

static void compare(clforge_context ctx, const tu_array *x, clforge_dtype t, const char *name, const ecase *c,
                    const char *path) {
  clforge__error_stats s;
  CHECK(tu_array_within(ctx, x, t, &s), "%s, %s path: %s nrmse %.3g max_abs %.3g (max %.3g)", c->what, path, name,
        s.nrmse, s.max_abs, s.max_want);
}

static void run(clforge_context ctx, const ecase *c, const char *path) {
  setenv("CLFORGE_GEMM_PATH", path, 1);
  clforge__gemm g;
  if (clforge__gemm_resolve(NULL, &c->d, &g) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: resolve: %s", c->what, clforge_last_error(NULL));
    return;
  }
  const clforge__gemm_operand *ua = g.swapped ? &g.b : &g.a, *ub = g.swapped ? &g.a : &g.b;
  tu_array a, b, cc, bias = {0}, aux = {0};
  tu_array_make(ctx, &a, ua->extent, ua->type, 1.0f, &seed);
  tu_array_make(ctx, &b, ub->extent, ub->type, 1.0f, &seed);
  tu_array_make(ctx, &cc, g.c.extent, g.c.type, 1.0f, &seed);
  if (g.bias_mode) tu_array_make(ctx, &bias, g.bias.extent, g.bias.type, 1.0f, &seed);
  const int aux_used = g.aux.extent > g.aux.offset;
  if (aux_used && !c->in_place) tu_array_make(ctx, &aux, g.aux.extent, g.aux.type, 2.0f, &seed);
  clforge_status st = clforge_gemm_ex(ctx, &c->d, a.buf, b.buf, cc.buf, g.bias_mode ? bias.buf : NULL,
                                      c->in_place ? cc.buf : aux_used ? aux.buf : NULL, 0, NULL, NULL);
  CHECK(st == CLFORGE_SUCCESS, "%s, %s path: %s", c->what, path, clforge_last_error(ctx));
  if (st == CLFORGE_SUCCESS) {
    CHECK_OK(NULL, clforge_ref_gemm_ex(&c->d, a.want, b.want, cc.want, g.bias_mode ? bias.want : NULL,
                                       c->in_place ? cc.want : aux_used ? aux.want : NULL));
    compare(ctx, &cc, g.c.type, "c", c, path);
    if (aux_used && c->d.aux_mode == CLFORGE_GEMM_AUX_STORE) compare(ctx, &aux, g.aux.type, "aux", c, path);
    if (g.bias_mode && c->d.aux_mode == CLFORGE_GEMM_AUX_BACKWARD) compare(ctx, &bias, g.bias.type, "bias grad", c, path);
  }
  tu_array_free(&a), tu_array_free(&b), tu_array_free(&cc), tu_array_free(&bias), tu_array_free(&aux);
  unsetenv("CLFORGE_GEMM_PATH");
}

/* A two-layer MLP's gradients on the device against central differences
 * of the forward in double: Z1 = X W1 + b1, A1 = act(Z1), Y = A1 W2, and
 * L = <G, Y> for a fixed G. The forward stores Z1 (AUX_STORE); the
 * backward dZ1 = (G W2^T) * act'(Z1) with db1 = sum of dZ1's rows is one
 * clforge_gemm_ex (AUX_BACKWARD); dL/db1 by central differences. */
static void layer_gradients(clforge_context ctx, clforge_activation act) {
  enum { B = 6, I = 5, H = 7, O = 4 };
  float x[B * I], w1[I * H], b1[H], w2[H * O], gy[B * O];
  tu_fill_scaled(x, CLFORGE_F32, B * I, 1.0f, &seed), tu_fill_scaled(w1, CLFORGE_F32, I * H, 1.0f, &seed);
  tu_fill_scaled(b1, CLFORGE_F32, H, 1.0f, &seed), tu_fill_scaled(w2, CLFORGE_F32, H * O, 1.0f, &seed);
  tu_fill_scaled(gy, CLFORGE_F32, B * O, 1.0f, &seed);
  cl_mem X = tu_buffer(ctx, sizeof x), W1 = tu_buffer(ctx, sizeof w1), B1 = tu_buffer(ctx, sizeof b1),
         W2 = tu_buffer(ctx, sizeof w2), G = tu_buffer(ctx, sizeof gy), A1 = tu_buffer(ctx, B * H * 4),
         Z1 = tu_buffer(ctx, B * H * 4), DZ = tu_buffer(ctx, B * H * 4), DB = tu_buffer(ctx, H * 4);
  tu_write(ctx, X, 0, sizeof x, x), tu_write(ctx, W1, 0, sizeof w1, w1), tu_write(ctx, B1, 0, sizeof b1, b1);
  tu_write(ctx, W2, 0, sizeof w2, w2), tu_write(ctx, G, 0, sizeof gy, gy);
  const clforge_gemm_desc fwd = {.m = B, .n = H, .k = I, .bias_mode = CLFORGE_BIAS_COLUMN, .activation = act,
                                 .aux_mode = CLFORGE_GEMM_AUX_STORE};
  const clforge_gemm_desc bwd = {.m = B, .n = H, .k = O, .trans_b = CLFORGE_TRANS, .bias_mode = CLFORGE_BIAS_COLUMN,
                                 .activation = act, .aux_mode = CLFORGE_GEMM_AUX_BACKWARD};
  CHECK_OK(ctx, clforge_gemm_ex(ctx, &fwd, X, W1, A1, B1, Z1, 0, NULL, NULL));
  CHECK_OK(ctx, clforge_gemm_ex(ctx, &bwd, G, W2, DZ, DB, Z1, 0, NULL, NULL));
  float db[H], dz[B * H];
  tu_read(ctx, DB, 0, sizeof db, db), tu_read(ctx, DZ, 0, sizeof dz, dz);
  /* L(b1) in double */
  double worst = 0;
  for (int j = 0; j < H; ++j) {
    double L[2];
    for (int sgn = 0; sgn < 2; ++sgn) {
      const double h = 1e-4, bj = b1[j] + (sgn ? -h : h);
      double l = 0;
      for (int r = 0; r < B; ++r)
        for (int o = 0; o < O; ++o) {
          double y = 0;
          for (int u = 0; u < H; ++u) {
            double z = (u == j ? bj : b1[u]);
            for (int i = 0; i < I; ++i) z += (double)x[r * I + i] * w1[i * H + u];
            y += clforge__ref_activate(act, z) * w2[u * O + o];
          }
          l += y * gy[r * O + o];
        }
      L[sgn] = l;
    }
    const double fd = (L[0] - L[1]) / 2e-4;
    worst = fmax(worst, fabs(fd - db[j]) / (1.0 + fabs(fd)));
  }
  CHECK(worst < 2e-3, "act %d: the bias gradient from one backward GEMM differs from central differences by %.3g",
        (int)act, worst);
  /* dZ1 summed over the rows is db1 (the same call's two outputs agree) */
  for (int j = 0; j < H; ++j) {
    double s = 0;
    for (int r = 0; r < B; ++r) s += dz[r * H + j];
    CHECK(fabs(s - db[j]) < 1e-4 * (1 + fabs(s)), "act %d: db1[%d] %.6g is not the sum of dZ1's column %.6g", (int)act, j,
          db[j], s);
  }
  cl_mem all[] = {X, W1, B1, W2, G, A1, Z1, DZ, DB};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) clReleaseMemObject(all[i]);
}

/* The GPU classes' defaults of the three GEMM families, or (production) the
 * device's own. On the GPU defaults the tiled kernel's 32 x 32 tiles also
 * run the tiled kernel itself on these modest shapes (the CPU default's
 * 128 x 64 leaves all but one to the direct kernel's edges). */
static void gemm_params(clforge_context ctx, int production) {
  const clforge__family *fs[3] = {&clforge__family_gemm, &clforge__family_gemm_direct, &clforge__family_gemm_packed};
  char spec[512] = "";
  for (int i = 0; i < 3 && !production; ++i) {
    param_set v;
    clforge__family_default(fs[i], CLFORGE_DEVICE_CLASS_GENERIC, 0, v.v);
    cover_spec(fs[i], &v, spec, sizeof spec);
  }
  if (clforge_context_set_params(ctx, spec) != CLFORGE_SUCCESS) /* not a check of its own: counts stay comparable */
    CHECK(0, "clforge_context_set_params(\"%s\"): %s", spec, clforge_last_error(ctx));
}

/* The runs on the device's own defaults: backward (the bias gradient) with
 * no activation, packed; with ReLU and B transposed, direct. */
static int production(size_t i, const char *path) {
  return (i == 4 && !strcmp(path, "packed")) || (i == 2 && !strcmp(path, "direct"));
}

#define F32 CLFORGE_F32
#define F16 CLFORGE_F16
#define BF16 CLFORGE_BF16

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  gemm_params(ctx, 0);
  ecase cases[] = {
      {{.m = 37, .n = 45, .k = 29, .bias_mode = CLFORGE_BIAS_COLUMN, .activation = CLFORGE_ACT_GELU_TANH,
        .aux_mode = CLFORGE_GEMM_AUX_STORE}, 0, "store, GELU tanh, bias per column"},
      {{.layout = CLFORGE_COL_MAJOR, .trans_a = CLFORGE_TRANS, .m = 33, .n = 20, .k = 17, .batch = 2,
        .stride_a = 17 * 33 + 3, .stride_b = 17 * 20, .stride_c = 33 * 20 + 5, .c_type = BF16, .aux_type = F32,
        .bias_mode = CLFORGE_BIAS_ROW, .activation = CLFORGE_ACT_RELU, .aux_mode = CLFORGE_GEMM_AUX_STORE, .beta = 0.5f,
        .aux_offset = 3}, 0, "store, ReLU, column-major, batch, bf16 c, f32 aux"},
      {{.m = 40, .n = 36, .k = 31, .trans_b = CLFORGE_TRANS, .bias_mode = CLFORGE_BIAS_COLUMN,
        .activation = CLFORGE_ACT_RELU, .aux_mode = CLFORGE_GEMM_AUX_BACKWARD}, 0, "backward, dReLU, bias gradient"},
      {{.layout = CLFORGE_COL_MAJOR, .m = 25, .n = 19, .k = 23, .batch = 3, .stride_a = 25 * 23, .stride_b = 23 * 19,
        .stride_c = 25 * 19, .a_type = F16, .b_type = F16, .c_type = F16, .aux_type = BF16, .bias_type = F32,
        .bias_mode = CLFORGE_BIAS_ROW, .activation = CLFORGE_ACT_GELU_ERF, .aux_mode = CLFORGE_GEMM_AUX_BACKWARD,
        .beta = 0.5f}, 0, "backward, dGELU erf, column-major, batch, f16, bf16 aux, bias gradient per row"},
      {{.m = 30, .n = 28, .k = 26, .bias_mode = CLFORGE_BIAS_COLUMN, .aux_mode = CLFORGE_GEMM_AUX_BACKWARD}, 0,
       "backward, no activation: the bias gradient alone"},
      {{.m = 34, .n = 29, .k = 21, .activation = CLFORGE_ACT_GELU_TANH, .aux_mode = CLFORGE_GEMM_AUX_BACKWARD,
        .beta = 1.0f}, 1, "backward in place over aux, dGELU tanh, beta 1"},
      {{.m = 130, .n = 200, .k = 150, .a_type = BF16, .b_type = BF16, .c_type = BF16, .aux_type = BF16,
        .bias_type = BF16, .bias_mode = CLFORGE_BIAS_COLUMN, .activation = CLFORGE_ACT_RELU,
        .aux_mode = CLFORGE_GEMM_AUX_BACKWARD}, 0, "backward, bf16, 130 x 200 x 150"},
  };
  /* --small: the bf16 case on 2 x 2 of the tiled kernel's 32 x 32 tiles,
   * still with the direct kernel's edges in m and n and a partial k-block
   * (a simulator runs every multiply-add: 4 x 6 tiles of 150 were most of
   * the run) */
  if (small) cases[6].d.m = 66, cases[6].d.n = 72, cases[6].d.k = 54, cases[6].what = "backward, bf16, 66 x 72 x 54";
  const char *paths[] = {"tiled", "direct", "packed"};
  const size_t ncases = sizeof cases / sizeof cases[0];
  /* each case on one route in turn (kernel builds are the suite's cost),
   * the two plain ones on all three */
  for (size_t i = 0; i < ncases; ++i)
    for (int p = 0; p < 3; ++p)
      if ((i + (size_t)p) % 3 == 0 || (!small && i % 2 == 0 && i < 3)) {
        if (production(i, paths[p])) gemm_params(ctx, 1);
        run(ctx, &cases[i], paths[p]);
        if (production(i, paths[p])) gemm_params(ctx, 0);
      }
  for (int act = 1; act <= 4 && !small; ++act) layer_gradients(ctx, (clforge_activation)act); /* SiLU: 4 */
  if (small) layer_gradients(ctx, CLFORGE_ACT_RELU);
  if (!small) { /* validation mode checks aux and the bias gradient too */
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    run(ctx, &cases[0], "tiled");
    run(ctx, &cases[3], "tiled");
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  }
  clforge_context_destroy(ctx);
  return tu_summary();
}
