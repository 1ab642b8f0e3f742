/* conv_gemm_1x1's parameter indices. The family has no kernel of its own:
 * its one parameter picks the route of the clforge GEMM it runs. */
#ifndef CLFORGE_SRC_KERNELS_CONV_GEMM_1X1_H
#define CLFORGE_SRC_KERNELS_CONV_GEMM_1X1_H

/* PATH: the GEMM's route (clforge__gemm.route): 0 its usual choice,
 * 1 tiled, 2 direct, 3 packed. */
enum { CG1_PATH, CG1_NPARAMS };

#endif
