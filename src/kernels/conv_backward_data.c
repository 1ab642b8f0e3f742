/* Descriptor of the direct backward-data family (cl/conv_backward_data.cl):
 * every shape; the stride-1 forward route uses the forward's families. */
#include <stdio.h>

#include "conv_backward.h"
#include "families.h"

static int cbd_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if ((size_t)v[CBD_WG] > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of %d exceeds the device's %zu", v[CBD_WG], dev->max_work_group_size);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_conv_bwd_data_direct = {
    .name = "conv_bwd_data_direct",
    .sources = (const char *const[]){"conv_backward_data", NULL},
    .kernel = "clforge_conv_bwd_data_direct",
    .nparams = CBD_NPARAMS,
    .params = {
        [CBD_WG] = {"WG", 5, {8, 16, 32, 64, 128}},
        [CBD_TC] = {"TC", 4, {1, 2, 4, 8}},
    },
    /* CPUs: PoCL vectorizes a group's pixels (16 floats of AVX-512), and
     * more channels per item reuse each dy load; GPUs: 64-item groups. */
    /*                                   WG TC */
    .defaults = {
        [CLFORGE_DEVICE_CLASS_GENERIC]   = {64, 2},
        [CLFORGE_DEVICE_CLASS_CPU]       = {16, 8},
        [CLFORGE_DEVICE_CLASS_NVIDIA]    = {64, 4},
        [CLFORGE_DEVICE_CLASS_AMD]       = {64, 4},
        [CLFORGE_DEVICE_CLASS_INTEL_GPU] = {64, 2},
        [CLFORGE_DEVICE_CLASS_MALI]      = {64, 2},
        [CLFORGE_DEVICE_CLASS_ADRENO]    = {64, 2},
    },
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = cbd_allowed,
};
/* clang-format on */
