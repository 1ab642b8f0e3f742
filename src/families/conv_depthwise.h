/* The depthwise convolution family's parameter indices (src/families/conv_depthwise.c). */
#ifndef CLFORGE_SRC_KERNELS_CONV_DEPTHWISE_H
#define CLFORGE_SRC_KERNELS_CONV_DEPTHWISE_H

/* VW outputs along the contiguous axis (Q for NCHW x, channels for NHWC x)
 * times TP outputs along the next axis (rows P for NCHW, pixels Q for NHWC)
 * per tile, NV tiles per work-item (looped); a WG0 x WG1 work-group. */
enum { CONVDW_VW, CONVDW_TP, CONVDW_NV, CONVDW_WG0, CONVDW_WG1, CONVDW_NPARAMS };

#endif
