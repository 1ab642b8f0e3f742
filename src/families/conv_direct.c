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
  return clforge__family_wg_fits(wgs, dev, why, why_cap);
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
    /* rows: TQ TK WGQ WGK VW */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (2, 4, 16, 4, 1), /* cpu */ (1, 8, 1, 1, 16), /* nvidia */ (2, 4, 32, 4, 1),
        /* amd */ (2, 4, 32, 4, 1), /* intel_gpu */ (2, 4, 16, 4, 1), /* mali */ (2, 4, 16, 4, 1),
        /* adreno */ (2, 4, 16, 4, 1)),
    /* CPUs, NHWC x: a chunk's pixels are gathered (C apart), so fewer pixels
     * and more channels per work-item (docs/performance.md, "Defaults the
     * convolution families measured"). */
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
