/* The collectives' public entries: the arguments checked before anything is
 * enqueued, then the rank's part of the group's op (comm.h) enqueued on its
 * queues. One function serves the five, by kind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "../core/context.h"
#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/validate.h"
#include "../ops/buffer_check.h"
#include "../ops/op_call.h"
#include "comm.h"

typedef struct {
  clforge__coll_kind kind;
  const char *name;
  clforge_collective_desc desc;
  cl_mem send, recv;
  size_t send_off, recv_off;       /* elements */
  size_t send_count, recv_count;   /* elements each rank's buffers hold */
  int in_place;                    /* the rank's recv (or its block) is its send */
} call;

const char *clforge_reduce_op_name(clforge_reduce_op op) {
  static const char *const names[] = {"sum", "mean", "max", "min"};
  return (unsigned)op <= CLFORGE_REDUCE_MIN ? names[op] : "?";
}

/* The sizes and buffers of one rank's call; all checked. */
static clforge_status check_call(clforge_comm comm, call *k) {
  clforge_context ctx = comm->ctx;
  const clforge_collective_desc *d = &k->desc;
  const int n = comm->group->n, reduces = k->kind == COMM_ALLREDUCE || k->kind == COMM_REDUCE_SCATTER;
  for (size_t i = 0; i < sizeof d->reserved / sizeof d->reserved[0]; ++i)
    if (d->reserved[i]) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc->reserved[%zu] is not 0", k->name, i);
  const size_t esize = clforge__float_dtype_size(d->dtype);
  if (!esize)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc->dtype %d is not CLFORGE_F32, F16 or BF16", k->name,
                         (int)d->dtype);
  if (reduces && (unsigned)d->op > CLFORGE_REDUCE_MIN)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc->op %d is not a clforge_reduce_op", k->name, (int)d->op);
  if (k->kind == COMM_BROADCAST && (d->root < 0 || d->root >= n))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc->root %d is not a rank (0 .. %d)", k->name, d->root, n - 1);
  /* the whole exchanged array, N * count for the block-wise collectives */
  if (d->count > SIZE_MAX / esize / (size_t)n)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: count %zu on %d ranks overflows size_t bytes", k->name, d->count, n);
  k->send_count = k->kind == COMM_REDUCE_SCATTER ? (size_t)n * d->count : d->count;
  k->recv_count = k->kind == COMM_ALL_GATHER ? (size_t)n * d->count : d->count;
  if (d->count == 0) return CLFORGE_SUCCESS;
  const int reads = k->kind != COMM_BROADCAST || comm->rank == d->root;
  clforge_status st = CLFORGE_SUCCESS;
  if (reads) st = clforge__check_buffer(ctx, k->name, "send", k->send, k->send_off, k->send_count, esize, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, k->name, "recv", k->recv, k->recv_off, k->recv_count, esize, CLFORGE_ACCESS_WRITE);
  if (st != CLFORGE_SUCCESS || !reads) return st;
  /* In place: the send is the recv (all-reduce, broadcast's root) or the
   * recv is the send's block r (reduce-scatter) or the send is the recv's
   * block r (all-gather). Any other overlap is refused. */
  clforge__byte_range s, r;
  st = clforge__buffer_range(ctx, k->send, k->send_off * esize, k->send_count * esize, &s);
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, k->recv, k->recv_off * esize, k->recv_count * esize, &r);
  if (st != CLFORGE_SUCCESS || !clforge__ranges_alias(&s, &r)) return st;
  const size_t block = (size_t)comm->rank * d->count * esize;
  k->in_place = s.root == r.root && (k->kind == COMM_REDUCE_SCATTER   ? s.begin + block == r.begin && r.end - r.begin == d->count * esize
                                     : k->kind == COMM_ALL_GATHER    ? r.begin + block == s.begin && s.end - s.begin == d->count * esize
                                                                     : s.begin == r.begin && s.end == r.end);
  if (!k->in_place)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: send and recv overlap (only %s may share memory)", k->name,
                         k->kind == COMM_REDUCE_SCATTER ? "recv and the send's block of this rank"
                         : k->kind == COMM_ALL_GATHER   ? "send and the recv's block of this rank"
                                                        : "identical ranges");
  return CLFORGE_SUCCESS;
}

/* A new op for the group's next collective: its chunks and result memory. */
static clforge__coll_op *new_op(clforge__comm_group *g, const call *k, uint64_t seq) {
  clforge__coll_op *op = calloc(1, sizeof *op);
  if (!op) return NULL;
  op->seq = seq, op->kind = k->kind, op->name = k->name, op->desc = k->desc;
  op->esize = k->kind == COMM_BARRIER ? 1 : clforge__float_dtype_size(k->desc.dtype);
  /* chosen once, here: clforge_comm_tune changes the group's choice between calls */
  op->owner = g->algo != CLFORGE_COMM_ALGO_AUTO ? g->algo == CLFORGE_COMM_ALGO_OWNER
                                                : k->desc.count * op->esize >= g->gather_below;
  const size_t segs = k->kind == COMM_REDUCE_SCATTER || k->kind == COMM_ALL_GATHER ? (size_t)g->n : 1;
  const size_t len = k->kind == COMM_BARRIER ? 0 : k->desc.count;
  const size_t per = g->chunk_bytes / op->esize ? g->chunk_bytes / op->esize : 1;
  const size_t per_seg = len ? (len + per - 1) / per : 1;
  op->nchunks = segs * per_seg;
  op->bounds = malloc((op->nchunks + 1) * sizeof *op->bounds);
  op->part = calloc((size_t)g->n, sizeof *op->part);
  if (!op->bounds || !op->part) {
    free(op->bounds), free(op->part), free(op);
    return NULL;
  }
  size_t c = 0;
  for (size_t s = 0; s < segs; ++s)
    for (size_t b = 0; b < per_seg; ++b) op->bounds[c++] = s * len + (b * per < len ? b * per : len);
  op->bounds[c] = segs * len;
  if (len) {
    op->result = clforge__block_take(&g->results, NULL, NULL, segs * len * op->esize);
    if (!op->result) {
      free(op->bounds), free(op->part), free(op);
      return NULL;
    }
  }
  return op;
}

/* The first field in which this rank's call differs from the op's. */
static int mismatch(const clforge__coll_op *op, const call *k, char *why, size_t cap) {
  const clforge_collective_desc *a = &op->desc, *b = &k->desc;
  if (op->kind != k->kind) snprintf(why, cap, "%s, where an earlier rank called %s", k->name, op->name);
  else if (op->kind == COMM_BARRIER) return 0;
  else if (a->dtype != b->dtype) snprintf(why, cap, "dtype %d, where an earlier rank gave %d", (int)b->dtype, (int)a->dtype);
  else if (a->count != b->count) snprintf(why, cap, "count %zu, where an earlier rank gave %zu", b->count, a->count);
  else if ((op->kind == COMM_ALLREDUCE || op->kind == COMM_REDUCE_SCATTER) && a->op != b->op)
    snprintf(why, cap, "op %s, where an earlier rank gave %s", clforge_reduce_op_name(b->op), clforge_reduce_op_name(a->op));
  else if (op->kind == COMM_BROADCAST && a->root != b->root)
    snprintf(why, cap, "root %d, where an earlier rank gave %d", b->root, a->root);
  else return 0;
  return 1;
}

/* Enqueue rank's part of op: the arrival marker, the copies to the host,
 * the gates and the copies back, the last marker. Under the group's lock. */
static cl_int enqueue_part(clforge_comm comm, clforge__coll_op *op, const call *k, cl_uint nwait, const cl_event *wait,
                           const char **what) {
  clforge__rank_part *p = &op->part[comm->rank];
  const int r = comm->rank, n = comm->group->n;
  const size_t es = op->esize, cnt = k->desc.count;
  cl_int err = CL_SUCCESS;
  p->d2h = calloc(op->nchunks, sizeof *p->d2h);
  p->gate = calloc(op->nchunks, sizeof *p->gate);
  if (!p->d2h || !p->gate) return *what = "host memory", CL_OUT_OF_HOST_MEMORY;
  /* Everything enqueued on the context's queue before the call comes first. */
  cl_event prior;
  if ((err = clEnqueueMarkerWithWaitList(comm->ctx->queue, 0, NULL, &prior)) != CL_SUCCESS)
    return *what = "clEnqueueMarkerWithWaitList", err;
  cl_event w8[9], *w = nwait < 8 ? w8 : malloc(sizeof *w * (nwait + 1));
  if (!w) {
    clReleaseEvent(prior);
    return *what = "host memory", CL_OUT_OF_HOST_MEMORY;
  }
  if (nwait) memcpy(w, wait, sizeof *w * nwait);
  w[nwait] = prior;
  err = clEnqueueMarkerWithWaitList(comm->d2h, nwait + 1, w, &p->arrival);
  clReleaseEvent(prior);
  if (w != w8) free(w);
  if (err != CL_SUCCESS) return *what = "clEnqueueMarkerWithWaitList", err;
  clFlush(comm->ctx->queue);
  const int reduces = op->kind == COMM_ALLREDUCE || op->kind == COMM_REDUCE_SCATTER;
  if (reduces && !(p->staging = clforge__block_take(&comm->staging, comm->cl_ctx, comm->map, k->send_count * es)))
    return *what = "pinned host memory", CL_OUT_OF_HOST_MEMORY;
  for (size_t c = 0; c < op->nchunks; ++c) {
    const size_t b = op->bounds[c], m = op->bounds[c + 1] - b, seg = cnt ? b / cnt : 0;
    if (!m) continue;
    void *dst = NULL;
    size_t from = 0;
    if (reduces) dst = (char *)p->staging->ptr + b * es, from = b;
    else if (op->kind == COMM_BROADCAST && r == k->desc.root) dst = (char *)op->result->ptr + b * es, from = b;
    else if (op->kind == COMM_ALL_GATHER && seg == (size_t)r) dst = (char *)op->result->ptr + b * es, from = b - seg * cnt;
    if (!dst) continue;
    /* tests (clforge__test_set_fault(ctx, "comm_enqueue")): a failure halfway through the copies */
    if (c >= op->nchunks / 2 && clforge__test_fault_armed(comm->ctx, "comm_enqueue"))
      return *what = "a fault injected by a test", CL_OUT_OF_RESOURCES;
    err = clEnqueueReadBuffer(comm->d2h, k->send, CL_FALSE, (k->send_off + from) * es, m * es, dst, 0, NULL, &p->d2h[c]);
    if (err != CL_SUCCESS) return *what = "clEnqueueReadBuffer", err;
  }
  clFlush(comm->d2h);
  for (size_t c = 0; c < op->nchunks; ++c) {
    p->gate[c] = clCreateUserEvent(comm->cl_ctx, &err);
    if (!p->gate[c]) return *what = "clCreateUserEvent", err;
    const size_t b = op->bounds[c], m = op->bounds[c + 1] - b, seg = cnt ? b / cnt : 0;
    if (!m) continue;
    size_t to = b; /* element of recv */
    int writes = 1;
    if (op->kind == COMM_REDUCE_SCATTER) writes = seg == (size_t)r, to = b - seg * cnt;
    if (op->kind == COMM_BROADCAST && r == k->desc.root && k->in_place) writes = 0;
    if (op->kind == COMM_ALL_GATHER && seg == (size_t)r && k->in_place) writes = 0;
    if (!writes) continue;
    err = clEnqueueWriteBuffer(comm->h2d, k->recv, CL_FALSE, (k->recv_off + to) * es, m * es,
                               (char *)op->result->ptr + b * es, 1, &p->gate[c], NULL);
    if (err != CL_SUCCESS) return *what = "clEnqueueWriteBuffer", err;
  }
  (void)n;
  /* In order after the copies back; complete once the last chunk is done. */
  err = clEnqueueMarkerWithWaitList(comm->h2d, 1, &p->gate[op->nchunks - 1], &p->last);
  if (err != CL_SUCCESS) return *what = "clEnqueueMarkerWithWaitList", err;
  clFlush(comm->h2d);
  return CL_SUCCESS;
}

static clforge_status collective(clforge_comm comm, call *k, cl_uint nwait, const cl_event *wait, cl_event *event) {
  if (!comm) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: comm is NULL", k->name);
  clforge_context ctx = comm->ctx;
  clforge_status st = clforge__call_begin(ctx, k->name, event);
  if (st != CLFORGE_SUCCESS) return st;
  st = clforge__check_wait_list(ctx, k->name, nwait, wait);
  if (st == CLFORGE_SUCCESS && k->kind != COMM_BARRIER) st = check_call(comm, k);
  if (st != CLFORGE_SUCCESS) return st;
  if (k->kind != COMM_BARRIER && k->desc.count == 0) return clforge__call_marker(ctx, k->name, nwait, wait, event);
  clforge__comm_group *g = comm->group;
  pthread_mutex_lock(&g->mu);
  for (int r = 0; r < g->n && !g->broken; ++r)
    if (g->ranks[r] && g->ranks[r]->destroyed)
      clforge__group_fail(g, CLFORGE_COMM_BROKEN, "%s: rank %d's communicator was destroyed", k->name, r);
  if (g->broken) {
    st = clforge__fail(ctx, CLFORGE_COMM_BROKEN, "%s: the communicator failed earlier: %s", k->name, g->message);
    pthread_mutex_unlock(&g->mu);
    return st;
  }
  clforge__group_retire(g, 0);
  clforge__coll_op **pp = &g->pending;
  while (*pp && (*pp)->seq < comm->seq) pp = &(*pp)->next;
  clforge__coll_op *op = *pp && (*pp)->seq == comm->seq ? *pp : NULL;
  char why[160];
  if (op && mismatch(op, k, why, sizeof why)) {
    clforge__group_fail(g, CLFORGE_COMM_MISMATCH, "collective #%llu: rank %d called %s with %s",
                        (unsigned long long)comm->seq, comm->rank, k->name, why);
    st = clforge__fail(ctx, CLFORGE_COMM_MISMATCH, "%s", g->message);
    pthread_mutex_unlock(&g->mu);
    return st;
  }
  if (!op) {
    if (!(op = new_op(g, k, comm->seq))) {
      pthread_mutex_unlock(&g->mu);
      return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: out of host memory for %zu elements", k->name,
                           k->desc.count);
    }
    op->next = *pp, *pp = op;
  }
  const char *what = "";
  cl_int err = enqueue_part(comm, op, k, nwait, wait, &what);
  /* Even a failed part counts as here: its events are the op's to release. */
  op->part[comm->rank].here = 1;
  if (++op->arrived == 1) op->first_arrival = clforge__now();
  ++comm->seq;
  if (err != CL_SUCCESS) {
    clforge__group_fail(g, CLFORGE_COMM_BROKEN, "%s #%llu: rank %d could not enqueue its part (%s: OpenCL status %d)",
                        k->name, (unsigned long long)op->seq, comm->rank, what, (int)err);
    st = clforge__fail(ctx, err == CL_OUT_OF_HOST_MEMORY ? CLFORGE_OUT_OF_HOST_MEMORY : err, "%s", g->message);
  }
  cl_event last = op->part[comm->rank].last;
  if (st == CLFORGE_SUCCESS) clRetainEvent(last);
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  if (st != CLFORGE_SUCCESS) return st;
  if (!event) { /* the context's queue waits for it, as for any op */
    err = clEnqueueBarrierWithWaitList(ctx->queue, 1, &last, NULL);
    clReleaseEvent(last);
    return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, "clEnqueueBarrierWithWaitList");
  }
  *event = last;
  return CLFORGE_SUCCESS;
}

#define COLLECTIVE(fn, KIND)                                                                                        \
  clforge_status fn(clforge_comm comm, const clforge_collective_desc *desc, cl_mem send, size_t send_offset,        \
                    cl_mem recv, size_t recv_offset, cl_uint nwait, const cl_event *wait, cl_event *event) {        \
    call k = {.kind = KIND, .name = #fn, .send = send, .recv = recv, .send_off = send_offset, .recv_off = recv_offset}; \
    if (!desc) {                                                                                                    \
      if (event) *event = NULL;                                                                                     \
      return clforge__fail(comm ? comm->ctx : NULL, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", #fn);            \
    }                                                                                                               \
    k.desc = *desc;                                                                                                 \
    return collective(comm, &k, nwait, wait, event);                                                                \
  }

COLLECTIVE(clforge_allreduce, COMM_ALLREDUCE)
COLLECTIVE(clforge_broadcast, COMM_BROADCAST)
COLLECTIVE(clforge_reduce_scatter, COMM_REDUCE_SCATTER)
COLLECTIVE(clforge_all_gather, COMM_ALL_GATHER)

clforge_status clforge_comm_barrier(clforge_comm comm, cl_uint nwait, const cl_event *wait, cl_event *event) {
  call k = {.kind = COMM_BARRIER, .name = "clforge_comm_barrier"};
  return collective(comm, &k, nwait, wait, event);
}
