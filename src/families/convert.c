/* Descriptor of the convert family (cl/convert.cl). */
#include <stdio.h>

#include "families.h"

static int convert_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if ((size_t)v[1] > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "WGS=%d exceeds the device's max work-group size %zu", v[1], dev->max_work_group_size);
    return 0;
  }
  return 1;
}

const clforge__family clforge__family_convert = {
    .name = "convert",
    .sources = (const char *const[]){"convert", NULL},
    .kernel = "clforge_convert",
    .nparams = 2,
    .params = {{"VW", 5, {1, 2, 4, 8, 16}}, {"WGS", 5, {16, 32, 64, 128, 256}}},
    /* CPUs (PoCL) vectorize across work-items themselves; wide per-item
     * vectors still cut loop overhead. GPUs prefer 16-byte accesses. */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (1, 64), /* cpu */ (16, 64), /* nvidia */ (4, 256), /* amd */ (4, 256),
        /* intel_gpu */ (4, 128), /* mali */ (4, 64), /* adreno */ (4, 128)),
    .allowed = convert_allowed,
};
