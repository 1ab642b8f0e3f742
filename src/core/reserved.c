#include "reserved.h"

#include "error.h"

static clforge_status refuse(clforge_context ctx, const char *op, const char *field, size_t i, const char *zero) {
  return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s[%zu] must be %s (reserved for later use: leave it zero)",
                       op, field, i, zero);
}

clforge_status clforge__check_reserved_ptrs(clforge_context ctx, const char *op, const char *field,
                                            void *const *entries, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (entries[i]) return refuse(ctx, op, field, i, "NULL");
  return CLFORGE_SUCCESS;
}

clforge_status clforge__check_reserved_sizes(clforge_context ctx, const char *op, const char *field,
                                             const size_t *entries, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (entries[i]) return refuse(ctx, op, field, i, "0");
  return CLFORGE_SUCCESS;
}
