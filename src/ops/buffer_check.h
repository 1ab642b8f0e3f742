/* Argument checks every op makes on its cl_mem operands. */
#ifndef CLFORGE_SRC_OPS_BUFFER_CHECK_H
#define CLFORGE_SRC_OPS_BUFFER_CHECK_H

#include "clforge/clforge.h"

/* HOST_READ: the op reads the buffer back to the host before it runs
 * (indices it checks: embedding's ids, KV append's slots). */
enum { CLFORGE_ACCESS_READ = 1, CLFORGE_ACCESS_WRITE = 2, CLFORGE_ACCESS_HOST_READ = 4 };

/* Check that `buf` (named `what` in messages of op `op`) is a buffer of ctx's
 * OpenCL context holding elements [offset, offset + count) of elem_size
 * bytes, with the access the op needs (CLFORGE_ACCESS_* bits): not NULL, no
 * size_t overflow, within CL_MEM_SIZE, not READ_ONLY when written, not
 * WRITE_ONLY when read, host-readable when read back. */
clforge_status clforge__check_buffer(clforge_context ctx, const char *op, const char *what, cl_mem buf,
                                     size_t offset, size_t count, size_t elem_size, int access);

/* The wait list of op `op`: count and pointer agree, and every event is a
 * valid event of ctx's OpenCL context (a NULL or foreign event would make
 * the enqueue fail after other launches, or a later call). */
clforge_status clforge__check_wait_list(clforge_context ctx, const char *op, cl_uint n, const cl_event *list);

/* A byte range of a buffer, located in its root buffer (sub-buffers resolve
 * to their parent plus CL_MEM_OFFSET), so that aliasing can be seen. */
typedef struct clforge__byte_range {
  cl_mem root;
  size_t begin, end;
} clforge__byte_range;

/* Locate bytes [byte_offset, byte_offset + bytes) of an already checked buf. */
clforge_status clforge__buffer_range(clforge_context ctx, cl_mem buf, size_t byte_offset, size_t bytes,
                                     clforge__byte_range *out);

/* 1 when the two ranges share a byte (never for an empty one). */
int clforge__ranges_alias(const clforge__byte_range *a, const clforge__byte_range *b);

#endif
