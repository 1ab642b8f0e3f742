#include "workspace.h"

#include "context.h"
#include "error.h"
#include "log.h"

size_t clforge__workspace_cap(clforge_context ctx) {
  size_t cap = ctx->workspace.cap ? ctx->workspace.cap : CLFORGE_WORKSPACE_DEFAULT_CAP;
  /* One allocation: within the device's largest, and a quarter of its memory. */
  if (ctx->info.max_alloc_bytes && cap > ctx->info.max_alloc_bytes) cap = (size_t)ctx->info.max_alloc_bytes;
  if (ctx->info.global_mem_bytes && cap > ctx->info.global_mem_bytes / 4)
    cap = (size_t)(ctx->info.global_mem_bytes / 4);
  return cap;
}

clforge_status clforge__workspace_get(clforge_context ctx, size_t bytes, cl_mem *buffer, cl_event *busy) {
  return clforge__workspace_get_from(ctx, &ctx->workspace, bytes, buffer, busy);
}

clforge_status clforge__workspace_get_from(clforge_context ctx, clforge__workspace *w, size_t bytes, cl_mem *buffer,
                                           cl_event *busy) {
  if (bytes == 0) bytes = 64; /* a valid kernel argument even when nothing is packed */
  if (bytes > clforge__workspace_cap(ctx))
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "workspace: %zu bytes requested, the bound is %zu", bytes,
                         clforge__workspace_cap(ctx));
  if (!w->buffer || w->bytes < bytes) {
    /* Released buffers live until the commands using them finish (OpenCL). */
    if (w->buffer) clReleaseMemObject(w->buffer);
    w->buffer = NULL;
    w->bytes = 0;
    cl_int err;
    cl_mem b = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES)
      return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY, "workspace: %zu bytes could not be allocated (%d)",
                           bytes, (int)err);
    if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clCreateBuffer (workspace)");
    clforge__log(CLFORGE_LOG_DEBUG, "workspace: %zu bytes", bytes);
    w->buffer = b;
    w->bytes = bytes;
  }
  *buffer = w->buffer;
  *busy = w->busy;
  return CLFORGE_SUCCESS;
}

void clforge__workspace_used(clforge_context ctx, cl_event last) { clforge__workspace_used_by(&ctx->workspace, last); }

void clforge__workspace_used_by(clforge__workspace *w, cl_event last) {
  if (last) clRetainEvent(last);
  if (w->busy) clReleaseEvent(w->busy);
  w->busy = last;
}

void clforge__workspace_release(clforge__workspace *w) {
  if (w->busy) clReleaseEvent(w->busy);
  if (w->buffer) clReleaseMemObject(w->buffer);
  w->busy = NULL;
  w->buffer = NULL;
  w->bytes = 0;
}
