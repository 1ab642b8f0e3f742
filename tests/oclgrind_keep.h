/* For tests whose --small run goes under Oclgrind: Oclgrind 21.10's
 * uninitialized-value check keeps the shadow of global memory by buffer
 * index, sized at a buffer's first host write (or its first kernel), and
 * never drops it when the buffer is released. A later buffer that reuses
 * the index inherits that shadow, and what lies past its size reads as
 * uninitialized even after a kernel wrote it — a false report, typically in
 * the GEMM kernels reading a buffer only kernels wrote (prepared weights,
 * scratch). So, while keeping is on, no index is ever reused: a released
 * buffer's index (Oclgrind hands out freed indices first, oldest first)
 * goes at once to a 1-byte placeholder held to the end, and the context's
 * scratch is sized once up front. Not the buffers themselves: Oclgrind's
 * race check resets a record per byte of every live buffer at the end of
 * each kernel, so held memory made every launch slower (most of these runs'
 * time, 60 ms a launch in conv_gemm_algos). */
#ifndef CLFORGE_TESTS_OCLGRIND_KEEP_H
#define CLFORGE_TESTS_OCLGRIND_KEEP_H

#include "../src/core/context.h"
#include "../src/core/workspace.h"
#include "test_util.h"

enum { KEEP_MAX = 1024 };
static int keep_on;
static cl_mem kept[KEEP_MAX];
static int nkept;
static clforge_context keep_ctx; /* keep_start_sized's */

static cl_mem keep_ws[2]; /* the workspaces keep_start_sized gave out */
static size_t keep_ws_bytes[2]; /* and their sizes (a handle alone can be reused) */

/* Turn keeping on for ctx: the convolutions' workspaces get conv_bytes now,
 * the other (GEMM packing, attention) `bytes`, at least the largest scratch
 * the run asks for (call before any test lowers
 * ctx->workspace.cap; smaller later requests reuse them, a larger one would
 * replace them: keep_end checks that none did). Oclgrind's checks take
 * time with the size of the buffers a kernel is given, so a test with small
 * problems sizes them small. */
static inline void keep_start_sizes(clforge_context ctx, size_t conv_bytes, size_t bytes) {
  cl_event busy;
  keep_on = 1, keep_ctx = ctx;
  CHECK_OK(ctx, clforge__workspace_get_from(ctx, &ctx->conv_workspace, conv_bytes, &keep_ws[0], &busy));
  CHECK_OK(ctx, clforge__workspace_get_from(ctx, &ctx->workspace, bytes, &keep_ws[1], &busy));
  cl_mem bwd; /* the backward passes' scratch: the same size as the convolutions' */
  CHECK_OK(ctx, clforge__workspace_get_from(ctx, &ctx->conv_bwd_workspace, conv_bytes, &bwd, &busy));
  keep_ws_bytes[0] = ctx->conv_workspace.bytes, keep_ws_bytes[1] = ctx->workspace.bytes;
}

/* Both workspaces of `bytes`. */
static inline void keep_start_sized(clforge_context ctx, size_t bytes) { keep_start_sizes(ctx, bytes, bytes); }

/* Keeping with 16 MiB workspaces (not checked at the end). */
static inline void keep_start(clforge_context ctx) {
  keep_start_sized(ctx, (size_t)16 << 20);
  keep_ws[0] = keep_ws[1] = NULL;
}

/* n placeholders onto the indices just freed (more than were freed only
 * take new indices). */
static inline void keep_park(clforge_context ctx, int n) {
  for (int i = 0; i < n && nkept < KEEP_MAX; ++i) {
    cl_int err;
    cl_mem p = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, 1, NULL, &err);
    if (err == CL_SUCCESS) kept[nkept++] = p;
    else CHECK(0, "keep: placeholder buffer: error %d", (int)err); /* counts failures only */
  }
}

static inline void keep_release(cl_mem m) {
  if (!m) return;
  cl_mem parent = NULL; /* a sub-buffer frees no index */
  clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  clReleaseMemObject(m);
  if (keep_on && !parent) keep_park(keep_ctx, 1);
}

static inline void keep_release_weights(clforge_context ctx, clforge_conv2d_weights pw) {
  if (!pw) return;
  CHECK_OK(ctx, clforge_conv2d_weights_release(pw));
  if (keep_on) keep_park(ctx, 4); /* the buffers a prepared filter holds, and spare */
}

/* ctx's workspaces are still the ones keep_start_sized gave it (before
 * ctx is destroyed; then keep_park(a live context, n) holds the indices
 * its destruction frees). */
static inline void keep_check_workspaces(clforge_context ctx) {
  if (keep_ws[0])
    CHECK(ctx->conv_workspace.buffer == keep_ws[0] && ctx->workspace.buffer == keep_ws[1] &&
              ctx->conv_workspace.bytes == keep_ws_bytes[0] && ctx->workspace.bytes == keep_ws_bytes[1],
          "a workspace outgrew the size keep_start_sized gave it (%zu, %zu bytes now): give it more",
          ctx->conv_workspace.bytes, ctx->workspace.bytes);
  keep_ws[0] = keep_ws[1] = NULL;
}

/* Release everything kept (at the end of the run). */
static inline void keep_end(clforge_context ctx) {
  keep_check_workspaces(ctx);
  for (int i = 0; i < nkept; ++i) clReleaseMemObject(kept[i]);
  nkept = 0;
  keep_on = 0;
}

#endif
