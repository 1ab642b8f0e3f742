/* An optimizer step's descriptor and tensors resolved and checked once, for
 * the device op and the reference alike. */
#ifndef CLFORGE_SRC_OPTIMIZER_DESC_H
#define CLFORGE_SRC_OPTIMIZER_DESC_H

#include "clforge/clforge.h"

typedef struct clforge__opt {
  clforge_optimizer_kind kind;
  float lr, momentum, dampening, beta1, beta2, eps, weight_decay;
  int nesterov, loss_scaling, growth_interval;
  float growth_factor, backoff_factor;
  size_t state_offset; /* bytes */
} clforge__opt;

/* What a tensor's kernel build depends on. */
typedef struct clforge__opt_tensor {
  clforge_dtype param_type, grad_type;
  int has_master, has_m, has_v;
} clforge__opt_tensor;

/* Resolve defaults and check the descriptor: kind, lr > 0, the factors,
 * betas in [0, 1), eps > 0, Nesterov's conditions, reserved fields, the
 * state offset (a multiple of 4). Failures are recorded on ctx (may be NULL). */
clforge_status clforge__opt_resolve(clforge_context ctx, const clforge_optimizer_desc *desc, clforge__opt *d);

/* Check one tensor's types, counts and which buffers it must have (given
 * as flags: buffers not NULL), offsets against overflow; `what` names it in
 * messages ("tensors[3]"). */
clforge_status clforge__opt_tensor_resolve(clforge_context ctx, const clforge__opt *d, const char *what, size_t count,
                                           clforge_dtype param_type, clforge_dtype grad_type, int has_param,
                                           int has_master, int has_grad, int has_m, int has_v,
                                           clforge__opt_tensor *t);

/* Whether the kind reads m / v. */
int clforge__opt_uses_m(const clforge__opt *d);
int clforge__opt_uses_v(const clforge__opt *d);

#endif
