/* Descriptor of the rotary-embedding family (cl/rope.cl): one work-item
 * per (token, pair), memory-bound; its defaults per device class,
 * overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_rope = {
    .name = "rope",
    .sources = (const char *const[]){"rope", NULL},
    .kernel = "clforge_rope",
    .nparams = 1,
    .params = {{"WG", 5, {16, 32, 64, 128, 256}}},
    /* CPUs: PoCL's vector loop over 16 items of AVX-512; GPUs: 128 items of
     * neighbouring pairs. */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (128), /* cpu */ (16), /* nvidia */ (128), /* amd */ (128), /* intel_gpu */ (128),
        /* mali */ (64), /* adreno */ (64)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
