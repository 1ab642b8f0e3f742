/* The convolution reference's building block, for checks that sample
 * outputs (the tuner, tests of big shapes): one output of the resolved
 * problem d at (n, k, p, q), after the epilogue, before rounding to y's
 * type; y is read there when beta != 0. */
#ifndef CLFORGE_SRC_REF_CONV_H
#define CLFORGE_SRC_REF_CONV_H

#include "../desc/conv_desc.h"

double clforge__ref_conv2d_at(const clforge__conv *d, const void *x, const void *w, const void *bias, const void *y,
                              size_t n, size_t k, size_t p, size_t q);

#endif
