/* Descriptor of the embedding family (cl/embedding.cl): a row gather, one
 * work-item per element, memory-bound; its defaults per device class,
 * overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_embedding = {
    .name = "embedding",
    .sources = (const char *const[]){"embedding", NULL},
    .kernel = "clforge_embedding",
    .nparams = 1,
    .params = {{"WG", 5, {16, 32, 64, 128, 256}}},
    /* CPUs: PoCL's vector loop over 16 items of AVX-512; GPUs: 256 coalesced items. */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (256), /* cpu */ (16), /* nvidia */ (256), /* amd */ (256), /* intel_gpu */ (256),
        /* mali */ (128), /* adreno */ (128)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
