/* The convolution's queries over its three kinds: each kind's file
 * explains its own (the forward's in conv.c, the backward passes' in
 * conv_backward_{data,filter}.c), so that the forward knows nothing of the
 * backward passes built on it. */
#include "../core/error.h"
#include "../desc/conv_desc.h"
#include "conv_algo.h"
#include "conv_backward.h"
#include "op_call.h"

clforge_status clforge_conv2d_explain(clforge_context ctx, const clforge_conv2d_desc *desc, clforge_conv_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, "conv2d_explain", choice, "choice");
  if (st != CLFORGE_SUCCESS) return st;
  clforge__conv d;
  st = clforge__conv_resolve(ctx, desc, 0, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.kind == CLFORGE_CONV_BACKWARD_DATA) return clforge__conv_bwd_data_explain(ctx, &d, choice);
  if (d.kind == CLFORGE_CONV_BACKWARD_FILTER) return clforge__conv_bwd_filter_explain(ctx, &d, choice);
  return clforge__conv_forward_explain(ctx, &d, choice);
}

clforge_status clforge_conv2d_workspace_size(clforge_context ctx, const clforge_conv2d_desc *desc, size_t *bytes) {
  clforge_status st = clforge__query_begin(ctx, "conv2d_workspace_size", bytes, "bytes");
  if (st != CLFORGE_SUCCESS) return st;
  clforge_conv_choice c;
  st = clforge_conv2d_explain(ctx, desc, &c);
  if (st == CLFORGE_SUCCESS) *bytes = c.workspace_bytes;
  return st;
}
