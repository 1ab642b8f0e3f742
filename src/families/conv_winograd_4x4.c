/* Descriptor of the conv_winograd_4x4 family: F(4x4, 3x3) transforms
 * (cl/conv_winograd.cl built with -DWM=4) around a batched GEMM of 36
 * matrices; parameters in conv_winograd.h. */
#include "conv_classes.h"
#include "conv_winograd.h"
#include "families.h"

/* clang-format off */
const clforge__family clforge__family_conv_winograd_4x4 = {
    .name = "conv_winograd_4x4",
    .sources = (const char *const[]){"conv_winograd", NULL},
    .kernel = "clforge_conv_winograd_input",
    .nparams = WINO_NPARAMS,
    .params = {
        [WINO_PATH] = {"PATH", 4, {0, 1, 2, 3}},
        [WINO_VW] = {"VW", 3, {4, 8, 16}},
        [WINO_WG] = {"WG", 6, {1, 4, 8, 16, 32, 64}},
        [WINO_PASS] = {"PASS", 7, {0, 64, 128, 256, 512, 1024, 2048}},
    },
    /* rows: PATH VW WG PASS */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (0, 4, 16, 0), /* cpu */ (1, 16, 8, 128), /* nvidia */ (0, 4, 16, 0), /* amd */ (0, 4, 16, 0),
        /* intel_gpu */ (0, 4, 16, 0), /* mali */ (0, 4, 16, 0), /* adreno */ (0, 4, 16, 0)),
    .classes = (const clforge__shape_class[]){
        CLFORGE_CONV_CLASS_R50_3X3_56, CLFORGE_CONV_CLASS_R50_3X3_56_N1,
        CLFORGE_CONV_CLASS_R50_3X3_28, CLFORGE_CONV_CLASS_R50_3X3_28_N1,
        CLFORGE_CONV_CLASS_END},
};
/* clang-format on */
