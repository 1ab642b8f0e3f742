/* Descriptor of the elementwise family (cl/elementwise.cl): binary ops
 * with broadcasting and the standalone activations, memory-bound; its
 * defaults per device class, overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_elementwise = {
    .name = "elementwise",
    .sources = (const char *const[]){"elementwise", NULL},
    .kernel = "clforge_elementwise",
    .nparams = 2,
    .params = {{"WG", 6, {16, 32, 64, 128, 256, 512}}, {"EPI", 5, {1, 2, 4, 8, 16}}},
    /* CPUs: one element per item in groups of 256, measured (a residual
     * add + ReLU of 6.4 M f32, AMD EPYC Zen 4): PoCL 1.7-1.8 ms against 3.4-3.5
     * ms for 16 items of 16 elements (more elements per item: slower still),
     * Intel's CPU runtime 5.0-5.6 ms either way. GPUs: 256 coalesced items. */
    /* rows: WG EPI */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (256, 4), /* cpu */ (256, 1), /* nvidia */ (256, 4), /* amd */ (256, 4),
        /* intel_gpu */ (256, 4), /* mali */ (128, 4), /* adreno */ (128, 4)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
