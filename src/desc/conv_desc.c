#include "conv_desc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

/* Dims and strides of a 4-axis tensor whose axes (a0, a1, a2, a3) are
 * stored in the order given by `order` (a permutation: order[0] outermost). */
static void dense(clforge__conv_tensor *t, const size_t dims[4], const int order[4]) {
  memcpy(t->dims, dims, sizeof t->dims);
  size_t st = 1;
  for (int i = 3; i >= 0; --i) {
    t->stride[order[i]] = st;
    st *= dims[order[i]];
  }
}

static clforge_status extent(clforge_context ctx, clforge__conv_tensor *t, int ndims) {
  size_t count = 1;
  for (int i = 0; i < ndims; ++i)
    if (!clforge__size_mul(count, t->dims[i], &count))
      return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "conv2d: the size of %s overflows size_t", t->name);
  if (t->offset > SIZE_MAX / 8 || count > SIZE_MAX / 8 - t->offset)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "conv2d: offset + size of %s overflows", t->name);
  t->count = count;
  t->extent = t->offset + count;
  return CLFORGE_SUCCESS;
}

/* One output extent: (in + pads - dil*(f-1) - 1) / stride + 1, or 0 when
 * the dilated filter does not fit the padded input. */
static size_t out_size(size_t in, size_t pa, size_t pb, size_t f, size_t dil, size_t stride) {
  const size_t padded = in + pa + pb, span = dil * (f - 1) + 1;
  return padded < span ? 0 : (padded - span) / stride + 1;
}

/* int8 convolution's types: x and w s8/u8, y s32, s8/u8 or a float type
 * (0 = f32), bias a float type. */
static int int8_types_ok(clforge__conv *d) {
  if (d->y.type == 0) d->y.type = CLFORGE_F32;
  if (d->bias.type == 0) d->bias.type = CLFORGE_F32;
  return clforge__dtype_is_int8(d->x.type) && clforge__dtype_is_int8(d->filt.type) &&
         (clforge__float_dtype_size(d->y.type) || clforge__dtype_is_int8(d->y.type) || d->y.type == CLFORGE_S32) &&
         clforge__float_dtype_size(d->bias.type) && d->aux.type == 0;
}

/* The aux call's mode against the kind and the entry point, and the
 * activation the backward kinds may carry. */
static clforge_status check_aux(clforge_context ctx, const clforge_conv2d_desc *desc, int allow_aux) {
  if ((unsigned)desc->aux_mode > CLFORGE_GEMM_AUX_BACKWARD)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: unknown aux_mode %d", (int)desc->aux_mode);
  if (!desc->aux_mode && (desc->aux_type || desc->aux_offset))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: aux_type %d / aux_offset %zu without an aux_mode (leave them 0)", (int)desc->aux_type,
                         desc->aux_offset);
  if (desc->aux_mode && !allow_aux)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: aux_mode %d needs clforge_conv2d_aux (AUX_STORE) or "
                         "clforge_conv2d_backward_data_aux (AUX_BACKWARD)",
                         (int)desc->aux_mode);
  if (allow_aux && !(desc->aux_mode == CLFORGE_GEMM_AUX_STORE && desc->kind == CLFORGE_CONV_FORWARD) &&
      !(desc->aux_mode == CLFORGE_GEMM_AUX_BACKWARD && desc->kind == CLFORGE_CONV_BACKWARD_DATA))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: aux_mode %d with kind %d: clforge_conv2d_aux takes a forward with AUX_STORE (1), "
                         "clforge_conv2d_backward_data_aux a backward data with AUX_BACKWARD (2)",
                         (int)desc->aux_mode, (int)desc->kind);
  /* backward data's activation: the one whose derivative the aux call applies */
  const int act_ok = desc->kind == CLFORGE_CONV_FORWARD || desc->aux_mode == CLFORGE_GEMM_AUX_BACKWARD;
  if (!act_ok && desc->activation != CLFORGE_ACT_NONE)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: the backward kinds take no activation (activation = %d; leave it 0) but for "
                         "clforge_conv2d_backward_data_aux's derivative",
                         (int)desc->activation);
  return CLFORGE_SUCCESS;
}

/* The descriptor's enumerations, each against its largest value, in the
 * order they are reported: "conv2d: unknown <what> <value><hint>". */
static clforge_status check_enums(clforge_context ctx, const clforge_conv2d_desc *desc) {
  const struct {
    const char *what;
    int value;
    unsigned max;
    const char *hint;
  } enums[] = {
      {"x layout", (int)desc->x_layout, CLFORGE_NHWC, " (NCHW = 0, NHWC = 1)"},
      {"y layout", (int)desc->y_layout, CLFORGE_NHWC, " (NCHW = 0, NHWC = 1)"},
      {"filter layout", (int)desc->w_layout, CLFORGE_KRSC, " (KCRS = 0, KRSC = 1)"},
      {"activation", (int)desc->activation, CLFORGE_ACT_GELU_ERF, ""},
      {"alpha_mode", (int)desc->alpha_mode, CLFORGE_ALPHA_AS_GIVEN, ""},
      {"algo", (int)desc->algo, CLFORGE_CONV_ALGO_COUNT - 1, ""},
  };
  for (size_t i = 0; i < CLFORGE_COUNT_OF(enums); ++i)
    if ((unsigned)enums[i].value > enums[i].max)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: unknown %s %d%s", enums[i].what, enums[i].value,
                           enums[i].hint);
  return CLFORGE_SUCCESS;
}

/* Everything about the descriptor that is not a size: kind, aux, dimensions,
 * enumerations, reserved fields. */
static clforge_status check_modes(clforge_context ctx, const clforge_conv2d_desc *desc, int allow_aux) {
  if ((unsigned)desc->kind > CLFORGE_CONV_BACKWARD_FILTER)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: kind %d is not a known convolution (0 forward, 1 backward data, 2 backward filter)",
                         (int)desc->kind);
  clforge_status st = check_aux(ctx, desc, allow_aux);
  if (st != CLFORGE_SUCCESS) return st;
  if (desc->spatial_dims != 0 && desc->spatial_dims != 2)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: spatial_dims = %u (only 2-D: 0 or 2)",
                         desc->spatial_dims);
  st = check_enums(ctx, desc);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_reserved_sizes(ctx, "conv2d", "clforge_conv2d_desc.reserved_sizes", desc->reserved_sizes,
                                       CLFORGE_COUNT_OF(desc->reserved_sizes));
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_reserved_ptrs(ctx, "conv2d", "clforge_conv2d_desc.reserved", desc->reserved,
                                      CLFORGE_COUNT_OF(desc->reserved));
  return st;
}

/* The storage types, 0 taken as f32: the int8 entry's, or float ones. */
static clforge_status resolve_types(clforge_context ctx, const clforge_conv2d_desc *desc, int int8, clforge__conv *d) {
  d->x.type = desc->x_type, d->filt.type = desc->w_type, d->y.type = desc->y_type, d->bias.type = desc->bias_type;
  d->aux.type = desc->aux_type;
  if (int8 && !int8_types_ok(d))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d_quantized: x and w must be s8 or u8, y s32, s8, u8 or a float type, bias a float type "
                         "(x %d, w %d, y %d, bias %d)",
                         (int)desc->x_type, (int)desc->w_type, (int)desc->y_type, (int)desc->bias_type);
  if (!int8 && (!clforge__float_dtype_ok(&d->x.type) || !clforge__float_dtype_ok(&d->filt.type) || !clforge__float_dtype_ok(&d->y.type) || !clforge__float_dtype_ok(&d->bias.type) ||
                !clforge__float_dtype_ok(&d->aux.type)))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: unknown storage type or not a float one (x %d, w %d, y %d, bias %d, aux %d)", (int)desc->x_type,
                         (int)desc->w_type, (int)desc->y_type, (int)desc->bias_type, (int)desc->aux_type);
  return CLFORGE_SUCCESS;
}

/* Sizes, strides and pads (0 meaning 1 where it can), compute type, alpha. */
static clforge_status copy_geometry(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                    clforge__conv *d) {
  d->n = desc->n, d->c = desc->c, d->h = desc->h, d->w = desc->w, d->k = desc->k, d->r = desc->r, d->s = desc->s;
  d->groups = desc->groups ? desc->groups : 1;
  d->stride_h = desc->stride_h ? desc->stride_h : 1, d->stride_w = desc->stride_w ? desc->stride_w : 1;
  d->dil_h = desc->dilation_h ? desc->dilation_h : 1, d->dil_w = desc->dilation_w ? desc->dilation_w : 1;
  d->pad_t = desc->pad_top, d->pad_b = desc->pad_bottom, d->pad_l = desc->pad_left, d->pad_r = desc->pad_right;
  d->x_layout = desc->x_layout, d->y_layout = desc->y_layout, d->w_layout = desc->w_layout;
  d->act = (int)desc->activation;
  d->algo = desc->algo;
  clforge_status cst = clforge__resolve_compute_type(ctx, "conv2d", desc->compute_type, &d->compute_type);
  if (cst != CLFORGE_SUCCESS) return cst;
  d->alpha = desc->alpha;
  if (desc->alpha_mode == CLFORGE_ALPHA_DEFAULT_ONE && desc->alpha == 0.0f && !signbit(desc->alpha)) d->alpha = 1.0f;
  d->beta = desc->beta;
  d->has_bias = has_bias;
  return CLFORGE_SUCCESS;
}

/* Sizes at least 1, groups dividing the channels, everything below the
 * kernels' limit, and an output of at least 1 x 1 (p, q set here). */
static clforge_status check_sizes(clforge_context ctx, clforge__conv *d) {
  /* c = 0 is an empty dx for backward data (a no-op, as n = 0); the other
   * kinds would still write y or dbias from nothing */
  if ((!d->c && d->kind != CLFORGE_CONV_BACKWARD_DATA) || !d->h || !d->w || !d->r || !d->s)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: c = %zu, h = %zu, w = %zu, r = %zu, s = %zu: each must be >= 1",
                         d->c, d->h, d->w, d->r, d->s);
  if (d->c % d->groups || d->k % d->groups)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: groups = %zu must divide c = %zu and k = %zu",
                         d->groups, d->c, d->k);
  /* Every size the kernels see is below 2^31 (they index with int/uint). */
  const size_t lim = (size_t)INT32_MAX;
  const size_t all[] = {d->n, d->c, d->h, d->w, d->k, d->r, d->s, d->stride_h, d->stride_w, d->dil_h, d->dil_w,
                        d->pad_t, d->pad_b, d->pad_l, d->pad_r};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (all[i] > lim)
      return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "conv2d: a size or stride is %zu, above clforge's limit of 2^31 - 1",
                           all[i]);
  d->cg = d->c / d->groups, d->kg = d->k / d->groups;
  d->p = out_size(d->h, d->pad_t, d->pad_b, d->r, d->dil_h, d->stride_h);
  d->q = out_size(d->w, d->pad_l, d->pad_r, d->s, d->dil_w, d->stride_w);
  if (!d->p || !d->q)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d: output size %zu x %zu is below 1 x 1 (input %zu x %zu, pads %zu+%zu x %zu+%zu, "
                         "filter %zu x %zu dilated %zu x %zu, stride %zu x %zu)",
                         d->p, d->q, d->h, d->w, d->pad_t, d->pad_b, d->pad_l, d->pad_r, d->r, d->s, d->dil_h, d->dil_w,
                         d->stride_h, d->stride_w);
  return CLFORGE_SUCCESS;
}

/* Each tensor's name, dims, strides and extent from the checked sizes. */
static clforge_status lay_out_tensors(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                      clforge__conv *d) {
  static const int nchw[4] = {0, 1, 2, 3}, nhwc[4] = {0, 2, 3, 1};
  d->kind = desc->kind;
  /* The names the messages use: the backward kinds' own tensors. */
  const int bd = d->kind == CLFORGE_CONV_BACKWARD_DATA, bf = d->kind == CLFORGE_CONV_BACKWARD_FILTER;
  d->x.name = bd ? "dx" : "x", d->filt.name = bf ? "dw" : "w", d->y.name = bd || bf ? "dy" : "y";
  d->bias.name = bf || bd ? "dbias" : "bias";
  d->x.offset = desc->x_offset, d->filt.offset = desc->w_offset, d->y.offset = desc->y_offset;
  d->bias.offset = desc->bias_offset;
  const size_t xd[4] = {d->n, d->c, d->h, d->w}, wd[4] = {d->k, d->cg, d->r, d->s}, yd[4] = {d->n, d->k, d->p, d->q};
  dense(&d->x, xd, d->x_layout == CLFORGE_NHWC ? nhwc : nchw);
  dense(&d->filt, wd, d->w_layout == CLFORGE_KRSC ? nhwc : nchw);
  dense(&d->y, yd, d->y_layout == CLFORGE_NHWC ? nhwc : nchw);
  /* backward data's dbias (the aux call's) has one value per input channel */
  d->bias.dims[0] = has_bias ? (bd ? d->c : d->k) : 0, d->bias.dims[1] = d->bias.dims[2] = d->bias.dims[3] = 1;
  d->bias.stride[0] = 1;
  d->aux_mode = (int)desc->aux_mode;
  if (d->aux_mode) { /* y's shape and layout (forward), dx's (backward data) */
    const clforge_dtype at = d->aux.type;
    d->aux = bd ? d->x : d->y;
    d->aux.name = "aux", d->aux.type = at, d->aux.offset = desc->aux_offset;
  }
  clforge_status st = extent(ctx, &d->x, 4);
  if (st == CLFORGE_SUCCESS) st = extent(ctx, &d->filt, 4);
  if (st == CLFORGE_SUCCESS) st = extent(ctx, &d->y, 4);
  if (st == CLFORGE_SUCCESS) st = extent(ctx, &d->bias, 1);
  if (st == CLFORGE_SUCCESS && d->aux_mode) st = extent(ctx, &d->aux, 4);
  return st;
}

static clforge_status resolve(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias, int allow_aux,
                              int int8, clforge__conv *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "conv2d: desc is NULL");
  d->kind = desc->kind; /* check_sizes lets c = 0 through for backward data only */
  clforge_status st = check_modes(ctx, desc, allow_aux);
  if (st == CLFORGE_SUCCESS) st = resolve_types(ctx, desc, int8, d);
  if (st == CLFORGE_SUCCESS) st = copy_geometry(ctx, desc, has_bias, d);
  if (st == CLFORGE_SUCCESS) st = check_sizes(ctx, d);
  if (st == CLFORGE_SUCCESS) st = lay_out_tensors(ctx, desc, has_bias, d);
  if (st != CLFORGE_SUCCESS) return st;
  const size_t big = (size_t)UINT32_MAX;
  d->idx64 = d->x.extent > big || d->filt.extent > big || d->y.extent > big || d->aux.extent > big;
  d->flops = 2.0 * (double)d->n * (double)d->k * (double)d->cg * (double)d->r * (double)d->s * (double)d->p *
             (double)d->q;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__conv_resolve(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                     clforge__conv *d) {
  return resolve(ctx, desc, has_bias, 0, 0, d);
}

clforge_status clforge__conv_resolve_int8(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                          clforge__conv *d) {
  return resolve(ctx, desc, has_bias, 0, 1, d);
}

clforge_status clforge__conv_resolve_aux(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                         clforge__conv *d) {
  return resolve(ctx, desc, has_bias, 1, 0, d);
}

clforge__footprint clforge__conv_footprint(const clforge__conv_tensor *t) {
  const size_t es = clforge_dtype_size(t->type);
  clforge__footprint f = {t->offset * es, t->count * es, t->count * es, t->count ? 1 : 0, 0, 1};
  return f;
}

void clforge__conv_dtypes_key(const clforge__conv *d, char *buf, size_t cap) {
  snprintf(buf, cap, "%s,%s,%s", clforge_dtype_name(d->x.type), clforge_dtype_name(d->filt.type),
           clforge_dtype_name(d->y.type));
}

void clforge__conv_layout_key(const clforge__conv *d, char *buf, size_t cap) {
  const char *xl = d->x_layout == CLFORGE_NHWC ? "nhwc" : "nchw", *yl = d->y_layout == CLFORGE_NHWC ? "nhwc" : "nchw";
  const char *wl = d->w_layout == CLFORGE_KRSC ? "krsc" : "kcrs";
  if (d->x_layout == d->y_layout)
    snprintf(buf, cap, "%s,%s", xl, wl);
  else
    snprintf(buf, cap, "%s-%s,%s", xl, yl, wl);
}
