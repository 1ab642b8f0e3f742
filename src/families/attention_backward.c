/* Descriptor of the attention backward family (cl/attention_backward.cl):
 * WG work-items per group, each owning TR = VW * RW rows (RW vectors of VW
 * rows), streaming TB rows a block; tuned on the short prefill classes
 * (src/ops/attention_backward_tune.c). */
#include <stdio.h>

#include "attention_classes.h"
#include "families.h"

/* The work-groups (WG of the streaming kernels, WG * VW of D's) fit the device. */
static int allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if ((size_t)v[0] * (size_t)v[1] > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "WG * VW = %d exceeds the device's work-group of %zu", v[0] * v[1],
                 dev->max_work_group_size);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_attention_backward = {
    .name = "attention_backward",
    .sources = (const char *const[]){"attention_common", "attention_backward", NULL},
    .kernel = "clforge_attn_bwd_dq",
    .nparams = 4,
    .params = {{"WG", 6, {1, 8, 16, 32, 64, 128}},
               {"VW", 4, {1, 4, 8, 16}},
               {"RW", 3, {1, 2, 4}},
               {"TB", 3, {4, 8, 16}}},
    /* CPUs: one work-item a group holding 16 rows as one AVX-512 vector
     * (the forward's fused kernel's layout); GPUs: a row per work-item. */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (64, 1, 1, 4), /* cpu */ (1, 16, 2, 8), /* nvidia */ (64, 1, 1, 4), /* amd */ (64, 1, 1, 4),
        /* intel_gpu */ (64, 1, 1, 4), /* mali */ (64, 1, 1, 4), /* adreno */ (64, 1, 1, 4)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = allowed,
    .classes = (const clforge__shape_class[]){CLFORGE_ATTN_CLASS_PREFILL_D64_S512,
                                              CLFORGE_ATTN_CLASS_PREFILL_D128_S512, CLFORGE_ATTN_CLASS_END},
};
/* clang-format on */
