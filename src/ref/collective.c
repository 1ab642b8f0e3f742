/* Reference twin of the reductions of clforge_allreduce and
 * clforge_reduce_scatter: the documented order, one element at a time
 * (src/comm/reduce_host.c computes the same order in blocks; the tests
 * compare the two bit for bit). */
#include <math.h>
#include <stdint.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "element.h"
#include "clforge/clforge.h"

/* NaN wins (the first one), equal values keep +0 for max and -0 for min. */
static float pick(clforge_reduce_op op, float s, float x) {
  if (isnan(s)) return s;
  if (isnan(x)) return x;
  if (s == x) return (op == CLFORGE_REDUCE_MAX) == !signbit(s) ? s : x;
  return (op == CLFORGE_REDUCE_MAX) == (x > s) ? x : s;
}

clforge_status clforge_ref_allreduce(const clforge_collective_desc *desc, int nranks, const void *const *send,
                                     void *recv) {
  clforge__clear_error(NULL);
  if (!desc) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_ref_allreduce: desc is NULL");
  if (!clforge__float_dtype_size(desc->dtype))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_ref_allreduce: dtype %d is not f32, f16 or bf16",
                         (int)desc->dtype);
  if ((unsigned)desc->op > CLFORGE_REDUCE_MIN)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_ref_allreduce: op %d is not a clforge_reduce_op",
                         (int)desc->op);
  if (nranks < 1) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_ref_allreduce: nranks = %d", nranks);
  if (desc->count == 0) return CLFORGE_SUCCESS;
  if (!send || !recv) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_ref_allreduce: send or recv is NULL");
  for (int r = 0; r < nranks; ++r)
    if (!send[r]) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_ref_allreduce: send[%d] is NULL", r);
  for (size_t i = 0; i < desc->count; ++i) {
    float s = clforge__ref_load(send[0], desc->dtype, i);
    for (int r = 1; r < nranks; ++r) {
      const float x = clforge__ref_load(send[r], desc->dtype, i);
      s = desc->op <= CLFORGE_REDUCE_MEAN ? s + x : pick(desc->op, s, x);
    }
    if (desc->op == CLFORGE_REDUCE_MEAN) s = s / (float)nranks;
    clforge__ref_store(recv, desc->dtype, i, s);
  }
  return CLFORGE_SUCCESS;
}
