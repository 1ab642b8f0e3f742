/* Descriptor of the cross_entropy family (cl/cross_entropy.cl): work-items
 * per row, rows per work-group, vector width, which exp; and its shape
 * classes. */
#include "cross_entropy.h"

#include <stdio.h>

#include "families.h"
#include "softmax_classes.h"

/* clang-format off */
const clforge__shape_class clforge__ce_classes[] = {
    {"vocab_32000", {64, 32000}, 1.0},  /* LLaMA's vocabulary, 64 tokens */
    {"classes_1000", {256, 1000}, 1.0}, /* an ImageNet classifier, batch 256 */
    {"classes_10", {4096, 10}, 0.5},    /* few classes, many rows */
    {NULL, {0}, 0}};
/* clang-format on */

const char *clforge__ce_shape_class(size_t rows, size_t n) {
  (void)rows;
  return clforge__row_class(clforge__ce_classes, n);
}

static int ce_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  const size_t wgs = (size_t)v[CE_WG] * (size_t)v[CE_RPW];
  if (wgs > dev->max_work_group_size || CLFORGE_CE_RWG > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of WG*RPW = %zu (or the reduction's %d) exceeds the device's %zu", wgs,
                 CLFORGE_CE_RWG, dev->max_work_group_size);
    return 0;
  }
  const size_t local = v[CE_WG] > 1 ? wgs * 2 * sizeof(float) : 0;
  if (local > dev->local_mem_bytes) {
    CLFORGE__WHY(why, why_cap, "%zu bytes of local memory exceed the device's %llu", local,
                 (unsigned long long)dev->local_mem_bytes);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_cross_entropy = {
    .name = "cross_entropy",
    .sources = (const char *const[]){"softmax_common", "cross_entropy", NULL},
    .kernel = "clforge_cross_entropy",
    .nparams = CE_NPARAMS,
    .params = {
        [CE_EXP] = {"EXP", 2, {0, 1}},
        [CE_WG] = {"WG", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}},
        [CE_RPW] = {"RPW", 6, {1, 2, 4, 8, 16, 32}},
        [CE_RPI] = {"RPI", 7, {1, 2, 4, 8, 16, 32, 64}},
        [CE_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
    },
    /* softmax's layout of work (src/kernels/softmax.c): on CPUs a work-item
     * per row, 16-wide, clforge's exp, many rows per item (8192 rows of 10
     * classes: 2.6x faster than one row per item, `clforge bench train`);
     * on GPUs a work-group per row. */
    /*                                   EXP WG RPW RPI VW */
    .defaults = {
        [CLFORGE_DEVICE_CLASS_GENERIC]   = {0, 64, 1, 1, 4},
        [CLFORGE_DEVICE_CLASS_CPU]       = {1, 1, 4, 64, 16},
        [CLFORGE_DEVICE_CLASS_NVIDIA]    = {0, 128, 1, 1, 4},
        [CLFORGE_DEVICE_CLASS_AMD]       = {0, 256, 1, 1, 4},
        [CLFORGE_DEVICE_CLASS_INTEL_GPU] = {0, 128, 1, 1, 4},
        [CLFORGE_DEVICE_CLASS_MALI]      = {0, 64, 1, 1, 4},
        [CLFORGE_DEVICE_CLASS_ADRENO]    = {0, 128, 1, 1, 4},
    },
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_NVIDIA, CE_VAR_SHORT, CE_VAR_SHORT, CE_WG, 32},
        {CLFORGE_DEVICE_CLASS_NVIDIA, CE_VAR_SHORT, CE_VAR_SHORT, CE_RPW, 4},
        {CLFORGE_DEVICE_CLASS_AMD, CE_VAR_SHORT, CE_VAR_SHORT, CE_WG, 64},
        {CLFORGE_DEVICE_CLASS_AMD, CE_VAR_SHORT, CE_VAR_SHORT, CE_RPW, 4},
        {CLFORGE_DEVICE_CLASS_INTEL_GPU, CE_VAR_SHORT, CE_VAR_SHORT, CE_WG, 16},
        {CLFORGE_DEVICE_CLASS_INTEL_GPU, CE_VAR_SHORT, CE_VAR_SHORT, CE_RPW, 8},
        {CLFORGE_DEVICE_CLASS_MALI, CE_VAR_SHORT, CE_VAR_SHORT, CE_WG, 16},
        {CLFORGE_DEVICE_CLASS_MALI, CE_VAR_SHORT, CE_VAR_SHORT, CE_RPW, 4},
        {CLFORGE_DEVICE_CLASS_ADRENO, CE_VAR_SHORT, CE_VAR_SHORT, CE_WG, 32},
        {CLFORGE_DEVICE_CLASS_ADRENO, CE_VAR_SHORT, CE_VAR_SHORT, CE_RPW, 4},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = ce_allowed,
    .tune = &clforge__tune_cross_entropy,
    .classes = clforge__ce_classes,
};
/* clang-format on */
