/* clforge_gemm_gate_interleave: the fused gate-and-up weight of
 * CLFORGE_GEMM_GATE_INTERLEAVED from a checkpoint's two, on the host (a
 * model loader's step, once). */
#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"

clforge_status clforge_gemm_gate_interleave(const void *gate, const void *up, size_t rows, size_t row_bytes,
                                            void *out) {
  clforge__clear_error(NULL);
  if (rows == 0 || row_bytes == 0) return CLFORGE_SUCCESS;
  if (!gate || !up || !out)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "gemm_gate_interleave: gate, up or out is NULL");
  size_t half;
  if (!clforge__size_mul(rows, row_bytes, &half) || half > SIZE_MAX / 2)
    return clforge__fail(NULL, CLFORGE_SIZE_OVERFLOW, "gemm_gate_interleave: %zu rows of %zu bytes overflow size_t",
                         rows, row_bytes);
  /* out (2 * half bytes) must not share a byte with either input */
  const uintptr_t o = (uintptr_t)out, in[2] = {(uintptr_t)gate, (uintptr_t)up};
  for (int i = 0; i < 2; ++i)
    if (o < in[i] + half && in[i] < o + 2 * half)
      return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "gemm_gate_interleave: out overlaps %s",
                           i ? "up" : "gate");
  unsigned char *dst = out;
  const unsigned char *g = gate, *u = up;
  for (size_t r = 0; r < rows; ++r) {
    memcpy(dst + 2 * r * row_bytes, g + r * row_bytes, row_bytes);
    memcpy(dst + (2 * r + 1) * row_bytes, u + r * row_bytes, row_bytes);
  }
  return CLFORGE_SUCCESS;
}
