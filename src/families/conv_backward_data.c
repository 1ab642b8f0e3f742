/* Descriptor of the direct backward-data family (cl/conv_backward_data.cl):
 * every shape; the stride-1 forward route uses the forward's families. */
#include <stdio.h>

#include "conv_backward.h"
#include "families.h"

/* clang-format off */
const clforge__family clforge__family_conv_bwd_data_direct = {
    .name = "conv_bwd_data_direct",
    .sources = (const char *const[]){"conv_base", "conv_backward_data", NULL},
    .kernel = "clforge_conv_bwd_data_direct",
    .nparams = CBD_NPARAMS,
    .params = {
        [CBD_WG] = {"WG", 5, {8, 16, 32, 64, 128}},
        [CBD_TC] = {"TC", 4, {1, 2, 4, 8}},
    },
    /* CPUs: PoCL vectorizes a group's pixels (16 floats of AVX-512), and
     * more channels per item reuse each dy load; GPUs: 64-item groups. */
    /* rows: WG TC */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (64, 2), /* cpu */ (16, 8), /* nvidia */ (64, 4), /* amd */ (64, 4), /* intel_gpu */ (64, 2),
        /* mali */ (64, 2), /* adreno */ (64, 2)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
