/* The gemm_1x1 convolution algorithm (placeholder: not written yet). */
#include <stdio.h>

#include "../kernels/families.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "gemm_1x1 is not implemented yet");
  return 0;
}

const clforge__conv_algo_impl clforge__conv_gemm_1x1 = {
    .algo = CLFORGE_CONV_ALGO_GEMM_1X1,
    .name = "gemm_1x1",
    .family = &clforge__family_conv_gemm_1x1,
    .supports = supports,
};
