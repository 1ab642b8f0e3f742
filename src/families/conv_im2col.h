/* conv_im2col's parameter indices: VW elements per work-item of the im2col
 * kernel (cl/conv_im2col.cl), WG its work-group size along a line (fixed:
 * PoCL compiles a kernel per work-group size), CHUNK images per pass (the workspace holds one pass's
 * column matrix), PATH the route of the GEMM (clforge__gemm.route: 0 its
 * usual choice, 1 tiled, 2 direct, 3 packed). */
#ifndef CLFORGE_SRC_KERNELS_CONV_IM2COL_H
#define CLFORGE_SRC_KERNELS_CONV_IM2COL_H

enum { CI2C_VW, CI2C_WG, CI2C_CHUNK, CI2C_PATH, CI2C_NPARAMS };

#endif
