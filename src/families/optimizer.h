/* The optimizer family's parameter indices and shape classes
 * (src/families/optimizer.c, cl/optimizer.cl). */
#ifndef CLFORGE_SRC_KERNELS_OPTIMIZER_H
#define CLFORGE_SRC_KERNELS_OPTIMIZER_H

#include "family.h"

/* WG work-items per work-group; EPI elements per work-item. */
enum { OPT_WG, OPT_EPI, OPT_NPARAMS };

enum { CLFORGE_OPT_NDIMS = 1 };

/* The classes ({elements}): a large tensor and a small one (a layer's
 * weight matrix, a bias or norm); NULL-terminated. */
extern const clforge__shape_class clforge__opt_classes[];

/* The class of a tensor of `count` elements (nearest, log scale). */
const char *clforge__opt_shape_class(size_t count);

#endif
