/* A cross-entropy descriptor resolved and checked once, for the device op,
 * the tuner and the reference alike (as softmax_desc.h is for softmax). */
#ifndef CLFORGE_SRC_CROSS_ENTROPY_DESC_H
#define CLFORGE_SRC_CROSS_ENTROPY_DESC_H

#include "clforge/clforge.h"
#include "../core/footprint.h"

typedef struct clforge__ce_rows {
  const char *name;      /* "logits", "dlogits" */
  clforge_dtype type;
  size_t offset, stride; /* elements (stride resolved: n for 0) */
  size_t extent;         /* elements the buffer must hold, offset included */
} clforge__ce_rows;

typedef struct clforge__ce {
  size_t rows, n;
  clforge__ce_rows logits, dlogits;
  size_t targets_offset, targets_extent; /* int32 elements */
  size_t loss_offset, loss_extent;       /* f32 elements: 1 value, or rows for NONE */
  size_t gscale_offset;                  /* f32 elements */
  clforge_reduction reduction;
  float smoothing;
  float grad_scale;                      /* resolved: 1 for 0 */
  int use_ignore;
  int32_t ignore_index;
} clforge__ce;

/* Resolve defaults and check enums, reserved fields, label smoothing and
 * the gradient scale, strides (>= n) and extents with overflow checks.
 * Failures are recorded on ctx (may be NULL). */
clforge_status clforge__ce_resolve(clforge_context ctx, const clforge_cross_entropy_desc *desc, clforge__ce *d);

/* The bytes a row tensor touches, from the start of its buffer. */
clforge__footprint clforge__ce_footprint(const clforge__ce *d, const clforge__ce_rows *t);

/* "f32,f16": the dtypes key of tuning entries (logits, dlogits). */
void clforge__ce_dtypes_key(const clforge__ce *d, char *buf, size_t cap);

/* Whether row r's target counts (not negative, not the ignore index). */
static inline int clforge__ce_counts(const clforge__ce *d, int32_t t) {
  return t >= 0 && !(d->use_ignore && t == d->ignore_index);
}

#endif
