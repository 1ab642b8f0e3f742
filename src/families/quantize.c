/* Descriptor of the quantize family (cl/quantize.cl): quantize,
 * dequantize, the scales' reductions and q8_0. Memory-bound: not tuned
 * (its defaults per device class), its work-group size overridable like
 * every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_quantize = {
    .name = "quantize",
    .sources = (const char *const[]){"quantize", NULL},
    .kernel = "clforge_quantize",
    .nparams = 1,
    .params = {{"WG", 5, {16, 32, 64, 128, 256}}},
    /* CPUs: PoCL runs a group as one vector loop over its items; GPUs:
     * 256 coalesced items. */
    /* rows: WG */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (64), /* cpu */ (64), /* nvidia */ (256), /* amd */ (256), /* intel_gpu */ (256),
        /* mali */ (128), /* adreno */ (128)),
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
