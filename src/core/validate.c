#include "validate.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "dtype.h"
#include "error.h"

clforge_status clforge__read_buffer(clforge_context ctx, cl_mem buf, size_t offset, size_t bytes, void *host) {
  cl_int err = clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, host, 0, NULL, NULL);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, "clEnqueueReadBuffer (validation)");
}

clforge_status clforge__validate(clforge_context ctx, const char *op, clforge_dtype dtype, size_t n,
                                 const void *got, const void *want, clforge__tolerance tol) {
  float *g = malloc(n * sizeof *g), *w = malloc(n * sizeof *w);
  if (!g || !w) {
    free(g);
    free(w);
    return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "validation of %s: no memory for %zu elements", op, n);
  }
  clforge_ref_convert(n, got, dtype, g, CLFORGE_F32); /* widening is exact */
  clforge_ref_convert(n, want, dtype, w, CLFORGE_F32);
  clforge__error_stats s;
  clforge__compare_f32(n, g, w, &s);
  clforge_status st = CLFORGE_SUCCESS;
  if (!clforge__within_tolerance(&s, tol)) {
    size_t i = clforge__worst_index(&s, tol);
    st = clforge__fail(ctx, CLFORGE_VALIDATION_FAILED,
                       "%s: element %zu is %.9g, reference %.9g (%s); %zu of %zu elements differ in bits, "
                       "%zu special-value mismatches, max abs error %.3g, nrmse %.3g (allowed %s)",
                       op, i, (double)g[i], (double)w[i], clforge_dtype_name(dtype), s.bit_mismatches, n,
                       s.special_mismatches, s.max_abs, s.nrmse, tol.exact ? "exact" : "see clforge__tolerance_for");
  }
  free(g);
  free(w);
  return st;
}

int clforge__test_fault_armed(clforge_context ctx, const char *op) { return !strcmp(ctx->test_fault, op); }

clforge_status clforge__test_fault_apply(clforge_context ctx, const char *op, cl_mem buf, size_t offset,
                                         clforge_dtype dtype) {
  if (!clforge__test_fault_armed(ctx, op)) return CLFORGE_SUCCESS;
  const size_t es = clforge_dtype_size(dtype);
  float bad = 12345.0f;
  unsigned char raw[4] = {0};
  cl_int err = CL_SUCCESS;
  if (clforge__float_dtype_size(dtype)) {
    clforge_ref_convert(1, &bad, CLFORGE_F32, raw, dtype);
  } else { /* bytes (q8_0 rows, integers): the element's own bits flipped */
    err = clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, offset * es, es, raw, 0, NULL, NULL);
    for (size_t i = 0; i < es; ++i) raw[i] = (unsigned char)~raw[i];
  }
  if (err == CL_SUCCESS) err = clEnqueueWriteBuffer(ctx->queue, buf, CL_TRUE, offset * es, es, raw, 0, NULL, NULL);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, "test fault injection");
}
