/* A two-layer decoder-only transformer trained end to end on the device, on
 * a synthetic task: reverse a sequence of 8 random tokens. Each training
 * sequence is  a0 .. a7 SEP b0 .. b6  (16 positions) where b = reverse(a);
 * the model predicts b0 .. b7 at positions 8 .. 15 (the first 8 positions
 * are ignored by the loss: target -100, cross-entropy's ignore rule).
 *
 * The model (pre-norm, as Llama): the embedding is a GEMM on the one-hot
 * rows [token | position] (so a learned position embedding comes with it);
 * per block RMSNorm, a fused QKV projection, causal attention with GQA
 * (4 query heads sharing 2 key/value heads, head size 16) reading Q, K and V
 * as strided views of the projection's rows, an output projection added to
 * the residual (a GEMM with beta = 1), RMSNorm, an MLP 64 -> 256 -> 64 with
 * GELU (tanh form) fused in the first GEMM's epilogue, which also stores the
 * pre-activation for the backward; a final RMSNorm, the LM head, softmax
 * cross-entropy. The backward runs every op's backward on the device: the
 * MLP's dGELU is the second GEMM's backward epilogue (reading the stored
 * pre-activation), attention's is clforge_attention_backward from the
 * forward's LSE, RMSNorm's is clforge_norm_backward, and the residual
 * stream's gradients add with clforge_activation_backward (ACT_NONE, beta
 * 1). AdamW updates the 15 tensors in one call. f32, bf16 (f32 masters) and
 * f16 (f32 masters, dynamic loss scaling, the scale kept on the device).
 *
 * Prints loss and held-out accuracy (teacher forced: each predicted token,
 * and whole sequences all 8 of whose tokens are right) over the steps,
 * ms/step, tokens/s and the device memory of the model's buffers.
 *
 * Data-parallel (data_parallel.h): --ranks N ranks in this process, --mpi
 * the MPI processes under mpirun, --accumulate N the single-process twin
 * that ends with the same weights bit for bit (tests/train_mpi.sh); the
 * gradients in DDP-style buckets (--bucket-bytes) filled from the top block
 * down, each bucket's all-reduce overlapping the backward of the blocks
 * below; --trace FILE: one step's timeline as a Chrome trace.
 *
 * Usage: train_transformer [--dtype f32|bf16|f16|all] [--steps N] [--batch B]
 *                          [--ranks N | --accumulate N | --mpi] [--bucket-bytes B] [--trace FILE]
 *                          [--weights-out FILE] [--check]
 *   --check: exit 1 unless the run reaches a mean loss below 0.3 over its
 *   last 20 steps and 90 % held-out token accuracy (fixed seeds: a check of
 *   the whole chain's correctness, not a timing). Data-parallel runs fail
 *   unless every rank ends with the same weights, bit for bit. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define TRAIN_NAME "train_transformer"
#include "train_common.h"
#include "data_parallel.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  HALF = 8,              /* tokens to reverse */
  S = 2 * HALF,          /* sequence length */
  VOCAB = 16,            /* 15 data tokens and SEP */
  SEP = VOCAB - 1,
  IN = VOCAB + S,        /* one-hot width: token, then position */
  DM = 64,               /* model width */
  HQ = 4, HKV = 2, HD = 16,
  QD = HQ * HD,          /* the query heads' width (attention's output width) */
  QKV = (HQ + 2 * HKV) * HD,
  FF = 256,              /* MLP hidden width */
  LAYERS = 2,
  NPARAM = 3 + 6 * LAYERS,
  NTRAIN = 8192, NTEST = 512
};

/* One sequence: its input one-hot rows (S x IN) and its targets (S). */
static void make_sequence(float *onehot, int32_t *targets) {
  int a[HALF], in[S];
  for (int i = 0; i < HALF; ++i) a[i] = (int)(urand() * (VOCAB - 1));
  for (int i = 0; i < HALF; ++i) in[i] = a[i];
  in[HALF] = SEP;
  for (int i = 1; i < HALF; ++i) in[HALF + i] = a[HALF - i]; /* b_{i-1} = a[HALF - i] */
  memset(onehot, 0, S * IN * sizeof *onehot);
  for (int p = 0; p < S; ++p) {
    onehot[p * IN + in[p]] = 1.0f;
    onehot[p * IN + VOCAB + p] = 1.0f;
    targets[p] = p < HALF ? -100 : a[S - 1 - p]; /* position HALF + j predicts b_j = a[HALF - 1 - j] */
  }
}

/* Parameter indices: the embedding, then per block its six, then the final
 * norm's weight and the LM head. */
enum { P_EMB = 0, P_N1 = 0, P_WQKV, P_WO, P_N2, P_W1, P_W2 };
#define PB(l, i) (1 + 6 * (l) + (i))
#define P_NF (1 + 6 * LAYERS)
#define P_LM (2 + 6 * LAYERS)

typedef struct {
  clforge_dtype t;
  size_t batch, tokens;
  cl_mem x, y, xt, yt;                     /* one-hot rows and targets: training, held-out */
  trainable w;                             /* parameters, gradients, AdamW's state; data-parallel: buckets */
  /* saved by the forward for the backward */
  cl_mem h[2 * LAYERS + 1];                /* the residual stream: input, after each attention and MLP */
  cl_mem a1[LAYERS], a2[LAYERS], s1[LAYERS], s2[LAYERS]; /* normed inputs, RMSNorm statistics */
  cl_mem qkv[LAYERS], o[LAYERS], lse[LAYERS], z[LAYERS], u[LAYERS];
  cl_mem af, sf, logits;
  /* the backward's scratch */
  cl_mem dlogits, dh, tmp, dz, d_o, dqkv, loss;
  env *e;
  const int32_t *test_targets;
  double tok, seq; /* the latest held-out accuracies */
} model;

/* C (m x n) = op(A) op(B) + beta C in the model's dtype, row-major. */
static clforge_status mm(env *e, const model *m, int ta, int tb, size_t rows, size_t cols, size_t k, cl_mem a,
                         size_t a_off, cl_mem b, cl_mem c, float beta, cl_event *ev) {
  const clforge_gemm_desc d = {.trans_a = ta ? CLFORGE_TRANS : CLFORGE_NO_TRANS,
                               .trans_b = tb ? CLFORGE_TRANS : CLFORGE_NO_TRANS, .m = rows, .n = cols, .k = k,
                               .beta = beta, .a_type = m->t, .b_type = m->t, .c_type = m->t, .a_offset = a_off};
  return clforge_gemm(e->ctx, &d, a, b, c, NULL, 0, NULL, ev);
}

/* RMSNorm over rows of DM, forward (saving the statistics) */
static clforge_norm_desc rms(const model *m) {
  const clforge_norm_desc d = {.kind = CLFORGE_NORM_RMS, .rows = m->tokens, .n = DM, .x_type = m->t,
                               .y_type = m->t, .param_type = m->t, .dy_type = m->t, .dx_type = m->t};
  return d;
}

/* Causal GQA attention over the fused projection's rows: Q, K and V are
 * (b, h, s, d) views of [tokens, QKV] (BSHD inside each row), O is [tokens, QD]. */
static clforge_attention_desc attn(const model *m, clforge_attention_kind kind) {
  clforge_attention_desc d = {.kind = kind, .batch = m->batch, .heads_q = HQ, .heads_kv = HKV, .seq_q = S,
                              .seq_kv = S, .head_dim = HD, .q_type = m->t, .kv_type = m->t, .o_type = m->t,
                              .q_offset = 0, .k_offset = QD, .v_offset = QD + HKV * HD,
                              .causal = CLFORGE_CAUSAL_TOP_LEFT};
  const size_t qkv[4] = {S * QKV, HD, QKV, 1}, o[4] = {S * QD, HD, QD, 1};
  memcpy(d.q_strides, qkv, sizeof qkv), memcpy(d.k_strides, qkv, sizeof qkv), memcpy(d.v_strides, qkv, sizeof qkv);
  memcpy(d.o_strides, o, sizeof o);
  return d;
}

/* The forward on sequences [first, first + batch) of x: logits and every saved activation. */
static clforge_status forward(env *e, model *m, cl_mem x, size_t first) {
  const size_t T = m->tokens, es = clforge_dtype_size(m->t);
  /* embedding: h0 = onehot E */
  clforge_status st = mm(e, m, 0, 0, T, DM, IN, x, first * S * IN, m->w.p[P_EMB], m->h[0], 0.0f, NULL);
  clforge_norm_desc nd = rms(m);
  for (int l = 0; l < LAYERS && st == CLFORGE_SUCCESS; ++l) {
    cl_mem hin = m->h[2 * l], hmid = m->h[2 * l + 1], hout = m->h[2 * l + 2];
    st = clforge_norm(e->ctx, &nd, hin, m->w.p[PB(l, P_N1)], NULL, m->a1[l], m->s1[l], 0, NULL, NULL);
    if (st == CLFORGE_SUCCESS) st = mm(e, m, 0, 0, T, QKV, DM, m->a1[l], 0, m->w.p[PB(l, P_WQKV)], m->qkv[l], 0.0f, NULL);
    const clforge_attention_desc ad = attn(m, CLFORGE_ATTENTION_FORWARD);
    const clforge_attention_buffers ab = {.lse = m->lse[l]};
    if (st == CLFORGE_SUCCESS) st = clforge_attention(e->ctx, &ad, m->qkv[l], m->qkv[l], m->qkv[l], m->o[l], &ab, 0, NULL, NULL);
    /* the residual: hmid = hin + O Wo */
    if (st == CLFORGE_SUCCESS && clEnqueueCopyBuffer(e->q, hin, hmid, 0, 0, T * DM * es, 0, NULL, NULL) != CL_SUCCESS)
      st = CLFORGE_INVALID_ARGUMENT;
    if (st == CLFORGE_SUCCESS) st = mm(e, m, 0, 0, T, DM, QD, m->o[l], 0, m->w.p[PB(l, P_WO)], hmid, 1.0f, NULL);
    if (st == CLFORGE_SUCCESS)
      st = clforge_norm(e->ctx, &nd, hmid, m->w.p[PB(l, P_N2)], NULL, m->a2[l], m->s2[l], 0, NULL, NULL);
    /* u = gelu(a2 W1), the pre-activation z stored by the epilogue */
    const clforge_gemm_desc up = {.m = T, .n = FF, .k = DM, .a_type = m->t, .b_type = m->t, .c_type = m->t,
                                  .activation = CLFORGE_ACT_GELU_TANH, .aux_mode = CLFORGE_GEMM_AUX_STORE,
                                  .aux_type = m->t};
    if (st == CLFORGE_SUCCESS) st = clforge_gemm_ex(e->ctx, &up, m->a2[l], m->w.p[PB(l, P_W1)], m->u[l], NULL, m->z[l], 0, NULL, NULL);
    if (st == CLFORGE_SUCCESS && clEnqueueCopyBuffer(e->q, hmid, hout, 0, 0, T * DM * es, 0, NULL, NULL) != CL_SUCCESS)
      st = CLFORGE_INVALID_ARGUMENT;
    if (st == CLFORGE_SUCCESS) st = mm(e, m, 0, 0, T, DM, FF, m->u[l], 0, m->w.p[PB(l, P_W2)], hout, 1.0f, NULL);
  }
  if (st == CLFORGE_SUCCESS) st = clforge_norm(e->ctx, &nd, m->h[2 * LAYERS], m->w.p[P_NF], NULL, m->af, m->sf, 0, NULL, NULL);
  if (st == CLFORGE_SUCCESS) st = mm(e, m, 0, 0, T, VOCAB, DM, m->af, 0, m->w.p[P_LM], m->logits, 0.0f, NULL);
  return st;
}

/* dh += tmp: the residual stream's gradient gains a branch's (activation
 * backward with no activation is dx = dy + beta dx). */
static clforge_status add_into(env *e, const model *m, cl_mem dh, cl_mem tmp) {
  const clforge_activation_backward_desc d = {.count = m->tokens * DM, .activation = CLFORGE_ACT_NONE,
                                              .z_type = m->t, .dy_type = m->t, .dx_type = m->t, .beta = 1.0f};
  return clforge_activation_backward(e->ctx, &d, NULL, tmp, dh, 0, NULL, NULL);
}

/* A backward call's name in the trace: block l's (two blocks). */
_Static_assert(LAYERS == 2, "BWD names two blocks");
#define BWD(l, what) ((l) ? "block 1 " what : "block 0 " what)

/* One training step on sequences [first, first + batch): loss, gradients
 * (each bucket's mean over the ranks started as soon as its gradients are
 * enqueued, data-parallel), AdamW. */
static clforge_status step(void *p, size_t first) {
  model *m = p;
  env *e = m->e;
  trainable *w = &m->w;
  step_trace *tr = &w->T;
  const size_t T = m->tokens;
  clforge_status st = forward(e, m, m->x, first);
  /* mean cross-entropy over the predicted positions, dlogits scaled by the state's loss scale */
  const clforge_cross_entropy_desc ce = {.rows = T, .n = VOCAB, .logits_type = m->t, .dlogits_type = m->t,
                                         .targets_offset = first * S, .reduction = CLFORGE_REDUCTION_MEAN};
  if (st == CLFORGE_SUCCESS)
    st = clforge_cross_entropy(e->ctx, &ce, m->logits, m->y, m->loss, m->dlogits, w->state, 0, NULL,
                               trace_slot(tr, "cross-entropy", 0));
  /* LM head and the final norm */
  if (st == CLFORGE_SUCCESS)
    st = mm(e, m, 1, 0, DM, VOCAB, T, m->af, 0, m->dlogits, w->g[P_LM], 0.0f, trace_slot(tr, "LM head dW", 0));
  if (st == CLFORGE_SUCCESS) st = trainable_produced(w, P_LM, 1);
  if (st == CLFORGE_SUCCESS)
    st = mm(e, m, 0, 1, T, DM, VOCAB, m->dlogits, 0, w->p[P_LM], m->tmp, 0.0f, trace_slot(tr, "LM head dX", 0));
  clforge_norm_desc nd = rms(m);
  if (st == CLFORGE_SUCCESS)
    st = clforge_norm_backward(e->ctx, &nd, m->h[2 * LAYERS], w->p[P_NF], m->sf, m->tmp, m->dh, w->g[P_NF], NULL,
                               0, NULL, trace_slot(tr, "final norm backward", 0));
  if (st == CLFORGE_SUCCESS) st = trainable_produced(w, P_NF, 1);
  for (int l = LAYERS - 1; l >= 0 && st == CLFORGE_SUCCESS; --l) {
    /* MLP: dW2 = u^T dh; dz = (dh W2^T) * gelu'(z) in the GEMM's epilogue; dW1 = a2^T dz; da2 = dz W1^T */
    st = mm(e, m, 1, 0, FF, DM, T, m->u[l], 0, m->dh, w->g[PB(l, P_W2)], 0.0f, trace_slot(tr, BWD(l, "MLP dW2"), 0));
    if (st == CLFORGE_SUCCESS) st = trainable_produced(w, PB(l, P_W2), 1);
    const clforge_gemm_desc down = {.m = T, .n = FF, .k = DM, .trans_b = CLFORGE_TRANS, .a_type = m->t,
                                    .b_type = m->t, .c_type = m->t, .activation = CLFORGE_ACT_GELU_TANH,
                                    .aux_mode = CLFORGE_GEMM_AUX_BACKWARD, .aux_type = m->t};
    if (st == CLFORGE_SUCCESS)
      st = clforge_gemm_ex(e->ctx, &down, m->dh, w->p[PB(l, P_W2)], m->dz, NULL, m->z[l], 0, NULL,
                           trace_slot(tr, BWD(l, "MLP dz (dGELU)"), 0));
    if (st == CLFORGE_SUCCESS)
      st = mm(e, m, 1, 0, DM, FF, T, m->a2[l], 0, m->dz, w->g[PB(l, P_W1)], 0.0f, trace_slot(tr, BWD(l, "MLP dW1"), 0));
    if (st == CLFORGE_SUCCESS) st = trainable_produced(w, PB(l, P_W1), 1);
    if (st == CLFORGE_SUCCESS)
      st = mm(e, m, 0, 1, T, DM, FF, m->dz, 0, w->p[PB(l, P_W1)], m->tmp, 0.0f, trace_slot(tr, BWD(l, "MLP dX"), 0));
    if (st == CLFORGE_SUCCESS)
      st = clforge_norm_backward(e->ctx, &nd, m->h[2 * l + 1], w->p[PB(l, P_N2)], m->s2[l], m->tmp, m->tmp,
                                 w->g[PB(l, P_N2)], NULL, 0, NULL, trace_slot(tr, BWD(l, "norm 2 backward"), 0));
    if (st == CLFORGE_SUCCESS) st = trainable_produced(w, PB(l, P_N2), 1);
    if (st == CLFORGE_SUCCESS) st = add_into(e, m, m->dh, m->tmp);
    /* attention: dWo = O^T dh; dO = dh Wo^T; dQ, dK, dV into the fused projection's layout */
    if (st == CLFORGE_SUCCESS)
      st = mm(e, m, 1, 0, QD, DM, T, m->o[l], 0, m->dh, w->g[PB(l, P_WO)], 0.0f, trace_slot(tr, BWD(l, "out proj dW"), 0));
    if (st == CLFORGE_SUCCESS) st = trainable_produced(w, PB(l, P_WO), 1);
    if (st == CLFORGE_SUCCESS)
      st = mm(e, m, 0, 1, T, QD, DM, m->dh, 0, w->p[PB(l, P_WO)], m->d_o, 0.0f, trace_slot(tr, BWD(l, "out proj dX"), 0));
    const clforge_attention_desc ad = attn(m, CLFORGE_ATTENTION_BACKWARD);
    clforge_attention_grads gr = {.do_type = m->t, .dq_type = m->t, .dkv_type = m->t, .dk_offset = ad.k_offset,
                                  .dv_offset = ad.v_offset};
    memcpy(gr.do_strides, ad.o_strides, sizeof gr.do_strides);
    memcpy(gr.dq_strides, ad.q_strides, sizeof gr.dq_strides);
    memcpy(gr.dk_strides, ad.k_strides, sizeof gr.dk_strides);
    memcpy(gr.dv_strides, ad.v_strides, sizeof gr.dv_strides);
    const clforge_attention_buffers ab = {.lse = m->lse[l]};
    if (st == CLFORGE_SUCCESS)
      st = clforge_attention_backward(e->ctx, &ad, &gr, m->qkv[l], m->qkv[l], m->qkv[l], m->o[l], m->d_o, &ab,
                                      m->dqkv, m->dqkv, m->dqkv, 0, NULL, trace_slot(tr, BWD(l, "attention backward"), 0));
    /* the projection: dWqkv = a1^T dqkv; da1 = dqkv Wqkv^T; the norm; the residual */
    if (st == CLFORGE_SUCCESS)
      st = mm(e, m, 1, 0, DM, QKV, T, m->a1[l], 0, m->dqkv, w->g[PB(l, P_WQKV)], 0.0f, trace_slot(tr, BWD(l, "QKV dW"), 0));
    if (st == CLFORGE_SUCCESS) st = trainable_produced(w, PB(l, P_WQKV), 1);
    if (st == CLFORGE_SUCCESS)
      st = mm(e, m, 0, 1, T, DM, QKV, m->dqkv, 0, w->p[PB(l, P_WQKV)], m->tmp, 0.0f, trace_slot(tr, BWD(l, "QKV dX"), 0));
    if (st == CLFORGE_SUCCESS)
      st = clforge_norm_backward(e->ctx, &nd, m->h[2 * l], w->p[PB(l, P_N1)], m->s1[l], m->tmp, m->tmp,
                                 w->g[PB(l, P_N1)], NULL, 0, NULL, trace_slot(tr, BWD(l, "norm 1 backward"), 0));
    if (st == CLFORGE_SUCCESS) st = trainable_produced(w, PB(l, P_N1), 1);
    if (st == CLFORGE_SUCCESS) st = add_into(e, m, m->dh, m->tmp);
  }
  /* the embedding: dE = onehot^T dh, the step's last backward call */
  if (st == CLFORGE_SUCCESS)
    st = mm(e, m, 1, 0, IN, DM, T, m->x, first * S * IN, m->dh, w->g[P_EMB], 0.0f, trainable_last_backward(w));
  if (st == CLFORGE_SUCCESS) trainable_backward_done(w, "embedding dW");
  if (st == CLFORGE_SUCCESS) st = trainable_produced(w, P_EMB, 1);
  return st == CLFORGE_SUCCESS ? trainable_step(w) : st;
}

/* Held-out accuracy, teacher forced: per predicted token and per sequence. */
static void accuracy(env *e, model *m, const int32_t *targets, double *tok, double *seq) {
  const size_t es = clforge_dtype_size(m->t), n = m->tokens * VOCAB;
  void *raw = malloc(n * es);
  float *lg = malloc(n * sizeof *lg);
  size_t right = 0, seen = 0, seq_right = 0, seqs = 0;
  for (size_t first = 0; first + m->batch <= NTEST; first += m->batch) {
    if (forward(e, m, m->xt, first) != CLFORGE_SUCCESS) break;
    clEnqueueReadBuffer(e->q, m->logits, CL_TRUE, 0, n * es, raw, 0, NULL, NULL);
    clforge_ref_convert(n, raw, m->t, lg, CLFORGE_F32);
    for (size_t b = 0; b < m->batch; ++b) {
      int all = 1;
      for (int p = HALF; p < S; ++p) {
        const float *row = lg + (b * S + (size_t)p) * VOCAB;
        int best = 0;
        for (int c = 1; c < VOCAB; ++c)
          if (row[c] > row[best]) best = c;
        const int ok = best == targets[(first + b) * S + (size_t)p];
        right += (size_t)ok, ++seen, all &= ok;
      }
      seq_right += (size_t)all, ++seqs;
    }
  }
  free(raw), free(lg);
  *tok = seen ? (double)right / (double)seen : 0.0;
  *seq = seqs ? (double)seq_right / (double)seqs : 0.0;
}

/* train_steps' report: this process's first model evaluates. */
static void report_cb(void *p, int s, float loss) {
  model *m = ((dp_group *)p)->models[0];
  accuracy(m->e, m, m->test_targets, &m->tok, &m->seq);
  printf("%6d  %8.4f  %8.1f%%  %8.1f%%\n", s, loss, 100.0 * m->tok, 100.0 * m->seq);
}

/* n values of N(0, std^2) (fixed seed), or `fill` when std is 0. */
static float *init(size_t n, float std, float fill) {
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; ++i) v[i] = std > 0 ? std * nrand() : fill;
  return v;
}

/* A rank's model on e: the parameters (the same values on every rank), the
 * data (every rank holds all of it; each reads its own micro-batches), the
 * activations of a micro-batch of `batch` sequences. */
static int model_init(model *m, env *e, clforge_dtype t, size_t batch, const float *onehot, const int32_t *targets,
                      clforge_comm comm, size_t bucket_cap) {
  memset(m, 0, sizeof *m);
  m->t = t, m->batch = batch, m->tokens = batch * S, m->e = e;
  e->bytes = 0;
  rng = 777;
  const size_t T = m->tokens;
  size_t count[NPARAM];
  float *host[NPARAM];
  count[P_EMB] = IN * DM, host[P_EMB] = init(IN * DM, 0.5f, 0);
  const float out_std = 0.5f / sqrtf((float)FF * LAYERS); /* the residual branches' outputs start small */
  for (int l = 0; l < LAYERS; ++l) {
    const size_t c[6] = {DM, DM * QKV, QD * DM, DM, DM * FF, FF * DM};
    const float sd[6] = {0, 1.0f / sqrtf(DM), 0.5f / sqrtf((float)QD * LAYERS), 0, 1.0f / sqrtf(DM), out_std};
    for (int i = 0; i < 6; ++i) count[PB(l, i)] = c[i], host[PB(l, i)] = init(c[i], sd[i], 1.0f);
  }
  count[P_NF] = DM, host[P_NF] = init(DM, 0, 1.0f);
  count[P_LM] = DM * VOCAB, host[P_LM] = init(DM * VOCAB, 1.0f / sqrtf(DM), 0);
  /* the order the backward makes the gradients: the head's, each block's from the top, the embedding's */
  int produced[NPARAM], k = 0;
  produced[k++] = P_LM, produced[k++] = P_NF;
  for (int l = LAYERS - 1; l >= 0; --l) {
    const int order[6] = {P_W2, P_W1, P_N2, P_WO, P_WQKV, P_N1};
    for (int i = 0; i < 6; ++i) produced[k++] = PB(l, order[i]);
  }
  produced[k++] = P_EMB;
  const int bad = trainable_init(&m->w, e, t, NPARAM, count, host, produced, comm, bucket_cap);
  for (int i = 0; i < NPARAM; ++i) free(host[i]);
  if (bad) return 1;
  m->x = make(e, (size_t)NTRAIN * S * IN, t, onehot);
  m->xt = make(e, (size_t)NTEST * S * IN, t, onehot + (size_t)NTRAIN * S * IN);
  cl_int err;
  m->y = clCreateBuffer(e->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)NTRAIN * S * 4, (void *)targets, &err);
  e->bytes += (size_t)NTRAIN * S * 4;
  for (int i = 0; i <= 2 * LAYERS; ++i) m->h[i] = make(e, T * DM, t, NULL);
  for (int l = 0; l < LAYERS; ++l) {
    m->a1[l] = make(e, T * DM, t, NULL), m->a2[l] = make(e, T * DM, t, NULL);
    m->s1[l] = make(e, 2 * T, CLFORGE_F32, NULL), m->s2[l] = make(e, 2 * T, CLFORGE_F32, NULL);
    m->qkv[l] = make(e, T * QKV, t, NULL), m->o[l] = make(e, T * QD, t, NULL);
    m->lse[l] = make(e, batch * HQ * S, CLFORGE_F32, NULL);
    m->z[l] = make(e, T * FF, t, NULL), m->u[l] = make(e, T * FF, t, NULL);
  }
  m->af = make(e, T * DM, t, NULL), m->sf = make(e, 2 * T, CLFORGE_F32, NULL);
  m->logits = make(e, T * VOCAB, t, NULL), m->dlogits = make(e, T * VOCAB, t, NULL);
  m->dh = make(e, T * DM, t, NULL), m->tmp = make(e, T * DM, t, NULL), m->dz = make(e, T * FF, t, NULL);
  m->d_o = make(e, T * QD, t, NULL), m->dqkv = make(e, T * QKV, t, NULL);
  m->loss = make(e, 1, CLFORGE_F32, NULL);
  m->test_targets = targets + (size_t)NTRAIN * S;
  return 0;
}

static void model_free(model *m) {
  cl_mem all[] = {m->x, m->xt, m->y, m->af, m->sf, m->logits, m->dlogits, m->dh, m->tmp, m->dz, m->d_o, m->dqkv, m->loss};
  release(all, sizeof all / sizeof all[0]);
  release(m->h, 2 * LAYERS + 1);
  for (int l = 0; l < LAYERS; ++l) {
    cl_mem each[] = {m->a1[l], m->a2[l], m->s1[l], m->s2[l], m->qkv[l], m->o[l], m->lse[l], m->z[l], m->u[l]};
    release(each, sizeof each / sizeof each[0]);
  }
  trainable_free(&m->w);
}

static int train(env *es, const dp_layout *L, clforge_comm *comms, clforge_dtype t, int steps, size_t batch,
                 int check, const float *onehot, const int32_t *targets) {
  model m[DP_RANKS];
  void *models[DP_RANKS];
  trainable *w[DP_RANKS];
  const size_t mb = batch / (size_t)L->ranks;
  const clforge_optimizer_desc opt = {.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 3e-3f, .beta2 = 0.98f,
                                      .weight_decay = 1e-4f, .loss_scaling = t == CLFORGE_F16,
                                      .growth_interval = 50};
  int bad = 0;
  for (int r = 0; r < L->n; ++r) {
    bad |= model_init(&m[r], &es[r], t, mb, onehot, targets, comms[r], L->bucket_bytes);
    m[r].w.opt = &opt, models[r] = &m[r], w[r] = &m[r].w;
  }
  if (dp_all_ranks(L, bad)) { /* every rank leaves here alike, so that MPI's calls stay paired */
    for (int r = 0; r < L->n; ++r) model_free(&m[r]);
    return 1;
  }
  printf("\n%s: batch %zu sequences (%zu tokens)", clforge_dtype_name(t), batch, batch * S);
  dp_print_plan(L, t, mb, steps, opt.lr);
  dp_group g;
  dp_group_init(&g, L, models, w, step, mb, NTRAIN, steps);
  printf("%6s  %8s  %9s  %9s\n", "step", "loss", "tokens", "sequences");
  train_run run;
  clforge_train_state st;
  int rc = dp_train(&g, steps, m[0].loss, report_cb, &run, &st);
  const double secs = run.secs, tail = run.tail, tok = m[0].tok, seq = m[0].seq;
  if (!rc && run.timed > 0)
    printf("%s: %.2f ms/step, %.0f tokens/s, mean loss of the last %d steps %.4f, held-out accuracy %.1f%% of "
         "tokens, %.1f%% of sequences, %d steps applied, loss scale %g; device memory of the model's buffers "
         "%.2f MiB (plus clforge's scratch)\n",
         clforge_dtype_name(t), 1e3 * secs / run.timed, (double)run.timed * (double)(batch * S) / secs, run.tail_n,
         tail, 100.0 * tok, 100.0 * seq, st.step, st.scale, (double)es[0].bytes / (1 << 20));
  rc = dp_group_end(&g, rc, steps);
  if (!rc && check && !(tail < 0.3 && tok >= 0.9)) {
    fprintf(stderr, "train_transformer --check: %s did not learn the task (loss %.4f, token accuracy %.1f%%)\n",
            clforge_dtype_name(t), tail, 100.0 * tok);
    rc = 1;
  }
  rc = dp_all_ranks(L, rc); /* (each rank's loss is its own micro-batch's) */
  for (int r = 0; r < L->n; ++r) model_free(&m[r]);
  return rc;
}

int main(int argc, char **argv) {
  int steps = 400, check = 0;
  size_t batch = 32;
  clforge_dtype dts[3];
  dp_layout L;
  const int kept = dp_parse(argc, argv, &L);
  const int ndt = kept ? parse_args(kept, argv, &steps, &batch, &check, dts) : 0;
  if (!ndt || batch % (size_t)L.ranks || (!L.mpi && NTEST % (batch / (size_t)L.ranks))) { /* (MPI: checked below) */
    fprintf(stderr,
            "usage: train_transformer [--dtype f32|bf16|f16|all] [--steps N] [--batch B] " DP_USAGE " [--check]\n"
            "  (B / ranks must divide %d; --ranks and --accumulate: 1 to %d)\n",
            NTEST, DP_RANKS);
    return 2;
  }
  env es[DP_RANKS];
  clforge_comm comms[DP_RANKS];
  char dev[300];
  if (dp_open(&argc, &argv, &L, es, comms, dev, sizeof dev)) return 1;
  if (L.mpi && (batch % (size_t)L.ranks || NTEST % (batch / (size_t)L.ranks))) {
    fprintf(stderr, TRAIN_NAME ": --batch %zu does not divide into %d MPI ranks of a size dividing %d\n", batch,
            L.ranks, NTEST);
    return dp_close(&L, es, comms, 2);
  }
  /* the data: NTRAIN training and NTEST held-out sequences */
  float *onehot = malloc((size_t)(NTRAIN + NTEST) * S * IN * sizeof *onehot);
  int32_t *targets = malloc((size_t)(NTRAIN + NTEST) * S * sizeof *targets);
  rng = 2024;
  for (size_t i = 0; i < NTRAIN + NTEST; ++i) make_sequence(onehot + i * S * IN, targets + i * S);
  printf("train_transformer on %s: 2 pre-norm decoder blocks (width %d, RMSNorm, causal attention with %d query "
         "and %d key/value heads of %d, MLP %d->%d->%d with GELU), vocabulary %d;\n"
         "task: reverse %d random tokens; %d training and %d held-out sequences\n",
         dev, DM, HQ, HKV, HD, DM, FF, DM, VOCAB, HALF, NTRAIN, NTEST);
  int rc = 0;
  for (int i = 0; i < ndt && !rc; ++i) rc = train(es, &L, comms, dts[i], steps, batch, check, onehot, targets);
  free(onehot), free(targets);
  return dp_close(&L, es, comms, rc);
}
