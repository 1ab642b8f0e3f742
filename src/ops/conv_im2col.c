/* The im2col convolution algorithm (placeholder: not written yet). */
#include <stdio.h>

#include "../kernels/families.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "im2col is not implemented yet");
  return 0;
}

const clforge__conv_algo_impl clforge__conv_im2col = {
    .algo = CLFORGE_CONV_ALGO_IM2COL,
    .name = "im2col",
    .family = &clforge__family_conv_im2col,
    .supports = supports,
};
