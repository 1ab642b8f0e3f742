#include "gemm_desc.h"

#include <stdint.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/log.h"
#include "../core/reserved.h"

static int add_ok(size_t a, size_t b, size_t *out) {
  if (b > SIZE_MAX - a) return 0;
  *out = a + b;
  return 1;
}

/* Extent of one operand: offset + (batch-1)*stride + (rows-1)*ld + cols. */
static clforge_status operand_extent(clforge_context ctx, clforge__gemm_operand *o, size_t batch, const char *line) {
  o->extent = o->offset;
  if (o->rows == 0 || o->cols == 0) return CLFORGE_SUCCESS;
  if (o->ld == 0) o->ld = o->cols; /* tight */
  if (o->ld < o->cols)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "gemm: ld%s = %zu is too small: each stored %s of %s holds %zu elements",
                         o->name, o->ld, line, o->name, o->cols);
  size_t span, batch_span, e;
  if (!clforge__size_mul(o->rows - 1, o->ld, &span) || !add_ok(span, o->cols, &span) ||
      !clforge__size_mul(batch - 1, o->stride, &batch_span) || !add_ok(batch_span, span, &e) || !add_ok(e, o->offset, &e) ||
      e > SIZE_MAX / 4)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "gemm: the extent of %s overflows size_t", o->name);
  o->extent = e;
  o->span = span;
  if (o->ld > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "gemm: ld%s = %zu exceeds clforge's limit of 2^32 - 1", o->name,
                         o->ld);
  return CLFORGE_SUCCESS;
}

clforge__footprint clforge__gemm_footprint(const clforge__gemm_operand *o, size_t batch) {
  size_t es = clforge__gemm_operand_es(o);
  /* stride 0 broadcasts one matrix to every item: it is touched once */
  clforge__footprint f = {o->offset * es, o->cols * es, o->ld * es, o->rows, o->stride * es, o->stride ? batch : 1};
  if (o->extent == o->offset) f.rows = 0; /* not read or written */
  return f;
}

clforge_status clforge__gemm_resolve(clforge_context ctx, const clforge_gemm_desc *d, clforge__gemm *g) {
  return clforge__gemm_resolve_types(ctx, d, 0, g);
}

/* The int8 GEMM's types: s8/u8 A and B; C any but u8/s8/s32 or float. */
static int int8_types_ok(clforge_dtype *a, clforge_dtype *b, clforge_dtype *c) {
  if (*c == 0) *c = CLFORGE_F32;
  return clforge__dtype_is_int8(*a) && clforge__dtype_is_int8(*b) &&
         (clforge__float_dtype_size(*c) || clforge__dtype_is_int8(*c) || *c == CLFORGE_S32);
}

/* The enumerations, the reserved fields and the storage types (0 taken as
 * f32) into t: a, b, c, bias, aux. */
static clforge_status check_desc(clforge_context ctx, const clforge_gemm_desc *d, int int8, clforge__gemm *g,
                                 clforge_dtype t[5]) {
  if ((unsigned)d->layout > CLFORGE_COL_MAJOR || (unsigned)d->trans_a > CLFORGE_TRANS ||
      (unsigned)d->trans_b > CLFORGE_TRANS || (unsigned)d->bias_mode > CLFORGE_BIAS_COLUMN ||
      (unsigned)d->activation > CLFORGE_ACT_SILU || (unsigned)d->alpha_mode > CLFORGE_ALPHA_AS_GIVEN ||
      (unsigned)d->aux_mode > CLFORGE_GEMM_AUX_BACKWARD || (unsigned)d->compute_type > CLFORGE_COMPUTE_16F ||
      (unsigned)d->gate > CLFORGE_GEMM_GATE_INTERLEAVED)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "gemm: unknown enum value (layout %d, trans_a %d, trans_b %d, bias_mode %d, activation %d, "
                         "alpha_mode %d, aux_mode %d, compute_type %d, gate %d)",
                         (int)d->layout, (int)d->trans_a, (int)d->trans_b, (int)d->bias_mode, (int)d->activation,
                         (int)d->alpha_mode, (int)d->aux_mode, (int)d->compute_type, (int)d->gate);
  /* the gate's room: the bytes beyond the enum stay reserved (zero) */
  unsigned char room[sizeof d->gate_room_];
  memcpy(room, &d->gate_room_, sizeof room);
  for (size_t i = sizeof d->gate; i < sizeof room; ++i)
    if (room[i])
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "gemm: clforge_gemm_desc's gate room has bits set beyond the gate (byte %zu): leave them zero",
                           i);
  if (int8 && d->activation == CLFORGE_ACT_SILU)
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "gemm_quantized: activation SiLU is not supported (ReLU, GELU)");
  if (d->gate && (int8 || d->layout != CLFORGE_ROW_MAJOR || d->beta != 0.0f || d->aux_mode))
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                         "%s: a gated epilogue (gate %d) needs a float GEMM, row-major, beta 0 and no aux "
                         "(layout %d, beta %g, aux_mode %d)",
                         int8 ? "gemm_quantized" : "gemm", (int)d->gate, (int)d->layout, (double)d->beta,
                         (int)d->aux_mode);
  g->gate = (int)d->gate;
  clforge__resolve_compute_type(ctx, "gemm", d->compute_type, &g->compute_type); /* (checked above) */
  t[0] = d->a_type, t[1] = d->b_type, t[2] = d->c_type, t[3] = d->bias_type, t[4] = d->aux_type;
  if (int8 && (!int8_types_ok(&t[0], &t[1], &t[2]) || !clforge__float_dtype_ok(&t[3]) || !clforge__float_dtype_ok(&t[4])))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "gemm_quantized: A and B must be s8 or u8, C s32, s8, u8, f32, f16 or bf16 (a %d, b %d, c %d)",
                         (int)d->a_type, (int)d->b_type, (int)d->c_type);
  const int q8_0 = !int8 && t[1] == CLFORGE_Q8_0;
  if (!int8 && (!clforge__float_dtype_ok(&t[0]) || (!q8_0 && !clforge__float_dtype_ok(&t[1])) || !clforge__float_dtype_ok(&t[2]) || !clforge__float_dtype_ok(&t[3]) || !clforge__float_dtype_ok(&t[4])))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "gemm: unknown dtype or not a float one (a %d, b %d, c %d, bias %d, aux %d)",
                         (int)d->a_type, (int)d->b_type, (int)d->c_type, (int)d->bias_type, (int)d->aux_type);
  /* q8_0 weights: W (n x k) as llama.cpp stores a linear layer's, its
   * blocks along k, so op(B) = W^T */
  if (q8_0 && (d->layout != CLFORGE_ROW_MAJOR || d->trans_b != CLFORGE_TRANS || d->k % 32 || d->aux_mode))
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                         "gemm: q8_0 weights (b_type) need a row-major call, trans_b = CLFORGE_TRANS (W stored n x k, "
                         "its 32-value blocks along k), k a multiple of 32 and no aux (layout %d, trans_b %d, k %zu, "
                         "aux_mode %d)",
                         (int)d->layout, (int)d->trans_b, d->k, (int)d->aux_mode);
  return CLFORGE_SUCCESS;
}

/* The operands in the row-major view (a column-major call swaps A and B),
 * their stored shapes, and which of bias and aux are touched. */
static void place_operands(const clforge_gemm_desc *d, const clforge_dtype t[5], clforge__gemm *g) {
  /* The user's operands as stored (row-major view of their storage). */
  int col = d->layout == CLFORGE_COL_MAJOR;
  clforge__gemm_operand ua = {"a", t[0], d->a_offset, d->lda, d->stride_a, 0, 0, 0, 0, d->trans_a == CLFORGE_TRANS};
  clforge__gemm_operand ub = {"b", t[1], d->b_offset, d->ldb, d->stride_b, 0, 0, 0, 0, d->trans_b == CLFORGE_TRANS};
  clforge__gemm_operand uc = {"c", t[2], d->c_offset, d->ldc, d->stride_c, 0, 0, 0, 0, 0};
  clforge__gemm_operand ubias = {"bias", t[3], d->bias_offset, 0, 0, 0, 0, 0, 0, 0};
  if (!col) { /* gated: the product has two columns per column of C (checked: n < 2^31) */
    g->m = d->m, g->n = g->gate ? 2 * d->n : d->n, g->k = d->k;
    g->a = ua, g->b = ub;
    g->bias_mode = (int)d->bias_mode;
  } else { /* C^T = op(B)^T op(A)^T: the row-major view swaps the roles */
    g->m = d->n, g->n = d->m, g->k = d->k;
    g->a = ub, g->b = ua;
    g->swapped = 1;
    g->bias_mode = d->bias_mode == CLFORGE_BIAS_ROW ? CLFORGE_BIAS_COLUMN
                   : d->bias_mode == CLFORGE_BIAS_COLUMN ? CLFORGE_BIAS_ROW
                                                         : CLFORGE_BIAS_NONE;
  }
  g->c = uc;
  g->bias = ubias;
  g->aux_mode = (int)d->aux_mode;
  g->kernel_bias = g->aux_mode == CLFORGE_GEMM_AUX_BACKWARD ? CLFORGE_BIAS_NONE : g->bias_mode;
  /* Stored shapes in the row-major view: op(A) is m x k, op(B) is k x n. */
  g->a.rows = g->a.trans ? g->k : g->m, g->a.cols = g->a.trans ? g->m : g->k;
  g->b.rows = g->b.trans ? g->n : g->k, g->b.cols = g->b.trans ? g->k : g->n;
  if (g->b.type == CLFORGE_Q8_0) g->b.cols = g->k / 32 * 34; /* bytes of a row of W (trans_b checked) */
  g->c.rows = g->m, g->c.cols = g->gate ? g->n / 2 : g->n;
  g->bias.rows = g->bias_mode ? 1 : 0;
  g->bias.cols = g->bias_mode == CLFORGE_BIAS_ROW ? g->m : g->bias_mode == CLFORGE_BIAS_COLUMN ? g->n : 0;
  if (g->m == 0 || g->n == 0) { /* nothing is computed: nothing is read */
    g->a.rows = g->b.rows = g->c.rows = g->bias.rows = 0;
  }
  /* aux: C's shape and ld in its own buffer, when the mode touches it */
  const int aux_used = g->aux_mode == CLFORGE_GEMM_AUX_STORE ||
                       (g->aux_mode == CLFORGE_GEMM_AUX_BACKWARD && g->act != CLFORGE_ACT_NONE);
  g->aux = g->c;
  g->aux.name = "aux", g->aux.type = t[4], g->aux.offset = d->aux_offset;
  if (!aux_used) g->aux.rows = 0;
}

/* Each operand's extent, then the kernels' limits, then C's batch items
 * apart from one another. */
static clforge_status check_extents(clforge_context ctx, const clforge_gemm_desc *d, clforge__gemm *g) {
  clforge_status st = CLFORGE_SUCCESS;
  clforge__gemm_operand *ops[5] = {&g->a, &g->b, &g->c, &g->bias, &g->aux};
  for (int i = 0; i < 5 && st == CLFORGE_SUCCESS; ++i) {
    clforge__gemm_operand *o = ops[i];
    if (i == 3) o->stride = 0; /* one bias for every batch item */
    st = operand_extent(ctx, o, g->batch, d->layout == CLFORGE_COL_MAJOR ? "column" : "row");
    if (o->span >= ((size_t)1 << 32)) g->idx64 = 1;
  }
  if (st != CLFORGE_SUCCESS) return st;
  /* Limits of clforge's kernels (after the overflow checks above, so that an
   * extent that cannot be represented says so): below 2^31, the kernels'
   * uint index math (tile origin + offsets) does not wrap. */
  if (d->m > INT32_MAX || d->n > INT32_MAX || d->k > INT32_MAX || g->n > INT32_MAX) /* g->n: a gated product's 2n */
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED,
                         "gemm: m, n (twice n when gated) and k must be below 2^31, clforge's limit on every device "
                         "(m %zu, n %zu, k %zu)",
                         d->m, d->n, d->k);
  if (g->batch > UINT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "gemm: batch %zu exceeds clforge's limit of 2^32 - 1", g->batch);
  /* Batch items of C must not share an element: they are written
   * concurrently. Decided by the elements each item touches, so items side
   * by side in the rows of one matrix (stride_c >= n, all within ldc) pass. */
  if (g->batch > 1 && g->m && g->n) {
    clforge__footprint c = clforge__gemm_footprint(&g->c, g->batch);
    c.items = g->batch; /* every item is written, stride_c = 0 included */
    if (clforge__footprint_items_overlap(&c))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "gemm: batch items of C would overlap: with stride_c = %zu, ldc = %zu and %zu x %zu items, "
                           "two of the %zu items share elements",
                           g->c.stride, g->c.ld, g->c.rows, g->c.cols, g->batch);
  }
  return CLFORGE_SUCCESS;
}

clforge_status clforge__gemm_resolve_types(clforge_context ctx, const clforge_gemm_desc *d, int int8,
                                           clforge__gemm *g) {
  memset(g, 0, sizeof *g);
  if (!d) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "gemm: desc is NULL");
  clforge_dtype t[5] = {0};
  clforge_status st = check_desc(ctx, d, int8, g, t);
  if (st != CLFORGE_SUCCESS) return st;
  g->batch = d->batch ? d->batch : 1;
  /* Left out (+0.0, the zero-initialized bits, in the default mode), alpha
   * is 1: see clforge_alpha_mode. An explicit -0.0 is a zero alpha. */
  uint32_t alpha_bits;
  memcpy(&alpha_bits, &d->alpha, sizeof alpha_bits);
  g->alpha = alpha_bits == 0 && d->alpha_mode == CLFORGE_ALPHA_DEFAULT_ONE ? 1.0f : d->alpha;
  if (alpha_bits == 0 && d->alpha_mode == CLFORGE_ALPHA_DEFAULT_ONE)
    clforge__log(CLFORGE_LOG_DEBUG, "gemm: alpha left out (0): using 1 (alpha_mode = CLFORGE_ALPHA_AS_GIVEN for a zero alpha)");
  g->beta = d->beta;
  g->act = (int)d->activation;
  place_operands(d, t, g);
  return check_extents(ctx, d, g);
}
