#include "clforge/clforge.h"

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
