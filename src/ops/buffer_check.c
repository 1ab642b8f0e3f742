#include "buffer_check.h"

#include <stdint.h>

#include "../core/context.h"
#include "../core/error.h"

clforge_status clforge__check_buffer(clforge_context ctx, const char *op, const char *what, cl_mem buf,
                                     size_t offset, size_t count, size_t elem_size, int access) {
  if (!buf) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s is NULL", op, what);
  if (offset > SIZE_MAX - count || offset + count > SIZE_MAX / elem_size)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: %s offset %zu + %zu elements of %zu bytes overflows size_t",
                         op, what, offset, count, elem_size);
  cl_context owner;
  cl_mem_object_type type;
  cl_mem_flags flags;
  size_t size;
  cl_int err = clGetMemObjectInfo(buf, CL_MEM_TYPE, sizeof type, &type, NULL);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
  if (err != CL_SUCCESS) return clforge__fail(ctx, err, "%s: %s is not a valid memory object", op, what);
  if (type != CL_MEM_OBJECT_BUFFER)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s is an image or pipe, not a buffer", op, what);
  if (owner != ctx->cl_ctx)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s belongs to another OpenCL context", op, what);
  if ((access & CLFORGE_ACCESS_WRITE) && (flags & CL_MEM_READ_ONLY))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s is written but was created CL_MEM_READ_ONLY", op, what);
  if ((access & CLFORGE_ACCESS_READ) && (flags & CL_MEM_WRITE_ONLY))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s is read but was created CL_MEM_WRITE_ONLY", op, what);
  if ((access & CLFORGE_ACCESS_HOST_READ) && (flags & (CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY)))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: %s is read back by the host (its indices are checked) but was created without host reads",
                         op, what);
  size_t need = (offset + count) * elem_size;
  if (need > size)
    return clforge__fail(ctx, CLFORGE_BUFFER_TOO_SMALL,
                         "%s: %s needs %zu bytes (offset %zu + %zu elements of %zu bytes) but holds %zu", op, what,
                         need, offset, count, elem_size, size);
  return CLFORGE_SUCCESS;
}

clforge_status clforge__buffer_range(clforge_context ctx, cl_mem buf, size_t byte_offset, size_t bytes,
                                     clforge__byte_range *out) {
  cl_mem parent = NULL;
  size_t origin = 0;
  cl_int err = clGetMemObjectInfo(buf, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  if (err == CL_SUCCESS && parent) err = clGetMemObjectInfo(buf, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
  if (err != CL_SUCCESS) return clforge__fail(ctx, err, "querying a buffer's parent");
  out->root = parent ? parent : buf; /* sub-buffers of sub-buffers do not exist in OpenCL */
  out->begin = origin + byte_offset;
  out->end = out->begin + bytes;
  return CLFORGE_SUCCESS;
}

int clforge__ranges_alias(const clforge__byte_range *a, const clforge__byte_range *b) {
  /* an empty range holds no byte, even where it sits inside the other */
  return a->root == b->root && a->begin < a->end && b->begin < b->end && a->begin < b->end && b->begin < a->end;
}

clforge_status clforge__check_wait_list(clforge_context ctx, const char *op, cl_uint n, const cl_event *list) {
  if ((n == 0) != (list == NULL))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: num_events_in_wait_list (%u) and event_wait_list (%p) disagree",
                         op, n, (const void *)list);
  for (cl_uint i = 0; i < n; ++i) {
    cl_context owner = NULL;
    if (!list[i]) return clforge__fail(ctx, CL_INVALID_EVENT_WAIT_LIST, "%s: event_wait_list[%u] is NULL", op, i);
    cl_int err = clGetEventInfo(list[i], CL_EVENT_CONTEXT, sizeof owner, &owner, NULL);
    if (err != CL_SUCCESS)
      return clforge__fail(ctx, CL_INVALID_EVENT_WAIT_LIST, "%s: event_wait_list[%u] is not a valid event (%d)", op, i,
                           (int)err);
    if (owner != ctx->cl_ctx)
      return clforge__fail(ctx, CL_INVALID_CONTEXT, "%s: event_wait_list[%u] belongs to another OpenCL context", op, i);
  }
  return CLFORGE_SUCCESS;
}
