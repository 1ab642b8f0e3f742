/* Collectives over communicators of one process (clforge_comm_create_local)
 * against clforge_ref_allreduce and plain copies: every collective, dtype
 * and reduction, sizes of one element, of a few chunks and a remainder, and
 * 64 MiB; in place and out of place; bit-identical results on every rank;
 * the event convention; bad input (nothing written, the communicator still
 * works); a mismatch and a missing rank (an error naming them, no hang).
 * Ranks: three contexts of the default device, and two sub-devices of it
 * where its driver partitions (PoCL's and Intel's CPU devices do). */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "../src/core/context.h" /* clforge__test_set_fault */
#include "test_util.h"

typedef struct {
  int n;
  clforge_context ctx[4];
  clforge_comm comm[4];
  const char *what;
} ranks;

static cl_command_queue queue_of(clforge_context ctx) {
  cl_command_queue q;
  clforge_context_queue(ctx, &q);
  return q;
}

#define fill tu_fill_all_bits

static void wait_ok(cl_event e, const char *what) {
  cl_int err = clWaitForEvents(1, &e);
  CHECK(err == CL_SUCCESS, "%s: clWaitForEvents -> %d", what, err);
  clReleaseEvent(e);
}

/* One all-reduce (or reduce-scatter) on every rank against the reference;
 * in place when recv_off < 0. */
static void check_reduce(ranks *R, int scatter, clforge_dtype t, clforge_reduce_op op, size_t count, int in_place,
                         unsigned seed) {
  const int n = R->n;
  const size_t es = clforge_dtype_size(t), total = scatter ? count * (size_t)n : count, off = 3;
  void *in[4], *got = malloc(total * es + 1), *want = malloc(total * es + 1);
  cl_mem send[4], recv[4];
  cl_event ev[4];
  for (int r = 0; r < n; ++r) {
    in[r] = malloc(total * es + 1);
    fill(in[r], t, total, &seed, op >= CLFORGE_REDUCE_MAX);
    send[r] = tu_buffer(R->ctx[r], (off + total) * es);
    tu_write(R->ctx[r], send[r], off * es, total * es, in[r]);
    recv[r] = in_place ? send[r] : tu_buffer(R->ctx[r], (off + total) * es);
  }
  clforge_collective_desc d = {.dtype = t, .op = op, .count = count};
  clforge_ref_allreduce(&(clforge_collective_desc){.dtype = t, .op = op, .count = total}, n, (const void *const *)in, want);
  for (int r = 0; r < n; ++r) {
    const size_t roff = in_place && scatter ? off + (size_t)r * count : off;
    clforge_status st = scatter ? clforge_reduce_scatter(R->comm[r], &d, send[r], off, recv[r], roff, 0, NULL, &ev[r])
                                : clforge_allreduce(R->comm[r], &d, send[r], off, recv[r], roff, 0, NULL, &ev[r]);
    CHECK(st == CLFORGE_SUCCESS, "%s rank %d: %s", R->what, r, clforge_last_error(R->ctx[r]));
    if (st != CLFORGE_SUCCESS) ev[r] = NULL;
  }
  int same = 1;
  void *first = malloc(total * es + 1);
  for (int r = 0; r < n; ++r) {
    if (ev[r]) wait_ok(ev[r], R->what);
    const size_t roff = in_place && scatter ? off + (size_t)r * count : off;
    const size_t mine = scatter ? (size_t)r * count : 0;
    tu_read(R->ctx[r], recv[r], roff * es, count * es, got);
    if (memcmp(got, (char *)want + mine * es, count * es)) same = 0;
    if (!scatter && r == 0) memcpy(first, got, count * es);
    if (!scatter && r > 0) CHECK(!memcmp(got, first, count * es), "%s: rank %d's bits differ from rank 0's", R->what, r);
  }
  CHECK(same, "%s %s %s %s count %zu%s: differs from clforge_ref_allreduce's order", R->what,
        scatter ? "reduce_scatter" : "allreduce", clforge_dtype_name(t), clforge_reduce_op_name((clforge_reduce_op)op),
        count, in_place ? " in place" : "");
  for (int r = 0; r < n; ++r) {
    clReleaseMemObject(send[r]);
    if (!in_place) clReleaseMemObject(recv[r]);
    free(in[r]);
  }
  free(first), free(got), free(want);
}

/* Broadcast from root and all-gather: copies, checked byte for byte. */
static void check_copies(ranks *R, clforge_dtype t, size_t count, int in_place, int root, unsigned seed) {
  const int n = R->n;
  const size_t es = clforge_dtype_size(t);
  unsigned char *in[4], *got = malloc((size_t)n * count * es);
  cl_mem send[4], recv[4];
  cl_event ev[4];
  /* broadcast: the root's send, every rank's recv (the root's in place) */
  for (int r = 0; r < n; ++r) {
    in[r] = malloc(count * es);
    fill(in[r], t, count, &seed, 0);
    send[r] = tu_buffer(R->ctx[r], count * es);
    tu_write(R->ctx[r], send[r], 0, count * es, in[r]);
    recv[r] = in_place && r == root ? send[r] : tu_buffer(R->ctx[r], count * es);
  }
  clforge_collective_desc d = {.dtype = t, .count = count, .root = root};
  for (int r = 0; r < n; ++r)
    CHECK_OK(R->ctx[r], clforge_broadcast(R->comm[r], &d, r == root ? send[r] : NULL, 0, recv[r], 0, 0, NULL, &ev[r]));
  for (int r = 0; r < n; ++r) {
    wait_ok(ev[r], "broadcast");
    tu_read(R->ctx[r], recv[r], 0, count * es, got);
    CHECK(!memcmp(got, in[root], count * es), "%s broadcast count %zu: rank %d's recv is not the root's send", R->what,
          count, r);
  }
  for (int r = 0; r < n; ++r)
    if (recv[r] != send[r]) clReleaseMemObject(recv[r]);
  /* all-gather: recv holds every rank's send in rank order (in place: the
   * send is the recv's own block) */
  for (int r = 0; r < n; ++r) {
    recv[r] = tu_buffer(R->ctx[r], (size_t)n * count * es);
    if (in_place) tu_write(R->ctx[r], recv[r], (size_t)r * count * es, count * es, in[r]);
  }
  for (int r = 0; r < n; ++r)
    CHECK_OK(R->ctx[r], clforge_all_gather(R->comm[r], &d, in_place ? recv[r] : send[r], in_place ? (size_t)r * count : 0,
                                           recv[r], 0, 0, NULL, &ev[r]));
  for (int r = 0; r < n; ++r) {
    wait_ok(ev[r], "all_gather");
    tu_read(R->ctx[r], recv[r], 0, (size_t)n * count * es, got);
    int ok = 1;
    for (int q = 0; q < n; ++q)
      if (memcmp(got + (size_t)q * count * es, in[q], count * es)) ok = 0;
    CHECK(ok, "%s all_gather count %zu%s: rank %d's recv is not the sends in rank order", R->what, count,
          in_place ? " in place" : "", r);
  }
  for (int r = 0; r < n; ++r) {
    clReleaseMemObject(recv[r]);
    clReleaseMemObject(send[r]);
    free(in[r]);
  }
  free(got);
}

/* The event convention: a rank's collective waits for its wait list; a
 * call without an event makes the context's queue wait for it. */
static void check_events(ranks *R) {
  const int n = R->n;
  float x[4][5], got[5];
  cl_mem buf[4];
  cl_event ev[4];
  cl_context c0;
  clforge_context_cl_context(R->ctx[0], &c0);
  cl_int err;
  cl_event gate = clCreateUserEvent(c0, &err);
  for (int r = 0; r < n; ++r) {
    for (int i = 0; i < 5; ++i) x[r][i] = (float)(r + 1) * 0.25f + (float)i;
    buf[r] = tu_buffer(R->ctx[r], sizeof x[r]);
    tu_write(R->ctx[r], buf[r], 0, sizeof x[r], x[r]);
  }
  clforge_collective_desc d = {.dtype = CLFORGE_F32, .op = CLFORGE_REDUCE_SUM, .count = 5};
  CHECK_OK(R->ctx[0], clforge_allreduce(R->comm[0], &d, buf[0], 0, buf[0], 0, 1, &gate, &ev[0]));
  for (int r = 1; r < n; ++r) CHECK_OK(R->ctx[r], clforge_allreduce(R->comm[r], &d, buf[r], 0, buf[r], 0, 0, NULL, &ev[r]));
  struct timespec ts = {0, 100000000};
  nanosleep(&ts, NULL);
  cl_int s0 = CL_COMPLETE;
  clGetEventInfo(ev[n - 1], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s0, &s0, NULL);
  CHECK(s0 != CL_COMPLETE, "%s: a collective completed before rank 0's wait list", R->what);
  clSetUserEventStatus(gate, CL_COMPLETE);
  clReleaseEvent(gate);
  for (int r = 0; r < n; ++r) wait_ok(ev[r], "allreduce after a user event");
  /* no event: the next read on the context's queue sees the result */
  for (int r = 0; r < n; ++r) CHECK_OK(R->ctx[r], clforge_allreduce(R->comm[r], &d, buf[r], 0, buf[r], 0, 0, NULL, NULL));
  for (int r = 0; r < n; ++r) {
    tu_read(R->ctx[r], buf[r], 0, sizeof got, got);
    float want = 0;
    for (int q = 0; q < n; ++q) want += x[q][4];
    CHECK(got[4] == want * (float)n, "%s: event NULL: rank %d read %g, want %g", R->what, r, got[4], want * n);
  }
  /* the barrier: every rank's event completes */
  for (int r = 0; r < n; ++r) CHECK_OK(R->ctx[r], clforge_comm_barrier(R->comm[r], 0, NULL, &ev[r]));
  for (int r = 0; r < n; ++r) wait_ok(ev[r], "barrier");
  for (int r = 0; r < n; ++r) clReleaseMemObject(buf[r]);
}

/* Bad input: refused with a message, nothing written, the group still works. */
static void check_bad_input(ranks *R) {
  clforge_context ctx = R->ctx[0];
  float sentinel[8] = {7, 7, 7, 7, 7, 7, 7, 7}, got[8];
  cl_mem a = tu_buffer(ctx, sizeof sentinel), small = tu_buffer(ctx, 4 * sizeof(float));
  cl_mem foreign = tu_buffer(R->ctx[1], sizeof sentinel);
  tu_write(ctx, a, 0, sizeof sentinel, sentinel);
  clforge_collective_desc d = {.dtype = CLFORGE_F32, .op = CLFORGE_REDUCE_SUM, .count = 8};
  cl_event ev = (cl_event)1;
  CHECK_FAILS(NULL, clforge_allreduce(NULL, &d, a, 0, a, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "comm is NULL");
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], NULL, a, 0, a, 0, 0, NULL, &ev), CLFORGE_INVALID_ARGUMENT, "desc is NULL");
  CHECK(ev == NULL, "a refused call left *event set");
  /* the crossover is MPI's: one process has one all-reduce */
  clforge_comm_algo algo = CLFORGE_COMM_ALGO_AUTO;
  clforge_comm_tune_result tr;
  CHECK_FAILS(ctx, clforge_comm_allreduce_algo(R->comm[0], 1 << 20, &algo, NULL, NULL), CLFORGE_UNSUPPORTED, "one process");
  CHECK_FAILS(ctx, clforge_comm_tune(R->comm[0], NULL, &tr), CLFORGE_UNSUPPORTED, "tune over MPI");
  CHECK_FAILS(ctx, clforge_comm_allreduce_algo(R->comm[0], 1, NULL, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "algo is NULL");
  clforge_collective_desc bad = d;
  bad.dtype = (clforge_dtype)99;
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &bad, a, 0, a, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "dtype");
  bad = d, bad.op = (clforge_reduce_op)7;
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &bad, a, 0, a, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "op 7");
  bad = d, bad.root = R->n;
  CHECK_FAILS(ctx, clforge_broadcast(R->comm[0], &bad, a, 0, a, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "root");
  bad = d, bad.reserved[2] = 1;
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &bad, a, 0, a, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  bad = d, bad.count = SIZE_MAX / 2;
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &bad, a, 0, a, 0, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "overflows");
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &d, a, 0, small, 0, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "recv");
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &d, small, 0, a, 0, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "send");
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &d, foreign, 0, a, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "send");
  bad = d, bad.count = 4;
  CHECK_FAILS(ctx, clforge_allreduce(R->comm[0], &bad, a, 0, a, 2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlap");
  CHECK_FAILS(ctx, clforge_reduce_scatter(R->comm[0], &(clforge_collective_desc){.dtype = CLFORGE_F32, .count = 2}, a, 0,
                                          a, 1, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "overlap");
  clFinish(queue_of(ctx));
  tu_read(ctx, a, 0, sizeof got, got);
  CHECK(!memcmp(got, sentinel, sizeof got), "a refused collective wrote its buffer");
  CHECK(!strcmp(clforge_comm_last_error(R->comm[0]), "") && clforge_comm_status(R->comm[0]) == CLFORGE_SUCCESS,
        "bad input broke the communicator: %s", clforge_comm_last_error(R->comm[0]));
  int rank = -1, size = -1;
  CHECK_OK(ctx, clforge_comm_rank(R->comm[1], &rank));
  CHECK_OK(ctx, clforge_comm_size(R->comm[1], &size));
  CHECK(rank == 1 && size == R->n, "rank %d size %d", rank, size);
  clReleaseMemObject(a), clReleaseMemObject(small), clReleaseMemObject(foreign);
}

/* A data-parallel step: each rank's weight gradient dW_r = X_r^T dY_r on
 * its micro-batch, summed by clforge_allreduce, gives the bits one context
 * gets by accumulating the micro-batches' gradients in rank order
 * (dW = dW_0, then dW += dW_1, ... through the GEMM's beta = 1): the
 * defined order is the single-process one. */
static void check_data_parallel(ranks *R) {
  enum { B = 16, IN = 37, OUT = 29 };
  const int n = R->n;
  unsigned seed = 99;
  float *x = malloc(sizeof(float) * (size_t)n * B * IN), *dy = malloc(sizeof(float) * (size_t)n * B * OUT);
  float got[IN * OUT], want[IN * OUT];
  fill(x, CLFORGE_F32, (size_t)n * B * IN, &seed, 0);
  fill(dy, CLFORGE_F32, (size_t)n * B * OUT, &seed, 0);
  clforge_gemm_desc g = {.layout = CLFORGE_ROW_MAJOR, .trans_a = CLFORGE_TRANS, .m = IN, .n = OUT, .k = B};
  cl_mem xs[4], dys[4], dw[4];
  cl_event ev[4];
  for (int r = 0; r < n; ++r) {
    xs[r] = tu_buffer(R->ctx[r], sizeof(float) * B * IN);
    dys[r] = tu_buffer(R->ctx[r], sizeof(float) * B * OUT);
    dw[r] = tu_buffer(R->ctx[r], sizeof got);
    tu_write(R->ctx[r], xs[r], 0, sizeof(float) * B * IN, x + (size_t)r * B * IN);
    tu_write(R->ctx[r], dys[r], 0, sizeof(float) * B * OUT, dy + (size_t)r * B * OUT);
    CHECK_OK(R->ctx[r], clforge_gemm(R->ctx[r], &g, xs[r], dys[r], dw[r], NULL, 0, NULL, NULL));
  }
  /* no wait list: each rank's collective follows its GEMM on its queue */
  clforge_collective_desc d = {.dtype = CLFORGE_F32, .op = CLFORGE_REDUCE_SUM, .count = IN * OUT};
  for (int r = 0; r < n; ++r) CHECK_OK(R->ctx[r], clforge_allreduce(R->comm[r], &d, dw[r], 0, dw[r], 0, 0, NULL, &ev[r]));
  /* one context, the micro-batches in turn */
  cl_mem xa = tu_buffer(R->ctx[0], sizeof(float) * (size_t)n * B * IN);
  cl_mem dya = tu_buffer(R->ctx[0], sizeof(float) * (size_t)n * B * OUT), acc = tu_buffer(R->ctx[0], sizeof want);
  tu_write(R->ctx[0], xa, 0, sizeof(float) * (size_t)n * B * IN, x);
  tu_write(R->ctx[0], dya, 0, sizeof(float) * (size_t)n * B * OUT, dy);
  for (int r = 0; r < n; ++r) {
    clforge_gemm_desc gr = g;
    gr.beta = r ? 1.0f : 0.0f;
    gr.a_offset = (size_t)r * B * IN, gr.b_offset = (size_t)r * B * OUT;
    CHECK_OK(R->ctx[0], clforge_gemm(R->ctx[0], &gr, xa, dya, acc, NULL, 0, NULL, NULL));
  }
  tu_read(R->ctx[0], acc, 0, sizeof want, want);
  for (int r = 0; r < n; ++r) {
    wait_ok(ev[r], "data-parallel allreduce");
    tu_read(R->ctx[r], dw[r], 0, sizeof got, got);
    CHECK(!memcmp(got, want, sizeof got), "%s: rank %d's summed gradient differs from the accumulated micro-batches'",
          R->what, r);
    clReleaseMemObject(xs[r]), clReleaseMemObject(dys[r]), clReleaseMemObject(dw[r]);
  }
  clReleaseMemObject(xa), clReleaseMemObject(dya), clReleaseMemObject(acc);
  free(x), free(dy);
}

static int make_ranks(ranks *R, int n, const char *what, const clforge_comm_options *opts) {
  R->n = n, R->what = what;
  clforge_status st = clforge_comm_create_local(n, R->ctx, opts, R->comm);
  CHECK(st == CLFORGE_SUCCESS, "%s: clforge_comm_create_local: %s", what, clforge_last_error(R->ctx[0]));
  return st == CLFORGE_SUCCESS;
}

static void destroy_comms(ranks *R) {
  for (int r = 0; r < R->n; ++r) clforge_comm_destroy(R->comm[r]);
}

/* A rank whose wait list never completes, a call after another rank's
 * destroy, a chunk smaller than an element, the timeout's variable. */
static void check_more_faults(ranks *R) {
  clforge_comm_options o = {.timeout_ms = 300, .chunk_bytes = 1};
  ranks F = *R;
  if (!make_ranks(&F, R->n, "more faults", &o)) return;
  cl_mem b[4];
  cl_event ev[4];
  float got[7];
  cl_context c0;
  clforge_context_cl_context(F.ctx[0], &c0);
  cl_int err;
  /* chunk_bytes 1 rounds up to one element: a working collective first */
  clforge_collective_desc d = {.dtype = CLFORGE_F16, .op = CLFORGE_REDUCE_MAX, .count = 7};
  uint16_t h[4][7], hw[7];
  unsigned seed = 5;
  const void *ins[4];
  for (int r = 0; r < F.n; ++r) {
    fill(h[r], CLFORGE_F16, 7, &seed, 1);
    ins[r] = h[r];
    b[r] = tu_buffer(F.ctx[r], sizeof h[r]);
    tu_write(F.ctx[r], b[r], 0, sizeof h[r], h[r]);
  }
  clforge_ref_allreduce(&d, F.n, ins, hw);
  for (int r = 0; r < F.n; ++r) CHECK_OK(F.ctx[r], clforge_allreduce(F.comm[r], &d, b[r], 0, b[r], 0, 0, NULL, NULL));
  for (int r = 0; r < F.n; ++r) {
    uint16_t g[7];
    tu_read(F.ctx[r], b[r], 0, sizeof g, g);
    CHECK(!memcmp(g, hw, sizeof g), "chunk_bytes 1 (f16 max): rank %d differs from the reference", r);
  }
  /* rank 1's wait list never completes: named after the timeout */
  cl_context c1;
  clforge_context_cl_context(F.ctx[1], &c1);
  cl_event never = clCreateUserEvent(c1, &err);
  d.dtype = CLFORGE_F32, d.op = CLFORGE_REDUCE_SUM, d.count = 3;
  for (int r = 0; r < F.n; ++r)
    CHECK_OK(F.ctx[r], clforge_allreduce(F.comm[r], &d, b[r], 0, b[r], 0, r == 1, r == 1 ? &never : NULL, &ev[r]));
  for (int r = 0; r < F.n; ++r)
    if (r != 1) {
      CHECK(clWaitForEvents(1, &ev[r]) == CL_SUCCESS, "rank %d's event did not complete", r);
      tu_read(F.ctx[r], b[r], 0, 3 * sizeof(float), got);
      CHECK(isnan(got[0]), "rank %d's recv: %g (want NaN)", r, got[0]);
    }
  CHECK(clforge_comm_status(F.comm[0]) == CLFORGE_COMM_TIMEOUT &&
            strstr(clforge_comm_last_error(F.comm[0]), "rank 1's input was not ready") != NULL,
        "a wait list that never completes: %s: %s", clforge_status_name(clforge_comm_status(F.comm[0])),
        clforge_comm_last_error(F.comm[0]));
  clSetUserEventStatus(never, CL_COMPLETE); /* lets rank 1's own commands end */
  clReleaseEvent(never);
  for (int r = 0; r < F.n; ++r) clReleaseEvent(ev[r]);
  destroy_comms(&F);
  /* a call after another rank's destroy */
  o.chunk_bytes = 0;
  if (make_ranks(&F, R->n, "destroyed", &o)) {
    clforge_comm_destroy(F.comm[0]);
    CHECK_FAILS(F.ctx[1], clforge_allreduce(F.comm[1], &d, b[1], 0, b[1], 0, 0, NULL, NULL), CLFORGE_COMM_BROKEN,
                "rank 0's communicator was destroyed");
    for (int r = 1; r < F.n; ++r) clforge_comm_destroy(F.comm[r]);
  }
  for (int r = 0; r < F.n; ++r) clReleaseMemObject(b[r]);
  /* the timeout's variable */
  clforge_comm c[4];
  setenv("CLFORGE_COMM_TIMEOUT_MS", "soon", 1);
  CHECK_FAILS(R->ctx[0], clforge_comm_create_local(R->n, R->ctx, NULL, c), CLFORGE_INVALID_ENVIRONMENT,
              "CLFORGE_COMM_TIMEOUT_MS");
  unsetenv("CLFORGE_COMM_TIMEOUT_MS");
}

/* One thread calling rank after rank, two collectives each without an
 * event (the context's queue waits for each), on a fresh communicator: the
 * second call of rank 0 needs new staging while its first collective still
 * waits for the other ranks; the call must only enqueue. Then a mismatch
 * of kind (a barrier against an all-reduce). */
static void check_rank_major(ranks *R) {
  clforge_comm_options o = {.timeout_ms = 5000};
  ranks F = *R;
  if (!make_ranks(&F, R->n, "rank-major", &o)) return;
  float x[2][4][64], got[64];
  cl_mem b[2][4];
  clforge_collective_desc d = {.dtype = CLFORGE_F32, .op = CLFORGE_REDUCE_SUM, .count = 64};
  for (int r = 0; r < F.n; ++r)
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < 64; ++i) x[k][r][i] = (float)(k * 100 + r * 10 + i);
      b[k][r] = tu_buffer(F.ctx[r], sizeof x[k][r]);
      tu_write(F.ctx[r], b[k][r], 0, sizeof x[k][r], x[k][r]);
    }
  for (int r = 0; r < F.n; ++r)
    for (int k = 0; k < 2; ++k)
      CHECK_OK(F.ctx[r], clforge_allreduce(F.comm[r], &d, b[k][r], 0, b[k][r], 0, 0, NULL, NULL));
  for (int r = 0; r < F.n; ++r)
    for (int k = 0; k < 2; ++k) {
      tu_read(F.ctx[r], b[k][r], 0, sizeof got, got);
      float want = 0;
      for (int q = 0; q < F.n; ++q) want += x[k][q][63];
      CHECK(got[63] == want, "rank-major: rank %d collective %d read %g, want %g", r, k, got[63], want);
      clReleaseMemObject(b[k][r]);
    }
  CHECK_OK(F.ctx[0], clforge_comm_barrier(F.comm[0], 0, NULL, NULL));
  cl_mem one = tu_buffer(F.ctx[1], sizeof got);
  CHECK_FAILS(F.ctx[1], clforge_allreduce(F.comm[1], &d, one, 0, one, 0, 0, NULL, NULL), CLFORGE_COMM_MISMATCH,
              "where an earlier rank called clforge_comm_barrier");
  clReleaseMemObject(one);
  destroy_comms(&F);
}

/* A rank that calls another collective, and a rank that never calls. */
static void check_faults(ranks *R) {
  clforge_comm_options o = {.timeout_ms = 400, .chunk_bytes = 0};
  ranks F = *R;
  if (!make_ranks(&F, R->n, "faults", &o)) return;
  cl_mem b[4];
  cl_event ev[4];
  for (int r = 0; r < F.n; ++r) b[r] = tu_buffer(F.ctx[r], 64 * sizeof(float));
  clforge_collective_desc d = {.dtype = CLFORGE_F32, .op = CLFORGE_REDUCE_SUM, .count = 10};
  CHECK_OK(F.ctx[0], clforge_allreduce(F.comm[0], &d, b[0], 0, b[0], 0, 0, NULL, &ev[0]));
  clforge_collective_desc d11 = d;
  d11.count = 11;
  CHECK_FAILS(F.ctx[1], clforge_allreduce(F.comm[1], &d11, b[1], 0, b[1], 0, 0, NULL, &ev[1]), CLFORGE_COMM_MISMATCH,
              "rank 1 called clforge_allreduce with count 11");
  /* the failed collective's event completes, on NaN, and the communicator says why */
  cl_int err = clWaitForEvents(1, &ev[0]);
  CHECK(err == CL_SUCCESS, "rank 0's failed collective's event: %d", err);
  clReleaseEvent(ev[0]);
  float got[10];
  tu_read(F.ctx[0], b[0], 0, sizeof got, got);
  CHECK(isnan(got[0]) && isnan(got[9]), "rank 0's recv after the mismatch: %g, %g (want NaN)", got[0], got[9]);
  CHECK(clforge_comm_status(F.comm[0]) == CLFORGE_COMM_MISMATCH, "clforge_comm_status after a mismatch: %s",
        clforge_status_name(clforge_comm_status(F.comm[0])));
  CHECK(strstr(clforge_comm_last_error(F.comm[2 % F.n]), "count 11") != NULL, "comm message: %s",
        clforge_comm_last_error(F.comm[0]));
  CHECK_FAILS(F.ctx[0], clforge_comm_barrier(F.comm[0], 0, NULL, NULL), CLFORGE_COMM_BROKEN, "count 11");
  destroy_comms(&F);
  /* rank n-1 never arrives: the others' events fail within the timeout, and
   * the message names it */
  if (!make_ranks(&F, R->n, "timeout", &o)) return;
  for (int r = 0; r + 1 < F.n; ++r) CHECK_OK(F.ctx[r], clforge_allreduce(F.comm[r], &d, b[r], 0, b[r], 0, 0, NULL, &ev[r]));
  for (int r = 0; r + 1 < F.n; ++r) {
    err = clWaitForEvents(1, &ev[r]);
    CHECK(err == CL_SUCCESS, "rank %d's failed collective's event: %d", r, err);
    clReleaseEvent(ev[r]);
    tu_read(F.ctx[r], b[r], 0, sizeof got, got);
    CHECK(isnan(got[3]), "rank %d's recv without rank %d: %g (want NaN)", r, F.n - 1, got[3]);
  }
  CHECK(clforge_comm_status(F.comm[F.n - 1]) == CLFORGE_COMM_TIMEOUT, "clforge_comm_status after a timeout: %s",
        clforge_status_name(clforge_comm_status(F.comm[F.n - 1])));
  char want[48];
  snprintf(want, sizeof want, "rank(s) %d did not call", F.n - 1);
  CHECK(strstr(clforge_comm_last_error(F.comm[0]), want) != NULL, "timeout message: %s", clforge_comm_last_error(F.comm[0]));
  CHECK_FAILS(F.ctx[F.n - 1], clforge_allreduce(F.comm[F.n - 1], &d, b[F.n - 1], 0, b[F.n - 1], 0, 0, NULL, NULL),
              CLFORGE_COMM_BROKEN, "did not call");
  destroy_comms(&F);
  /* rank 1 fails halfway through enqueuing its part (many chunks, half of
   * its copies enqueued): its call fails saying so, rank 0's event completes
   * on NaN, the next rank's call is refused, nothing hangs or leaks */
  o.chunk_bytes = 64;
  if (!make_ranks(&F, R->n, "a failure mid-enqueue", &o)) return;
  d.count = 64; /* 16 chunks of 4 elements */
  clforge__test_set_fault(F.ctx[1], "comm_enqueue");
  CHECK_OK(F.ctx[0], clforge_allreduce(F.comm[0], &d, b[0], 0, b[0], 0, 0, NULL, &ev[0]));
  CHECK_FAILS(F.ctx[1], clforge_allreduce(F.comm[1], &d, b[1], 0, b[1], 0, 0, NULL, &ev[1]), CL_OUT_OF_RESOURCES,
              "rank 1 could not enqueue its part (a fault injected by a test");
  clforge__test_set_fault(F.ctx[1], NULL);
  err = clWaitForEvents(1, &ev[0]);
  CHECK(err == CL_SUCCESS, "rank 0's collective after rank 1's failure: event %d", err);
  clReleaseEvent(ev[0]);
  float all[64];
  tu_read(F.ctx[0], b[0], 0, sizeof all, all);
  CHECK(isnan(all[0]) && isnan(all[63]), "rank 0's recv after rank 1's failed enqueue: %g, %g (want NaN)", all[0], all[63]);
  CHECK(clforge_comm_status(F.comm[0]) == CLFORGE_COMM_BROKEN &&
            strstr(clforge_comm_last_error(F.comm[0]), "rank 1 could not enqueue"),
        "after a failed enqueue: %s (%s)", clforge_status_name(clforge_comm_status(F.comm[0])),
        clforge_comm_last_error(F.comm[0]));
  CHECK_FAILS(F.ctx[F.n - 1], clforge_allreduce(F.comm[F.n - 1], &d, b[F.n - 1], 0, b[F.n - 1], 0, 0, NULL, NULL),
              CLFORGE_COMM_BROKEN, "could not enqueue");
  destroy_comms(&F);
  for (int r = 0; r < F.n; ++r) clReleaseMemObject(b[r]);
}

static void run_all(ranks *R, int small) {
  static const clforge_dtype types[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};
  unsigned seed = 12345;
  /* sizes: one element; several 4 KiB chunks and a remainder */
  const size_t sizes[] = {1, 3 * 1024 + 77};
  for (int t = 0; t < 3; ++t)
    for (int op = 0; op < 4; ++op)
      for (int s = 0; s < 2; ++s) {
        check_reduce(R, 0, types[t], (clforge_reduce_op)op, sizes[s], (op + s) & 1, seed += 7);
        check_reduce(R, 1, types[t], (clforge_reduce_op)op, sizes[s], s, seed += 7);
      }
  for (int s = 0; s < 2; ++s) check_copies(R, types[s], sizes[s], s, s ? 0 : R->n - 1, seed += 11);
  if (!small) check_reduce(R, 0, CLFORGE_F32, CLFORGE_REDUCE_SUM, (size_t)16 << 20, 0, seed += 13); /* 64 MiB */
  check_events(R);
  check_bad_input(R);
}

/* The MPI entry without an MPI job: a build without MPI says so, one with
 * it says MPI is not initialized (tests/test_comm_mpi.c runs it under
 * mpirun); a bad algorithm is refused. */
static void check_mpi_entry(clforge_context ctx) {
  clforge_comm c = (clforge_comm)1;
  if (!clforge_comm_mpi_library()[0])
    CHECK_FAILS(ctx, clforge_comm_create_mpi_fint(0, ctx, NULL, &c), CLFORGE_UNSUPPORTED, "built without MPI");
  else
    CHECK_FAILS(ctx, clforge_comm_create_mpi_fint(0, ctx, NULL, &c), CLFORGE_INVALID_ARGUMENT, "not initialized");
  CHECK(c == NULL, "a refused create left *comm set");
  CHECK(!strcmp(clforge_reduce_op_name(CLFORGE_REDUCE_MEAN), "mean") &&
            !strcmp(clforge_reduce_op_name(CLFORGE_REDUCE_MIN), "min") &&
            !strcmp(clforge_reduce_op_name((clforge_reduce_op)9), "?"),
        "clforge_reduce_op_name");
  clforge_context two[2] = {ctx, tu_context()};
  clforge_comm comms[2];
  clforge_comm_options o = {.algo = (clforge_comm_algo)7};
  CHECK_FAILS(ctx, clforge_comm_create_local(2, two, &o, comms), CLFORGE_INVALID_ARGUMENT, "opts->algo");
  clforge_context_destroy(two[1]);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_comm_options o = {.timeout_ms = 60000, .chunk_bytes = 4096};
  /* three contexts of the default device */
  ranks R = {0};
  for (int r = 0; r < 3; ++r) R.ctx[r] = tu_context();
  check_mpi_entry(R.ctx[0]);
  if (make_ranks(&R, 3, "3 contexts", &o)) {
    run_all(&R, small);
    check_data_parallel(&R);
    destroy_comms(&R);
  }
  check_faults(&R);
  check_rank_major(&R);
  check_more_faults(&R);
  /* two sub-devices of the device, each its own context */
  ranks S = {0};
  clforge_context many[64];
  CHECK_FAILS(NULL, clforge_context_create_subdevices(NULL, 0, many), CLFORGE_INVALID_ARGUMENT, "n = 0");
  clforge_device_info info;
  clforge_context_device_info(R.ctx[0], &info);
  if (info.compute_units < 64) { /* more parts than compute units */
    const int n = (int)info.compute_units + 1;
    CHECK_FAILS(NULL, clforge_context_create_subdevices(NULL, n, many), CLFORGE_UNSUPPORTED, "compute units");
    for (int r = 0; r < n; ++r) CHECK(many[r] == NULL, "a refused clforge_context_create_subdevices left out[%d] set", r);
  }
  clforge_status st = clforge_context_create_subdevices(NULL, 2, S.ctx);
  if (st == CLFORGE_UNSUPPORTED) {
    printf("skip: sub-devices: %s\n", clforge_last_error(NULL));
  } else {
    CHECK(st == CLFORGE_SUCCESS, "clforge_context_create_subdevices: %s", clforge_last_error(NULL));
    if (st == CLFORGE_SUCCESS && make_ranks(&S, 2, "2 sub-devices", &o)) {
      run_all(&S, 1);
      destroy_comms(&S);
    }
    for (int r = 0; r < 2; ++r) clforge_context_destroy(S.ctx[r]);
  }
  for (int r = 0; r < 3; ++r) clforge_context_destroy(R.ctx[r]);
  return tu_summary();
}
