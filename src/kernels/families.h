/* Every kernel family clforge has; adding one means a cl/ file, a
 * descriptor here and an op in src/ops/. */
#ifndef CLFORGE_SRC_KERNELS_FAMILIES_H
#define CLFORGE_SRC_KERNELS_FAMILIES_H

#include "family.h"

extern const clforge__family clforge__family_convert;

#endif
