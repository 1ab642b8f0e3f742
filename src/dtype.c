#include <string.h>

#include "clforge/clforge.h"
#include "error.h"

size_t clforge_dtype_size(clforge_dtype dtype) {
  switch (dtype) {
    case CLFORGE_F32: return 4;
    case CLFORGE_F16:
    case CLFORGE_BF16: return 2;
  }
  return 0;
}

const char *clforge_dtype_name(clforge_dtype dtype) {
  switch (dtype) {
    case CLFORGE_F32: return "f32";
    case CLFORGE_F16: return "f16";
    case CLFORGE_BF16: return "bf16";
  }
  return NULL;
}

clforge_status clforge_dtype_from_name(const char *name, clforge_dtype *out) {
  clforge__clear_error(NULL);
  if (!name || !out) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_dtype_from_name: %s is NULL",
                                          !name ? "name" : "out");
  /* The inverse of clforge_dtype_name, so the two cannot disagree. */
  static const clforge_dtype all[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (!strcmp(name, clforge_dtype_name(all[i]))) {
      *out = all[i];
      return CLFORGE_SUCCESS;
    }
  return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT,
                       "clforge_dtype_from_name: unknown dtype \"%.64s%s\" (expected f32, f16 or bf16)", name,
                       strlen(name) > 64 ? "..." : "");
}
