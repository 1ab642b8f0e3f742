/* The Winograd families (src/families/conv_winograd_2x2.c, _4x4.c): one
 * kernel source (cl/conv_winograd.cl) built for the tile size, the same
 * parameters for both.
 *   PATH  the route of the batched GEMM between the transforms: 0 the
 *         usual choice (clforge_gemm's heuristic or tuning), 1 tiled,
 *         2 direct, 3 packed (PoCL, ResNet-50 64->64 @56^2: tiled is
 *         fastest; packed repacks every pass's small matrices)
 *   VW    lanes (channels) of the transform kernels' vectors
 *   WG    work-items of the transform kernels' groups, channel groups first
 *         then tiles (never the driver's choice: PoCL's pick for these
 *         kernels, e.g. 224 x 16, overflows its work-item stacks)
 *   PASS  at most this many tiles per pass (0: as many as the workspace
 *         bound allows): small passes keep V and M in the caches between
 *         the transforms and the GEMM */
#ifndef CLFORGE_SRC_KERNELS_CONV_WINOGRAD_H
#define CLFORGE_SRC_KERNELS_CONV_WINOGRAD_H

enum { WINO_PATH, WINO_VW, WINO_WG, WINO_PASS, WINO_NPARAMS };

#endif
