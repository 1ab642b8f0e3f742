#include "conv_layers.h"

/* Layer counts as in torchvision's models (ResNet-50 v1.5: the stride of a
 * stage's first block on its 3x3, so conv3_x has three stride-1 3x3s at 28). */
static const clforge__conv_layer resnet50[] = {
    {CLFORGE_CONV_LAYER_R50_3X3_56, "conv2_x 3x3", 3},
    {CLFORGE_CONV_LAYER_R50_7X7S2, "stem 7x7/2", 1},
    {CLFORGE_CONV_LAYER_R50_1X1_56, "conv2_x 1x1 reduce", 2},
    {CLFORGE_CONV_LAYER_R50_3X3_28, "conv3_x 3x3", 3},
    {NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0},
};

static const clforge__conv_layer mobilenet_v2[] = {
    {CLFORGE_CONV_LAYER_MBV2_DW_112, "depthwise 3x3", 1},
    {CLFORGE_CONV_LAYER_MBV2_1X1_112, "1x1 expand", 1},
    {NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0},
};

static const clforge__conv_layer alexnet[] = {
    {CLFORGE_CONV_LAYER_ALEX_11X11S4, "conv1 11x11/4 (FFT's layer)", 1},
    {NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0},
};

const clforge__conv_network clforge__conv_networks[] = {
    {"ResNet-50", resnet50},
    {"MobileNetV2", mobilenet_v2},
    {"AlexNet", alexnet},
    {NULL, NULL},
};
