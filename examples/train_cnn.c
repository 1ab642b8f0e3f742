/* A small CNN trained end to end on the device: conv 3x3 (1 -> 8) + bias +
 * ReLU, conv 3x3 stride 2 (8 -> 16) + bias + ReLU, a linear layer to 4
 * classes, softmax cross-entropy, AdamW. The task: images of 16 x 16 with a
 * noisy bar in one of four orientations (horizontal, vertical, the two
 * diagonals), made once on the host with a fixed seed and uploaded; every
 * step then stays on the device (forward, loss, every gradient, the
 * optimizer step; no activation or gradient comes back to the host; the
 * linear layer's backward applies ReLU's derivative in its GEMM's epilogue,
 * the convolution's through clforge_activation_backward). Runs
 * in f32, bf16 (f32 master weights) and f16 (f32 masters, dynamic loss
 * scaling: the state never leaves the device). Prints loss and held-out
 * accuracy over the steps, ms/step, samples/s and the device memory of the
 * model's buffers.
 *
 * Data-parallel with --ranks N: N ranks in this process (sub-devices of the
 * device where its driver partitions it, else contexts of it), each on its
 * own context with its own copy of the model, each step's batch split into
 * N micro-batches; each layer's gradients are averaged across the ranks by
 * clforge_allreduce (MEAN) as soon as its backward call is enqueued, so the
 * collectives overlap the backward of the layers below, and the optimizer
 * step waits on their events. The ranks' weights stay bit-identical (checked
 * at the end); the time the optimizer waited on communication is reported.
 * With --mpi (under mpirun, where clforge has its MPI transport) the ranks
 * are the MPI processes, each on its local rank's device, the same way.
 * With --accumulate N one context runs each step's N micro-batches one
 * after the other and averages their gradients on the host in the
 * collectives' one order (clforge_ref_allreduce): the single-process
 * twin of N ranks, which ends with the same weights, bit for bit
 * (--weights-out FILE writes them; tests/train_cnn_mpi.sh compares) where
 * both runs compile the same kernels: the same device and driver settings
 * (POCL_MAX_PTHREAD_COUNT changes the compute units the heuristics see) and
 * the same tuning file.
 *
 * Data-parallel runs group the gradients in buckets of at most
 * --bucket-bytes (default 25 MiB, PyTorch DDP's; grad_buckets.h): one
 * all-reduce per bucket, started when the backward has made its last
 * gradient. --trace FILE writes one step's timeline (the middle one, rank
 * 0: kernels and collectives from their events; step_trace.h) as a Chrome
 * trace.
 *
 * Usage: train_cnn [--dtype f32|bf16|f16|all] [--steps N] [--batch B] [--ranks N | --mpi | --accumulate N]
 *                  [--bucket-bytes B] [--trace FILE] [--weights-out FILE] [--check]
 *   --check: exit 1 unless the run reaches a mean loss below 0.25 over its
 *   last 20 steps and 95 % held-out accuracy (fixed seeds: a check of the
 *   whole chain's correctness, not a timing), and with --ranks unless every
 *   rank ends with the same weights, bit for bit. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define TRAIN_NAME "train_cnn"
#include "train_common.h"
#include "grad_buckets.h"
#include "step_trace.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef TRAIN_CNN_MPI
#include <clforge/clforge_mpi.h>
#endif

enum { IMG = 16, CLASSES = 4, C1 = 8, C2 = 16, P2 = 8, FEAT = C2 * P2 * P2, NTRAIN = 4096, NTEST = 512 };

/* One image of class cls: a bar of length 9-13 and width 1-2 through a
 * random point, on noise. */
static void make_image(float *img, int cls) {
  for (int i = 0; i < IMG * IMG; ++i) img[i] = 0.25f * nrand();
  const int cy = 4 + (int)(urand() * 8), cx = 4 + (int)(urand() * 8), len = 9 + (int)(urand() * 5);
  const int width = 1 + (urand() < 0.5f);
  const int dy[4] = {0, 1, 1, 1}, dx[4] = {1, 0, 1, -1};
  for (int t = -len / 2; t <= len / 2; ++t)
    for (int w = 0; w < width; ++w) {
      const int y = cy + t * dy[cls] + (cls == 0 ? w : 0), x = cx + t * dx[cls] + (cls != 0 ? w : 0);
      if (y >= 0 && y < IMG && x >= 0 && x < IMG) img[y * IMG + x] += 1.0f;
    }
}

typedef struct {
  clforge_dtype t;
  size_t batch;
  cl_mem x, y, xt, yt;           /* training and held-out images and labels */
  cl_mem w1, b1, w2, b2, wf, bf; /* parameters (t) */
  cl_mem mw[6], m1[6], m2[6];    /* f32 masters (16-bit runs), AdamW's moments */
  cl_mem g[6];                   /* gradients (t) */
  cl_mem a1, a2, logits, dlogits, da2, da1, ones, loss, state;
  size_t count[6];
  env *e; /* the run's: what train_steps' callbacks need */
  const clforge_optimizer_desc *opt;
  const clforge_optimizer_tensor *tensors;
  clforge_comm comm;  /* data-parallel: this rank's communicator, else NULL */
  grad_buckets B;     /* data-parallel: the gradients' buckets (g[i] are sub-buffers of them) */
  cl_event bwd_ev;    /* the last backward call of the step */
  step_trace T;       /* --trace: the traced step's events */
  const int32_t *test_labels;
  double acc;     /* the latest held-out accuracy */
  int defer_step; /* --accumulate: the optimizer step is the caller's */
} model;

static int conv_desc(const model *m, int layer, size_t n, clforge_conv_kind kind, clforge_conv2d_desc *d) {
  const clforge_conv2d_desc c1 = {.kind = kind, .n = n, .c = 1, .h = IMG, .w = IMG, .k = C1, .r = 3, .s = 3,
                                  .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1};
  const clforge_conv2d_desc c2 = {.kind = kind, .n = n, .c = C1, .h = IMG, .w = IMG, .k = C2, .r = 3, .s = 3,
                                  .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_bottom = 1, .pad_left = 1,
                                  .pad_right = 1};
  *d = layer == 1 ? c1 : c2;
  d->x_type = d->w_type = d->y_type = d->bias_type = m->t;
  if (kind == CLFORGE_CONV_FORWARD) d->activation = CLFORGE_ACT_RELU;
  return 0;
}

/* logits = relu(conv2(relu(conv1(x)))) W^T + b for images [first, first + n) of x. */
static clforge_status forward(env *e, model *m, cl_mem x, size_t first, size_t n) {
  clforge_conv2d_desc d;
  conv_desc(m, 1, n, CLFORGE_CONV_FORWARD, &d);
  d.x_offset = first * IMG * IMG;
  clforge_status st = clforge_conv2d(e->ctx, &d, x, m->w1, m->b1, m->a1, 0, NULL, trace_slot(&m->T, "conv1", 0));
  conv_desc(m, 2, n, CLFORGE_CONV_FORWARD, &d);
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d(e->ctx, &d, m->a1, m->w2, m->b2, m->a2, 0, NULL, trace_slot(&m->T, "conv2", 0));
  const clforge_gemm_desc fc = {.m = n, .n = CLASSES, .k = FEAT, .trans_b = CLFORGE_TRANS, .a_type = m->t,
                                .b_type = m->t, .c_type = m->t, .bias_mode = CLFORGE_BIAS_COLUMN, .bias_type = m->t};
  if (st == CLFORGE_SUCCESS) st = clforge_gemm(e->ctx, &fc, m->a2, m->wf, m->logits, m->bf, 0, NULL, trace_slot(&m->T, "linear", 0));
  return st;
}

/* Data-parallel: gradients g[i .. i + k) are enqueued; a bucket whose last
 * gradient this was starts its mean over the ranks now (after everything
 * enqueued on the rank's queue so far); nothing without a communicator. */
static clforge_status average(model *m, int i, int k) {
  clforge_status st = CLFORGE_SUCCESS;
  for (int j = i; j < i + k && m->comm && st == CLFORGE_SUCCESS; ++j) {
    const int b = m->B.of[j];
    st = buckets_produced(&m->B, m->comm, j);
    if (st == CLFORGE_SUCCESS && m->B.ev[b]) trace_add(&m->T, buckets_name(b), m->B.ev[b], 1); /* just started */
  }
  return st;
}

/* One training step on images [first, first + batch): loss, gradients, AdamW. */
static clforge_status step(env *e, model *m, size_t first, const clforge_optimizer_desc *opt,
                           const clforge_optimizer_tensor *tensors) {
  const size_t n = m->batch;
  step_trace *T = &m->T;
  if (m->comm) buckets_begin(&m->B);
  clforge_status st = forward(e, m, m->x, first, n);
  /* mean cross-entropy and dlogits, scaled by the state's loss scale on the device */
  const clforge_cross_entropy_desc ce = {.rows = n, .n = CLASSES, .logits_type = m->t, .dlogits_type = m->t,
                                         .targets_offset = first, .reduction = CLFORGE_REDUCTION_MEAN};
  if (st == CLFORGE_SUCCESS)
    st = clforge_cross_entropy(e->ctx, &ce, m->logits, m->y, m->loss, m->dlogits, m->state, 0, NULL,
                               trace_slot(T, "cross-entropy", 0));
  /* the linear layer: dW = dlogits^T a2, db = dlogits^T 1 */
  const clforge_gemm_desc dwf = {.m = CLASSES, .n = FEAT, .k = n, .trans_a = CLFORGE_TRANS, .a_type = m->t,
                                 .b_type = m->t, .c_type = m->t};
  const clforge_gemm_desc dbf = {.m = CLASSES, .n = 1, .k = n, .trans_a = CLFORGE_TRANS, .a_type = m->t,
                                 .b_type = m->t, .c_type = m->t};
  /* dz2 = (dlogits W) * relu'(a2): the backward epilogue reads ReLU's mask from a2 (its output) */
  const clforge_gemm_desc dz2 = {.m = n, .n = FEAT, .k = CLASSES, .a_type = m->t, .b_type = m->t, .c_type = m->t,
                                 .activation = CLFORGE_ACT_RELU, .aux_mode = CLFORGE_GEMM_AUX_BACKWARD,
                                 .aux_type = m->t};
  if (st == CLFORGE_SUCCESS)
    st = clforge_gemm(e->ctx, &dwf, m->dlogits, m->a2, m->g[4], NULL, 0, NULL, trace_slot(T, "linear dW", 0));
  if (st == CLFORGE_SUCCESS)
    st = clforge_gemm(e->ctx, &dbf, m->dlogits, m->ones, m->g[5], NULL, 0, NULL, trace_slot(T, "linear db", 0));
  if (st == CLFORGE_SUCCESS) st = average(m, 4, 2); /* the linear layer's gradients, while the convs' backward runs */
  if (st == CLFORGE_SUCCESS)
    st = clforge_gemm_ex(e->ctx, &dz2, m->dlogits, m->wf, m->da2, NULL, m->a2, 0, NULL, trace_slot(T, "linear dX", 0));
  /* ReLU's backward for conv1 (after conv2's backward data), from its output, in place */
  clforge_activation_backward_desc relu = {.count = n * C1 * IMG * IMG, .activation = CLFORGE_ACT_RELU,
                                           .z_type = m->t, .dy_type = m->t, .dx_type = m->t};
  /* conv2: dW2 and db2 from a1 and dz2; da1 from dz2 and W2 */
  clforge_conv2d_desc d;
  conv_desc(m, 2, n, CLFORGE_CONV_BACKWARD_FILTER, &d);
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d_backward_filter(e->ctx, &d, m->a1, m->da2, m->g[2], m->g[3], 0, NULL, trace_slot(T, "conv2 dW", 0));
  if (st == CLFORGE_SUCCESS) st = average(m, 2, 2);
  conv_desc(m, 2, n, CLFORGE_CONV_BACKWARD_DATA, &d);
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d_backward_data(e->ctx, &d, m->da2, m->w2, m->da1, 0, NULL, trace_slot(T, "conv2 dX", 0));
  if (st == CLFORGE_SUCCESS)
    st = clforge_activation_backward(e->ctx, &relu, m->a1, m->da1, m->da1, 0, NULL, trace_slot(T, "relu1 backward", 0));
  /* conv1: dW1 and db1 from the images and dz1 (no gradient for the images) */
  conv_desc(m, 1, n, CLFORGE_CONV_BACKWARD_FILTER, &d);
  d.x_offset = first * IMG * IMG;
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d_backward_filter(e->ctx, &d, m->x, m->da1, m->g[0], m->g[1], 0, NULL, m->comm ? &m->bwd_ev : NULL);
  if (st == CLFORGE_SUCCESS) trace_add(T, "conv1 dW", m->bwd_ev, 0);
  if (st == CLFORGE_SUCCESS) st = average(m, 0, 2);
  /* the step waits for the averaged gradients (data-parallel) */
  if (st == CLFORGE_SUCCESS && !m->defer_step)
    st = clforge_optimizer_step(e->ctx, opt, 6, tensors, m->state, m->comm ? m->B.n : 0, m->comm ? m->B.ev : NULL,
                                trace_slot(T, "AdamW step", 0));
  return st;
}

/* Held-out accuracy: the forward on the test images, logits read back. */
static double accuracy(env *e, model *m, const int32_t *labels) {
  const size_t es = clforge_dtype_size(m->t);
  void *raw = malloc(m->batch * CLASSES * es);
  float *lg = malloc(m->batch * CLASSES * sizeof *lg);
  size_t right = 0, seen = 0;
  for (size_t first = 0; first + m->batch <= NTEST; first += m->batch) {
    if (forward(e, m, m->xt, first, m->batch) != CLFORGE_SUCCESS) break;
    clEnqueueReadBuffer(e->q, m->logits, CL_TRUE, 0, m->batch * CLASSES * es, raw, 0, NULL, NULL);
    clforge_ref_convert(m->batch * CLASSES, raw, m->t, lg, CLFORGE_F32);
    for (size_t i = 0; i < m->batch; ++i) {
      int best = 0;
      for (int c = 1; c < CLASSES; ++c)
        if (lg[i * CLASSES + c] > lg[i * CLASSES + best]) best = c;
      right += best == labels[first + i], ++seen;
    }
  }
  free(raw), free(lg);
  return seen ? (double)right / (double)seen : 0.0;
}

/* The ranks of a run (one without --ranks) and what the callbacks need. */
typedef struct {
  int n;               /* ranks in this process */
  int ranks, first;    /* ranks in all (over MPI, or --accumulate's micro-batches); this process's first */
  int accumulate;      /* --accumulate: one context runs every rank's micro-batch */
  unsigned char *acc[8][6], *mean; /* --accumulate: each micro-batch's gradients, their mean */
  model *m;            /* [n] */
  const char *trace;   /* --trace: where step trace_step's timeline goes (rank 0) */
  int trace_step;
  double comm_wait_s;  /* rank 0: the optimizer's wait on the collectives, summed over the timed steps */
  int waits;
} group;

/* Rank 0's previous step: how long after its last backward call its last
 * gradient's all-reduce ended (0 when it ended first); the events are
 * released. Profiling times of one device's queues share a clock. */
static void account_wait(group *g) {
  model *m = &g->m[0];
  if (!m->bwd_ev) return;
  cl_ulong bwd = 0, last = 0, end = 0;
  clWaitForEvents(1, &m->bwd_ev);
  clGetEventProfilingInfo(m->bwd_ev, CL_PROFILING_COMMAND_END, sizeof bwd, &bwd, NULL);
  for (int b = 0; b < m->B.n; ++b)
    if (m->B.ev[b]) {
      clWaitForEvents(1, &m->B.ev[b]);
      if (clGetEventProfilingInfo(m->B.ev[b], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) == CL_SUCCESS &&
          end > last)
        last = end;
    }
  g->comm_wait_s += last > bwd ? 1e-9 * (double)(last - bwd) : 0.0, ++g->waits;
}

static void release_step_events(group *g) {
  for (int r = 0; r < g->n; ++r) {
    model *m = &g->m[r];
    if (m->comm) buckets_begin(&m->B); /* (releases the last step's events) */
    if (m->bwd_ev) clReleaseEvent(m->bwd_ev), m->bwd_ev = NULL;
  }
}

/* --accumulate: the batch's micro-batches one after the other on one
 * context, their gradients read back and averaged in the collectives' one
 * order (rank 0's first, f32 sums, the mean's division last: what N ranks'
 * MEAN all-reduce computes), then one optimizer step. */
static clforge_status accumulate_step(group *g, size_t first) {
  model *m = &g->m[0];
  const size_t es = clforge_dtype_size(m->t);
  clforge_status st = CLFORGE_SUCCESS;
  m->defer_step = 1;
  for (int k = 0; k < g->ranks && st == CLFORGE_SUCCESS; ++k) {
    st = step(m->e, m, first + (size_t)k * m->batch, m->opt, m->tensors);
    for (int i = 0; i < 6 && st == CLFORGE_SUCCESS; ++i)
      st = clEnqueueReadBuffer(m->e->q, m->g[i], CL_TRUE, 0, m->count[i] * es, g->acc[k][i], 0, NULL, NULL);
  }
  m->defer_step = 0;
  for (int i = 0; i < 6 && st == CLFORGE_SUCCESS; ++i) {
    const void *in[8];
    for (int k = 0; k < g->ranks; ++k) in[k] = g->acc[k][i];
    const clforge_collective_desc d = {.dtype = m->t, .op = CLFORGE_REDUCE_MEAN, .count = m->count[i]};
    st = clforge_ref_allreduce(&d, g->ranks, in, g->mean);
    if (st == CLFORGE_SUCCESS)
      st = clEnqueueWriteBuffer(m->e->q, m->g[i], CL_TRUE, 0, m->count[i] * es, g->mean, 0, NULL, NULL);
  }
  if (st == CLFORGE_SUCCESS) st = clforge_optimizer_step(m->e->ctx, m->opt, 6, m->tensors, m->state, 0, NULL, NULL);
  return st;
}

/* train_steps' callbacks: step s takes the next batch of the epoch, rank r
 * its r-th micro-batch; a report evaluates this process's first model. */
static clforge_status step_cb(void *p, int s) {
  group *g = p;
  if (s > 2) account_wait(g); /* the steps timed (train_steps times from step 2) */
  release_step_events(g);
  const size_t mb = g->m[0].batch, per = mb * (size_t)g->ranks, first = (size_t)s % (NTRAIN / per) * per;
  if (g->accumulate) return accumulate_step(g, first);
  clforge_status st = CLFORGE_SUCCESS;
  g->m[0].T.on = g->trace && s == g->trace_step;
  for (int r = 0; r < g->n && st == CLFORGE_SUCCESS; ++r)
    st = step(g->m[r].e, &g->m[r], first + (size_t)(g->first + r) * mb, g->m[r].opt, g->m[r].tensors);
  if (g->m[0].T.on) { /* (the other ranks' steps are enqueued: waiting here finishes them) */
    if (st == CLFORGE_SUCCESS && trace_write(&g->m[0].T, g->trace, g->first)) st = CLFORGE_IO_ERROR;
    trace_clear(&g->m[0].T);
    g->m[0].T.on = 0;
  }
  return st;
}
static void report_cb(void *p, int s, float loss) {
  model *m = &((group *)p)->m[0];
  m->acc = accuracy(m->e, m, m->test_labels);
  printf("%6d  %8.4f  %8.1f%%\n", s, loss, 100.0 * m->acc);
}

/* He initialization (fixed seed), the same values for every dtype. */
static float *he(size_t n, size_t fan_in) {
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; ++i) v[i] = nrand() * sqrtf(2.0f / (float)fan_in);
  return v;
}

/* A rank's model on e: the parameters (the same values on every rank), the
 * data (every rank holds all of it; each reads its own micro-batches), the
 * activations of a micro-batch of `batch`, the optimizer's tensors. */
static int model_init(model *m, env *e, clforge_dtype t, size_t batch, const float *images, const int32_t *labels,
                      clforge_optimizer_tensor *ten, size_t bucket_cap) {
  memset(m, 0, sizeof *m);
  m->t = t, m->batch = batch, m->e = e;
  e->bytes = 0;
  rng = 777;
  const size_t counts[6] = {C1 * 9, C1, C2 * C1 * 9, C2, CLASSES * FEAT, CLASSES};
  float *init[6] = {he(counts[0], 9), calloc(C1, 4), he(counts[2], C1 * 9), calloc(C2, 4), he(counts[4], FEAT),
                    calloc(CLASSES, 4)};
  cl_mem *params[6] = {&m->w1, &m->b1, &m->w2, &m->b2, &m->wf, &m->bf};
  for (int i = 0; i < 6; ++i) {
    m->count[i] = counts[i];
    *params[i] = make(e, counts[i], t, init[i]);
    m->mw[i] = t == CLFORGE_F32 ? NULL : make(e, counts[i], CLFORGE_F32, init[i]);
    m->m1[i] = make(e, counts[i], CLFORGE_F32, NULL), m->m2[i] = make(e, counts[i], CLFORGE_F32, NULL);
    if (!bucket_cap) m->g[i] = make(e, counts[i], t, NULL);
    free(init[i]);
  }
  /* data-parallel: the gradients in buckets, filled as the backward produces them (the linear layer's first) */
  static const int produced[6] = {4, 5, 2, 3, 0, 1};
  if (bucket_cap && buckets_make(&m->B, e, t, 6, counts, produced, bucket_cap, m->g)) return 1;
  m->x = make(e, (size_t)NTRAIN * IMG * IMG, t, images);
  m->xt = make(e, (size_t)NTEST * IMG * IMG, t, images + (size_t)NTRAIN * IMG * IMG);
  cl_int err;
  m->y = clCreateBuffer(e->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, NTRAIN * 4, (void *)labels, &err);
  e->bytes += NTRAIN * 4;
  m->a1 = make(e, batch * C1 * IMG * IMG, t, NULL), m->a2 = make(e, batch * FEAT, t, NULL);
  m->da1 = make(e, batch * C1 * IMG * IMG, t, NULL), m->da2 = make(e, batch * FEAT, t, NULL);
  m->logits = make(e, batch * CLASSES, t, NULL), m->dlogits = make(e, batch * CLASSES, t, NULL);
  float *ones = malloc(batch * sizeof *ones);
  for (size_t i = 0; i < batch; ++i) ones[i] = 1.0f;
  m->ones = make(e, batch, t, ones);
  free(ones);
  m->loss = make(e, 1, CLFORGE_F32, NULL);
  /* f16: dynamic loss scaling from 1024; the others carry scale 1 */
  const clforge_train_state st0 = {t == CLFORGE_F16 ? 1024.0f : 1.0f, 0, 0, 0};
  m->state = clCreateBuffer(e->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof st0, (void *)&st0, &err);
  e->bytes += sizeof st0;
  memset(ten, 0, 6 * sizeof *ten);
  for (int i = 0; i < 6; ++i) {
    ten[i].count = counts[i], ten[i].param = *params[i], ten[i].master = m->mw[i], ten[i].grad = m->g[i];
    ten[i].m = m->m1[i], ten[i].v = m->m2[i], ten[i].param_type = ten[i].grad_type = t;
  }
  m->tensors = ten, m->test_labels = labels + NTRAIN;
  return 0;
}

static void model_free(model *m) {
  cl_mem all[] = {m->x, m->xt, m->y, m->a1, m->a2, m->da1, m->da2, m->logits, m->dlogits, m->ones, m->loss, m->state};
  release(all, sizeof all / sizeof all[0]);
  cl_mem *params[6] = {&m->w1, &m->b1, &m->w2, &m->b2, &m->wf, &m->bf};
  for (int i = 0; i < 6; ++i) {
    cl_mem each[] = {*params[i], m->mw[i], m->m1[i], m->m2[i], m->g[i]};
    release(each, 5);
  }
  buckets_free(&m->B);
  trace_clear(&m->T);
}

static cl_mem param(const model *m, int i) { return (cl_mem[]){m->w1, m->b1, m->w2, m->b2, m->wf, m->bf}[i]; }

/* Over MPI: 0 when every process's parameters are rank 0's, bit for bit. */
static int processes_agree(const model *m) {
  int differ = 0;
#ifdef TRAIN_CNN_MPI
  for (int i = 0; i < 6; ++i) {
    const size_t bytes = m->count[i] * clforge_dtype_size(m->t);
    unsigned char *mine = malloc(bytes), *root = malloc(bytes);
    clEnqueueReadBuffer(m->e->q, param(m, i), CL_TRUE, 0, bytes, mine, 0, NULL, NULL);
    memcpy(root, mine, bytes);
    MPI_Bcast(root, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (memcmp(mine, root, bytes)) differ = 1;
    free(mine), free(root);
  }
  MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
  (void)m;
#endif
  return differ;
}

/* The parameters' bytes, in order, to path ("<path>.<dtype>"). 0, or 1. */
static int write_weights(const model *m, const char *path) {
  char name[4096];
  snprintf(name, sizeof name, "%s.%s", path, clforge_dtype_name(m->t));
  FILE *f = fopen(name, "wb");
  int bad = !f;
  for (int i = 0; i < 6 && !bad; ++i) {
    const size_t bytes = m->count[i] * clforge_dtype_size(m->t);
    void *b = malloc(bytes);
    clEnqueueReadBuffer(m->e->q, param(m, i), CL_TRUE, 0, bytes, b, 0, NULL, NULL);
    bad = fwrite(b, 1, bytes, f) != bytes;
    free(b);
  }
  if (f && fclose(f)) bad = 1;
  if (bad) fprintf(stderr, TRAIN_NAME ": cannot write %s\n", name);
  return bad;
}

/* 0 when every rank's parameters are rank 0's, bit for bit. */
static int ranks_agree(group *g) {
  int differ = 0;
  for (int i = 0; i < 6 && !differ; ++i) {
    model *m0 = &g->m[0];
    const size_t bytes = m0->count[i] * clforge_dtype_size(m0->t);
    cl_mem p0 = param(m0, i);
    void *a = malloc(bytes), *b = malloc(bytes);
    clEnqueueReadBuffer(m0->e->q, p0, CL_TRUE, 0, bytes, a, 0, NULL, NULL);
    for (int r = 1; r < g->n && !differ; ++r) {
      model *m = &g->m[r];
      cl_mem p = param(m, i);
      clEnqueueReadBuffer(m->e->q, p, CL_TRUE, 0, bytes, b, 0, NULL, NULL);
      if (memcmp(a, b, bytes)) differ = 1, fprintf(stderr, TRAIN_NAME ": rank %d's parameter %d differs from rank 0's\n", r, i);
    }
    free(a), free(b);
  }
  return differ;
}

/* How this process takes part: its ranks (n of them, the first one's
 * index `first` of `ranks` in all; over MPI n is 1), or --accumulate's
 * micro-batches on one context; where the weights go at the end. */
typedef struct {
  int n, ranks, first, accumulate, mpi;
  const char *weights_out, *trace;
  size_t bucket_bytes; /* data-parallel: the buckets' cap */
} layout;

/* Over MPI: the worst of the ranks' outcomes, so that every rank takes the
 * same path (what follows is collective); rc elsewhere. */
static int all_ranks(const layout *L, int rc) {
#ifdef TRAIN_CNN_MPI
  if (L->mpi) MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
  (void)L;
#endif
  return rc;
}

static int train(env *es, const layout *L, clforge_comm *comms, clforge_dtype t, int steps, size_t batch, int check,
                 const float *images, const int32_t *labels) {
  model m[8];
  clforge_optimizer_tensor ten[8][6];
  const int nranks = L->n;
  const size_t mb = batch / (size_t)L->ranks;
  for (int r = 0; r < nranks; ++r) {
    if (model_init(&m[r], &es[r], t, mb, images, labels, ten[r], comms[r] ? L->bucket_bytes : 0)) return 1;
    m[r].comm = comms[r];
  }
  const clforge_optimizer_desc opt = {.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 3e-3f, .weight_decay = 1e-4f,
                                      .loss_scaling = t == CLFORGE_F16, .growth_interval = 50};
  for (int r = 0; r < nranks; ++r) m[r].opt = &opt;
  printf("\n%s: batch %zu", clforge_dtype_name(t), batch);
  if (L->ranks > 1)
    printf(" (%d %s of %zu)", L->ranks, L->accumulate ? "micro-batches accumulated" : L->mpi ? "MPI ranks" : "ranks", mb);
  printf(", %d steps, AdamW lr 3e-3%s\n", steps,
         t == CLFORGE_F16 ? ", dynamic loss scaling" : t == CLFORGE_BF16 ? ", f32 master weights" : "");
  printf("%6s  %8s  %9s\n", "step", "loss", "accuracy");
  group g = {.n = nranks, .ranks = L->ranks, .first = L->first, .accumulate = L->accumulate, .m = m,
             .trace = L->first == 0 ? L->trace : NULL, .trace_step = steps / 2};
  if (comms[0]) {
    printf("gradients in %d bucket(s) of at most %zu bytes, in the order the backward makes them:", m[0].B.n,
           L->bucket_bytes);
    for (int b = 0; b < m[0].B.n; ++b) printf(" [%d gradients, %zu B]", m[0].B.members[b], m[0].B.count[b] * clforge_dtype_size(t));
    printf("\n");
  }
  for (int k = 0; k < L->ranks && L->accumulate; ++k)
    for (int i = 0; i < 6; ++i) g.acc[k][i] = malloc(m[0].count[i] * clforge_dtype_size(t));
  size_t largest = 0;
  for (int i = 0; i < 6; ++i) largest = m[0].count[i] > largest ? m[0].count[i] : largest;
  if (L->accumulate) g.mean = malloc(largest * clforge_dtype_size(t));
  train_run run;
  int rc = train_steps(&es[0], &g, steps, m[0].loss, step_cb, report_cb, &run);
  for (int r = 0; r < nranks; ++r) clFinish(es[r].q);
  if (!rc && steps > 3) account_wait(&g);
  release_step_events(&g);
  clforge_train_state st;
  clEnqueueReadBuffer(es[0].q, m[0].state, CL_TRUE, 0, sizeof st, &st, 0, NULL, NULL);
  const double secs = run.secs, tail = run.tail, acc = m[0].acc;
  const int timed = run.timed, tail_n = run.tail_n;
  if (!rc && run.timed > 0)
    printf("%s: %.2f ms/step, %.0f samples/s, mean loss of the last %d steps %.4f, held-out "
         "accuracy %.1f%%, %d steps applied, loss scale %g; device memory of the model's buffers %.2f MiB "
         "(plus clforge's scratch)\n",
         clforge_dtype_name(t), 1e3 * secs / timed, (double)timed * (double)batch / secs, tail_n, tail, 100.0 * acc,
         st.step, st.scale, (double)es[0].bytes / (1 << 20));
  if (!rc && comms[0] && clforge_comm_status(comms[0]) != CLFORGE_SUCCESS)
    rc = 1, fprintf(stderr, TRAIN_NAME ": the communicator failed: %s\n", clforge_comm_last_error(comms[0]));
  rc = all_ranks(L, rc);
  if (!rc && comms[0]) {
    const int differ = L->mpi ? processes_agree(&m[0]) : ranks_agree(&g);
    printf("%s: %d ranks, weights %s; the optimizer waited %.2f ms/step on the all-reduces after the last backward "
           "call (rank 0, profiling events)\n",
           clforge_dtype_name(t), L->ranks, differ ? "DIFFER" : "bit-identical on every rank",
           g.waits ? 1e3 * g.comm_wait_s / g.waits : 0.0);
    if (differ) rc = 1;
  }
  if (!rc && L->weights_out && L->first == 0) rc = write_weights(&m[0], L->weights_out);
  for (int k = 0; k < L->ranks && L->accumulate; ++k)
    for (int i = 0; i < 6; ++i) free(g.acc[k][i]);
  free(g.mean);
  if (!rc && check && !(tail < 0.25 && acc >= 0.95)) {
    fprintf(stderr, "train_cnn --check: %s did not learn the task (loss %.4f, accuracy %.1f%%)\n",
            clforge_dtype_name(t), tail, 100.0 * acc);
    rc = 1;
  }
  rc = all_ranks(L, rc); /* (each rank's loss is its own micro-batch's) */
  for (int r = 0; r < nranks; ++r) model_free(&m[r]);
  return rc;
}

/* The ranks' contexts: sub-devices of the device where its driver
 * partitions it, else contexts of it; a communicator over them. */
static int open_ranks(int n, env *es, clforge_comm *comms, char *dev, size_t dev_size) {
  clforge_context ctx[8] = {0};
  const char *on = "sub-devices";
  if (clforge_context_create_subdevices(NULL, n, ctx) != CLFORGE_SUCCESS) {
    on = "contexts";
    for (int r = 0; r < n; ++r)
      if (clforge_context_create(NULL, &ctx[r]) != CLFORGE_SUCCESS) return fail(NULL, "clforge_context_create");
  }
  for (int r = 0; r < n; ++r) {
    memset(&es[r], 0, sizeof es[r]);
    es[r].ctx = ctx[r];
    clforge_context_cl_context(ctx[r], &es[r].cl);
    clforge_context_queue(ctx[r], &es[r].q);
  }
  if (clforge_comm_create_local(n, ctx, NULL, comms) != CLFORGE_SUCCESS) return fail(&es[0], "clforge_comm_create_local");
  clforge_device_info info;
  clforge_context_device_info(ctx[0], &info);
  snprintf(dev, dev_size, "%d %s of %s", n, on, info.name);
  return 0;
}

/* --mpi: this process's rank of MPI_COMM_WORLD, its context on the local
 * rank's device; the other ranks print nothing. */
static int open_mpi(int *argc, char ***argv, layout *L, env *e, clforge_comm *comm, char *dev, size_t dev_size) {
#ifdef TRAIN_CNN_MPI
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &L->first);
  MPI_Comm_size(MPI_COMM_WORLD, &L->ranks);
  if (clforge_comm_create_mpi(MPI_COMM_WORLD, NULL, NULL, comm) != CLFORGE_SUCCESS) return fail(NULL, "clforge_comm_create_mpi");
  memset(e, 0, sizeof *e);
  clforge_comm_context(*comm, &e->ctx);
  clforge_context_cl_context(e->ctx, &e->cl);
  clforge_context_queue(e->ctx, &e->q);
  clforge_device_info info;
  clforge_context_device_info(e->ctx, &info);
  snprintf(dev, dev_size, "%d MPI ranks, each on %s", L->ranks, info.name);
  if (L->first != 0 && !freopen("/dev/null", "w", stdout)) return 1;
  return 0;
#else
  (void)argc, (void)argv, (void)L, (void)e, (void)comm, (void)dev, (void)dev_size;
  fprintf(stderr, TRAIN_NAME ": --mpi: built without MPI (clforge without its MPI transport)\n");
  return 1;
#endif
}

int main(int argc, char **argv) {
  int steps = 300, check = 0, nranks = 1, accumulate = 0, mpi = 0;
  const char *weights_out = NULL, *trace = NULL;
  size_t bucket_bytes = (size_t)25 << 20; /* PyTorch DDP's default */
  size_t batch = 64;
  clforge_dtype dts[3];
  /* --ranks, --mpi, --accumulate and --weights-out are this example's own; the rest are the examples' shared options */
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--ranks") && i + 1 < argc) nranks = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--accumulate") && i + 1 < argc) accumulate = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--weights-out") && i + 1 < argc) weights_out = argv[++i];
    else if (!strcmp(argv[i], "--trace") && i + 1 < argc) trace = argv[++i];
    else if (!strcmp(argv[i], "--bucket-bytes") && i + 1 < argc) bucket_bytes = (size_t)strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--mpi")) mpi = 1;
    else argv[kept++] = argv[i];
  }
  const int ndt = parse_args(kept, argv, &steps, &batch, &check, dts);
  const int modes = (nranks > 1) + (accumulate > 0) + mpi;
  if (!ndt || batch > NTEST || nranks < 1 || nranks > 8 || accumulate < 0 || accumulate > 8 || modes > 1 || !bucket_bytes ||
      batch % (size_t)(accumulate ? accumulate : nranks)) {
    fprintf(stderr,
            "usage: train_cnn [--dtype f32|bf16|f16|all] [--steps N] [--batch B <= %d] [--ranks N | --accumulate N "
            "(1 to 8, dividing B) | --mpi] [--bucket-bytes B] [--trace FILE] [--weights-out FILE] [--check]\n",
            NTEST);
    return 2;
  }
  layout L = {.n = nranks, .ranks = accumulate ? accumulate : nranks, .accumulate = accumulate > 0, .mpi = mpi,
              .weights_out = weights_out, .trace = trace, .bucket_bytes = bucket_bytes};
  env es[8];
  clforge_comm comms[8] = {0};
  char dev[300];
  if (mpi ? open_mpi(&argc, &argv, &L, &es[0], &comms[0], dev, sizeof dev)
          : nranks == 1 ? open_env(&es[0], dev, sizeof dev) : open_ranks(nranks, es, comms, dev, sizeof dev))
    return 1;
  if (mpi && batch % (size_t)L.ranks) {
    fprintf(stderr, TRAIN_NAME ": --batch %zu does not divide into %d MPI ranks\n", batch, L.ranks);
    return 2;
  }
  /* the data: NTRAIN training and NTEST held-out images, classes in turn */
  float *images = malloc((size_t)(NTRAIN + NTEST) * IMG * IMG * sizeof *images);
  int32_t *labels = malloc((NTRAIN + NTEST) * sizeof *labels);
  rng = 2024;
  for (int i = 0; i < NTRAIN + NTEST; ++i) {
    labels[i] = (int32_t)(urand() * CLASSES);
    make_image(images + (size_t)i * IMG * IMG, labels[i]);
  }
  printf("train_cnn on %s: conv3x3(1->8)+ReLU, conv3x3/2(8->16)+ReLU, linear(1024->4), softmax cross-entropy;\n"
         "%d training and %d held-out images of 16x16 bars in 4 orientations\n",
         dev, NTRAIN, NTEST);
  int rc = 0;
  for (int i = 0; i < ndt && !rc; ++i) rc = train(es, &L, comms, dts[i], steps, batch, check, images, labels);
  free(images), free(labels);
  for (int r = 0; r < nranks; ++r) clforge_comm_destroy(comms[r]);
  if (!mpi)
    for (int r = 0; r < nranks; ++r) clforge_context_destroy(es[r].ctx);
#ifdef TRAIN_CNN_MPI
  if (mpi) {
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
  }
#endif
  return rc;
}
