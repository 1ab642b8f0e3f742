#include "quant_check.h"

#include <stdint.h>
#include <stdlib.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/validate.h"

clforge_status clforge__quant_read_copy(clforge_context ctx, const char *op, cl_mem buf, size_t offset, size_t count,
                                        size_t es, void **out) {
  *out = calloc(offset + count + 1, es);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s validation: no memory", op);
  return buf && count ? clforge__read_buffer(ctx, buf, offset * es, count * es, (char *)*out + offset * es)
                      : CLFORGE_SUCCESS;
}

clforge_status clforge__quant_fault(clforge_context ctx, const char *op, cl_mem out, size_t byte_offset) {
  if (!clforge__test_fault_armed(ctx, op)) return CLFORGE_SUCCESS;
  unsigned char byte;
  clforge_status st = clforge__read_buffer(ctx, out, byte_offset, 1, &byte);
  if (st != CLFORGE_SUCCESS) return st;
  byte ^= 0x01;
  cl_int err = clEnqueueWriteBuffer(ctx->queue, out, CL_TRUE, byte_offset, 1, &byte, 0, NULL, NULL);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, "test fault injection");
}

clforge_status clforge__quant_compare(clforge_context ctx, const char *op, const char *what, clforge_dtype type,
                                      int gelu, size_t n, const unsigned char *got, const unsigned char *want) {
  const size_t es = clforge_dtype_size(type);
  const int int8 = type == CLFORGE_S8 || type == CLFORGE_U8;
  for (size_t i = 0; i < n * es; ++i) {
    if (got[i] == want[i]) continue;
    if (gelu && !int8 && type != CLFORGE_S32) /* tanh/erf: the float tolerance */
      return clforge__validate(ctx, op, type, n, got, want, clforge__tolerance_for(type));
    const int s8 = type == CLFORGE_S8;
    const int gv = s8 ? (int)(int8_t)got[i] : (int)got[i], wv = s8 ? (int)(int8_t)want[i] : (int)want[i];
    if (gelu && int8 && abs(gv - wv) <= 1) continue; /* requantized GELU: one step */
    return clforge__fail(ctx, CLFORGE_VALIDATION_FAILED,
                         "%s: validation failed: element %zu of %s differs from the reference (byte %zu: 0x%02x, the "
                         "reference's 0x%02x)",
                         op, i / es, what, i % es, got[i], want[i]);
  }
  return CLFORGE_SUCCESS;
}
