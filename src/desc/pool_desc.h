/* clforge_pool's descriptor resolved and checked once, for the device op
 * and the reference alike. */
#ifndef CLFORGE_SRC_POOL_DESC_H
#define CLFORGE_SRC_POOL_DESC_H

#include "clforge/clforge.h"

typedef struct clforge__pool {
  int kind, nhwc, exclude_pad;
  size_t n, c, h, w, p, q;   /* input and output planes */
  size_t kh, kw, sh, sw, ph, pw, dh, dw;
  size_t divisor;            /* 0: the window's */
  clforge_dtype x_type, y_type;
  size_t x_offset, y_offset;
  size_t x_count, y_count;   /* n c h w, n c p q */
} clforge__pool;

/* Defaults, enums, reserved fields, PyTorch's rules (kernel, stride and
 * dilation >= 1, pad at most half the dilated kernel, an output of at
 * least 1 x 1), sizes and offsets without overflow; failures recorded on
 * ctx (may be NULL) naming op. */
clforge_status clforge__pool_resolve(clforge_context ctx, const char *op, const clforge_pool_desc *desc,
                                     clforge__pool *d);

#endif
