/* Descriptor of the normalization family (cl/norm.cl): the work-group of a
 * row's forward and backward. Memory-bound; not tuned yet (its defaults per
 * device class), overridable like every family's. */
#include <stdio.h>

#include "families.h"

static int norm_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if ((size_t)v[0] > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of %d exceeds the device's %zu", v[0], dev->max_work_group_size);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_norm = {
    .name = "norm",
    .sources = (const char *const[]){"norm", NULL},
    .kernel = "clforge_norm_fwd",
    .nparams = 1,
    .params = {{"WG", 5, {16, 32, 64, 128, 256}}},
    /* CPUs: a row's group is one 16-wide vector loop under PoCL; GPUs: 256
     * items stride a row, coalesced. */
    .defaults = {
        [CLFORGE_DEVICE_CLASS_GENERIC]   = {256},
        [CLFORGE_DEVICE_CLASS_CPU]       = {16},
        [CLFORGE_DEVICE_CLASS_NVIDIA]    = {256},
        [CLFORGE_DEVICE_CLASS_AMD]       = {256},
        [CLFORGE_DEVICE_CLASS_INTEL_GPU] = {256},
        [CLFORGE_DEVICE_CLASS_MALI]      = {128},
        [CLFORGE_DEVICE_CLASS_ADRENO]    = {128},
    },
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = norm_allowed,
};
/* clang-format on */
