/* Data-parallel training for the examples, one driver for every model:
 *  - --ranks N: N ranks in this process (sub-devices of the device where
 *    its driver partitions it, else contexts of it), one communicator;
 *  - --mpi (under mpirun, where clforge has its MPI transport; the program
 *    is built with TRAIN_MPI): the ranks are the MPI processes, each on its
 *    local rank's device;
 *  - --accumulate N: one context runs each step's N micro-batches one after
 *    the other and averages their gradients on the host in the
 *    collectives' one order (clforge_ref_allreduce: rank 0's first, f32
 *    sums, the mean's division last): the single-process twin of N ranks,
 *    which ends with the same weights bit for bit (--weights-out FILE
 *    writes them) where both runs compile the same kernels (the same device
 *    and driver settings, the same tuning file).
 * Each rank holds its own copy of the model (a `trainable`: parameters,
 * gradients, AdamW's state) and takes its micro-batch of each step's batch;
 * the gradients are grouped in buckets (grad_buckets.h, --bucket-bytes,
 * default 25 MiB as PyTorch DDP) whose MEAN all-reduce starts as soon as
 * the backward has enqueued its last gradient, and the optimizer step waits
 * on their events. --trace FILE writes one step's timeline (the middle one,
 * rank 0; step_trace.h). At the end: the ranks' weights compared bit for
 * bit, and the optimizer's wait on communication reported.
 * Needs train_common.h (and TRAIN_NAME). */
#ifndef CLFORGE_EXAMPLES_DATA_PARALLEL_H
#define CLFORGE_EXAMPLES_DATA_PARALLEL_H

#include "grad_buckets.h"
#include "step_trace.h"
#ifdef TRAIN_MPI
#include <clforge/clforge_mpi.h>
#endif

enum { DP_RANKS = 8, DP_PARAMS = 16 };

#define DP_USAGE "[--ranks N | --accumulate N | --mpi] [--bucket-bytes B] [--trace FILE] [--weights-out FILE]"

/* A rank's trainable state: the parameters (t), their f32 masters (16-bit
 * runs) and AdamW's moments, the gradients (t; sub-buffers of the buckets
 * when data-parallel), the training state (the loss scale, on the device). */
typedef struct {
  env *e;
  clforge_dtype t;
  int n;
  size_t count[DP_PARAMS];
  cl_mem p[DP_PARAMS], master[DP_PARAMS], m1[DP_PARAMS], m2[DP_PARAMS], g[DP_PARAMS];
  clforge_optimizer_tensor ten[DP_PARAMS];
  const clforge_optimizer_desc *opt;
  cl_mem state;
  clforge_comm comm; /* data-parallel: this rank's communicator, else NULL */
  grad_buckets B;
  cl_event bwd_ev;   /* data-parallel: the step's last backward call */
  step_trace T;      /* --trace: the traced step's events */
  int defer_step;    /* --accumulate: the optimizer step is the driver's */
} trainable;

/* n parameters of count[i] elements from init[i] (f32, the same values on
 * every rank), the backward producing their gradients in `produced` order;
 * with a communicator the gradients go in buckets of at most bucket_cap
 * bytes. f16 starts dynamic loss scaling at 1024. 0, or 1 after a message. */
static int trainable_init(trainable *w, env *e, clforge_dtype t, int n, const size_t *count, float *const *init,
                          const int *produced, clforge_comm comm, size_t bucket_cap) {
  memset(w, 0, sizeof *w);
  w->e = e, w->t = t, w->n = n, w->comm = comm;
  for (int i = 0; i < n; ++i) {
    w->count[i] = count[i];
    w->p[i] = make(e, count[i], t, init[i]);
    w->master[i] = t == CLFORGE_F32 ? NULL : make(e, count[i], CLFORGE_F32, init[i]);
    w->m1[i] = make(e, count[i], CLFORGE_F32, NULL), w->m2[i] = make(e, count[i], CLFORGE_F32, NULL);
    if (!comm) w->g[i] = make(e, count[i], t, NULL);
  }
  if (comm && buckets_make(&w->B, e, t, n, count, produced, bucket_cap, w->g)) return 1;
  const clforge_train_state st0 = {t == CLFORGE_F16 ? 1024.0f : 1.0f, 0, 0, 0};
  cl_int err;
  w->state = clCreateBuffer(e->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof st0, (void *)&st0, &err);
  e->bytes += sizeof st0;
  for (int i = 0; i < n; ++i) {
    clforge_optimizer_tensor *x = &w->ten[i];
    x->count = count[i], x->param = w->p[i], x->master = w->master[i], x->grad = w->g[i];
    x->m = w->m1[i], x->v = w->m2[i], x->param_type = x->grad_type = t;
  }
  return err != CL_SUCCESS ? fail(e, "clCreateBuffer") : 0;
}

static void trainable_free(trainable *w) {
  for (int i = 0; i < w->n; ++i) {
    cl_mem each[] = {w->p[i], w->master[i], w->m1[i], w->m2[i], w->g[i]};
    release(each, 5);
  }
  release(&w->state, 1);
  buckets_free(&w->B);
  trace_clear(&w->T);
  if (w->bwd_ev) clReleaseEvent(w->bwd_ev);
}

/* A step begins: the buckets wait for all of their gradients again. */
static void trainable_begin(trainable *w) {
  if (w->comm) buckets_begin(&w->B);
}

/* Gradients i .. i + k are enqueued: a bucket whose last gradient this
 * was starts its mean over the ranks now (after everything enqueued on
 * the rank's queue so far); nothing without a communicator. */
static clforge_status trainable_produced(trainable *w, int i, int k) {
  clforge_status st = CLFORGE_SUCCESS;
  for (int j = i; j < i + k && w->comm && st == CLFORGE_SUCCESS; ++j) {
    const int b = w->B.of[j];
    st = buckets_produced(&w->B, w->comm, j);
    if (st == CLFORGE_SUCCESS && w->B.ev[b]) trace_add(&w->T, buckets_name(b), w->B.ev[b], 1); /* just started */
  }
  return st;
}

/* Where the step's last backward call `name` puts its event (kept to
 * measure the optimizer's wait; traced). Call trainable_backward_done after. */
static cl_event *trainable_last_backward(trainable *w) { return w->comm ? &w->bwd_ev : NULL; }
static void trainable_backward_done(trainable *w, const char *name) { trace_add(&w->T, name, w->bwd_ev, 0); }

/* The optimizer step, after the buckets' all-reduces (data-parallel). */
static clforge_status trainable_step(trainable *w) {
  if (w->defer_step) return CLFORGE_SUCCESS;
  return clforge_optimizer_step(w->e->ctx, w->opt, w->n, w->ten, w->state, w->comm ? w->B.n : 0,
                                w->comm ? w->B.ev : NULL, trace_slot(&w->T, "AdamW step", 0));
}

/* How this process takes part: its ranks (n of them, the first one's index
 * `first` of `ranks` in all; over MPI n is 1), or --accumulate's
 * micro-batches on one context; where the weights and the trace go. */
typedef struct {
  int n, ranks, first, accumulate, mpi;
  const char *weights_out, *trace;
  size_t bucket_bytes; /* data-parallel: the buckets' cap */
} dp_layout;

/* --ranks, --accumulate, --mpi, --bucket-bytes, --trace, --weights-out out
 * of argv (the others are kept, in order, for parse_args): the count of
 * arguments kept, or 0 for a bad value or two modes at once. */
static int dp_parse(int argc, char **argv, dp_layout *L) {
  memset(L, 0, sizeof *L);
  L->n = 1, L->bucket_bytes = (size_t)25 << 20; /* PyTorch DDP's default */
  int kept = 1, ranks = 1, accumulate = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--ranks") && i + 1 < argc) ranks = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--accumulate") && i + 1 < argc) accumulate = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--weights-out") && i + 1 < argc) L->weights_out = argv[++i];
    else if (!strcmp(argv[i], "--trace") && i + 1 < argc) L->trace = argv[++i];
    else if (!strcmp(argv[i], "--bucket-bytes") && i + 1 < argc) L->bucket_bytes = (size_t)strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--mpi")) L->mpi = 1;
    else argv[kept++] = argv[i];
  }
  const int modes = (ranks > 1) + (accumulate > 0) + L->mpi;
  if (ranks < 1 || ranks > DP_RANKS || accumulate < 0 || accumulate > DP_RANKS || modes > 1 || !L->bucket_bytes) return 0;
  L->n = ranks, L->ranks = accumulate ? accumulate : ranks, L->accumulate = accumulate > 0;
  return kept;
}

/* Over MPI: the worst of the ranks' outcomes, so that every rank takes the
 * same path (what follows is collective); rc elsewhere. */
static int dp_all_ranks(const dp_layout *L, int rc) {
#ifdef TRAIN_MPI
  if (L->mpi) MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
  (void)L;
#endif
  return rc;
}

/* The ranks' contexts: sub-devices of the device where its driver
 * partitions it, else contexts of it; a communicator over them. */
static int dp_open_ranks(int n, env *es, clforge_comm *comms, char *dev, size_t dev_size) {
  clforge_context ctx[DP_RANKS] = {0};
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
static int dp_open_mpi(int *argc, char ***argv, dp_layout *L, env *e, clforge_comm *comm, char *dev, size_t dev_size) {
#ifdef TRAIN_MPI
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

/* The run's contexts and communicators (es[0 .. L->n), comms[0 .. L->n)
 * NULL without data-parallel ranks) and the devices' description. */
static int dp_open(int *argc, char ***argv, dp_layout *L, env *es, clforge_comm *comms, char *dev, size_t dev_size) {
  memset(comms, 0, DP_RANKS * sizeof *comms);
  if (L->mpi) return dp_open_mpi(argc, argv, L, &es[0], &comms[0], dev, dev_size);
  return L->n == 1 ? open_env(&es[0], dev, dev_size) : dp_open_ranks(L->n, es, comms, dev, dev_size);
}

/* The end of the run: communicators and contexts released, MPI finalized;
 * the worst of the ranks' outcomes. */
static int dp_close(const dp_layout *L, env *es, clforge_comm *comms, int rc) {
  for (int r = 0; r < L->n; ++r) clforge_comm_destroy(comms[r]);
  if (!L->mpi)
    for (int r = 0; r < L->n; ++r) clforge_context_destroy(es[r].ctx);
#ifdef TRAIN_MPI
  if (L->mpi) {
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
  }
#endif
  return rc;
}

/* A run's ranks and what train_steps' callbacks need: each rank's model
 * (models[r], whose trainable is w[r]) and its step on the micro-batch of
 * `micro` samples from sample `first`. */
typedef struct {
  const dp_layout *L;
  void *models[DP_RANKS];
  trainable *w[DP_RANKS];
  clforge_status (*step)(void *model, size_t first);
  size_t micro, samples;  /* the micro-batch; the training samples (an epoch) */
  unsigned char *acc[DP_RANKS][DP_PARAMS], *mean; /* --accumulate: each micro-batch's gradients, their mean */
  int trace_step;
  double comm_wait_s; /* rank 0: the optimizer's wait on the collectives, summed over the timed steps */
  int waits;
} dp_group;

/* Rank 0's previous step: how long after its last backward call its last
 * bucket's all-reduce ended (0 when it ended first). Profiling times of
 * one device's queues share a clock. */
static void dp_account_wait(dp_group *g) {
  trainable *w = g->w[0];
  if (!w->bwd_ev) return;
  cl_ulong bwd = 0, last = 0, end = 0;
  clWaitForEvents(1, &w->bwd_ev);
  clGetEventProfilingInfo(w->bwd_ev, CL_PROFILING_COMMAND_END, sizeof bwd, &bwd, NULL);
  for (int b = 0; b < w->B.n; ++b)
    if (w->B.ev[b]) {
      clWaitForEvents(1, &w->B.ev[b]);
      if (clGetEventProfilingInfo(w->B.ev[b], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) == CL_SUCCESS &&
          end > last)
        last = end;
    }
  g->comm_wait_s += last > bwd ? 1e-9 * (double)(last - bwd) : 0.0, ++g->waits;
}

static void dp_release_step_events(dp_group *g) {
  for (int r = 0; r < g->L->n; ++r) {
    trainable *w = g->w[r];
    trainable_begin(w); /* (releases the last step's events) */
    if (w->bwd_ev) clReleaseEvent(w->bwd_ev), w->bwd_ev = NULL;
  }
}

/* --accumulate: the batch's micro-batches one after the other on one
 * context, their gradients read back and averaged in the collectives' one
 * order, then one optimizer step. */
static clforge_status dp_accumulate_step(dp_group *g, size_t first) {
  trainable *w = g->w[0];
  const size_t es = clforge_dtype_size(w->t);
  clforge_status st = CLFORGE_SUCCESS;
  w->defer_step = 1;
  for (int k = 0; k < g->L->ranks && st == CLFORGE_SUCCESS; ++k) {
    st = g->step(g->models[0], first + (size_t)k * g->micro);
    for (int i = 0; i < w->n && st == CLFORGE_SUCCESS; ++i)
      st = clEnqueueReadBuffer(w->e->q, w->g[i], CL_TRUE, 0, w->count[i] * es, g->acc[k][i], 0, NULL, NULL);
  }
  w->defer_step = 0;
  for (int i = 0; i < w->n && st == CLFORGE_SUCCESS; ++i) {
    const void *in[DP_RANKS];
    for (int k = 0; k < g->L->ranks; ++k) in[k] = g->acc[k][i];
    const clforge_collective_desc d = {.dtype = w->t, .op = CLFORGE_REDUCE_MEAN, .count = w->count[i]};
    st = clforge_ref_allreduce(&d, g->L->ranks, in, g->mean);
    if (st == CLFORGE_SUCCESS)
      st = clEnqueueWriteBuffer(w->e->q, w->g[i], CL_TRUE, 0, w->count[i] * es, g->mean, 0, NULL, NULL);
  }
  return st == CLFORGE_SUCCESS ? trainable_step(w) : st;
}

/* train_steps' step callback (its model is the dp_group): step s takes the
 * next batch of the epoch, rank r its r-th micro-batch. */
static clforge_status dp_step_cb(void *p, int s) {
  dp_group *g = p;
  if (s > 2) dp_account_wait(g); /* the steps timed (train_steps times from step 2) */
  dp_release_step_events(g);
  const size_t per = g->micro * (size_t)g->L->ranks, first = (size_t)s % (g->samples / per) * per;
  if (g->L->accumulate) return dp_accumulate_step(g, first);
  step_trace *T = &g->w[0]->T;
  T->on = g->L->trace && g->L->first == 0 && s == g->trace_step;
  clforge_status st = CLFORGE_SUCCESS;
  for (int r = 0; r < g->L->n && st == CLFORGE_SUCCESS; ++r)
    st = g->step(g->models[r], first + (size_t)(g->L->first + r) * g->micro);
  if (T->on) { /* (the other ranks' steps are enqueued: waiting here finishes them) */
    if (st == CLFORGE_SUCCESS && trace_write(T, g->L->trace, g->L->first)) st = CLFORGE_IO_ERROR;
    trace_clear(T);
    T->on = 0;
  }
  return st;
}

/* The group of a run's ranks; --accumulate's host buffers. */
static void dp_group_init(dp_group *g, const dp_layout *L, void **models, trainable **w,
                          clforge_status (*step)(void *, size_t), size_t micro, size_t samples, int steps) {
  memset(g, 0, sizeof *g);
  g->L = L, g->step = step, g->micro = micro, g->samples = samples, g->trace_step = steps / 2;
  for (int r = 0; r < L->n; ++r) g->models[r] = models[r], g->w[r] = w[r];
  const size_t es = clforge_dtype_size(w[0]->t);
  size_t largest = 0;
  for (int i = 0; i < w[0]->n && L->accumulate; ++i) {
    for (int k = 0; k < L->ranks; ++k) g->acc[k][i] = malloc(w[0]->count[i] * es);
    largest = w[0]->count[i] > largest ? w[0]->count[i] : largest;
  }
  g->mean = L->accumulate ? malloc(largest * es) : NULL;
  if (w[0]->comm) {
    const grad_buckets *B = &w[0]->B;
    printf("gradients in %d bucket(s) of at most %zu bytes, in the order the backward makes them:", B->n,
           L->bucket_bytes);
    for (int b = 0; b < B->n; ++b) printf(" [%d gradients, %zu B]", B->members[b], B->count[b] * es);
    printf("\n");
  }
}

/* The training: `steps` of the group's ranks through train_steps (report
 * evaluating every 50 steps), every rank's queue finished, rank 0's
 * training state read. 0, or 1 when a step failed. */
static int dp_train(dp_group *g, int steps, cl_mem loss, void (*report)(void *, int, float), train_run *run,
                    clforge_train_state *st) {
  trainable *w = g->w[0];
  const int rc = train_steps(w->e, g, steps, loss, dp_step_cb, report, run);
  for (int r = 0; r < g->L->n; ++r) clFinish(g->w[r]->e->q);
  clEnqueueReadBuffer(w->e->q, w->state, CL_TRUE, 0, sizeof *st, st, 0, NULL, NULL);
  return rc;
}

/* 0 when every rank's parameters are rank 0's, bit for bit: the ranks of
 * this process, or over MPI every process's. */
static int dp_ranks_agree(dp_group *g) {
  const trainable *w0 = g->w[0];
  int differ = 0;
  for (int i = 0; i < w0->n; ++i) {
    const size_t bytes = w0->count[i] * clforge_dtype_size(w0->t);
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    clEnqueueReadBuffer(w0->e->q, w0->p[i], CL_TRUE, 0, bytes, a, 0, NULL, NULL);
    for (int r = 1; r < g->L->n; ++r) {
      clEnqueueReadBuffer(g->w[r]->e->q, g->w[r]->p[i], CL_TRUE, 0, bytes, b, 0, NULL, NULL);
      if (memcmp(a, b, bytes)) differ = 1, fprintf(stderr, TRAIN_NAME ": rank %d's parameter %d differs from rank 0's\n", r, i);
    }
#ifdef TRAIN_MPI
    if (g->L->mpi) {
      memcpy(b, a, bytes);
      MPI_Bcast(b, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
      if (memcmp(a, b, bytes)) differ = 1, fprintf(stderr, TRAIN_NAME ": rank %d's parameter %d differs from rank 0's\n", g->L->first, i);
    }
#endif
    free(a), free(b);
  }
#ifdef TRAIN_MPI
  if (g->L->mpi) MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
  return differ;
}

/* The parameters' bytes, in order, to path ("<path>.<dtype>"). 0, or 1. */
static int dp_write_weights(const trainable *w, const char *path) {
  char name[4096];
  snprintf(name, sizeof name, "%s.%s", path, clforge_dtype_name(w->t));
  FILE *f = fopen(name, "wb");
  int bad = !f;
  for (int i = 0; i < w->n && !bad; ++i) {
    const size_t bytes = w->count[i] * clforge_dtype_size(w->t);
    void *b = malloc(bytes);
    clEnqueueReadBuffer(w->e->q, w->p[i], CL_TRUE, 0, bytes, b, 0, NULL, NULL);
    bad = fwrite(b, 1, bytes, f) != bytes;
    free(b);
  }
  if (f && fclose(f)) bad = 1;
  if (bad) fprintf(stderr, TRAIN_NAME ": cannot write %s\n", name);
  return bad;
}

/* After dp_train: the events released, the communicator's health,
 * the ranks' agreement and the optimizer's wait reported, the weights
 * written (--weights-out, rank 0), the host buffers freed. The worst of
 * the ranks' outcomes. */
static int dp_group_end(dp_group *g, int rc, int steps) {
  const dp_layout *L = g->L;
  trainable *w = g->w[0];
  if (!rc && steps > 3) dp_account_wait(g);
  dp_release_step_events(g);
  if (!rc && w->comm && clforge_comm_status(w->comm) != CLFORGE_SUCCESS)
    rc = 1, fprintf(stderr, TRAIN_NAME ": the communicator failed: %s\n", clforge_comm_last_error(w->comm));
  rc = dp_all_ranks(L, rc);
  if (!rc && w->comm) {
    const int differ = dp_ranks_agree(g);
    printf("%s: %d ranks, weights %s; the optimizer waited %.2f ms/step on the all-reduces after the last backward "
           "call (rank 0, profiling events)\n",
           clforge_dtype_name(w->t), L->ranks, differ ? "DIFFER" : "bit-identical on every rank",
           g->waits ? 1e3 * g->comm_wait_s / g->waits : 0.0);
    if (differ) rc = 1;
  }
  if (!rc && L->weights_out && L->first == 0) rc = dp_write_weights(w, L->weights_out);
  for (int k = 0; k < DP_RANKS; ++k)
    for (int i = 0; i < DP_PARAMS; ++i) free(g->acc[k][i]);
  free(g->mean);
  return rc;
}

/* The rest of a run's heading line: how a batch is split (" (3 MPI ranks
 * of 16)"), the steps, the optimizer and what the dtype adds. */
static void dp_print_plan(const dp_layout *L, clforge_dtype t, size_t micro, int steps, float lr) {
  if (L->ranks > 1)
    printf(" (%d %s of %zu)", L->ranks, L->accumulate ? "micro-batches accumulated" : L->mpi ? "MPI ranks" : "ranks",
           micro);
  printf(", %d steps, AdamW lr %g%s\n", steps, lr,
         t == CLFORGE_F16 ? ", dynamic loss scaling" : t == CLFORGE_BF16 ? ", f32 master weights" : "");
}

#endif
