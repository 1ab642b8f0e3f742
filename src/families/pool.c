/* Descriptor of the pooling family (cl/pool.cl): a memory-bound window
 * reduction, one output per work-item step; its defaults per device class,
 * overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_pool = {
    .name = "pool",
    .sources = (const char *const[]){"pool", NULL},
    .kernel = "clforge_pool",
    .nparams = 2,
    .params = {{"WG", 6, {16, 32, 64, 128, 256, 512}}, {"EPI", 4, {1, 2, 4, 8}}},
    /* CPUs: PoCL runs a group as one vector loop over its items; 16 items
     * of AVX-512, a few outputs each. GPUs: 256 coalesced items. */
    /* rows: WG EPI */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (256, 1), /* cpu */ (16, 4), /* nvidia */ (256, 1), /* amd */ (256, 1),
        /* intel_gpu */ (256, 1), /* mali */ (128, 1), /* adreno */ (128, 1)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
