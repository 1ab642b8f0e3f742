/* Descriptor of the conv_gemm_1x1 family: a 1x1 convolution is one clforge
 * GEMM on x itself (src/ops/conv_gemm_1x1.c), so the family builds nothing;
 * the tuner searches the GEMM's route (the GEMM's own parameters come from
 * its families' entries, keyed by the GEMM's shape). */
#include "conv_classes.h"
#include "conv_gemm_1x1.h"
#include "families.h"

/* clang-format off */
const clforge__family clforge__family_conv_gemm_1x1 = {
    .name = "conv_gemm_1x1",
    .sources = (const char *const[]){NULL}, /* nothing to build */
    .kernel = "clforge_conv_gemm_1x1",
    .nparams = CG1_NPARAMS,
    .params = {[CG1_PATH] = {"PATH", 4, {0, 1, 2, 3}}},
    /* CPU, NCHW: packed; NHWC: the usual route, packing A costs more than it
     * gains on most layers (the tuner finds the exceptions; docs/performance.md,
     * "Defaults the convolution families measured"). */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (0), /* cpu */ (3), /* nvidia */ (0), /* amd */ (0), /* intel_gpu */ (0), /* mali */ (0),
        /* adreno */ (0)),
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_CPU, CLFORGE__CONV_VARIANT_NHWC, CLFORGE__CONV_VARIANT_NHWC, CG1_PATH, 0},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .classes = (const clforge__shape_class[]){CLFORGE_CONV_CLASS_R50_1X1_56, CLFORGE_CONV_CLASS_R50_1X1_56_N1,
    CLFORGE_CONV_CLASS_MBV2_1X1_112, CLFORGE_CONV_CLASS_MBV2_1X1_112_N1,
                                              CLFORGE_CONV_CLASS_END},
};
/* clang-format on */
