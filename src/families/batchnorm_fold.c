/* Descriptor of the batch-norm folding family (cl/batchnorm_fold.cl): run
 * once per model load, memory-bound; its defaults per device class,
 * overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_batchnorm_fold = {
    .name = "batchnorm_fold",
    .sources = (const char *const[]){"batchnorm_fold", NULL},
    .kernel = "clforge_batchnorm_fold",
    .nparams = 1,
    .params = {{"WG", 5, {16, 32, 64, 128, 256}}},
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (128), /* cpu */ (16), /* nvidia */ (128), /* amd */ (128), /* intel_gpu */ (128),
        /* mali */ (64), /* adreno */ (64)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
