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

/* two floats per work-item (the running max and sum); the count's and the
 * sum's work-group of RWG */
static int ce_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if (CLFORGE_CE_RWG > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "the reduction's work-group of %d exceeds the device's %zu", CLFORGE_CE_RWG,
                 dev->max_work_group_size);
    return 0;
  }
  return clforge__row_allowed(v, dev, 2, why, why_cap);
}

/* clang-format off */
const clforge__family clforge__family_cross_entropy = {
    .name = "cross_entropy",
    .sources = (const char *const[]){"softmax_common", "cross_entropy", NULL},
    .kernel = "clforge_cross_entropy",
    .nparams = CE_NPARAMS,
    .params = {CLFORGE__ROW_PARAMS(CE)},
    .defaults = CLFORGE__ROW_DEFAULTS,
    .overrides = clforge__row_short_overrides,
    .allowed = ce_allowed,
    .classes = clforge__ce_classes,
};
/* clang-format on */
