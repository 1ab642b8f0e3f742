/* The collectives' host arithmetic, in the one order clforge.h documents
 * (clforge_collective_desc): rank 0's value, then each later rank's added
 * (or compared) in rank order, in f32, MEAN's division last, rounded once. */
#ifndef CLFORGE_SRC_COMM_REDUCE_HOST_H
#define CLFORGE_SRC_COMM_REDUCE_HOST_H

#include <stddef.h>

#include "clforge/clforge.h"

/* out[i] = the reduction of in[0][i] .. in[n-1][i], i < count, all arrays of
 * dtype; out may be in[0]. */
void clforge__reduce_host(clforge_dtype dtype, clforge_reduce_op op, int n, const void *const *in, void *out,
                          size_t count);

#endif
