/* Convolution layers of real networks: the one table that the tuner's shape
 * classes (conv_classes.h) and `clforge bench conv` both read. A network is
 * the list of its distinct convolution layers, each with the number of
 * times the network has it (what a whole-network figure weighs it by).
 * Square inputs and filters, the same padding on all four sides, and no N:
 * the batch is the reader's (the tuner's classes take N = 8 and N = 1, the
 * bench its --batch).
 *
 * conv_layers.c is compiled into the library and into the benchmarks: the
 * benchmarks link the shared library, whose internal symbols are hidden,
 * and the table is constant data without state (and one pure function), so
 * two copies are the same table. This header therefore needs nothing but
 * <stddef.h>. tests/test_conv_layers.c checks the networks against their
 * architectures, built block by block. */
#ifndef CLFORGE_SRC_KERNELS_CONV_LAYERS_H
#define CLFORGE_SRC_KERNELS_CONV_LAYERS_H

#include <stddef.h>

/* The layers that shape classes are made of, one macro each: the name, then
 * C, H (= W), K, R (= S), stride, pad, groups, the order of a class's shape
 * after N. A layer no class uses can be written straight into its network's
 * list (conv_layers.c). */
/* clang-format off */
#define CLFORGE_CONV_LAYER_R50_3X3_56    "r50_3x3_56",    64,  56,  64,  3, 1, 1,  1
#define CLFORGE_CONV_LAYER_R50_3X3_28    "r50_3x3_28",   128,  28, 128,  3, 1, 1,  1
#define CLFORGE_CONV_LAYER_R50_1X1_56    "r50_1x1_56",   256,  56,  64,  1, 1, 0,  1
#define CLFORGE_CONV_LAYER_R50_7X7S2     "r50_7x7s2",      3, 224,  64,  7, 2, 3,  1
#define CLFORGE_CONV_LAYER_MBV2_DW_112   "mbv2_dw_112",   32, 112,  32,  3, 1, 1, 32
#define CLFORGE_CONV_LAYER_MBV2_1X1_112  "mbv2_1x1_112",  16, 112,  96,  1, 1, 0,  1
#define CLFORGE_CONV_LAYER_ALEX_11X11S4  "alex_11x11s4",   3, 224,  64, 11, 4, 2,  1
/* clang-format on */

typedef struct clforge__conv_layer {
  const char *name; /* "r50_3x3_56": the tuner's class and bench conv's --layer */
  size_t c, h, k, r, stride, pad, groups;
  const char *what; /* what it is in its network: "conv2_x 3x3" */
  unsigned count;   /* how many times the network has it */
} clforge__conv_layer;

typedef struct clforge__conv_network {
  const char *name;                  /* "ResNet-50" */
  const char *key;                   /* "resnet50": bench conv's --network */
  const clforge__conv_layer *layers; /* every distinct conv layer, ending with a NULL name */
} clforge__conv_network;

/* The whole networks (every convolution layer at 224 x 224), ending with a
 * NULL name. */
extern const clforge__conv_network clforge__conv_networks[];

/* The layers the tuner's classes are made of (the macros above; `what`
 * names the network too), in bench conv's default order; NULL name ends. */
extern const clforge__conv_layer clforge__conv_class_layers[];

/* Which kind of layer a whole-network figure files it under: "stem" (it
 * reads the image), "depthwise" (any stride), "strided", "1x1", "3x3", or
 * "other". */
const char *clforge__conv_layer_kind(const clforge__conv_layer *l);

#endif
