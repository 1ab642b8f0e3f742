/* Reference twin of clforge_optimizer_step: the same check, skip and scale
 * update on the host state, each element's update in double from the
 * stored (f32) master weights and moments, stored back as the device
 * stores them. */
#include <math.h>
#include <stdio.h>

#include "../core/error.h"
#include "../desc/optimizer_desc.h"
#include "element.h"

clforge_status clforge_ref_optimizer_step(const clforge_optimizer_desc *desc, size_t ntensors,
                                          const clforge_ref_optimizer_tensor *tensors, clforge_train_state *state) {
  clforge__clear_error(NULL);
  clforge__opt d;
  clforge_status st = clforge__opt_resolve(NULL, desc, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (!state || (ntensors && !tensors))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_optimizer_step: state or tensors is NULL");
  for (size_t i = 0; i < ntensors; ++i) {
    const clforge_ref_optimizer_tensor *t = &tensors[i];
    char what[32];
    snprintf(what, sizeof what, "tensors[%zu]", i);
    clforge__opt_tensor r;
    st = clforge__opt_tensor_resolve(NULL, &d, what, t->count, t->param_type, t->grad_type, t->param != NULL,
                                     t->master != NULL, t->grad != NULL, t->m != NULL, t->v != NULL, &r);
    if (st != CLFORGE_SUCCESS) return st;
  }
  int found = 0;
  for (size_t i = 0; d.loss_scaling && i < ntensors; ++i)
    for (size_t e = 0; e < tensors[i].count && !found; ++e)
      found = !isfinite(clforge__ref_load(tensors[i].grad, tensors[i].grad_type ? tensors[i].grad_type : CLFORGE_F32, e));
  state->skipped = found;
  if (found) {
    state->scale = (float)((double)state->scale * d.backoff_factor);
    state->good_steps = 0;
    return CLFORGE_SUCCESS;
  }
  const double inv = 1.0 / (double)state->scale, t = (double)state->step + 1;
  const double bc1 = 1 - pow(d.beta1, t), bc2 = 1 - pow(d.beta2, t);
  for (size_t i = 0; i < ntensors; ++i) {
    const clforge_ref_optimizer_tensor *x = &tensors[i];
    const clforge_dtype pt = x->param_type ? x->param_type : CLFORGE_F32, gt = x->grad_type ? x->grad_type : CLFORGE_F32;
    for (size_t e = 0; e < x->count; ++e) {
      double g = clforge__ref_load(x->grad, gt, e) * inv;
      double w = x->master ? x->master[e] : clforge__ref_load(x->param, pt, e);
      if (d.kind == CLFORGE_OPTIMIZER_SGD) {
        if (d.weight_decay != 0.0f) g += d.weight_decay * w;
        if (d.momentum != 0.0f) {
          const double buf = t == 1 ? g : d.momentum * x->m[e] + (1 - (double)d.dampening) * g;
          x->m[e] = (float)buf;
          g = d.nesterov ? g + d.momentum * (double)x->m[e] : (double)x->m[e];
        }
        w -= d.lr * g;
      } else {
        w *= 1 - (double)d.lr * d.weight_decay;
        x->m[e] = (float)(d.beta1 * x->m[e] + (1 - (double)d.beta1) * g);
        x->v[e] = (float)(d.beta2 * x->v[e] + (1 - (double)d.beta2) * g * g);
        w -= d.lr / bc1 * x->m[e] / (sqrt((double)x->v[e]) / sqrt(bc2) + d.eps);
      }
      if (x->master) x->master[e] = (float)w;
      clforge__ref_store(x->param, pt, e, (float)w);
    }
  }
  state->step += 1;
  if (d.loss_scaling && ++state->good_steps >= d.growth_interval) {
    const float grown = (float)((double)state->scale * d.growth_factor);
    if (isfinite(grown)) state->scale = grown;
    state->good_steps = 0;
  }
  return CLFORGE_SUCCESS;
}
