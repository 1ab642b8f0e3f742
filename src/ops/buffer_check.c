#include "buffer_check.h"

#include <stdint.h>

#include "../context.h"
#include "../error.h"

clforge_status clforge__check_buffer(clforge_context ctx, const char *op, const char *what, cl_mem buf,
                                     size_t offset, size_t count, size_t elem_size) {
  if (!buf) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s is NULL", op, what);
  if (offset > SIZE_MAX - count || offset + count > SIZE_MAX / elem_size)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: %s offset %zu + %zu elements of %zu bytes overflows size_t",
                         op, what, offset, count, elem_size);
  cl_context owner;
  cl_mem_object_type type;
  size_t size;
  cl_int err = clGetMemObjectInfo(buf, CL_MEM_TYPE, sizeof type, &type, NULL);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
  if (err != CL_SUCCESS) return clforge__fail(ctx, err, "%s: %s is not a valid memory object", op, what);
  if (type != CL_MEM_OBJECT_BUFFER)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s is an image or pipe, not a buffer", op, what);
  if (owner != ctx->cl_ctx)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s belongs to another OpenCL context", op, what);
  size_t need = (offset + count) * elem_size;
  if (need > size)
    return clforge__fail(ctx, CLFORGE_BUFFER_TOO_SMALL,
                         "%s: %s needs %zu bytes (offset %zu + %zu elements of %zu bytes) but holds %zu", op, what,
                         need, offset, count, elem_size, size);
  return CLFORGE_SUCCESS;
}

int clforge__ranges_overlap(size_t a, size_t an, size_t b, size_t bn) { return a < b + bn && b < a + an; }
