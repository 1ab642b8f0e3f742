/* The convolution's auxiliary-tensor calls (cuBLASLt's epilogue model, as
 * clforge_gemm_ex has it): clforge_conv2d_aux keeps the forward's
 * pre-activation, clforge_conv2d_backward_data_aux applies the activation's
 * derivative from it and writes the bias gradient, so a layer's backward is
 * one call. Each runs as the plain convolution call followed by
 * elementwise passes (a copy and the activation; the derivative and the
 * channel sums), after checking every buffer, aux and dbias included:
 * the eight algorithms' kernels keep their epilogues as they are. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "activation.h"
#include "buffer_check.h"
#include "conv_algo.h"
#include "gemm_bias_grad.h"
#include "launch_chain.h"
#include "op_call.h"

/* desc without its aux and activation: the plain call's descriptor. */
static clforge_conv2d_desc plain(const clforge_conv2d_desc *desc) {
  clforge_conv2d_desc c = *desc;
  c.aux_mode = CLFORGE_GEMM_AUX_NONE, c.aux_type = 0, c.aux_offset = 0;
  c.activation = CLFORGE_ACT_NONE;
  return c;
}

#define OPF "conv2d_aux"

clforge_status clforge_conv2d_aux(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem x, cl_mem w,
                                  cl_mem bias, cl_mem y, cl_mem aux, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OPF, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__conv d;
  st = clforge__conv_resolve_aux(ctx, desc, bias != NULL, &d);
  if (st == CLFORGE_SUCCESS && d.kind != CLFORGE_CONV_FORWARD)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OPF ": desc.kind is %d; the forward (0) keeps z", (int)d.kind);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OPF, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.n == 0 || d.k == 0) return clforge__call_marker(ctx, OPF, num_events_in_wait_list, event_wait_list, event);
  /* aux, with everything the convolution checks again, before anything runs */
  st = clforge__conv_check_tensor(ctx, OPF, &d.x, x, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__conv_check_tensor(ctx, OPF, &d.filt, w, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && bias) st = clforge__conv_check_tensor(ctx, OPF, &d.bias, bias, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__conv_check_tensor(ctx, OPF, &d.y, y, CLFORGE_ACCESS_READ | CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS) st = clforge__conv_check_tensor(ctx, OPF, &d.aux, aux, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS) {
    const clforge__conv_tensor *t[5] = {&d.aux, &d.y, &d.x, &d.filt, &d.bias};
    const cl_mem b[5] = {aux, y, x, w, bias};
    st = clforge__conv_check_overlaps(ctx, OPF, t, b, 2, 5, NULL, 0);
  }
  if (st != CLFORGE_SUCCESS) return st;
  /* z into y, z copied into aux, then y = act(z) in place */
  const clforge_conv2d_desc c = plain(desc);
  clforge__chain ch;
  st = clforge__chain_begin(ctx, OPF, &ch, num_events_in_wait_list, event_wait_list, 0, NULL);
  cl_event ev = NULL;
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d(ctx, &c, x, w, bias, y, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev), ev = NULL;
  if (st == CLFORGE_SUCCESS)
    st = clforge_convert(ctx, d.y.count, y, d.y.offset, d.y.type, aux, d.aux.offset, d.aux.type,
                         clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev), ev = NULL;
  if (st == CLFORGE_SUCCESS && d.act != CLFORGE_ACT_NONE)
    st = clforge__activation_forward(ctx, (clforge_activation)d.act, d.y.count, y, d.y.type, d.y.offset,
                                     clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev);
  return clforge__chain_end(&ch, st, event);
}

#define OPB "conv2d_backward_data_aux"

clforge_status clforge_conv2d_backward_data_aux(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem dy,
                                                cl_mem w, cl_mem dx, cl_mem aux, cl_mem dbias,
                                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OPB, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__conv d;
  st = clforge__conv_resolve_aux(ctx, desc, dbias != NULL, &d);
  if (st == CLFORGE_SUCCESS && d.kind != CLFORGE_CONV_BACKWARD_DATA)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OPB ": desc.kind is %d; set CLFORGE_CONV_BACKWARD_DATA (1)",
                       (int)d.kind);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OPB, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.c == 0) return clforge__call_marker(ctx, OPB, num_events_in_wait_list, event_wait_list, event);
  const int nhwc = d.x_layout == CLFORGE_NHWC;
  /* the channel sums' matrix: NCHW, N images of C rows of H*W; NHWC, N*H*W rows of C */
  const size_t hw = d.h * d.w, rows = nhwc ? d.n * hw : d.c, cols = nhwc ? d.c : hw, batch = nhwc ? 1 : d.n;
  if (dbias && (rows > UINT32_MAX || cols > UINT32_MAX || batch > UINT32_MAX))
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, OPB ": dx's %zu x %zu (x %zu) channel sums exceed 2^32 - 1",
                         rows, cols, batch);
  const int act = d.act != CLFORGE_ACT_NONE;
  if (d.n) {
    st = clforge__conv_check_tensor(ctx, OPB, &d.y, dy, CLFORGE_ACCESS_READ);
    if (st == CLFORGE_SUCCESS) st = clforge__conv_check_tensor(ctx, OPB, &d.filt, w, CLFORGE_ACCESS_READ);
    if (st == CLFORGE_SUCCESS)
      st = clforge__conv_check_tensor(ctx, OPB, &d.x, dx, CLFORGE_ACCESS_WRITE | CLFORGE_ACCESS_READ);
    if (st == CLFORGE_SUCCESS && act) st = clforge__conv_check_tensor(ctx, OPB, &d.aux, aux, CLFORGE_ACCESS_READ);
  }
  if (st == CLFORGE_SUCCESS && dbias) st = clforge__conv_check_tensor(ctx, OPB, &d.bias, dbias, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS) {
    const clforge__conv_tensor *t[5] = {&d.x, &d.bias, &d.y, &d.filt, &d.aux};
    const cl_mem b[5] = {d.n ? dx : NULL, dbias, d.n ? dy : NULL, d.n ? w : NULL, d.n && act ? aux : NULL};
    st = clforge__conv_check_overlaps(ctx, OPB, t, b, 2, 5, NULL, 0);
  }
  if (st != CLFORGE_SUCCESS) return st;
  /* dx, then dx *= act'(aux) in place, then dbias from dx */
  const clforge_conv2d_desc c = plain(desc);
  const clforge_activation_backward_desc ad = {.count = d.x.count, .activation = (clforge_activation)d.act,
                                               .z_type = d.aux.type, .dy_type = d.x.type, .dx_type = d.x.type,
                                               .z_offset = d.aux.offset, .dy_offset = d.x.offset,
                                               .dx_offset = d.x.offset};
  clforge__chain ch;
  st = clforge__chain_begin(ctx, OPB, &ch, num_events_in_wait_list, event_wait_list, 0, NULL);
  cl_event ev = NULL;
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d_backward_data(ctx, &c, dy, w, dx, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev), ev = NULL;
  if (st == CLFORGE_SUCCESS && act && d.n)
    st = clforge_activation_backward(ctx, &ad, aux, dx, dx, clforge__chain_nwait(&ch), clforge__chain_wait(&ch), &ev);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev), ev = NULL;
  if (st == CLFORGE_SUCCESS && dbias)
    st = clforge__sum_to_bias(ctx, dx, d.x.type, d.x.offset, cols, d.c * hw, rows, cols, batch, !nhwc, d.idx64,
                              dbias, d.bias.type, d.bias.offset, clforge__chain_nwait(&ch), clforge__chain_wait(&ch),
                              &ev);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(&ch, ev);
  return clforge__chain_end(&ch, st, event);
}
