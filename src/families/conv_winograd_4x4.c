/* Descriptor of the conv_winograd_4x4 family: F(4x4, 3x3) transforms
 * (cl/conv_winograd.cl built with -DWM=4) around a batched GEMM of 36
 * matrices; parameters in conv_winograd.h. */
#include "conv_classes.h"
#include "conv_winograd.h"
#include "families.h"

/* clang-format off */
const clforge__family clforge__family_conv_winograd_4x4 = {
    .name = "conv_winograd_4x4",
    .sources = (const char *const[]){"conv_base", "conv_winograd", NULL},
    .kernel = "clforge_conv_winograd_input",
    .nparams = WINO_NPARAMS,
    .params = CLFORGE__WINO_PARAMS,
    .defaults = CLFORGE__WINO_DEFAULTS(128),
    .classes = CLFORGE__WINO_CLASSES,
};
/* clang-format on */
