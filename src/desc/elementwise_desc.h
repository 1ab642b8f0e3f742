/* clforge_elementwise's descriptor resolved and checked once, for the
 * device op and the reference alike: the broadcast shape, collapsed to the
 * fewest dimensions that address a, b and y alike. */
#ifndef CLFORGE_SRC_ELEMENTWISE_DESC_H
#define CLFORGE_SRC_ELEMENTWISE_DESC_H

#include "clforge/clforge.h"

typedef struct clforge__ew {
  int op, act;
  int nd;                                  /* collapsed dimensions, 1..CLFORGE_MAX_DIMS */
  size_t shape[CLFORGE_MAX_DIMS];          /* y's, collapsed, outermost first */
  size_t as[CLFORGE_MAX_DIMS], bs[CLFORGE_MAX_DIMS]; /* a's and b's element strides (0: broadcast) */
  size_t count, a_count, b_count;          /* elements of y, a, b */
  int a_full, b_full;                      /* the input has y's shape (may be y, in place) */
  clforge_dtype a_type, b_type, y_type;
  size_t a_offset, b_offset, y_offset;
} clforge__ew;

/* Enums, reserved fields, shapes that broadcast, sizes and offsets without
 * overflow; failures recorded on ctx (may be NULL) naming op. */
clforge_status clforge__ew_resolve(clforge_context ctx, const char *op, const clforge_elementwise_desc *desc,
                                   clforge__ew *d);

/* The element of a (which 0) or b (1) that y's element i reads. */
size_t clforge__ew_source(const clforge__ew *d, int which, size_t i);

#endif
