/* Argument checks every op makes on its cl_mem operands. */
#ifndef CLFORGE_SRC_OPS_BUFFER_CHECK_H
#define CLFORGE_SRC_OPS_BUFFER_CHECK_H

#include "clforge/clforge.h"

/* Check that `buf` (named `what` in messages of op `op`) is a buffer of ctx's
 * OpenCL context holding elements [offset, offset + count) of elem_size
 * bytes: not NULL, no size_t overflow, within CL_MEM_SIZE. */
clforge_status clforge__check_buffer(clforge_context ctx, const char *op, const char *what, cl_mem buf,
                                     size_t offset, size_t count, size_t elem_size);

/* 1 when byte ranges [a, a+an) and [b, b+bn) overlap. */
int clforge__ranges_overlap(size_t a, size_t an, size_t b, size_t bn);

#endif
