#include "softmax_classes.h"

#include <math.h>

/* clang-format off */
const clforge__shape_class clforge__softmax_classes[] = {
    {"attn_2048",  {8 * 2048, 2048}, 2.0}, /* unfused attention scores, 8 heads, S = 2048 */
    {"attn_512",   {8 * 512, 512}, 1.0},   /* the same at S = 512 */
    {"vocab",      {32, 32000}, 1.0},      /* llama-size vocabulary logits, 32 tokens */
    {"short_128",  {4096, 128}, 1.0},      /* short rows: windowed attention, small classifiers */
    {NULL, {0}, 0}};
/* clang-format on */

const char *clforge__nearest_class(const clforge__shape_class *classes, int dim, size_t value) {
  const char *best = classes[0].name;
  double bd = INFINITY;
  for (const clforge__shape_class *c = classes; c->name; ++c) {
    const double d = fabs(log((double)(value ? value : 1)) - log((double)c->shape[dim]));
    if (d < bd) bd = d, best = c->name;
  }
  return best;
}

const char *clforge__row_class(const clforge__shape_class *classes, size_t n) {
  return clforge__nearest_class(classes, 1, n);
}

const char *clforge__softmax_shape_class(size_t rows, size_t n) {
  (void)rows;
  return clforge__row_class(clforge__softmax_classes, n);
}
