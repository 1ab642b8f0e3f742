/* Convolution shape classes, from real networks: the layers the tuner
 * measures each algorithm on and the benchmark reports. A shape is 8 dims:
 * N, C, H (= W), K, R (= S), stride, pad (all four sides), groups. Each
 * family lists the classes it can run (its .classes); a call belongs to
 * the class of its category (filter size, stride, 1x1, depthwise) whose
 * shape is nearest (clforge__conv_shape_class). */
#ifndef CLFORGE_SRC_KERNELS_CONV_CLASSES_H
#define CLFORGE_SRC_KERNELS_CONV_CLASSES_H

#include "family.h"

enum { CLFORGE_CONV_NDIMS = 8 };
enum { CONV_DIM_N, CONV_DIM_C, CONV_DIM_H, CONV_DIM_K, CONV_DIM_R, CONV_DIM_STRIDE, CONV_DIM_PAD, CONV_DIM_GROUPS };

/* clang-format off */
#define CLFORGE_CONV_CLASS_R50_3X3_56   {"r50_3x3_56",   {8,  64,  56,  64, 3, 1, 1,  1}, 1.0} /* ResNet-50 conv2_x */
#define CLFORGE_CONV_CLASS_R50_3X3_28   {"r50_3x3_28",   {8, 128,  28, 128, 3, 1, 1,  1}, 1.0} /* ResNet-50 conv3_x */
#define CLFORGE_CONV_CLASS_R50_1X1_56   {"r50_1x1_56",   {8, 256,  56,  64, 1, 1, 0,  1}, 1.0} /* ResNet-50 conv2_x reduce */
#define CLFORGE_CONV_CLASS_R50_7X7S2    {"r50_7x7s2",    {8,   3, 224,  64, 7, 2, 3,  1}, 1.0} /* ResNet-50 stem */
#define CLFORGE_CONV_CLASS_MBV2_DW_112  {"mbv2_dw_112",  {8,  32, 112,  32, 3, 1, 1, 32}, 1.0} /* MobileNetV2 block 1 depthwise */
#define CLFORGE_CONV_CLASS_MBV2_1X1_112 {"mbv2_1x1_112", {8,  16, 112,  96, 1, 1, 0,  1}, 1.0} /* MobileNetV2 block 2 expand */
#define CLFORGE_CONV_CLASS_ALEX_11X11S4 {"alex_11x11s4", {8,   3, 224,  64, 11, 4, 2, 1}, 1.0} /* AlexNet conv1: large filter */
/* The same layers at N = 1 (inference of one image: fewer tiles and pixels
 * change the winner, e.g. Winograd F(2x2) over F(4x4)); half the budget share. */
#define CLFORGE_CONV_CLASS_R50_3X3_56_N1 {"r50_3x3_56_n1", {1, 64,  56,  64, 3, 1, 1,  1}, 0.5}
#define CLFORGE_CONV_CLASS_R50_3X3_28_N1 {"r50_3x3_28_n1", {1, 128,  28, 128, 3, 1, 1,  1}, 0.5}
#define CLFORGE_CONV_CLASS_R50_1X1_56_N1 {"r50_1x1_56_n1", {1, 256,  56,  64, 1, 1, 0,  1}, 0.5}
#define CLFORGE_CONV_CLASS_R50_7X7S2_N1 {"r50_7x7s2_n1", {1, 3, 224,  64, 7, 2, 3,  1}, 0.5}
#define CLFORGE_CONV_CLASS_MBV2_DW_112_N1 {"mbv2_dw_112_n1", {1, 32, 112,  32, 3, 1, 1, 32}, 0.5}
#define CLFORGE_CONV_CLASS_MBV2_1X1_112_N1 {"mbv2_1x1_112_n1", {1, 16, 112,  96, 1, 1, 0,  1}, 0.5}
#define CLFORGE_CONV_CLASS_ALEX_11X11S4_N1 {"alex_11x11s4_n1", {1, 3, 224,  64, 11, 4, 2, 1}, 0.5}
#define CLFORGE_CONV_CLASS_END          {NULL, {0}, 0}
/* clang-format on */

/* Every class, in the order above (the classifier's and the bench's table). */
extern const clforge__shape_class clforge__conv_all_classes[];

#endif
