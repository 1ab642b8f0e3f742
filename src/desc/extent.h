/* Checked extent arithmetic for the descriptors' resolvers. */
#ifndef CLFORGE_SRC_DESC_EXTENT_H
#define CLFORGE_SRC_DESC_EXTENT_H

#include <stddef.h>

/* a + b * c when it stays within lim, else 0 and *ok = 0 (chains: once
 * *ok is 0 every later step gives 0). */
static inline size_t clforge__mad_within(size_t a, size_t b, size_t c, size_t lim, int *ok) {
  if (!*ok || a > lim || (c && b > (lim - a) / c)) {
    *ok = 0;
    return 0;
  }
  return a + b * c;
}

/* tokens x heads rows of d elements at strides ts, hs apart: one stride
 * steps over the other's whole run (tokens outer, as [T, H, D], or heads
 * outer, as [H, T, D]); an axis of one row needs no stride. */
static inline int clforge__rows_apart(size_t tokens, size_t heads, size_t d, size_t ts, size_t hs) {
  const int tok_outer = (heads < 2 || hs >= d) && (tokens < 2 || ts >= (heads - 1) * hs + d);
  const int head_outer = (tokens < 2 || ts >= d) && (heads < 2 || hs >= (tokens - 1) * ts + d);
  return tok_outer || head_outer;
}

#endif
