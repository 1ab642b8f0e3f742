/* A convolution descriptor resolved and checked once, for the device op,
 * the algorithms and the reference alike (as gemm_desc.h is for GEMM).
 * Every tensor is described by element strides, so the algorithms and the
 * reference index NCHW and NHWC (KCRS and KRSC) through one formula. */
#ifndef CLFORGE_SRC_CONV_DESC_H
#define CLFORGE_SRC_CONV_DESC_H

#include "clforge/clforge.h"
#include "../core/footprint.h"

typedef struct clforge__conv_tensor {
  const char *name;      /* "x", "w", "y", "bias" */
  clforge_dtype type;
  size_t offset;         /* elements */
  /* Element strides of the four axes: x and y (n, c, h, w); w (k, c, r, s)
   * with c counting the group's input channels; bias (k) in s[0]. */
  size_t stride[4];
  size_t dims[4];        /* x: N C H W; w: K C/G R S; y: N K P Q; bias: K */
  size_t count;          /* elements of the tensor (product of dims) */
  size_t extent;         /* elements the buffer must hold, offset included */
} clforge__conv_tensor;

typedef struct clforge__conv {
  clforge_conv_kind kind;            /* backward kinds: x is dx (data) and filt dw, bias dbias (filter) */
  size_t n, c, h, w, k, r, s, p, q;
  size_t groups, cg, kg;             /* C/groups, K/groups */
  size_t stride_h, stride_w, dil_h, dil_w;
  size_t pad_t, pad_b, pad_l, pad_r;
  clforge_tensor_layout x_layout, y_layout;
  clforge_filter_layout w_layout;
  float alpha, beta;                 /* alpha resolved (alpha_mode applied) */
  int act;                           /* CLFORGE_ACT_* */
  int has_bias;                      /* set by the op from the bias buffer (NULL: 0) */
  clforge_conv_algo algo;            /* as asked (AUTO: choose) */
  clforge_compute_type compute_type; /* resolved (the context's for 0): the forward GEMM algorithms' */
  clforge__conv_tensor x, filt, y, bias; /* filt: the filter (w is the input width) */
  int aux_mode;                      /* CLFORGE_GEMM_AUX_* (only through the _aux calls) */
  clforge__conv_tensor aux;          /* y's shape (AUX_STORE) or dx's (AUX_BACKWARD), in its own buffer */
  int idx64;                         /* some tensor spans >= 2^32 elements */
  double flops;                      /* 2 N K (C/G) R S P Q: direct-convolution count */
  int prepared;                      /* chosen for prepared weights: a filter transform is paid once, not per call */
} clforge__conv;

/* Resolve defaults, compute the output size, strides and extents with
 * overflow checks, and check enums and divisibility. Failures are recorded
 * on ctx (may be NULL). has_bias says whether a bias will be given. */
clforge_status clforge__conv_resolve(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                     clforge__conv *d);
/* clforge__conv_resolve for clforge_conv2d_aux and
 * clforge_conv2d_backward_data_aux: desc->aux_mode (the other calls refuse
 * it) with its kind, and backward data's activation. */
clforge_status clforge__conv_resolve_aux(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                         clforge__conv *d);

/* clforge__conv_resolve for clforge_conv2d_quantized: s8/u8 x and w, y
 * s32, s8/u8 or float, bias float (the float calls refuse integer types). */
clforge_status clforge__conv_resolve_int8(clforge_context ctx, const clforge_conv2d_desc *desc, int has_bias,
                                          clforge__conv *d);

/* The elements tensor t touches, in bytes from the start of its buffer. */
clforge__footprint clforge__conv_footprint(const clforge__conv_tensor *t);

/* "f32,f32,f32" (x, w, y) into buf: the dtypes key of tuning entries. */
void clforge__conv_dtypes_key(const clforge__conv *d, char *buf, size_t cap);
/* "nchw,kcrs" or "nhwc,krsc" (x/y layout, filter layout); y's layout is
 * part of it when it differs from x's ("nchw-nhwc,kcrs"). */
void clforge__conv_layout_key(const clforge__conv *d, char *buf, size_t cap);

#endif
