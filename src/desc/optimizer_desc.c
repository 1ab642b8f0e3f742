#include "optimizer_desc.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

int clforge__opt_uses_m(const clforge__opt *d) {
  return d->kind == CLFORGE_OPTIMIZER_ADAMW || d->momentum != 0.0f;
}

int clforge__opt_uses_v(const clforge__opt *d) { return d->kind == CLFORGE_OPTIMIZER_ADAMW; }

static int finite_in(float v, float lo, float hi) { return isfinite(v) && v >= lo && v <= hi; }

clforge_status clforge__opt_resolve(clforge_context ctx, const clforge_optimizer_desc *desc, clforge__opt *d) {
  memset(d, 0, sizeof *d);
  const char *op = "optimizer_step";
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_optimizer_desc.reserved", desc->reserved,
                                                   CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  if ((unsigned)desc->kind > CLFORGE_OPTIMIZER_ADAMW)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: kind %d is not known (CLFORGE_OPTIMIZER_SGD = 0, CLFORGE_OPTIMIZER_ADAMW = 1)", op,
                         (int)desc->kind);
  if (!(isfinite(desc->lr) && desc->lr > 0.0f))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: lr %g must be finite and > 0", op, (double)desc->lr);
  if (!finite_in(desc->weight_decay, 0.0f, INFINITY))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: weight_decay %g must be finite and >= 0", op,
                         (double)desc->weight_decay);
  d->kind = desc->kind;
  d->lr = desc->lr, d->weight_decay = desc->weight_decay;
  if (desc->kind == CLFORGE_OPTIMIZER_SGD) {
    if (!finite_in(desc->momentum, 0.0f, 1.0f) || !finite_in(desc->dampening, 0.0f, 1.0f))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: momentum %g and dampening %g must be in [0, 1]", op,
                           (double)desc->momentum, (double)desc->dampening);
    if (desc->nesterov != 0 && desc->nesterov != 1)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: nesterov %d is not 0 or 1", op, desc->nesterov);
    if (desc->nesterov && (desc->momentum == 0.0f || desc->dampening != 0.0f))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "%s: Nesterov momentum requires a momentum and zero dampening (as PyTorch's SGD)", op);
    d->momentum = desc->momentum, d->dampening = desc->dampening, d->nesterov = desc->nesterov;
  } else {
    d->beta1 = desc->beta1 == 0.0f ? 0.9f : desc->beta1;
    d->beta2 = desc->beta2 == 0.0f ? 0.999f : desc->beta2;
    d->eps = desc->eps == 0.0f ? 1e-8f : desc->eps;
    if (!finite_in(d->beta1, 0.0f, 0.99999994f) || !finite_in(d->beta2, 0.0f, 0.99999994f))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: betas %g and %g must be in [0, 1)", op,
                           (double)d->beta1, (double)d->beta2);
    if (!(isfinite(d->eps) && d->eps > 0.0f))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: eps %g must be finite and > 0", op, (double)d->eps);
  }
  if (desc->loss_scaling != 0 && desc->loss_scaling != 1)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: loss_scaling %d is not 0 or 1", op, desc->loss_scaling);
  d->loss_scaling = desc->loss_scaling;
  d->growth_factor = desc->growth_factor == 0.0f ? 2.0f : desc->growth_factor;
  d->backoff_factor = desc->backoff_factor == 0.0f ? 0.5f : desc->backoff_factor;
  d->growth_interval = desc->growth_interval == 0 ? 2000 : desc->growth_interval;
  if (!finite_in(d->growth_factor, 1.0f, INFINITY) || !finite_in(d->backoff_factor, 0.0f, 1.0f) ||
      d->backoff_factor == 0.0f || d->growth_interval < 1)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: growth_factor %g must be >= 1, backoff_factor %g in (0, 1], growth_interval %d >= 1", op,
                         (double)d->growth_factor, (double)d->backoff_factor, d->growth_interval);
  if (desc->state_offset % 4 || desc->state_offset > SIZE_MAX - sizeof(clforge_train_state))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: state_offset %zu is not a multiple of 4 bytes", op,
                         desc->state_offset);
  d->state_offset = desc->state_offset;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__opt_tensor_resolve(clforge_context ctx, const clforge__opt *d, const char *what, size_t count,
                                           clforge_dtype param_type, clforge_dtype grad_type, int has_param,
                                           int has_master, int has_grad, int has_m, int has_v,
                                           clforge__opt_tensor *t) {
  const char *op = "optimizer_step";
  memset(t, 0, sizeof *t);
  t->param_type = param_type ? param_type : CLFORGE_F32;
  t->grad_type = grad_type ? grad_type : CLFORGE_F32;
  if (!clforge__float_dtype_size(t->param_type) || !clforge__float_dtype_size(t->grad_type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s has an unknown or non-float param_type %d or grad_type %d", op,
                         what, (int)param_type, (int)grad_type);
  if (count > SIZE_MAX / 16)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: %s's count %zu is too large", op, what, count);
  if (!has_param || !has_grad)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s's %s is NULL", op, what, has_param ? "grad" : "param");
  if (!has_master && t->param_type != CLFORGE_F32)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: %s has %s params and no master: 16-bit weights need f32 master weights", op, what,
                         clforge_dtype_name(t->param_type));
  const int want_m = clforge__opt_uses_m(d), want_v = clforge__opt_uses_v(d);
  if (want_m && !has_m)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s's m is NULL (%s needs it)", op, what,
                         d->kind == CLFORGE_OPTIMIZER_ADAMW ? "AdamW's first moment" : "SGD's momentum buffer");
  if (want_v && !has_v)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s's v is NULL (AdamW's second moment)", op, what);
  t->has_master = has_master, t->has_m = want_m, t->has_v = want_v;
  return CLFORGE_SUCCESS;
}
