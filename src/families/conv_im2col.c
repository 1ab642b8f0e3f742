/* Descriptor of the conv_im2col family (cl/conv_im2col.cl, then clforge's
 * GEMM: src/ops/conv_im2col.c). */
#include <stdio.h>

#include "conv_classes.h"
#include "conv_im2col.h"
#include "families.h"

static int im2col_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  return clforge__family_wg_fits((size_t)v[CI2C_WG], dev, why, why_cap);
}

/* clang-format off */
const clforge__family clforge__family_conv_im2col = {
    .name = "conv_im2col",
    .sources = (const char *const[]){"conv_base", "conv_im2col", NULL},
    .kernel = "clforge_conv_im2col",
    .nparams = CI2C_NPARAMS,
    .params = {
        [CI2C_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [CI2C_WG] = {"WG", 4, {4, 16, 64, 256}},
        [CI2C_CHUNK] = {"CHUNK", 6, {1, 2, 4, 8, 16, 32}},
        [CI2C_PATH] = {"PATH", 4, {0, 1, 2, 3}},
    },
    /* CPU: one image per pass keeps its column matrix (7 MB for r50_3x3_56)
     * in the last-level cache for the GEMM; 16 lanes fill AVX-512. */
    /* rows: VW WG CHUNK PATH */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (4, 16, 8, 0), /* cpu */ (16, 16, 1, 0), /* nvidia */ (4, 64, 8, 0), /* amd */ (4, 64, 8, 0),
        /* intel_gpu */ (4, 16, 8, 0), /* mali */ (4, 16, 4, 0), /* adreno */ (4, 16, 4, 0)),
    .allowed = im2col_allowed,
    /* Every class but the depthwise one (im2col runs it, one tiny GEMM per group). */
    .classes = (const clforge__shape_class[]){
        CLFORGE_CONV_CLASS_R50_3X3_56, CLFORGE_CONV_CLASS_R50_3X3_56_N1, CLFORGE_CONV_CLASS_R50_3X3_28,
        CLFORGE_CONV_CLASS_R50_3X3_28_N1, CLFORGE_CONV_CLASS_R50_1X1_56, CLFORGE_CONV_CLASS_R50_1X1_56_N1,
        CLFORGE_CONV_CLASS_R50_7X7S2, CLFORGE_CONV_CLASS_R50_7X7S2_N1, CLFORGE_CONV_CLASS_MBV2_1X1_112,
        CLFORGE_CONV_CLASS_MBV2_1X1_112_N1, CLFORGE_CONV_CLASS_ALEX_11X11S4, CLFORGE_CONV_CLASS_ALEX_11X11S4_N1,
        CLFORGE_CONV_CLASS_END},
};
/* clang-format on */
