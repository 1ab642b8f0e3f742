/* Descriptor of the attention backward family (cl/attention_backward.cl):
 * the rows per work-group of its three kernels. Not tuned yet (its
 * defaults per device class), overridable like every family's. */
#include <stdio.h>

#include "families.h"

/* clang-format off */
const clforge__family clforge__family_attention_backward = {
    .name = "attention_backward",
    .sources = (const char *const[]){"attention_common", "attention_backward", NULL},
    .kernel = "clforge_attn_bwd_dq",
    .nparams = 1,
    .params = {{"WG", 5, {8, 16, 32, 64, 128}}},
    /* CPUs: 16 rows = one AVX-512 vector loop under PoCL; GPUs: 64. */
    .defaults = {
        [CLFORGE_DEVICE_CLASS_GENERIC]   = {64},
        [CLFORGE_DEVICE_CLASS_CPU]       = {16},
        [CLFORGE_DEVICE_CLASS_NVIDIA]    = {64},
        [CLFORGE_DEVICE_CLASS_AMD]       = {64},
        [CLFORGE_DEVICE_CLASS_INTEL_GPU] = {64},
        [CLFORGE_DEVICE_CLASS_MALI]      = {64},
        [CLFORGE_DEVICE_CLASS_ADRENO]    = {64},
    },
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = clforge__family_wg_allowed,
};
/* clang-format on */
