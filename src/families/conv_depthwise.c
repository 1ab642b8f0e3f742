/* Descriptor of the depthwise convolution family (cl/conv_depthwise.cl). */
#include <stdio.h>

#include "conv_classes.h"
#include "conv_depthwise.h"
#include "families.h"

static int depthwise_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if (v[CONVDW_VW] * v[CONVDW_TP] > 128) {
    CLFORGE__WHY(why, why_cap, "VW*TP = %d accumulators exceed 128", v[CONVDW_VW] * v[CONVDW_TP]);
    return 0;
  }
  size_t wgs = (size_t)v[CONVDW_WG0] * (size_t)v[CONVDW_WG1];
  return clforge__family_wg_fits(wgs, dev, why, why_cap);
}

/* clang-format off */
const clforge__family clforge__family_conv_depthwise = {
    .name = "conv_depthwise",
    .sources = (const char *const[]){"conv_base", "conv_depthwise", NULL},
    .kernel = "clforge_conv_depthwise",
    .nparams = CONVDW_NPARAMS,
    .params = {
        [CONVDW_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [CONVDW_TP] = {"TP", 4, {1, 2, 4, 8}},
        [CONVDW_NV] = {"NV", 6, {1, 2, 4, 8, 16, 32}},
        [CONVDW_WG0] = {"WG0", 7, {1, 2, 4, 8, 16, 32, 64}},
        [CONVDW_WG1] = {"WG1", 4, {1, 2, 4, 8}},
    },
    /* rows: VW TP NV WG0 WG1 */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (4, 1, 1, 16, 4), /* cpu */ (16, 8, 1, 1, 1), /* nvidia */ (1, 2, 1, 32, 4),
        /* amd */ (1, 2, 1, 64, 2), /* intel_gpu */ (4, 1, 1, 16, 4), /* mali */ (4, 1, 1, 16, 4),
        /* adreno */ (4, 1, 1, 16, 4)),
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = depthwise_allowed,
    .classes = (const clforge__shape_class[]){CLFORGE_CONV_CLASS_MBV2_DW_112, CLFORGE_CONV_CLASS_MBV2_DW_112_N1,
    CLFORGE_CONV_CLASS_END},
};
/* clang-format on */
