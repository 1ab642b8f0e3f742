/* clforge_optimizer_step's argument checks: each bad descriptor, tensor,
 * buffer or overlap gets a clear status and message before anything is
 * enqueued, and nothing changes (params, moments, state). */
#include <math.h>
#include <stdint.h>

#include "test_util.h"

enum { B = 1024 }; /* bytes of every buffer */

int main(void) {
  clforge_context ctx = tu_context();
  cl_mem p = tu_buffer(ctx, B), w = tu_buffer(ctx, B), g = tu_buffer(ctx, B), m = tu_buffer(ctx, B);
  cl_mem v = tu_buffer(ctx, B), st = tu_buffer(ctx, B), small = tu_buffer(ctx, 8);
  cl_context c;
  clforge_context_cl_context(ctx, &c);
  cl_int err;
  cl_mem ro = clCreateBuffer(c, CL_MEM_READ_ONLY, B, NULL, &err);
  unsigned char sentinel[B], after[B];
  memset(sentinel, 0x5A, sizeof sentinel);
  cl_mem outs[] = {p, w, m, v, st};
  for (int i = 0; i < 5; ++i) tu_write(ctx, outs[i], 0, B, sentinel);
  const clforge_optimizer_desc good = {.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 1e-3f};
  const clforge_optimizer_tensor t0 = {.count = 100, .param = p, .master = w, .grad = g, .m = m, .v = v,
                                       .param_type = CLFORGE_F16, .grad_type = CLFORGE_F16};
  clforge_optimizer_desc d;
  clforge_optimizer_tensor t;
#define BAD_DESC(mutate, want, needle)                                                               \
  do {                                                                                               \
    d = good;                                                                                        \
    mutate;                                                                                          \
    CHECK_FAILS(ctx, clforge_optimizer_step(ctx, &d, 1, &t0, st, 0, NULL, NULL), want, needle);      \
  } while (0)
#define BAD_TENSOR(mutate, want, needle)                                                             \
  do {                                                                                               \
    t = t0;                                                                                          \
    mutate;                                                                                          \
    CHECK_FAILS(ctx, clforge_optimizer_step(ctx, &good, 1, &t, st, 0, NULL, NULL), want, needle);    \
  } while (0)
  CHECK_FAILS(NULL, clforge_optimizer_step(NULL, &good, 1, &t0, st, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "context");
  CHECK_FAILS(ctx, clforge_optimizer_step(ctx, NULL, 1, &t0, st, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "desc is NULL");
  BAD_DESC(d.kind = (clforge_optimizer_kind)2, CLFORGE_INVALID_ARGUMENT, "kind 2");
  BAD_DESC(d.lr = 0, CLFORGE_INVALID_ARGUMENT, "lr 0 must be finite and > 0");
  BAD_DESC(d.lr = NAN, CLFORGE_INVALID_ARGUMENT, "lr");
  BAD_DESC(d.weight_decay = -1, CLFORGE_INVALID_ARGUMENT, "weight_decay");
  BAD_DESC(d.beta1 = 1.0f, CLFORGE_INVALID_ARGUMENT, "betas");
  BAD_DESC(d.eps = -1e-8f, CLFORGE_INVALID_ARGUMENT, "eps");
  BAD_DESC((d.kind = CLFORGE_OPTIMIZER_SGD, d.nesterov = 1), CLFORGE_INVALID_ARGUMENT, "Nesterov");
  BAD_DESC((d.kind = CLFORGE_OPTIMIZER_SGD, d.momentum = 1.5f), CLFORGE_INVALID_ARGUMENT, "momentum 1.5");
  BAD_DESC(d.loss_scaling = 3, CLFORGE_INVALID_ARGUMENT, "loss_scaling 3");
  BAD_DESC(d.backoff_factor = 2.0f, CLFORGE_INVALID_ARGUMENT, "backoff_factor 2");
  BAD_DESC(d.growth_interval = -1, CLFORGE_INVALID_ARGUMENT, "growth_interval -1");
  BAD_DESC(d.state_offset = 2, CLFORGE_INVALID_ARGUMENT, "state_offset 2 is not a multiple of 4");
  BAD_DESC(d.state_offset = B - 8, CLFORGE_BUFFER_TOO_SMALL, "state needs");
  BAD_DESC(d.reserved[3] = &d, CLFORGE_INVALID_ARGUMENT, "clforge_optimizer_desc.reserved[3] must be NULL");
  CHECK_FAILS(ctx, clforge_optimizer_step(ctx, &good, 1, &t0, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "state is NULL");
  CHECK_FAILS(ctx, clforge_optimizer_step(ctx, &good, 2, NULL, st, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "tensors is NULL");
  CHECK_FAILS(ctx, clforge_optimizer_step(ctx, &good, 1, &t0, st, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "disagree");
  BAD_TENSOR(t.param_type = (clforge_dtype)9, CLFORGE_INVALID_ARGUMENT, "tensors[0] has an unknown or non-float param_type 9");
  BAD_TENSOR(t.master = NULL, CLFORGE_INVALID_ARGUMENT, "f16 params and no master");
  BAD_TENSOR(t.v = NULL, CLFORGE_INVALID_ARGUMENT, "tensors[0]'s v is NULL");
  BAD_TENSOR(t.grad = NULL, CLFORGE_INVALID_ARGUMENT, "tensors[0]'s grad is NULL");
  BAD_TENSOR(t.reserved[0] = &t, CLFORGE_INVALID_ARGUMENT, "clforge_optimizer_tensor.reserved[0] must be NULL");
  BAD_TENSOR(t.count = 300, CLFORGE_BUFFER_TOO_SMALL, "tensors[0].master needs");
  BAD_TENSOR(t.m = small, CLFORGE_BUFFER_TOO_SMALL, "tensors[0].m needs");
  BAD_TENSOR(t.v_offset = SIZE_MAX / 2, CLFORGE_SIZE_OVERFLOW, "tensors[0].v");
  BAD_TENSOR(t.m = ro, CLFORGE_INVALID_ARGUMENT, "READ_ONLY");
  BAD_TENSOR(t.count = SIZE_MAX / 8, CLFORGE_SIZE_OVERFLOW, "count");
  /* overlaps: m over v, the state over a param, two tensors' params */
  BAD_TENSOR(t.v = m, CLFORGE_INVALID_ARGUMENT, "tensors[0].v overlaps tensors[0].m");
  BAD_TENSOR(t.master = st, CLFORGE_INVALID_ARGUMENT, "tensors[0].master overlaps the state");
  {
    clforge_optimizer_tensor two[2] = {t0, t0};
    two[1].param_offset = 40, two[1].master = NULL, two[1].param_type = CLFORGE_F32, two[1].m_offset = 100,
    two[1].v_offset = 100, two[1].count = 10;
    CHECK_FAILS(ctx, clforge_optimizer_step(ctx, &good, 2, two, st, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "tensors[1].param overlaps tensors[0].param");
  }
  /* explain's own */
  clforge_kernel_choice kc;
  CHECK_FAILS(ctx, clforge_optimizer_explain(ctx, &good, NULL, &kc), CLFORGE_INVALID_ARGUMENT, "tensor is NULL");
  /* the reference's */
  clforge_train_state hs = {1, 0, 0, 0};
  d = good;
  d.lr = -1;
  CHECK_FAILS(NULL, clforge_ref_optimizer_step(&d, 0, NULL, &hs), CLFORGE_INVALID_ARGUMENT, "lr -1");
  CHECK_FAILS(NULL, clforge_ref_optimizer_step(&good, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");

  for (int i = 0; i < 5; ++i) {
    tu_read(ctx, outs[i], 0, B, after);
    CHECK(!memcmp(after, sentinel, B), "buffer %d changed by a refused call", i);
  }
#undef BAD_DESC
#undef BAD_TENSOR
  cl_mem all[] = {p, w, g, m, v, st, small, ro};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) clReleaseMemObject(all[i]);
  clforge_context_destroy(ctx);
  return tu_summary();
}
