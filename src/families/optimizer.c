/* Descriptor of the optimizer family (cl/optimizer.cl): work-group size
 * and elements per work-item, and its shape classes. */
#include "optimizer.h"

#include <stdio.h>

#include "families.h"
#include "softmax_classes.h"

/* clang-format off */
const clforge__shape_class clforge__opt_classes[] = {
    {"tensor_4m", {4u << 20}, 1.0},   /* a 2048 x 2048 weight matrix */
    {"tensor_64k", {64u << 10}, 0.5}, /* a small layer's weights */
    {NULL, {0}, 0}};
/* clang-format on */

const char *clforge__opt_shape_class(size_t count) { return clforge__nearest_class(clforge__opt_classes, 0, count); }

/* clang-format off */
const clforge__family clforge__family_optimizer = {
    .name = "optimizer",
    .sources = (const char *const[]){"optimizer", NULL},
    .kernel = "clforge_opt_update",
    .nparams = OPT_NPARAMS,
    .params = {
        [OPT_WG] = {"WG", 8, {1, 4, 8, 16, 32, 64, 128, 256}},
        [OPT_EPI] = {"EPI", 6, {1, 2, 4, 8, 16, 32}},
    },
    /* CPUs: work-groups of 16 items that PoCL runs as one vector loop, a
     * few elements each; GPUs: 256-item groups, coalesced, 4 each. */
    /* rows: WG EPI */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (256, 4), /* cpu */ (16, 16), /* nvidia */ (256, 4), /* amd */ (256, 4),
        /* intel_gpu */ (256, 4), /* mali */ (128, 4), /* adreno */ (128, 4)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
    .classes = clforge__opt_classes,
};
/* clang-format on */
