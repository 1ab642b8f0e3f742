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
    /* CPUs: one output per item in groups of 256, measured (ResNet-50's
     * stem max pooling at N = 8, NHWC, AMD EPYC Zen 4): PoCL 14.8 ms against
     * 16.4 for 16 items of 4, Intel's CPU runtime 10.2 against 11.0. GPUs:
     * 256 coalesced items. */
    /* rows: WG EPI */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (256, 1), /* cpu */ (256, 1), /* nvidia */ (256, 1), /* amd */ (256, 1),
        /* intel_gpu */ (256, 1), /* mali */ (128, 1), /* adreno */ (128, 1)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
