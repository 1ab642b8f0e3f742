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

/* Both families' .params, .defaults (the CPU's PASS, the tile size's, aside)
 * and .classes (the 3x3 stride-1 classes, the only ones they run). */
#define CLFORGE__WINO_PARAMS                                                                                  \
  {                                                                                                           \
    [WINO_PATH] = {"PATH", 4, {0, 1, 2, 3}}, [WINO_VW] = {"VW", 3, {4, 8, 16}},                               \
    [WINO_WG] = {"WG", 6, {1, 4, 8, 16, 32, 64}}, [WINO_PASS] = {"PASS", 7, {0, 64, 128, 256, 512, 1024, 2048}} \
  }
/* rows: PATH VW WG PASS */
#define CLFORGE__WINO_DEFAULTS(cpu_pass)                                                                      \
  CLFORGE__DEFAULTS(/* generic */ (0, 4, 16, 0), /* cpu */ (1, 16, 8, cpu_pass), /* nvidia */ (0, 4, 16, 0),  \
                    /* amd */ (0, 4, 16, 0), /* intel_gpu */ (0, 4, 16, 0), /* mali */ (0, 4, 16, 0),        \
                    /* adreno */ (0, 4, 16, 0))
#define CLFORGE__WINO_CLASSES                                                                                 \
  (const clforge__shape_class[]) {                                                                            \
    CLFORGE_CONV_CLASS_R50_3X3_56, CLFORGE_CONV_CLASS_R50_3X3_56_N1, CLFORGE_CONV_CLASS_R50_3X3_28,           \
        CLFORGE_CONV_CLASS_R50_3X3_28_N1, CLFORGE_CONV_CLASS_END                                              \
  }

#endif
