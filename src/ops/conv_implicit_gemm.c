/* The implicit_gemm convolution algorithm (placeholder: not written yet). */
#include <stdio.h>

#include "../kernels/families.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "implicit_gemm is not implemented yet");
  return 0;
}

const clforge__conv_algo_impl clforge__conv_implicit_gemm = {
    .algo = CLFORGE_CONV_ALGO_IMPLICIT_GEMM,
    .name = "implicit_gemm",
    .family = &clforge__family_conv_implicit_gemm,
    .supports = supports,
};
