/* The winograd_4x4 convolution algorithm (placeholder: not written yet). */
#include <stdio.h>

#include "../kernels/families.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "winograd_4x4 is not implemented yet");
  return 0;
}

const clforge__conv_algo_impl clforge__conv_winograd_4x4 = {
    .algo = CLFORGE_CONV_ALGO_WINOGRAD_4X4,
    .name = "winograd_4x4",
    .family = &clforge__family_conv_winograd_4x4,
    .supports = supports,
};
