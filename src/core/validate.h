/* Validation mode (CLFORGE_VALIDATE): ops hand their device result and the
 * reference result here; a miss becomes CLFORGE_VALIDATION_FAILED. */
#ifndef CLFORGE_SRC_VALIDATE_H
#define CLFORGE_SRC_VALIDATE_H

#include "clforge/clforge.h"
#include "../ref/compare.h"

/* Blocking read of `bytes` at byte `offset` of buf into host memory. */
clforge_status clforge__read_buffer(clforge_context ctx, cl_mem buf, size_t offset, size_t bytes, void *host);

/* got/want: n results stored as `dtype` (host arrays of that dtype). */
clforge_status clforge__validate(clforge_context ctx, const char *op, clforge_dtype dtype, size_t n,
                                 const void *got, const void *want, clforge__tolerance tol);

/* 1 when the test hook asks to corrupt the result of `op` (tests only). */
int clforge__test_fault_armed(clforge_context ctx, const char *op);

/* Tests only: when the hook is armed for `op`, overwrite element `offset`
 * of buf (stored as dtype) with 12345, so that validation must catch it. */
clforge_status clforge__test_fault_apply(clforge_context ctx, const char *op, cl_mem buf, size_t offset,
                                         clforge_dtype dtype);

#endif
