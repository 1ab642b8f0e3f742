/* Reference twin of clforge_convert. */
#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "element.h"
#include "clforge/clforge.h"

clforge_status clforge_ref_convert(size_t n, const void *src, clforge_dtype src_type, void *dst,
                                   clforge_dtype dst_type) {
  clforge__clear_error(NULL);
  if (!clforge__float_dtype_size(src_type) || !clforge__float_dtype_size(dst_type))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "unknown dtype or not a float one (src_type %d, dst_type %d)",
                         (int)src_type, (int)dst_type);
  if (n == 0) return CLFORGE_SUCCESS;
  if (!src || !dst) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "src or dst is NULL with n = %zu", n);
  if (n > SIZE_MAX / 4) return clforge__fail(NULL, CLFORGE_SIZE_OVERFLOW, "n = %zu elements overflows size_t bytes", n);
  uintptr_t s0 = (uintptr_t)src, s1 = s0 + n * clforge_dtype_size(src_type);
  uintptr_t d0 = (uintptr_t)dst, d1 = d0 + n * clforge_dtype_size(dst_type);
  if (s0 < d1 && d0 < s1 && !(s0 == d0 && src_type == dst_type))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "src and dst overlap (only an identical range of one dtype may)");
  if (src_type == dst_type) { /* a copy: keeps every bit, NaN payloads too */
    memmove(dst, src, n * clforge_dtype_size(src_type));
    return CLFORGE_SUCCESS;
  }
  /* Through f32: f16 and bf16 widen exactly, so one rounding happens. */
  for (size_t i = 0; i < n; ++i) clforge__ref_store(dst, dst_type, i, clforge__ref_load(src, src_type, i));
  return CLFORGE_SUCCESS;
}
