/* Descriptor of the softmax_backward family (cl/softmax_backward.cl):
 * work-items per row, rows per work-group and per item, vector width, and
 * which exp log-softmax's gradient uses. Tuned on the forward's shape
 * classes (the row length decides how a row is best split in both). */
#include <stdio.h>

#include "families.h"
#include "softmax.h"
#include "softmax_backward.h"
#include "softmax_classes.h"

int clforge__row_allowed(const int *v, const clforge_device_info *dev, size_t floats, char *why, size_t why_cap) {
  const size_t wgs = (size_t)v[SMB_WG] * (size_t)v[SMB_RPW];
  if (wgs > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of WG*RPW = %zu exceeds the device's %zu", wgs, dev->max_work_group_size);
    return 0;
  }
  const size_t local = v[SMB_WG] > 1 ? wgs * floats * sizeof(float) : 0;
  if (local > dev->local_mem_bytes) {
    CLFORGE__WHY(why, why_cap, "%zu bytes of local memory exceed the device's %llu", local,
                 (unsigned long long)dev->local_mem_bytes);
    return 0;
  }
  return 1;
}

/* one float per work-item for the reduction across a row's items */
static int softmax_backward_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  return clforge__row_allowed(v, dev, 1, why, why_cap);
}

/* Short rows on GPUs: a warp-sized team per row, several rows per group. */
const clforge__default_override clforge__row_short_overrides[] = {
    {CLFORGE_DEVICE_CLASS_NVIDIA, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_WG, 32},
    {CLFORGE_DEVICE_CLASS_NVIDIA, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_RPW, 4},
    {CLFORGE_DEVICE_CLASS_AMD, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_WG, 64},
    {CLFORGE_DEVICE_CLASS_AMD, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_RPW, 4},
    {CLFORGE_DEVICE_CLASS_INTEL_GPU, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_WG, 16},
    {CLFORGE_DEVICE_CLASS_INTEL_GPU, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_RPW, 8},
    {CLFORGE_DEVICE_CLASS_MALI, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_WG, 16},
    {CLFORGE_DEVICE_CLASS_MALI, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_RPW, 4},
    {CLFORGE_DEVICE_CLASS_ADRENO, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_WG, 32},
    {CLFORGE_DEVICE_CLASS_ADRENO, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SMB_RPW, 4},
    {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}};

/* clang-format off */
const clforge__family clforge__family_softmax_backward = {
    .name = "softmax_backward",
    .sources = (const char *const[]){"softmax_common", "softmax_backward", NULL},
    .kernel = "clforge_softmax_backward",
    .nparams = SMB_NPARAMS,
    .params = {CLFORGE__ROW_PARAMS(SMB)},
    .defaults = CLFORGE__ROW_DEFAULTS,
    .overrides = clforge__row_short_overrides,
    .allowed = softmax_backward_allowed,
    .classes = clforge__softmax_classes,
};
/* clang-format on */
