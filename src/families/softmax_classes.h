/* Softmax shape classes (rows, n), from the calls models make: attention
 * scores (B*H*Sq rows of Sk), a vocabulary's logits, short rows. A call
 * belongs to the class whose row length is nearest (log scale); the tuner
 * measures the family on each. */
#ifndef CLFORGE_SRC_KERNELS_SOFTMAX_CLASSES_H
#define CLFORGE_SRC_KERNELS_SOFTMAX_CLASSES_H

#include <stddef.h>

#include "family.h"

enum { CLFORGE_SOFTMAX_NDIMS = 2 };

/* The classes, NULL-terminated (the family's .classes). */
extern const clforge__shape_class clforge__softmax_classes[];

/* The class of a call with rows x n. */
const char *clforge__softmax_shape_class(size_t rows, size_t n);

/* The class of `classes` (NULL-terminated, shape {rows, n}) whose row
 * length is nearest n on a log scale: how every row-wise op (softmax, its
 * backward, cross-entropy) picks its class, the row length deciding how a
 * row is best split. */
const char *clforge__row_class(const clforge__shape_class *classes, size_t n);

/* The same along any dimension of the classes' shapes (the optimizer's
 * element counts: dimension 0). */
const char *clforge__nearest_class(const clforge__shape_class *classes, int dim, size_t value);

#endif
