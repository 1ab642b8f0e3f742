/* Communicators: creation, destruction, the staging pools, and failing a
 * group (layout and design: comm.h; docs/collectives.md). */
#include "comm.h"

#include <stdarg.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"

clforge__host_block *clforge__block_take(clforge__block_pool *pool, cl_context cl_ctx, cl_command_queue queue,
                                         size_t bytes) {
  clforge__host_block *best = NULL;
  for (size_t i = 0; i < pool->count; ++i) {
    clforge__host_block *b = pool->blocks[i];
    if (!b->busy && b->bytes >= bytes && (!best || b->bytes < best->bytes)) best = b;
  }
  if (best) {
    best->busy = 1;
    return best;
  }
  if (pool->count == pool->cap) {
    const size_t cap = pool->cap ? 2 * pool->cap : 8;
    clforge__host_block **grown = realloc(pool->blocks, cap * sizeof *grown);
    if (!grown) return NULL;
    pool->blocks = grown, pool->cap = cap;
  }
  clforge__host_block *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->bytes = bytes ? bytes : 1;
  if (cl_ctx) { /* pinned: the driver's fast path for copies to and from the device */
    cl_int err;
    b->mem = clCreateBuffer(cl_ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, b->bytes, NULL, &err);
    if (b->mem)
      b->ptr = clEnqueueMapBuffer(queue, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, b->bytes, 0, NULL, NULL, &err);
    if (!b->ptr) {
      if (b->mem) clReleaseMemObject(b->mem);
      free(b);
      return NULL;
    }
    b->queue = queue;
    clRetainCommandQueue(queue);
  } else {
    b->ptr = aligned_alloc(64, (b->bytes + 63) / 64 * 64);
    if (!b->ptr) {
      free(b);
      return NULL;
    }
  }
  b->busy = 1;
  pool->blocks[pool->count++] = b;
  return b;
}

void clforge__block_pool_free(clforge__block_pool *pool) {
  for (size_t i = 0; i < pool->count; ++i) {
    clforge__host_block *b = pool->blocks[i];
    if (b->mem) {
      clEnqueueUnmapMemObject(b->queue, b->mem, b->ptr, 0, NULL, NULL);
      clFinish(b->queue);
      clReleaseMemObject(b->mem);
      clReleaseCommandQueue(b->queue);
    } else {
      free(b->ptr);
    }
    free(b);
  }
  free(pool->blocks);
  memset(pool, 0, sizeof *pool);
}

void clforge__op_fail_gates(clforge__comm_group *g, clforge__coll_op *op, size_t from) {
  /* The chunks not done yet carry NaN (all bits set, in every float type)
   * to every rank's recv, rather than plausible numbers. */
  if (op->result && from < op->nchunks)
    memset((char *)op->result->ptr + op->bounds[from] * op->esize, 0xFF,
           (op->bounds[op->nchunks] - op->bounds[from]) * op->esize);
  for (int r = 0; r < g->n; ++r) {
    clforge__rank_part *p = &op->part[r];
    if (!p->here || !p->gate) continue;
    for (size_t c = from; c < op->nchunks; ++c)
      if (p->gate[c]) {
        clSetUserEventStatus(p->gate[c], CL_COMPLETE);
        clReleaseEvent(p->gate[c]);
        p->gate[c] = NULL;
      }
  }
}

void clforge__op_free(clforge__comm_group *g, clforge__coll_op *op) {
  for (int r = 0; r < g->n; ++r) {
    clforge__rank_part *p = &op->part[r];
    for (size_t c = 0; c < op->nchunks; ++c) {
      if (p->d2h && p->d2h[c]) clReleaseEvent(p->d2h[c]);
      /* a gate still closed here belongs to a call that failed while
       * enqueuing: it must not stay unset (its commands would wait forever) */
      if (p->gate && p->gate[c]) {
        clSetUserEventStatus(p->gate[c], CL_COMPLETE);
        clReleaseEvent(p->gate[c]);
      }
    }
    if (p->arrival) clReleaseEvent(p->arrival);
    if (p->last) clReleaseEvent(p->last);
    if (p->staging) p->staging->busy = 0;
    free(p->d2h);
    free(p->gate);
  }
  if (op->result) op->result->busy = 0;
  free(op->bounds);
  free(op->part);
  free(op);
}

void clforge__group_fail(clforge__comm_group *g, clforge_status st, const char *fmt, ...) {
  if (!g->broken) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->message, sizeof g->message, fmt, ap);
    va_end(ap);
    g->broken = st;
  }
  /* nothing pending can complete now: fail it, so that no queue waits */
  for (clforge__coll_op *op = g->pending; op; op = op->next)
    clforge__op_fail_gates(g, op, 0);
  pthread_cond_broadcast(&g->cv);
}

static uint32_t timeout_from_env(void) {
  const char *v = getenv("CLFORGE_COMM_TIMEOUT_MS");
  if (!v || !*v) return 60000;
  char *end;
  unsigned long ms = strtoul(v, &end, 10);
  return *end || ms == 0 || ms > UINT32_MAX ? 0 : (uint32_t)ms;
}

void clforge__group_free(clforge__comm_group *g) {
  clforge_context owned = NULL;
  /* over MPI, sends a failure let go may still read the host memory: kept */
  const int keep = g->mpi && clforge__mpi_keeps_memory(g->mpi);
  for (int r = 0; r < g->n; ++r) {
    struct clforge_comm_s *c = g->ranks[r];
    if (!c) continue;
    if (!keep) clforge__block_pool_free(&c->staging);
    if (c->d2h) clReleaseCommandQueue(c->d2h);
    if (c->h2d) clReleaseCommandQueue(c->h2d);
    if (c->map) clReleaseCommandQueue(c->map);
    if (c->owns_ctx) owned = c->ctx;
    free(c);
  }
  if (!keep) clforge__block_pool_free(&g->results);
  if (g->mpi) clforge__mpi_free(g->mpi);
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
  free(g->ranks);
  free(g);
  clforge_context_destroy(owned);
}

static cl_command_queue make_queue(clforge_context ctx, cl_int *err) {
  return clCreateCommandQueue(ctx->cl_ctx, ctx->device, CL_QUEUE_PROFILING_ENABLE, err);
}

/* The options: timeout, chunk and algorithm, checked. */
static clforge_status read_options(const char *fn, clforge_context ctx, const clforge_comm_options *opts,
                                   clforge__comm_group *g) {
  uint32_t timeout = timeout_from_env();
  size_t chunk = (size_t)1 << 20;
  clforge_comm_algo algo = CLFORGE_COMM_ALGO_AUTO;
  if (opts) {
    for (size_t i = 0; i < sizeof opts->reserved / sizeof opts->reserved[0]; ++i)
      if (opts->reserved[i]) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: opts->reserved[%zu] is not 0", fn, i);
    if (opts->timeout_ms) timeout = opts->timeout_ms;
    if (opts->chunk_bytes) chunk = opts->chunk_bytes;
    algo = opts->algo;
  }
  if (!timeout)
    return clforge__fail(ctx, CLFORGE_INVALID_ENVIRONMENT,
                         "%s: CLFORGE_COMM_TIMEOUT_MS = \"%s\" is not a number of milliseconds from 1 to %u", fn,
                         getenv("CLFORGE_COMM_TIMEOUT_MS"), UINT32_MAX);
  if ((unsigned)algo > CLFORGE_COMM_ALGO_GATHER)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: opts->algo %d is not a clforge_comm_algo", fn, (int)algo);
  const char *env = getenv("CLFORGE_COMM_ALGO");
  if (algo == CLFORGE_COMM_ALGO_AUTO && env && *env) {
    if (!strcmp(env, "owner")) algo = CLFORGE_COMM_ALGO_OWNER;
    else if (!strcmp(env, "gather")) algo = CLFORGE_COMM_ALGO_GATHER;
    else if (strcmp(env, "auto"))
      return clforge__fail(ctx, CLFORGE_INVALID_ENVIRONMENT, "%s: CLFORGE_COMM_ALGO = \"%s\" is not auto, owner or gather",
                           fn, env);
  }
  /* a piece is one message over MPI (an int count of bytes) */
  if (chunk > ((size_t)1 << 30))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: opts->chunk_bytes %zu is above 1 GiB", fn, chunk);
  g->timeout_ms = timeout, g->chunk_bytes = chunk, g->algo = algo;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__group_new(const char *fn, int n, int first, int nlocal, const clforge_context *ctxs,
                                  const clforge_comm_options *opts, clforge__comm_group **out) {
  *out = NULL;
  clforge__comm_group *g = calloc(1, sizeof *g);
  if (!g || !(g->ranks = calloc((size_t)n, sizeof *g->ranks))) {
    free(g);
    return clforge__fail(ctxs[0], CLFORGE_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
  }
  g->n = n, g->nlocal = nlocal, g->me = first;
  pthread_mutex_init(&g->mu, NULL);
  pthread_condattr_t ca; /* timed waits on the monotonic clock: a wall-clock jump must not stall a timeout */
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&g->cv, &ca);
  pthread_condattr_destroy(&ca);
  clforge_status st = read_options(fn, ctxs[0], opts, g);
  for (int i = 0; i < nlocal && st == CLFORGE_SUCCESS; ++i) {
    const int r = first + i;
    struct clforge_comm_s *c = calloc(1, sizeof *c);
    if (!c) {
      st = clforge__fail(ctxs[i], CLFORGE_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
      break;
    }
    g->ranks[r] = c;
    c->group = g, c->rank = r, c->ctx = ctxs[i], c->cl_ctx = ctxs[i]->cl_ctx;
    cl_int err = CL_SUCCESS;
    c->d2h = make_queue(ctxs[i], &err);
    if (c->d2h) c->h2d = make_queue(ctxs[i], &err);
    if (c->h2d) c->map = make_queue(ctxs[i], &err);
    if (!c->map) st = clforge__fail_cl(ctxs[i], err, "clCreateCommandQueue");
  }
  if (st != CLFORGE_SUCCESS) {
    clforge__group_free(g);
    return st;
  }
  *out = g;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__group_start(const char *fn, clforge__comm_group *g, clforge_comm *comms) {
  if (pthread_create(&g->thread, NULL, clforge__comm_progress, g))
    return clforge__fail(g->ranks[g->me]->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: cannot start the progress thread", fn);
  g->alive = g->nlocal;
  for (int i = 0; i < g->nlocal; ++i) comms[i] = g->ranks[g->me + i];
  return CLFORGE_SUCCESS;
}

clforge_status clforge_comm_create_local(int n, const clforge_context *ctxs, const clforge_comm_options *opts,
                                         clforge_comm *comms) {
  const char *fn = "clforge_comm_create_local";
  clforge__clear_error(NULL);
  if (n < 1 || !ctxs || !comms)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: n = %d, ctxs %s, comms %s (n >= 1 and both non-NULL)", fn,
                         n, ctxs ? "set" : "NULL", comms ? "set" : "NULL");
  for (int r = 0; r < n; ++r) {
    if (!ctxs[r]) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: ctxs[%d] is NULL", fn, r);
    for (int q = 0; q < r; ++q)
      if (ctxs[q] == ctxs[r])
        return clforge__fail(ctxs[r], CLFORGE_INVALID_ARGUMENT, "%s: ctxs[%d] and ctxs[%d] are one context (a rank each)",
                             fn, q, r);
  }
  clforge__comm_group *g;
  clforge_status st = clforge__group_new(fn, n, 0, n, ctxs, opts, &g);
  if (st == CLFORGE_SUCCESS && (st = clforge__group_start(fn, g, comms)) != CLFORGE_SUCCESS) clforge__group_free(g);
  return st;
}

void clforge_comm_destroy(clforge_comm comm) {
  if (!comm) return;
  clforge__comm_group *g = comm->group;
  /* A collective this rank never joined cannot complete now: fail it at
   * once rather than after the timeout. */
  pthread_mutex_lock(&g->mu);
  for (clforge__coll_op *op = g->pending; op && !g->mpi; op = op->next)
    if (!op->part[comm->rank].here) {
      clforge__group_fail(g, CLFORGE_COMM_BROKEN, "%s #%llu: rank %d's communicator was destroyed before it called it",
                          op->name, (unsigned long long)op->seq, comm->rank);
      break;
    }
  pthread_mutex_unlock(&g->mu);
  /* This rank's collectives end, done or failed: the progress thread opens
   * or fails every gate (a rank that never arrives fails after the
   * timeout). */
  clFinish(comm->d2h);
  clFinish(comm->h2d);
  pthread_mutex_lock(&g->mu);
  comm->destroyed = 1;
  const int last = --g->alive == 0;
  if (last) {
    g->stop = 1;
    pthread_cond_broadcast(&g->cv);
  }
  pthread_mutex_unlock(&g->mu);
  if (last) {
    pthread_join(g->thread, NULL);
    clforge__group_free(g);
  }
}

clforge_status clforge_comm_rank(clforge_comm comm, int *rank) {
  if (!comm || !rank) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_comm_rank: comm or rank is NULL");
  *rank = comm->rank;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_comm_context(clforge_comm comm, clforge_context *ctx) {
  if (!comm || !ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_comm_context: comm or ctx is NULL");
  *ctx = comm->ctx;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_comm_size(clforge_comm comm, int *size) {
  if (!comm || !size) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_comm_size: comm or size is NULL");
  *size = comm->group->n;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_comm_status(clforge_comm comm) {
  if (!comm) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_comm_status: comm is NULL");
  pthread_mutex_lock(&comm->group->mu);
  const clforge_status st = comm->group->broken;
  pthread_mutex_unlock(&comm->group->mu);
  return st;
}

const char *clforge_comm_last_error(clforge_comm comm) {
  if (!comm) return "comm is NULL";
  /* The message is written once, before broken is set, and never after. */
  pthread_mutex_lock(&comm->group->mu);
  const char *m = comm->group->broken ? comm->group->message : "";
  pthread_mutex_unlock(&comm->group->mu);
  return m;
}
