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

#endif
