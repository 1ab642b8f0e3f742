/* For the convolution tests that run their cases in a few storage-type and
 * epilogue profiles (every distinct set builds programs of its own, so a
 * test keeps few): a profile, and setting one on a case struct that has
 * the fields xt, wt, yt, bt, bias and act. */
#ifndef CLFORGE_TESTS_CONV_PROFILE_H
#define CLFORGE_TESTS_CONV_PROFILE_H

#include "clforge/clforge.h"

typedef struct {
  clforge_dtype x, w, y, b; /* storage of x, w, y and the bias */
  int bias;                 /* whether there is a bias */
  clforge_activation act;
} conv_profile;

#define CONV_SET_PROFILE(c, p)                                                                     \
  ((c)->xt = (p).x, (c)->wt = (p).w, (c)->yt = (p).y, (c)->bt = (p).b, (c)->bias = (p).bias, \
   (c)->act = (p).act)

#endif
