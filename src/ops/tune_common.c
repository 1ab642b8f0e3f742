/* What the ops' tuner hooks share (src/ops/tune_common.h). */
#include "tune_common.h"

#include <string.h>

#include "../core/context.h"
#include "../families/families.h"
#include "../families/softmax.h"
#include "../families/softmax_backward.h"

void clforge__tune_poison(clforge_context ctx, cl_mem buf, size_t bytes) {
  const cl_uchar ones = 0xff;
  clEnqueueFillBuffer(ctx->queue, buf, &ones, 1, 0, bytes, 0, NULL, NULL);
}

clforge_status clforge__tune_setup_done(clforge_status st, void *p, void (*teardown)(void *), void **state) {
  if (st != CLFORGE_SUCCESS) {
    teardown(p);
    return st;
  }
  *state = p;
  return CLFORGE_SUCCESS;
}

void clforge__tune_release(const cl_mem *m, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (m[i]) clReleaseMemObject(m[i]);
}

int clforge__tune_any_applicable(const clforge__family *f, const int *v, const size_t *shape) {
  (void)f, (void)v, (void)shape;
  return 1;
}

int clforge__tune_row_applicable(const clforge__family *f, const int *v, const size_t *shape) {
  const int softmax = f == &clforge__family_softmax;
  const int wg = softmax ? SOFTMAX_WG : SMB_WG, vw = softmax ? SOFTMAX_VW : SMB_VW;
  return (size_t)v[wg] * (size_t)v[vw] <= shape[1];
}

int clforge__tune_row_key(const char *dtypes, const char *layout, clforge_dtype *ta, clforge_dtype *tb) {
  const char *comma = strchr(dtypes, ',');
  char a[8] = "", b[8] = "";
  if (!comma || (size_t)(comma - dtypes) >= sizeof a || strlen(comma + 1) >= sizeof b || strcmp(layout, "rows"))
    return -1;
  memcpy(a, dtypes, (size_t)(comma - dtypes));
  memcpy(b, comma + 1, strlen(comma + 1));
  return clforge_dtype_from_name(a, ta) == CLFORGE_SUCCESS && clforge_dtype_from_name(b, tb) == CLFORGE_SUCCESS ? 0 : -1;
}

int clforge__tune_row_variant(const char *dtypes, const char *layout, const size_t *shape) {
  (void)dtypes, (void)layout;
  return shape[1] <= 512 ? SOFTMAX_VAR_SHORT : 0;
}

double clforge__tune_row_bytes(const size_t *s) { return (double)s[0] * (double)s[1] * 8.0; }
