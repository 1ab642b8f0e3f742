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
 * Data-parallel (data_parallel.h): --ranks N ranks in this process, --mpi
 * the MPI processes under mpirun, --accumulate N the single-process twin
 * that ends with the same weights bit for bit (tests/train_mpi.sh);
 * the gradients in DDP-style buckets (--bucket-bytes), whose all-reduces
 * overlap the backward of the layers below; --trace FILE: one step's
 * timeline as a Chrome trace.
 *
 * Usage: train_cnn [--dtype f32|bf16|f16|all] [--steps N] [--batch B] [--ranks N | --mpi | --accumulate N]
 *                  [--bucket-bytes B] [--trace FILE] [--weights-out FILE] [--check]
 *   --check: exit 1 unless the run reaches a mean loss below 0.25 over its
 *   last 20 steps and 95 % held-out accuracy (fixed seeds: a check of the
 *   whole chain's correctness, not a timing). Data-parallel runs fail
 *   unless every rank ends with the same weights, bit for bit. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define TRAIN_NAME "train_cnn"
#include "train_common.h"
#include "data_parallel.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The parameters, in the trainable's order. */
enum { W1, B1, W2, B2, WF, BF, NPARAM };

typedef struct {
  clforge_dtype t;
  size_t batch;
  cl_mem x, y, xt, yt; /* training and held-out images and labels */
  trainable w;         /* parameters, gradients, AdamW's state; data-parallel: buckets, communicator */
  cl_mem a1, a2, logits, dlogits, da2, da1, ones, loss;
  env *e;
  const int32_t *test_labels;
  double acc; /* the latest held-out accuracy */
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
  const cl_mem *p = m->w.p;
  step_trace *T = &m->w.T;
  clforge_conv2d_desc d;
  conv_desc(m, 1, n, CLFORGE_CONV_FORWARD, &d);
  d.x_offset = first * IMG * IMG;
  clforge_status st = clforge_conv2d(e->ctx, &d, x, p[W1], p[B1], m->a1, 0, NULL, trace_slot(T, "conv1", 0));
  conv_desc(m, 2, n, CLFORGE_CONV_FORWARD, &d);
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d(e->ctx, &d, m->a1, p[W2], p[B2], m->a2, 0, NULL, trace_slot(T, "conv2", 0));
  const clforge_gemm_desc fc = {.m = n, .n = CLASSES, .k = FEAT, .trans_b = CLFORGE_TRANS, .a_type = m->t,
                                .b_type = m->t, .c_type = m->t, .bias_mode = CLFORGE_BIAS_COLUMN, .bias_type = m->t};
  if (st == CLFORGE_SUCCESS) st = clforge_gemm(e->ctx, &fc, m->a2, p[WF], m->logits, p[BF], 0, NULL, trace_slot(T, "linear", 0));
  return st;
}

/* One training step on images [first, first + batch): loss, gradients (each
 * bucket's mean over the ranks started as soon as its gradients are
 * enqueued, data-parallel), AdamW. */
static clforge_status step(void *p, size_t first) {
  model *m = p;
  env *e = m->e;
  trainable *w = &m->w;
  const size_t n = m->batch;
  step_trace *T = &w->T;
  clforge_status st = forward(e, m, m->x, first, n);
  /* mean cross-entropy and dlogits, scaled by the state's loss scale on the device */
  const clforge_cross_entropy_desc ce = {.rows = n, .n = CLASSES, .logits_type = m->t, .dlogits_type = m->t,
                                         .targets_offset = first, .reduction = CLFORGE_REDUCTION_MEAN};
  if (st == CLFORGE_SUCCESS)
    st = clforge_cross_entropy(e->ctx, &ce, m->logits, m->y, m->loss, m->dlogits, w->state, 0, NULL,
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
    st = clforge_gemm(e->ctx, &dwf, m->dlogits, m->a2, w->g[WF], NULL, 0, NULL, trace_slot(T, "linear dW", 0));
  if (st == CLFORGE_SUCCESS)
    st = clforge_gemm(e->ctx, &dbf, m->dlogits, m->ones, w->g[BF], NULL, 0, NULL, trace_slot(T, "linear db", 0));
  if (st == CLFORGE_SUCCESS) st = trainable_produced(w, WF, 2); /* while the convs' backward runs */
  if (st == CLFORGE_SUCCESS)
    st = clforge_gemm_ex(e->ctx, &dz2, m->dlogits, w->p[WF], m->da2, NULL, m->a2, 0, NULL, trace_slot(T, "linear dX", 0));
  /* ReLU's backward for conv1 (after conv2's backward data), from its output, in place */
  clforge_activation_backward_desc relu = {.count = n * C1 * IMG * IMG, .activation = CLFORGE_ACT_RELU,
                                           .z_type = m->t, .dy_type = m->t, .dx_type = m->t};
  /* conv2: dW2 and db2 from a1 and dz2; da1 from dz2 and W2 */
  clforge_conv2d_desc d;
  conv_desc(m, 2, n, CLFORGE_CONV_BACKWARD_FILTER, &d);
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d_backward_filter(e->ctx, &d, m->a1, m->da2, w->g[W2], w->g[B2], 0, NULL, trace_slot(T, "conv2 dW", 0));
  if (st == CLFORGE_SUCCESS) st = trainable_produced(w, W2, 2);
  conv_desc(m, 2, n, CLFORGE_CONV_BACKWARD_DATA, &d);
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d_backward_data(e->ctx, &d, m->da2, w->p[W2], m->da1, 0, NULL, trace_slot(T, "conv2 dX", 0));
  if (st == CLFORGE_SUCCESS)
    st = clforge_activation_backward(e->ctx, &relu, m->a1, m->da1, m->da1, 0, NULL, trace_slot(T, "relu1 backward", 0));
  /* conv1: dW1 and db1 from the images and dz1 (no gradient for the images) */
  conv_desc(m, 1, n, CLFORGE_CONV_BACKWARD_FILTER, &d);
  d.x_offset = first * IMG * IMG;
  if (st == CLFORGE_SUCCESS)
    st = clforge_conv2d_backward_filter(e->ctx, &d, m->x, m->da1, w->g[W1], w->g[B1], 0, NULL, trainable_last_backward(w));
  if (st == CLFORGE_SUCCESS) trainable_backward_done(w, "conv1 dW");
  if (st == CLFORGE_SUCCESS) st = trainable_produced(w, W1, 2);
  return st == CLFORGE_SUCCESS ? trainable_step(w) : st;
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

/* train_steps' report: this process's first model evaluates. */
static void report_cb(void *p, int s, float loss) {
  model *m = ((dp_group *)p)->models[0];
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
 * activations of a micro-batch of `batch`. */
static int model_init(model *m, env *e, clforge_dtype t, size_t batch, const float *images, const int32_t *labels,
                      clforge_comm comm, size_t bucket_cap) {
  memset(m, 0, sizeof *m);
  m->t = t, m->batch = batch, m->e = e;
  e->bytes = 0;
  rng = 777;
  const size_t counts[NPARAM] = {C1 * 9, C1, C2 * C1 * 9, C2, CLASSES * FEAT, CLASSES};
  float *init[NPARAM] = {he(counts[W1], 9), calloc(C1, 4), he(counts[W2], C1 * 9), calloc(C2, 4),
                         he(counts[WF], FEAT), calloc(CLASSES, 4)};
  /* the backward makes the linear layer's gradients first */
  static const int produced[NPARAM] = {WF, BF, W2, B2, W1, B1};
  const int bad = trainable_init(&m->w, e, t, NPARAM, counts, init, produced, comm, bucket_cap);
  for (int i = 0; i < NPARAM; ++i) free(init[i]);
  if (bad) return 1;
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
  m->test_labels = labels + NTRAIN;
  return 0;
}

static void model_free(model *m) {
  cl_mem all[] = {m->x, m->xt, m->y, m->a1, m->a2, m->da1, m->da2, m->logits, m->dlogits, m->ones, m->loss};
  release(all, sizeof all / sizeof all[0]);
  trainable_free(&m->w);
}

static int train(env *es, const dp_layout *L, clforge_comm *comms, clforge_dtype t, int steps, size_t batch,
                 int check, const float *images, const int32_t *labels) {
  model m[DP_RANKS];
  void *models[DP_RANKS];
  trainable *w[DP_RANKS];
  const size_t mb = batch / (size_t)L->ranks;
  const clforge_optimizer_desc opt = {.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 3e-3f, .weight_decay = 1e-4f,
                                      .loss_scaling = t == CLFORGE_F16, .growth_interval = 50};
  int bad = 0;
  for (int r = 0; r < L->n; ++r) {
    bad |= model_init(&m[r], &es[r], t, mb, images, labels, comms[r], L->bucket_bytes);
    m[r].w.opt = &opt, models[r] = &m[r], w[r] = &m[r].w;
  }
  if (dp_all_ranks(L, bad)) { /* every rank leaves here alike, so that MPI's calls stay paired */
    for (int r = 0; r < L->n; ++r) model_free(&m[r]);
    return 1;
  }
  printf("\n%s: batch %zu", clforge_dtype_name(t), batch);
  dp_print_plan(L, t, mb, steps, opt.lr);
  dp_group g;
  dp_group_init(&g, L, models, w, step, mb, NTRAIN, steps);
  printf("%6s  %8s  %9s\n", "step", "loss", "accuracy");
  train_run run;
  clforge_train_state st;
  int rc = dp_train(&g, steps, m[0].loss, report_cb, &run, &st);
  const double secs = run.secs, tail = run.tail, acc = m[0].acc;
  if (!rc && run.timed > 0)
    printf("%s: %.2f ms/step, %.0f samples/s, mean loss of the last %d steps %.4f, held-out "
         "accuracy %.1f%%, %d steps applied, loss scale %g; device memory of the model's buffers %.2f MiB "
         "(plus clforge's scratch)\n",
         clforge_dtype_name(t), 1e3 * secs / run.timed, (double)run.timed * (double)batch / secs, run.tail_n, tail,
         100.0 * acc, st.step, st.scale, (double)es[0].bytes / (1 << 20));
  rc = dp_group_end(&g, rc, steps);
  if (!rc && check && !(tail < 0.25 && acc >= 0.95)) {
    fprintf(stderr, "train_cnn --check: %s did not learn the task (loss %.4f, accuracy %.1f%%)\n",
            clforge_dtype_name(t), tail, 100.0 * acc);
    rc = 1;
  }
  rc = dp_all_ranks(L, rc); /* (each rank's loss is its own micro-batch's) */
  for (int r = 0; r < L->n; ++r) model_free(&m[r]);
  return rc;
}

int main(int argc, char **argv) {
  int steps = 300, check = 0;
  size_t batch = 64;
  clforge_dtype dts[3];
  dp_layout L;
  const int kept = dp_parse(argc, argv, &L);
  const int ndt = kept ? parse_args(kept, argv, &steps, &batch, &check, dts) : 0;
  if (!ndt || batch > NTEST || batch % (size_t)L.ranks) {
    fprintf(stderr,
            "usage: train_cnn [--dtype f32|bf16|f16|all] [--steps N] [--batch B <= %d] " DP_USAGE " [--check]\n"
            "  (--ranks and --accumulate: 1 to %d, dividing B)\n",
            NTEST, DP_RANKS);
    return 2;
  }
  env es[DP_RANKS];
  clforge_comm comms[DP_RANKS];
  char dev[300];
  if (dp_open(&argc, &argv, &L, es, comms, dev, sizeof dev)) return 1;
  if (L.mpi && batch % (size_t)L.ranks) {
    fprintf(stderr, TRAIN_NAME ": --batch %zu does not divide into %d MPI ranks\n", batch, L.ranks);
    return dp_close(&L, es, comms, 2);
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
  return dp_close(&L, es, comms, rc);
}
