/* The fft convolution algorithm (placeholder: not written yet). */
#include <stdio.h>

#include "../kernels/families.h"
#include "conv_algo.h"

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "fft is not implemented yet");
  return 0;
}

const clforge__conv_algo_impl clforge__conv_fft = {
    .algo = CLFORGE_CONV_ALGO_FFT,
    .name = "fft",
    .family = &clforge__family_conv_fft,
    .supports = supports,
};
