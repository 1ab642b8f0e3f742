/* The families the tuner knows (each carries its op's tuning hooks), and
 * every family (for checking parameter overrides). */
#include "families.h"

const clforge__family *const clforge__tunable_families[] = {&clforge__family_gemm, &clforge__family_gemm_direct,
                                                             &clforge__family_gemm_packed, NULL};

const clforge__family *const clforge__all_families[] = {&clforge__family_convert, &clforge__family_gemm,
                                                         &clforge__family_gemm_direct, &clforge__family_gemm_packed, NULL};
