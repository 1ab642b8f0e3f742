/* Descriptor of the softmax family (cl/softmax.cl): statistics in one
 * pass or two, work-items per row, rows per work-group, vector width. */
#include <stdio.h>

#include "families.h"
#include "softmax.h"
#include "softmax_backward.h"
#include "softmax_classes.h"

static int softmax_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  const size_t wgs = (size_t)v[SOFTMAX_WG] * (size_t)v[SOFTMAX_RPW];
  if (wgs > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of WG*RPW = %zu exceeds the device's %zu", wgs, dev->max_work_group_size);
    return 0;
  }
  /* two floats per work-item for the reduction across a row's items */
  const size_t local = v[SOFTMAX_WG] > 1 ? wgs * 2 * sizeof(float) : 0;
  if (local > dev->local_mem_bytes) {
    CLFORGE__WHY(why, why_cap, "%zu bytes of local memory exceed the device's %llu", local,
             (unsigned long long)dev->local_mem_bytes);
    return 0;
  }
  return 1;
}

/* One spelling per kernel: the stash exists only in the two-pass form. */
static void softmax_canonical(int *v) {
  if (v[SOFTMAX_ONLINE]) v[SOFTMAX_STASH] = 0;
}

/* clang-format off */
const clforge__family clforge__family_softmax = {
    .name = "softmax",
    .sources = (const char *const[]){"softmax_common", "softmax", NULL},
    .kernel = "clforge_softmax",
    .nparams = SOFTMAX_NPARAMS,
    .params = {
        [SOFTMAX_ONLINE] = {"ONLINE", 2, {0, 1}},
        [SOFTMAX_STASH] = {"STASH", 2, {0, 1}},
        CLFORGE__ROW_PARAMS(SOFTMAX),
    },
    /* CPUs (measured on PoCL, AVX-512): one work-item per row with 16-wide
     * vectors, the row re-read from cache; max then sum with the exps kept
     * in y (faster than without the stash and than the one-pass form);
     * clforge's exp (faster than PoCL's); 64 rows per item, each next row's
     * max pass fused into this row's sum pass (faster than one row per
     * item). GPUs: a work-group per row (coalesced
     * 16-byte loads, a local reduction), one pass for the statistics, the
     * built-in exp. */
    /* rows: ONLINE STASH EXP WG RPW RPI VW */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (1, 0, 0, 64, 1, 1, 4), /* cpu */ (0, 1, 1, 1, 4, 64, 16),
        /* nvidia */ (1, 0, 0, 128, 1, 1, 4), /* amd */ (1, 0, 0, 256, 1, 1, 4),
        /* intel_gpu */ (1, 0, 0, 128, 1, 1, 4), /* mali */ (1, 0, 0, 64, 1, 1, 4),
        /* adreno */ (1, 0, 0, 128, 1, 1, 4)),
    /* Short rows on GPUs: a warp-sized team per row, several rows per group. */
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_NVIDIA, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_WG, 32},
        {CLFORGE_DEVICE_CLASS_NVIDIA, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_RPW, 4},
        {CLFORGE_DEVICE_CLASS_AMD, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_WG, 64},
        {CLFORGE_DEVICE_CLASS_AMD, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_RPW, 4},
        {CLFORGE_DEVICE_CLASS_INTEL_GPU, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_WG, 16},
        {CLFORGE_DEVICE_CLASS_INTEL_GPU, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_RPW, 8},
        {CLFORGE_DEVICE_CLASS_MALI, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_WG, 16},
        {CLFORGE_DEVICE_CLASS_MALI, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_RPW, 4},
        {CLFORGE_DEVICE_CLASS_ADRENO, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_WG, 32},
        {CLFORGE_DEVICE_CLASS_ADRENO, SOFTMAX_VAR_SHORT, SOFTMAX_VAR_SHORT, SOFTMAX_RPW, 4},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = softmax_allowed,
    .canonical = softmax_canonical,
    .classes = clforge__softmax_classes,
};
/* clang-format on */
