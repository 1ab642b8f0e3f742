/* The reserved fields of public structs ("leave zero"): room for later
 * fields without breaking the ABI. A set one is refused rather than
 * ignored, so that a caller built against a later header (or a struct
 * left uninitialized) is told instead of silently getting today's meaning.
 * One message for every struct: "<op>: <struct>.<field>[i] must be NULL"
 * (or "must be 0" for sizes). */
#ifndef CLFORGE_SRC_RESERVED_H
#define CLFORGE_SRC_RESERVED_H

#include <stddef.h>

#include "clforge/clforge.h"

#define CLFORGE_COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* CLFORGE_SUCCESS when all n entries are NULL (resp. 0); otherwise the first
 * set one is recorded on ctx (may be NULL) as CLFORGE_INVALID_ARGUMENT.
 * field names it as the user writes it: "clforge_gemm_desc.reserved". */
clforge_status clforge__check_reserved_ptrs(clforge_context ctx, const char *op, const char *field,
                                            void *const *entries, size_t n);
clforge_status clforge__check_reserved_sizes(clforge_context ctx, const char *op, const char *field,
                                             const size_t *entries, size_t n);

#endif
