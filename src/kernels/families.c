/* The families the tuner knows (each carries its op's tuning hooks). */
#include "families.h"

const clforge__family *const clforge__tunable_families[] = {&clforge__family_gemm, &clforge__family_gemm_direct, NULL};
