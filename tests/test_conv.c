/* clforge_conv2d against clforge_ref_conv2d: a table of shapes (odd sizes,
 * padding, strides, dilation, groups, depthwise, 1x1, large filters), each
 * in both layouts and a mixed one, then storage types and the epilogue on a
 * few of them — every algorithm forced on every case: it computes it right
 * or refuses it with CLFORGE_UNSUPPORTED, y untouched; and the automatic
 * choice on all of them. Each algorithm must take some cases. */
#include "../src/families/conv_fft.h"
#include "../src/families/families.h"
#include "conv_cases.h"
#include "param_cover.h"

typedef struct {
  clforge_conv2d_desc d;
  int bias;
} tcase;

static tcase cases[512];
static int ncases;

static void add(clforge_conv2d_desc d, int bias) {
  if (ncases < (int)(sizeof cases / sizeof cases[0])) cases[ncases++] = (tcase){d, bias};
}

/* One geometry in NCHW/KCRS, NHWC/KRSC and x NCHW -> y NHWC with KRSC. */
static void add_layouts(clforge_conv2d_desc d) {
  add(d, 0);
  d.x_layout = d.y_layout = CLFORGE_NHWC, d.w_layout = CLFORGE_KRSC;
  add(d, 0);
  d.x_layout = CLFORGE_NCHW;
  add(d, 0);
}

static void geometry(int small) {
  clforge_conv2d_desc d;
  add_layouts(conv_desc(1, 3, 5, 7, 4, 3, 1, 1));
  add_layouts(conv_desc(2, 5, 1, 1, 3, 1, 1, 0));   /* H = W = 1, 1x1 */
  add_layouts(conv_desc(1, 1, 1, 1, 1, 1, 1, 0));   /* the smallest */
  add_layouts(conv_desc(2, 13, 7, 9, 11, 1, 1, 0)); /* 1x1, C and K odd */
  add_layouts(conv_desc(1, 17, 10, 9, 19, 3, 1, 1)); /* 3x3 stride 1: Winograd's */
  add_layouts(conv_desc(3, 5, 9, 11, 7, 3, 2, 1));   /* N = 3, stride 2 */
  d = conv_desc(1, 4, 8, 6, 5, 3, 1, 0);             /* asymmetric padding */
  d.pad_top = 0, d.pad_bottom = 2, d.pad_left = 1, d.pad_right = 3;
  add_layouts(d);
  add_layouts(conv_desc(1, 2, 4, 5, 3, 3, 1, 3));    /* pad = R > R/2 */
  add_layouts(conv_desc(1, 3, 11, 10, 2, 2, 3, 0));  /* stride > R */
  add_layouts(conv_desc(2, 3, 9, 9, 4, 1, 4, 0));    /* 1x1 stride 4 */
  d = conv_desc(1, 3, 13, 12, 4, 3, 1, 2);
  d.dilation_h = d.dilation_w = 2;
  add_layouts(d);
  d = conv_desc(1, 2, 15, 16, 3, 3, 2, 1);
  d.dilation_h = 3, d.dilation_w = 1; /* dilation per axis */
  add_layouts(d);
  d = conv_desc(2, 8, 6, 7, 12, 3, 1, 1);
  d.groups = 2;
  add_layouts(d);
  d = conv_desc(1, 8, 5, 5, 8, 1, 1, 0);
  d.groups = 4; /* grouped 1x1 */
  add_layouts(d);
  d = conv_desc(2, 6, 9, 8, 6, 3, 1, 1);
  d.groups = 6; /* depthwise */
  add_layouts(d);
  d = conv_desc(1, 5, 7, 9, 10, 3, 2, 1);
  d.groups = 5; /* depthwise, multiplier 2, stride 2 */
  add_layouts(d);
  d = conv_desc(1, 3, 16, 17, 4, 5, 1, 2);
  d.r = 5, d.s = 4; /* non-square filter */
  add_layouts(d);
  add_layouts(conv_desc(1, 3, 31, 29, 5, 7, 2, 3));  /* a 7x7/2 stem */
  add_layouts(conv_desc(1, 2, 40, 37, 3, 11, 4, 2)); /* an 11x11/4 */
  add_layouts(conv_desc(1, 4, 23, 21, 3, 9, 1, 4));  /* large filter, stride 1 */
  if (!small) {
    add_layouts(conv_desc(1, 6, 60, 58, 5, 3, 1, 1)); /* ~60 */
    add_layouts(conv_desc(2, 16, 17, 15, 24, 3, 1, 1));
  }
}

/* Storage types, bias, activation, alpha/beta and offsets on two shapes.
 * Each (storage mix, bias, activation, layout) is a kernel build per
 * algorithm, several seconds each on PoCL, while alpha, beta and offsets are
 * arguments; so the twelve cases share four such keys, with each storage
 * type as x, w and y in four cases and as a bias in four (f32: two, and the
 * last case's), mixed types in every key, activations 0 and 1 in four cases
 * and 2 and 3 in two, no bias in two, each layout in six, alpha 0.5 in two
 * and beta 0.75 in four: as many as when each case had a key of its own. */
static void variants(void) {
  const clforge_dtype F32 = CLFORGE_F32, F16 = CLFORGE_F16, BF16 = CLFORGE_BF16;
  static const struct {
    clforge_dtype x, w, y, b;
    int bias, act, nhwc;
  } keys[4] = {
      {F32, F16, BF16, BF16, 1, 0, 0},
      {F16, F32, F32, F16, 1, 1, 1},
      {BF16, BF16, F16, F32, 0, 2, 0},
      {BF16, BF16, F16, F32, 1, 3, 1},
  };
  static const int key_of[6] = {0, 1, 2, 3, 0, 1}; /* case i's key: activation i % 4, layout i % 2 */
  const clforge_conv2d_desc shapes[2] = {conv_desc(2, 17, 9, 8, 18, 3, 1, 1), conv_desc(1, 9, 6, 7, 10, 1, 1, 0)};
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 6; ++i) {
      clforge_conv2d_desc d = shapes[s];
      const int k = key_of[i];
      d.x_type = keys[k].x, d.w_type = keys[k].w, d.y_type = keys[k].y, d.bias_type = keys[k].b;
      if (keys[k].nhwc) d.x_layout = d.y_layout = CLFORGE_NHWC, d.w_layout = CLFORGE_KRSC;
      d.activation = (clforge_activation)keys[k].act;
      d.alpha = i == 3 ? 0.5f : 0.0f; /* 0: left out, i.e. 1 */
      d.beta = i >= 4 ? 0.75f : 0.0f;
      d.x_offset = (size_t)i * 3, d.w_offset = (size_t)i, d.bias_offset = 2;
      add(d, keys[k].bias);
    }
  /* alpha = 0 as given: y = beta*y + bias only (x and w do not count); f32 */
  clforge_conv2d_desc d = shapes[0];
  d.alpha_mode = CLFORGE_ALPHA_AS_GIVEN, d.alpha = 0.0f, d.beta = 1.0f;
  add(d, 1);
}

/* The register-blocked kernels (implicit GEMM's, the packed GEMM behind 1x1
 * and im2col, direct and depthwise convolution's) run this table with the
 * GPU classes' defaults: their CPU defaults (wide vectors, many
 * accumulators) cost PoCL seconds to compile per storage/epilogue key, the
 * GPU ones a fraction; the CPU defaults, with every storage type and
 * epilogue, run in test_conv_implicit_gemm, test_gemm_packed and
 * test_conv_direct. Shapes, layouts and the epilogue are the same code
 * under either. */
static void gpu_defaults(clforge_context ctx) {
  const clforge__family *fs[] = {&clforge__family_conv_implicit_gemm, &clforge__family_gemm_packed,
                                 &clforge__family_conv_direct, &clforge__family_conv_depthwise};
  char spec[1024] = "";
  for (size_t i = 0; i < sizeof fs / sizeof fs[0]; ++i) {
    param_set v;
    clforge__family_default(fs[i], CLFORGE_DEVICE_CLASS_GENERIC, 0, v.v);
    cover_spec(fs[i], &v, spec, sizeof spec);
  }
  CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  gpu_defaults(ctx);
  /* FFT's tiles cover the image, so each shape here is a new transform
   * length and clFFT compiles a dozen programs for it (80 s of this test):
   * our plain DFT kernels stand in, the FFT path's own kernels, plans,
   * slicing and checks run as they do with clFFT, and clFFT itself runs in
   * test_conv_fft (plans for both of its tile sizes, batches and slices). */
  clforge__conv_fft_test_dft(1);
  geometry(small);
  if (!small) variants();
  int ran[CLFORGE_CONV_ALGO_COUNT] = {0}, refused[CLFORGE_CONV_ALGO_COUNT] = {0};
  for (int i = 0; i < ncases; ++i)
    for (int a = 0; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
      clforge_conv2d_desc d = cases[i].d;
      d.algo = (clforge_conv_algo)a;
      conv_outcome o = conv_run_case(ctx, &d, cases[i].bias);
      ran[a] += o == CONV_RAN;
      refused[a] += o == CONV_REFUSED;
    }
  for (int a = 0; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
    printf("%-14s ran %3d, refused %3d of %d cases\n", clforge_conv_algo_name((clforge_conv_algo)a), ran[a], refused[a],
           ncases);
    CHECK(ran[a] > 0, "%s ran no case", clforge_conv_algo_name((clforge_conv_algo)a));
  }
  CHECK(ran[CLFORGE_CONV_ALGO_DIRECT] == ncases, "direct is the universal fallback: it ran %d of %d",
        ran[CLFORGE_CONV_ALGO_DIRECT], ncases);
  CHECK(ran[CLFORGE_CONV_ALGO_AUTO] == ncases, "the automatic choice ran %d of %d", ran[CLFORGE_CONV_ALGO_AUTO], ncases);
  clforge_context_destroy(ctx);
  return tu_summary();
}
