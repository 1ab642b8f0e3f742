/* Descriptor of the KV-append family (cl/kv_append.cl): a scatter of rows
 * into a paged cache (q8_0 blocks quantized on the way), memory-bound; its
 * defaults per device class, overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_kv_append = {
    .name = "kv_append",
    .sources = (const char *const[]){"kv_append", NULL},
    .kernel = "clforge_kv_append",
    .nparams = 1,
    .params = {{"WG", 5, {16, 32, 64, 128, 256}}},
    /* CPUs: PoCL's vector loop over 16 items; GPUs: 128 items of neighbouring units. */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (128), /* cpu */ (16), /* nvidia */ (128), /* amd */ (128), /* intel_gpu */ (128),
        /* mali */ (64), /* adreno */ (64)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
