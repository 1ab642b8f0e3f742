/* The direct and depthwise convolution families' parameter indices
 * (src/families/conv_direct.c, src/families/conv_depthwise.c). */
#ifndef CLFORGE_SRC_KERNELS_CONV_DIRECT_H
#define CLFORGE_SRC_KERNELS_CONV_DIRECT_H

/* Direct: TQ chunks of VW pixels x TK channels per work-item, a WGQ x WGK
 * work-group. */
enum { CONVD_TQ, CONVD_TK, CONVD_WGQ, CONVD_WGK, CONVD_VW, CONVD_NPARAMS };

#endif
