/* Convolution shape classes: layers of real networks (conv_layers.h, the
 * table the benchmark reads too) at the batch sizes the tuner measures each
 * algorithm on. A shape is 8 dims:
 * N, C, H (= W), K, R (= S), stride, pad (all four sides), groups. Each
 * family lists the classes it can run (its .classes); a call belongs to
 * the class of its category (filter size, stride, 1x1, depthwise) whose
 * shape is nearest (clforge__conv_shape_class). */
#ifndef CLFORGE_SRC_KERNELS_CONV_CLASSES_H
#define CLFORGE_SRC_KERNELS_CONV_CLASSES_H

#include "conv_layers.h"
#include "family.h"

enum { CLFORGE_CONV_NDIMS = 8 };

/* The variant bits conv families' defaults may depend on (a call's:
 * clforge__conv_variant, src/ops/conv_algo.h). */
enum {
  CLFORGE__CONV_VARIANT_NHWC = 1,    /* x in NHWC */
  CLFORGE__CONV_VARIANT_HALF = 2,    /* x or w in f16/bf16 storage */
  CLFORGE__CONV_VARIANT_1X1 = 4      /* R = S = 1 */
};
enum { CONV_DIM_N, CONV_DIM_C, CONV_DIM_H, CONV_DIM_K, CONV_DIM_R, CONV_DIM_STRIDE, CONV_DIM_PAD, CONV_DIM_GROUPS };

/* A class is a layer of conv_layers.h at a batch size: the name (with a
 * suffix), N, the layer's shape, and its share of the tuning budget. */
#define CLFORGE__CONV_CLASS(name, c, h, k, r, stride, pad, groups, n, suffix, weight) \
  {name suffix, {n, c, h, k, r, stride, pad, groups}, weight}
#define CLFORGE__CONV_APPLY(macro, args) macro args /* args: one layer macro, expanded, and more */
#define CLFORGE__CONV_CLASS_OF(layer, n, suffix, weight) \
  CLFORGE__CONV_APPLY(CLFORGE__CONV_CLASS, (layer, n, suffix, weight))

/* clang-format off */
#define CLFORGE_CONV_CLASS_R50_3X3_56   CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_3X3_56,   8, "", 1.0)
#define CLFORGE_CONV_CLASS_R50_3X3_28   CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_3X3_28,   8, "", 1.0)
#define CLFORGE_CONV_CLASS_R50_1X1_56   CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_1X1_56,   8, "", 1.0)
#define CLFORGE_CONV_CLASS_R50_7X7S2    CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_7X7S2,    8, "", 1.0)
#define CLFORGE_CONV_CLASS_MBV2_DW_112  CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_MBV2_DW_112,  8, "", 1.0)
#define CLFORGE_CONV_CLASS_MBV2_1X1_112 CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_MBV2_1X1_112, 8, "", 1.0)
#define CLFORGE_CONV_CLASS_ALEX_11X11S4 CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_ALEX_11X11S4, 8, "", 1.0)
/* The same layers at N = 1 (inference of one image: fewer tiles and pixels
 * change the winner, e.g. Winograd F(2x2) over F(4x4)); half the budget share. */
#define CLFORGE_CONV_CLASS_R50_3X3_56_N1   CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_3X3_56,   1, "_n1", 0.5)
#define CLFORGE_CONV_CLASS_R50_3X3_28_N1   CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_3X3_28,   1, "_n1", 0.5)
#define CLFORGE_CONV_CLASS_R50_1X1_56_N1   CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_1X1_56,   1, "_n1", 0.5)
#define CLFORGE_CONV_CLASS_R50_7X7S2_N1    CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_R50_7X7S2,    1, "_n1", 0.5)
#define CLFORGE_CONV_CLASS_MBV2_DW_112_N1  CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_MBV2_DW_112,  1, "_n1", 0.5)
#define CLFORGE_CONV_CLASS_MBV2_1X1_112_N1 CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_MBV2_1X1_112, 1, "_n1", 0.5)
#define CLFORGE_CONV_CLASS_ALEX_11X11S4_N1 CLFORGE__CONV_CLASS_OF(CLFORGE_CONV_LAYER_ALEX_11X11S4, 1, "_n1", 0.5)
#define CLFORGE_CONV_CLASS_END          {NULL, {0}, 0}
/* clang-format on */

/* Every class, in the order above (the classifier's and the bench's table). */
extern const clforge__shape_class clforge__conv_all_classes[];

#endif
