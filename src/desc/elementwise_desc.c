#include "elementwise_desc.h"

#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

/* Elements of a dense shape; 0 when it overflows the limit (and *ok = 0). */
static size_t elements(const size_t *shape, size_t nd, int *ok) {
  size_t n = 1;
  for (size_t i = 0; i < nd; ++i) {
    if (shape[i] && n > (SIZE_MAX / 8) / shape[i]) *ok = 0;
    else n *= shape[i];
  }
  return *ok ? n : 0;
}

/* y's dimensions of size > 1 with a's and b's dense strides (0 where one
 * broadcasts), adjacent ones merged where both inputs step alike (as
 * PyTorch's TensorIterator coalesces). */
static void collapse(clforge__ew *d, size_t nd, const size_t *ash, const size_t *bsh, const size_t *ysh) {
  size_t astr[CLFORGE_MAX_DIMS], bstr[CLFORGE_MAX_DIMS], sa = 1, sb = 1;
  for (size_t i = nd; i-- > 0;) {
    astr[i] = ash[i] == 1 ? 0 : sa, bstr[i] = bsh[i] == 1 ? 0 : sb;
    sa *= ash[i], sb *= bsh[i];
  }
  int n = 0;
  for (size_t i = 0; i < nd; ++i) {
    if (ysh[i] == 1) continue;
    if (n && d->as[n - 1] == astr[i] * ysh[i] && d->bs[n - 1] == bstr[i] * ysh[i]) {
      d->shape[n - 1] *= ysh[i], d->as[n - 1] = astr[i], d->bs[n - 1] = bstr[i];
      continue;
    }
    d->shape[n] = ysh[i], d->as[n] = astr[i], d->bs[n] = bstr[i], ++n;
  }
  if (!n) d->shape[0] = 1, d->as[0] = d->bs[0] = 0, n = 1; /* one element */
  d->nd = n;
}

clforge_status clforge__ew_resolve(clforge_context ctx, const char *op, const clforge_elementwise_desc *desc,
                                   clforge__ew *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  if ((unsigned)desc->op > CLFORGE_BINARY_MIN)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown op %d (0 none .. 6 min)", op, (int)desc->op);
  if ((unsigned)desc->activation > CLFORGE_ACT_SILU)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown activation %d", op, (int)desc->activation);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_elementwise_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  if (!desc->ndims || desc->ndims > CLFORGE_MAX_DIMS)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: ndims %zu (1..%d)", op, desc->ndims, CLFORGE_MAX_DIMS);
  d->op = (int)desc->op, d->act = (int)desc->activation;
  d->a_type = desc->a_type ? desc->a_type : CLFORGE_F32, d->b_type = desc->b_type ? desc->b_type : CLFORGE_F32;
  d->y_type = desc->y_type ? desc->y_type : CLFORGE_F32;
  if (!clforge__float_dtype_size(d->a_type) || !clforge__float_dtype_size(d->y_type) ||
      (d->op && !clforge__float_dtype_size(d->b_type)))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: a storage type is not f32, f16 or bf16", op);
  const size_t nd = desc->ndims;
  size_t bsh[CLFORGE_MAX_DIMS], ysh[CLFORGE_MAX_DIMS];
  for (size_t i = 0; i < nd; ++i) {
    const size_t a = desc->a_shape[i], b = d->op ? desc->b_shape[i] : 1;
    if (a != b && a != 1 && b != 1)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "%s: the shapes do not broadcast: dimension %zu is %zu in a and %zu in b", op, i, a, b);
    bsh[i] = b, ysh[i] = a == 1 ? b : a;
  }
  int ok = 1;
  d->count = elements(ysh, nd, &ok), d->a_count = elements(desc->a_shape, nd, &ok), d->b_count = elements(bsh, nd, &ok);
  if (!ok) return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: the tensors' sizes overflow", op);
  if (desc->a_offset > SIZE_MAX / 8 - d->a_count || (d->op && desc->b_offset > SIZE_MAX / 8 - d->b_count) ||
      desc->y_offset > SIZE_MAX / 8 - d->count)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: an offset overflows", op);
  d->a_offset = desc->a_offset, d->b_offset = d->op ? desc->b_offset : 0, d->y_offset = desc->y_offset;
  d->a_full = d->a_count == d->count, d->b_full = d->op && d->b_count == d->count;
  collapse(d, nd, desc->a_shape, bsh, ysh);
  return CLFORGE_SUCCESS;
}

size_t clforge__ew_source(const clforge__ew *d, int which, size_t i) {
  const size_t *st = which ? d->bs : d->as;
  size_t at = 0;
  for (int k = d->nd - 1; k >= 0; --k) {
    at += i % d->shape[k] * st[k];
    i /= d->shape[k];
  }
  return at;
}
