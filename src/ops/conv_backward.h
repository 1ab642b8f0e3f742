/* The convolution's backward passes as its queries see them
 * (ops/conv_explain.c hands backward kinds to these). */
#ifndef CLFORGE_SRC_OPS_CONV_BACKWARD_H
#define CLFORGE_SRC_OPS_CONV_BACKWARD_H

#include "../desc/conv_desc.h"

clforge_status clforge__conv_bwd_data_explain(clforge_context ctx, const clforge__conv *d, clforge_conv_choice *choice);
clforge_status clforge__conv_bwd_filter_explain(clforge_context ctx, const clforge__conv *d, clforge_conv_choice *choice);

#endif
