/* Descriptor of the conv_gemm_1x1 family (placeholder: the algorithm's kernels
 * are not written yet). */
#include "families.h"

/* clang-format off */
const clforge__family clforge__family_conv_gemm_1x1 = {
    .name = "conv_gemm_1x1",
    .sources = (const char *const[]){NULL},
    .kernel = "clforge_conv_gemm_1x1",
    .nparams = 1,
    .params = {{"VW", 1, {1}}},
    .defaults = {[CLFORGE_DEVICE_CLASS_GENERIC] = {1}, [CLFORGE_DEVICE_CLASS_CPU] = {1},
                 [CLFORGE_DEVICE_CLASS_NVIDIA] = {1}, [CLFORGE_DEVICE_CLASS_AMD] = {1},
                 [CLFORGE_DEVICE_CLASS_INTEL_GPU] = {1}, [CLFORGE_DEVICE_CLASS_MALI] = {1},
                 [CLFORGE_DEVICE_CLASS_ADRENO] = {1}},
};
/* clang-format on */
