/* The Winograd families (src/kernels/conv_winograd_2x2.c, _4x4.c): one
 * kernel source (cl/conv_winograd.cl) built for the tile size, the same
 * parameters for both.
 *   PATH  the route of the batched GEMM between the transforms: 0 the
 *         usual choice (clforge_gemm's heuristic or tuning), 1 tiled,
 *         3 packed
 *   VW    lanes of the transform kernels' vectors: tiles along a row where
 *         the tensor is NCHW, channels where it is NHWC
 *   WG    work-items along dimension 0 of the transform kernels' groups
 *         (never the driver's choice: PoCL's pick for these kernels, e.g.
 *         224 x 16, overflows its work-item stacks) */
#ifndef CLFORGE_SRC_KERNELS_CONV_WINOGRAD_H
#define CLFORGE_SRC_KERNELS_CONV_WINOGRAD_H

enum { WINO_PATH, WINO_VW, WINO_WG, WINO_NPARAMS };

#endif
