/* For tests whose --small run goes under Oclgrind: Oclgrind 21.10's
 * uninitialized-value check keeps the shadow of global memory by buffer
 * index, sized at a buffer's first host write (or its first kernel), and
 * never drops it when the buffer is released. A later buffer that reuses
 * the index inherits that shadow, and what lies past its size reads as
 * uninitialized even after a kernel wrote it — a false report, typically in
 * the GEMM kernels reading a buffer only kernels wrote (prepared weights,
 * scratch). So, while keeping is on, nothing is released before the end and
 * the context's scratch is sized once up front: no index is ever reused. */
#ifndef CLFORGE_TESTS_OCLGRIND_KEEP_H
#define CLFORGE_TESTS_OCLGRIND_KEEP_H

#include "../src/context.h"
#include "../src/workspace.h"
#include "test_util.h"

enum { KEEP_MAX = 1024 };
static int keep_on;
static cl_mem kept[KEEP_MAX];
static clforge_conv2d_weights kept_pw[KEEP_MAX];
static int nkept, nkept_pw;

static cl_mem keep_ws[2]; /* the workspaces keep_start_sized gave out */

/* Turn keeping on for ctx: both workspaces get `bytes` now, at least the
 * largest scratch the run asks for (call before any test lowers
 * ctx->workspace.cap; smaller later requests reuse them, a larger one would
 * replace them: keep_end checks that none did). Oclgrind's checks take
 * time with the size of the buffers a kernel is given, so a test with small
 * problems sizes them small. */
static inline void keep_start_sized(clforge_context ctx, size_t bytes) {
  cl_event busy;
  keep_on = 1;
  CHECK_OK(ctx, clforge__workspace_get_from(ctx, &ctx->conv_workspace, bytes, &keep_ws[0], &busy));
  CHECK_OK(ctx, clforge__workspace_get_from(ctx, &ctx->workspace, bytes, &keep_ws[1], &busy));
}

/* Keeping with 16 MiB workspaces (not checked at the end). */
static inline void keep_start(clforge_context ctx) {
  keep_start_sized(ctx, (size_t)16 << 20);
  keep_ws[0] = keep_ws[1] = NULL;
}

static inline void keep_release(cl_mem m) {
  if (!m) return;
  if (keep_on && nkept < KEEP_MAX) kept[nkept++] = m;
  else clReleaseMemObject(m);
}

static inline void keep_release_weights(clforge_context ctx, clforge_conv2d_weights pw) {
  if (!pw) return;
  if (keep_on && nkept_pw < KEEP_MAX) kept_pw[nkept_pw++] = pw;
  else CHECK_OK(ctx, clforge_conv2d_weights_release(pw));
}

/* Release everything kept (at the end of the run). */
static inline void keep_end(clforge_context ctx) {
  if (keep_ws[0])
    CHECK(ctx->conv_workspace.buffer == keep_ws[0] && ctx->workspace.buffer == keep_ws[1],
          "a workspace outgrew the size keep_start_sized gave it: give it more");
  keep_ws[0] = keep_ws[1] = NULL;
  for (int i = 0; i < nkept_pw; ++i) CHECK_OK(ctx, clforge_conv2d_weights_release(kept_pw[i]));
  for (int i = 0; i < nkept; ++i) clReleaseMemObject(kept[i]);
  nkept = nkept_pw = 0;
  keep_on = 0;
}

#endif
