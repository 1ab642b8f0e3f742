/* Descriptor of the normalization family (cl/norm.cl): the work-group of a
 * row's forward and backward. Memory-bound; not tuned yet (its defaults per
 * device class), overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_norm = {
    .name = "norm",
    .sources = (const char *const[]){"norm", NULL},
    .kernel = "clforge_norm_fwd",
    .nparams = 1,
    .params = {{"WG", 5, {16, 32, 64, 128, 256}}},
    /* CPUs: a row's group is one 16-wide vector loop under PoCL; GPUs: 256
     * items stride a row, coalesced. */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (256), /* cpu */ (16), /* nvidia */ (256), /* amd */ (256), /* intel_gpu */ (256),
        /* mali */ (128), /* adreno */ (128)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
