/* Descriptor of the direct backward-filter family
 * (cl/conv_backward_filter.cl): every shape, the N*P*Q sum split in chunks
 * and added in a fixed order. */
#include <stdio.h>

#include "conv_backward.h"
#include "families.h"

/* clang-format off */
const clforge__family clforge__family_conv_bwd_filter_direct = {
    .name = "conv_bwd_filter_direct",
    .sources = (const char *const[]){"conv_base", "conv_backward_filter", NULL},
    .kernel = "clforge_conv_bwd_filter_direct",
    .nparams = CBF_NPARAMS,
    .params = {
        [CBF_WG] = {"WG", 5, {8, 16, 32, 64, 128}},
        [CBF_TK] = {"TK", 4, {1, 2, 4, 8}},
        [CBF_CHUNK] = {"CHUNK", 5, {64, 256, 1024, 4096, 16384}},
    },
    /* CHUNK: long enough that the partial sums (splits x K x C x R x S
     * floats) stay small against dy, short enough to fill the device. */
    /* rows: WG TK CHUNK */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (64, 4, 1024), /* cpu */ (16, 8, 4096), /* nvidia */ (64, 4, 1024), /* amd */ (64, 4, 1024),
        /* intel_gpu */ (64, 4, 1024), /* mali */ (64, 2, 1024), /* adreno */ (64, 2, 1024)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
