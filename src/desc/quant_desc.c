#include "quant_desc.h"

#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

/* (rows - 1) * ld + row + offset, without overflow (and within SIZE_MAX / 8
 * so that byte counts of any element size stay representable). */
static int span_ok(size_t rows, size_t ld, size_t row, size_t offset, size_t *count) {
  const size_t lim = SIZE_MAX / 8;
  if (rows - 1 > 0 && ld > lim / (rows - 1)) return 0;
  const size_t s = (rows - 1) * ld;
  if (row > lim - s || offset > lim - s - row) return 0;
  *count = s + row;
  return 1;
}

clforge_status clforge__quant_resolve(clforge_context ctx, const char *op, const clforge_quant_desc *desc,
                                      int quantize, clforge__quant *q) {
  memset(q, 0, sizeof *q);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_quant_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  if ((unsigned)desc->scheme > CLFORGE_QUANT_Q8_0)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown scheme %d", op, (int)desc->scheme);
  if ((unsigned)desc->scales > CLFORGE_QUANT_SCALES_COMPUTE)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown scales %d", op, (int)desc->scales);
  if (!quantize && desc->scales)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc->scales is quantize's (leave it 0)", op);
  if (desc->scheme == CLFORGE_QUANT_Q8_0 && desc->scales)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: q8_0 computes its scales into its blocks (leave desc->scales 0)", op);
  q->scheme = (int)desc->scheme, q->compute = desc->scales == CLFORGE_QUANT_SCALES_COMPUTE;
  q->rows = desc->rows, q->cols = desc->cols;
  q->x_type = desc->x_type ? desc->x_type : CLFORGE_F32;
  q->q_type = desc->q_type ? desc->q_type : CLFORGE_S8;
  if (!clforge__float_dtype_size(q->x_type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: x_type %d is not f32, f16 or bf16", op, (int)desc->x_type);
  if (!clforge__dtype_is_int8(q->q_type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: q_type %d is not s8 or u8", op, (int)desc->q_type);
  if (q->scheme == CLFORGE_QUANT_Q8_0 && q->q_type != CLFORGE_S8)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: q8_0 holds s8 values (q_type u8)", op);
  q->qmin = q->q_type == CLFORGE_S8 ? -128 : 0;
  q->qmax = q->q_type == CLFORGE_S8 ? 127 : 255;
  q->x_offset = desc->x_offset, q->q_offset = desc->q_offset;
  q->scale_offset = desc->scale_offset, q->zp_offset = desc->zero_point_offset;
  if (q->rows == 0 || q->cols == 0) return CLFORGE_SUCCESS;
  if (q->scheme == CLFORGE_QUANT_Q8_0) {
    if (q->cols % CLFORGE__Q8_0_BLOCK)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "%s: q8_0 needs cols (%zu) to be a multiple of its block of %d values", op, q->cols,
                           CLFORGE__Q8_0_BLOCK);
    if (q->cols > SIZE_MAX / 8 / CLFORGE__Q8_0_BYTES)
      return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: cols = %zu overflows", op, q->cols);
    q->row_bytes = q->cols / CLFORGE__Q8_0_BLOCK * CLFORGE__Q8_0_BYTES;
  } else {
    q->row_bytes = q->cols;
  }
  q->ldx = desc->ldx ? desc->ldx : q->cols;
  q->ldq = desc->ldq ? desc->ldq : q->row_bytes;
  if (q->ldx < q->cols)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: ldx = %zu is below cols = %zu", op, q->ldx, q->cols);
  if (q->ldq < q->row_bytes)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: ldq = %zu bytes is below a row's %zu bytes", op, q->ldq,
                         q->row_bytes);
  if (!span_ok(q->rows, q->ldx, q->cols, q->x_offset, &q->x_count))
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: x's extent (rows %zu, ldx %zu, offset %zu) overflows", op,
                         q->rows, q->ldx, q->x_offset);
  if (!span_ok(q->rows, q->ldq, q->row_bytes, q->q_offset, &q->q_bytes))
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: q's extent (rows %zu, ldq %zu, offset %zu) overflows", op,
                         q->rows, q->ldq, q->q_offset);
  switch (q->scheme) {
    case CLFORGE_QUANT_PER_TENSOR: q->nscales = 1; break;
    case CLFORGE_QUANT_PER_ROW: q->nscales = q->rows, q->srow = 1; break;
    case CLFORGE_QUANT_PER_COLUMN: q->nscales = q->cols, q->scol = 1; break;
    default: break;
  }
  if (q->nscales && (q->scale_offset > SIZE_MAX / 8 - q->nscales || q->zp_offset > SIZE_MAX / 8 - q->nscales))
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: scale or zero-point offset + count overflows", op);
  return CLFORGE_SUCCESS;
}
