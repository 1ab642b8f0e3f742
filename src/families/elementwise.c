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
    /* CPUs: PoCL runs a group as one vector loop over its items; 16 items
     * of AVX-512, several elements each. GPUs: 256 coalesced items. */
    /* rows: WG EPI */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (256, 4), /* cpu */ (16, 16), /* nvidia */ (256, 4), /* amd */ (256, 4),
        /* intel_gpu */ (256, 4), /* mali */ (128, 4), /* adreno */ (128, 4)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
