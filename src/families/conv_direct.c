/* Descriptor of the direct convolution family (cl/conv_direct.cl): the
 * universal fallback, every shape the descriptor allows. */
#include <stdio.h>

#include "conv_classes.h"
#include "conv_direct.h"
#include "families.h"

static int direct_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  /* Accumulators per work-item, in floats (registers; fully unrolled). */
  const int acc = v[CONVD_TQ] * v[CONVD_TK] * v[CONVD_VW];
  if (acc > 128) {
    CLFORGE__WHY(why, why_cap, "TQ*TK*VW = %d accumulators exceed 128", acc);
    return 0;
  }
  size_t wgs = (size_t)v[CONVD_WGQ] * (size_t)v[CONVD_WGK];
  if (wgs > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of %zu exceeds the device's %zu", wgs, dev->max_work_group_size);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_conv_direct = {
    .name = "conv_direct",
    .sources = (const char *const[]){"conv_base", "conv_direct", NULL},
    .kernel = "clforge_conv_direct",
    .nparams = CONVD_NPARAMS,
    .params = {
        [CONVD_TQ] = {"TQ", 4, {1, 2, 4, 8}},
        [CONVD_TK] = {"TK", 5, {1, 2, 4, 8, 16}},
        [CONVD_WGQ] = {"WGQ", 7, {1, 2, 4, 8, 16, 32, 64}},
        [CONVD_WGK] = {"WGK", 5, {1, 2, 4, 8, 16}},
        [CONVD_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
    },
    /*                                   TQ TK WGQ WGK VW */
    .defaults = {
        [CLFORGE_DEVICE_CLASS_GENERIC]   = {2, 4, 16, 4, 1},
        [CLFORGE_DEVICE_CLASS_CPU]       = {1, 8, 1, 1, 16},
        [CLFORGE_DEVICE_CLASS_NVIDIA]    = {2, 4, 32, 4, 1},
        [CLFORGE_DEVICE_CLASS_AMD]       = {2, 4, 32, 4, 1},
        [CLFORGE_DEVICE_CLASS_INTEL_GPU] = {2, 4, 16, 4, 1},
        [CLFORGE_DEVICE_CLASS_MALI]      = {2, 4, 16, 4, 1},
        [CLFORGE_DEVICE_CLASS_ADRENO]    = {2, 4, 16, 4, 1},
    },
    /* CPUs, NHWC x: a chunk's pixels are gathered (C apart), so fewer pixels
     * and more channels per work-item (measured ~1.3x). */
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_CPU, CLFORGE__CONV_VARIANT_NHWC, CLFORGE__CONV_VARIANT_NHWC, CONVD_TK, 16},
        {CLFORGE_DEVICE_CLASS_CPU, CLFORGE__CONV_VARIANT_NHWC, CLFORGE__CONV_VARIANT_NHWC, CONVD_VW, 8},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = direct_allowed,
    .classes = (const clforge__shape_class[]){
        CLFORGE_CONV_CLASS_R50_3X3_56, CLFORGE_CONV_CLASS_R50_3X3_56_N1, CLFORGE_CONV_CLASS_R50_3X3_28,
        CLFORGE_CONV_CLASS_R50_3X3_28_N1, CLFORGE_CONV_CLASS_R50_1X1_56, CLFORGE_CONV_CLASS_R50_1X1_56_N1,
        CLFORGE_CONV_CLASS_R50_7X7S2, CLFORGE_CONV_CLASS_R50_7X7S2_N1, CLFORGE_CONV_CLASS_MBV2_DW_112,
        CLFORGE_CONV_CLASS_MBV2_DW_112_N1, CLFORGE_CONV_CLASS_MBV2_1X1_112, CLFORGE_CONV_CLASS_MBV2_1X1_112_N1,
        CLFORGE_CONV_CLASS_ALEX_11X11S4, CLFORGE_CONV_CLASS_ALEX_11X11S4_N1, CLFORGE_CONV_CLASS_END},
};
/* clang-format on */
