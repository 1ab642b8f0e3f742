/* Descriptor of the conv_winograd_2x2 family: F(2x2, 3x3) transforms
 * (cl/conv_winograd.cl built with -DWM=2) around a batched GEMM of 16
 * matrices; parameters in conv_winograd.h. */
#include "conv_classes.h"
#include "conv_winograd.h"
#include "families.h"

/* clang-format off */
const clforge__family clforge__family_conv_winograd_2x2 = {
    .name = "conv_winograd_2x2",
    .sources = (const char *const[]){"conv_base", "conv_winograd", NULL},
    .kernel = "clforge_conv_winograd_input",
    .nparams = WINO_NPARAMS,
    .params = CLFORGE__WINO_PARAMS,
    .defaults = CLFORGE__WINO_DEFAULTS(256),
    .classes = CLFORGE__WINO_CLASSES,
};
/* clang-format on */
