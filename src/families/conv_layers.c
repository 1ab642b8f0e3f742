#include "conv_layers.h"

/* Layer names: <net>_<filter>[s<stride>]_<H>[_<C>_<K>] (depthwise: _<H>_<C>);
 * the shorter names are the tuner's classes (conv_layers.h). Columns: C, H
 * (= W), K, R (= S), stride, pad, groups. */
#define L(name, c, h, k, r, stride, pad, groups) name, c, h, k, r, stride, pad, groups

/* ResNet-50 v1.5 as torchvision builds it, 224 x 224: a 7x7/2 stem and a
 * max pool to 56, then four stages of bottlenecks (1x1 reduce, 3x3, 1x1
 * expand by 4) of 3, 4, 6 and 3 blocks at widths 64, 128, 256 and 512; a
 * stage's first block strides on its 3x3 (v1.5) and adds a 1x1 projection
 * with the same stride. 53 conv layers in all. */
static const clforge__conv_layer resnet50[] = {
    {CLFORGE_CONV_LAYER_R50_7X7S2, "stem 7x7/2", 1},
    {L("r50_1x1_56_64_64", 64, 56, 64, 1, 1, 0, 1), "conv2_1 1x1 reduce", 1},
    {CLFORGE_CONV_LAYER_R50_3X3_56, "conv2_x 3x3", 3},
    {L("r50_1x1_56_64_256", 64, 56, 256, 1, 1, 0, 1), "conv2_x 1x1 expand, conv2_1 projection", 4},
    {CLFORGE_CONV_LAYER_R50_1X1_56, "conv2_2-3 1x1 reduce", 2},
    {L("r50_1x1_56_256_128", 256, 56, 128, 1, 1, 0, 1), "conv3_1 1x1 reduce", 1},
    {L("r50_3x3s2_56_128", 128, 56, 128, 3, 2, 1, 1), "conv3_1 3x3/2", 1},
    {L("r50_1x1_28_128_512", 128, 28, 512, 1, 1, 0, 1), "conv3_x 1x1 expand", 4},
    {L("r50_1x1s2_56_256_512", 256, 56, 512, 1, 2, 0, 1), "conv3_1 projection 1x1/2", 1},
    {L("r50_1x1_28_512_128", 512, 28, 128, 1, 1, 0, 1), "conv3_2-4 1x1 reduce", 3},
    {CLFORGE_CONV_LAYER_R50_3X3_28, "conv3_2-4 3x3", 3},
    {L("r50_1x1_28_512_256", 512, 28, 256, 1, 1, 0, 1), "conv4_1 1x1 reduce", 1},
    {L("r50_3x3s2_28_256", 256, 28, 256, 3, 2, 1, 1), "conv4_1 3x3/2", 1},
    {L("r50_1x1_14_256_1024", 256, 14, 1024, 1, 1, 0, 1), "conv4_x 1x1 expand", 6},
    {L("r50_1x1s2_28_512_1024", 512, 28, 1024, 1, 2, 0, 1), "conv4_1 projection 1x1/2", 1},
    {L("r50_1x1_14_1024_256", 1024, 14, 256, 1, 1, 0, 1), "conv4_2-6 1x1 reduce", 5},
    {L("r50_3x3_14", 256, 14, 256, 3, 1, 1, 1), "conv4_2-6 3x3", 5},
    {L("r50_1x1_14_1024_512", 1024, 14, 512, 1, 1, 0, 1), "conv5_1 1x1 reduce", 1},
    {L("r50_3x3s2_14_512", 512, 14, 512, 3, 2, 1, 1), "conv5_1 3x3/2", 1},
    {L("r50_1x1_7_512_2048", 512, 7, 2048, 1, 1, 0, 1), "conv5_x 1x1 expand", 3},
    {L("r50_1x1s2_14_1024_2048", 1024, 14, 2048, 1, 2, 0, 1), "conv5_1 projection 1x1/2", 1},
    {L("r50_1x1_7_2048_512", 2048, 7, 512, 1, 1, 0, 1), "conv5_2-3 1x1 reduce", 2},
    {L("r50_3x3_7", 512, 7, 512, 3, 1, 1, 1), "conv5_2-3 3x3", 2},
    {NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0},
};

/* MobileNetV2 (width 1.0) as torchvision builds it, 224 x 224: a 3x3/2 stem
 * to 32 channels, 17 inverted residual blocks (1x1 expand by t, depthwise
 * 3x3 with the stage's stride on its first block, 1x1 project; the first
 * block, t = 1, has no expand) over the stages (t, c, n, s) = (1,16,1,1)
 * (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1), and a
 * last 1x1 to 1280. 52 conv layers in all. */
static const clforge__conv_layer mobilenet_v2[] = {
    {L("mbv2_stem_3x3s2", 3, 224, 32, 3, 2, 1, 1), "stem 3x3/2", 1},
    {CLFORGE_CONV_LAYER_MBV2_DW_112, "block 1 depthwise 3x3", 1},
    {L("mbv2_1x1_112_32_16", 32, 112, 16, 1, 1, 0, 1), "block 1 project", 1},
    {CLFORGE_CONV_LAYER_MBV2_1X1_112, "block 2 expand", 1},
    {L("mbv2_dws2_112_96", 96, 112, 96, 3, 2, 1, 96), "block 2 depthwise 3x3/2", 1},
    {L("mbv2_1x1_56_96_24", 96, 56, 24, 1, 1, 0, 1), "block 2 project", 1},
    {L("mbv2_1x1_56_24_144", 24, 56, 144, 1, 1, 0, 1), "blocks 3-4 expand", 2},
    {L("mbv2_dw_56_144", 144, 56, 144, 3, 1, 1, 144), "block 3 depthwise 3x3", 1},
    {L("mbv2_1x1_56_144_24", 144, 56, 24, 1, 1, 0, 1), "block 3 project", 1},
    {L("mbv2_dws2_56_144", 144, 56, 144, 3, 2, 1, 144), "block 4 depthwise 3x3/2", 1},
    {L("mbv2_1x1_28_144_32", 144, 28, 32, 1, 1, 0, 1), "block 4 project", 1},
    {L("mbv2_1x1_28_32_192", 32, 28, 192, 1, 1, 0, 1), "blocks 5-7 expand", 3},
    {L("mbv2_dw_28_192", 192, 28, 192, 3, 1, 1, 192), "blocks 5-6 depthwise 3x3", 2},
    {L("mbv2_1x1_28_192_32", 192, 28, 32, 1, 1, 0, 1), "blocks 5-6 project", 2},
    {L("mbv2_dws2_28_192", 192, 28, 192, 3, 2, 1, 192), "block 7 depthwise 3x3/2", 1},
    {L("mbv2_1x1_14_192_64", 192, 14, 64, 1, 1, 0, 1), "block 7 project", 1},
    {L("mbv2_1x1_14_64_384", 64, 14, 384, 1, 1, 0, 1), "blocks 8-11 expand", 4},
    {L("mbv2_dw_14_384", 384, 14, 384, 3, 1, 1, 384), "blocks 8-11 depthwise 3x3", 4},
    {L("mbv2_1x1_14_384_64", 384, 14, 64, 1, 1, 0, 1), "blocks 8-10 project", 3},
    {L("mbv2_1x1_14_384_96", 384, 14, 96, 1, 1, 0, 1), "block 11 project", 1},
    {L("mbv2_1x1_14_96_576", 96, 14, 576, 1, 1, 0, 1), "blocks 12-14 expand", 3},
    {L("mbv2_dw_14_576", 576, 14, 576, 3, 1, 1, 576), "blocks 12-13 depthwise 3x3", 2},
    {L("mbv2_1x1_14_576_96", 576, 14, 96, 1, 1, 0, 1), "blocks 12-13 project", 2},
    {L("mbv2_dws2_14_576", 576, 14, 576, 3, 2, 1, 576), "block 14 depthwise 3x3/2", 1},
    {L("mbv2_1x1_7_576_160", 576, 7, 160, 1, 1, 0, 1), "block 14 project", 1},
    {L("mbv2_1x1_7_160_960", 160, 7, 960, 1, 1, 0, 1), "blocks 15-17 expand", 3},
    {L("mbv2_dw_7_960", 960, 7, 960, 3, 1, 1, 960), "blocks 15-17 depthwise 3x3", 3},
    {L("mbv2_1x1_7_960_160", 960, 7, 160, 1, 1, 0, 1), "blocks 15-16 project", 2},
    {L("mbv2_1x1_7_960_320", 960, 7, 320, 1, 1, 0, 1), "block 17 project", 1},
    {L("mbv2_1x1_7_320_1280", 320, 7, 1280, 1, 1, 0, 1), "last 1x1", 1},
    {NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0},
};

const clforge__conv_network clforge__conv_networks[] = {
    {"ResNet-50", "resnet50", resnet50},
    {"MobileNetV2", "mobilenetv2", mobilenet_v2},
    {NULL, NULL, NULL},
};

/* bench conv's default layers: one per tuner class; AlexNet's first layer
 * (the large-filter, large-stride case FFT was made for) is here only. */
const clforge__conv_layer clforge__conv_class_layers[] = {
    {CLFORGE_CONV_LAYER_R50_3X3_56, "ResNet-50 conv2_x 3x3", 3},
    {CLFORGE_CONV_LAYER_R50_7X7S2, "ResNet-50 stem 7x7/2", 1},
    {CLFORGE_CONV_LAYER_R50_1X1_56, "ResNet-50 conv2_2-3 1x1 reduce", 2},
    {CLFORGE_CONV_LAYER_R50_3X3_28, "ResNet-50 conv3_2-4 3x3", 3},
    {CLFORGE_CONV_LAYER_MBV2_DW_112, "MobileNetV2 block 1 depthwise 3x3", 1},
    {CLFORGE_CONV_LAYER_MBV2_1X1_112, "MobileNetV2 block 2 expand", 1},
    {CLFORGE_CONV_LAYER_ALEX_11X11S4, "AlexNet conv1 11x11/4 (FFT's layer)", 1},
    {NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0},
};

const char *clforge__conv_layer_kind(const clforge__conv_layer *l) {
  if (l->c <= 4) return "stem"; /* RGB(A) or gray: the image */
  if (l->groups > 1) return l->groups == l->c && l->groups == l->k ? "depthwise" : "other";
  if (l->stride > 1) return "strided";
  if (l->r == 1) return "1x1";
  if (l->r == 3) return "3x3";
  return "other";
}
