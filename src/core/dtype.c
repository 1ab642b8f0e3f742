#include <stdint.h>
#include <string.h>

#include "clforge/clforge.h"
#include "dtype.h"
#include "error.h"

size_t clforge_dtype_size(clforge_dtype dtype) {
  switch (dtype) {
    case CLFORGE_F32: return 4;
    case CLFORGE_F16:
    case CLFORGE_BF16: return 2;
    case CLFORGE_S8:
    case CLFORGE_U8: return 1;
    case CLFORGE_S32: return 4;
    case CLFORGE_Q8_0: return 0; /* a block format: 34 bytes per 32 values */
  }
  return 0;
}

size_t clforge__float_dtype_size(clforge_dtype dtype) {
  return dtype == CLFORGE_F32 || dtype == CLFORGE_F16 || dtype == CLFORGE_BF16 ? clforge_dtype_size(dtype) : 0;
}

int clforge__dtype_is_int8(clforge_dtype dtype) { return dtype == CLFORGE_S8 || dtype == CLFORGE_U8; }

const char *clforge_dtype_name(clforge_dtype dtype) {
  switch (dtype) {
    case CLFORGE_F32: return "f32";
    case CLFORGE_F16: return "f16";
    case CLFORGE_BF16: return "bf16";
    case CLFORGE_S8: return "s8";
    case CLFORGE_U8: return "u8";
    case CLFORGE_S32: return "s32";
    case CLFORGE_Q8_0: return "q8_0";
  }
  return NULL;
}

clforge_status clforge_dtype_from_name(const char *name, clforge_dtype *out) {
  clforge__clear_error(NULL);
  if (!name || !out) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_dtype_from_name: %s is NULL",
                                          !name ? "name" : "out");
  /* The inverse of clforge_dtype_name, so the two cannot disagree. */
  static const clforge_dtype all[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16, CLFORGE_S8, CLFORGE_U8, CLFORGE_S32,
                                      CLFORGE_Q8_0};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (!strcmp(name, clforge_dtype_name(all[i]))) {
      *out = all[i];
      return CLFORGE_SUCCESS;
    }
  return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT,
                       "clforge_dtype_from_name: unknown dtype \"%.64s%s\" (expected f32, f16, bf16, s8, u8, s32 or q8_0)", name,
                       strlen(name) > 64 ? "..." : "");
}

int clforge__float_dtype_ok(clforge_dtype *t) {
  if (*t == 0) *t = CLFORGE_F32;
  return clforge__float_dtype_size(*t) != 0;
}

int clforge__size_mul(size_t a, size_t b, size_t *out) {
  if (a && b > SIZE_MAX / a) return 0;
  *out = a * b;
  return 1;
}
