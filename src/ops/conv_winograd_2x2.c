/* The winograd_2x2 convolution algorithm (placeholder: not written yet). */
#include <stdio.h>

#include "../kernels/families.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "winograd_2x2 is not implemented yet");
  return 0;
}

const clforge__conv_algo_impl clforge__conv_winograd_2x2 = {
    .algo = CLFORGE_CONV_ALGO_WINOGRAD_2X2,
    .name = "winograd_2x2",
    .family = &clforge__family_conv_winograd_2x2,
    .supports = supports,
};
