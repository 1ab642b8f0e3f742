/* Every kernel family clforge has (their externs, generated from the
 * registry, registry.h) and the runtime's lists of them: a new family is
 * a row of the registry, not an edit here. */
#ifndef CLFORGE_SRC_FAMILIES_FAMILIES_H
#define CLFORGE_SRC_FAMILIES_FAMILIES_H

#include "family.h"
#include "registry.h"

#define CLFORGE__FAMILY_EXTERN_TUNED(name, op) extern const clforge__family clforge__family_##name;
#define CLFORGE__FAMILY_EXTERN_PLAIN(name) extern const clforge__family clforge__family_##name;
CLFORGE__FAMILIES(CLFORGE__FAMILY_EXTERN_TUNED, CLFORGE__FAMILY_EXTERN_PLAIN)
#undef CLFORGE__FAMILY_EXTERN_TUNED
#undef CLFORGE__FAMILY_EXTERN_PLAIN

/* The GEMM families' parameter indices and shared definitions, which the
 * ops and tests read through this header. A new family's indices go in
 * its own header (src/families/<family>.h), included where they are used. */
#include "conv_depthwise_int8.h"
#include "gemm.h"
#include "gemm_direct.h"
#include "gemm_int8.h"
#include "gemm_packed.h"
#include "gemm_q8_0.h"

/* Convolution has one family per algorithm (src/families/conv_<algo>.c),
 * with the parameter indices in src/families/conv_<algo>.h where the
 * algorithm has parameters. */

/* The families the tuner knows, NULL-terminated, in the registry's order
 * (the op that tunes each: src/tuning/tune_op.h, clforge__tunables). */
extern const clforge__family *const clforge__tunable_families[];
/* Every family, NULL-terminated, in the registry's order. */
extern const clforge__family *const clforge__all_families[];

#endif
