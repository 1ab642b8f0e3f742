/* The backward convolution families' parameter indices
 * (src/families/conv_backward_data.c, src/families/conv_backward_filter.c). */
#ifndef CLFORGE_SRC_KERNELS_CONV_BACKWARD_H
#define CLFORGE_SRC_KERNELS_CONV_BACKWARD_H

/* Backward data, direct: a WG-pixel work-group, TC input channels per item. */
enum { CBD_WG, CBD_TC, CBD_NPARAMS };
/* Backward filter, direct: a WG-position work-group, TK output channels per
 * item, CHUNK positions of N*P*Q per split. */
enum { CBF_WG, CBF_TK, CBF_CHUNK, CBF_NPARAMS };

#endif
