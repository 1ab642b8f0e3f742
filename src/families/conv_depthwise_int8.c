/* Descriptor of the int8 depthwise convolution family (cl/int8_epilogue.cl +
 * cl/conv_depthwise_int8.cl), run by clforge_conv2d_quantized for
 * depthwise layers. Not tuned yet: its defaults, or CLFORGE_PARAMS. */
#include <stdio.h>

#include "families.h"

static int dw_int8_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  return clforge__family_wg_fits((size_t)v[CDWI8_WG], dev, why, why_cap);
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
    /* rows: VW  WG */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (4, 64), /* cpu */ (16, 1), /* nvidia */ (4, 64), /* amd */ (4, 64), /* intel_gpu */ (4, 32),
        /* mali */ (4, 32), /* adreno */ (4, 32)),
    .allowed = dw_int8_allowed,
};
/* clang-format on */
