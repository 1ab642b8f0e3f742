/* Descriptor of the int8 depthwise convolution family (cl/int8_epilogue.cl +
 * cl/conv_depthwise_int8.cl), run by clforge_conv2d_quantized for
 * depthwise layers. Not tuned yet: its defaults, or CLFORGE_PARAMS. */
#include <stdio.h>

#include "families.h"

static int dw_int8_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if ((size_t)v[CDWI8_WG] > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of %d exceeds the device's %zu", v[CDWI8_WG], dev->max_work_group_size);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_conv_depthwise_int8 = {
    .name = "conv_depthwise_int8",
    .sources = (const char *const[]){"conv_base", "int8_epilogue", "conv_depthwise_int8", NULL},
    .kernel = "clforge_conv_depthwise_int8",
    .nparams = CDWI8_NPARAMS,
    .params = {
        [CDWI8_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [CDWI8_WG] = {"WG", 8, {1, 2, 4, 8, 16, 32, 64, 128}},
    },
    /* VW output channels a work-item (consecutive: x's and the transposed
     * filter's loads run along them), WG work-items a group along K. */
    /*                                   VW  WG */
    .defaults = {
        [CLFORGE_DEVICE_CLASS_GENERIC]   = {4, 64},
        [CLFORGE_DEVICE_CLASS_CPU]       = {16, 1},
        [CLFORGE_DEVICE_CLASS_NVIDIA]    = {4, 64},
        [CLFORGE_DEVICE_CLASS_AMD]       = {4, 64},
        [CLFORGE_DEVICE_CLASS_INTEL_GPU] = {4, 32},
        [CLFORGE_DEVICE_CLASS_MALI]      = {4, 32},
        [CLFORGE_DEVICE_CLASS_ADRENO]    = {4, 32},
    },
    .allowed = dw_int8_allowed,
};
/* clang-format on */
