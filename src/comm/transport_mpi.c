/* The MPI transport: clforge_comm_create_mpi, and each op's exchange with
 * the other processes, piece by piece, on the group's progress thread
 * (comm.h). Every rank walks the same pieces in the same order, so the
 * messages of a piece match without negotiation; each reduction adds the
 * ranks' values in rank order (reduce_host.c), so every algorithm and every
 * rank gives the same bits (docs/collectives.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clforge/clforge_mpi.h"
#include "../core/clock.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../core/log.h"
#include "comm.h"
#include "reduce_host.h"

struct clforge__mpi {
  MPI_Comm comm; /* the duplicate: clforge's messages never meet the application's */
  int tag_ub;
  int local_rank, local_size;
  int check_headers; /* validation mode on some rank: each op's header first */
  char *scratch;     /* the peers' pieces (the progress thread's own) */
  size_t scratch_bytes;
  MPI_Request *req; /* the requests in flight (up to two exchanges: 4n) */
  MPI_Status *status;
  int *req_peer, *req_recv;
  size_t *req_bytes;
  int nreq;
  const void **ins;      /* [n]: a reduction's inputs */
  long long *headers;    /* [n * 5]: validation mode's descriptions (this rank's at its own place) */
  int sends_abandoned;   /* a failed exchange left sends that may still read this rank's memory */
};

/* One exchange step of an op: its requests, the op for messages. */
typedef struct {
  clforge__comm_group *g;
  clforge__coll_op *op;
  size_t chunk;
  const char *what;
} step;

static int fail_mpi(clforge__comm_group *g, const clforge__coll_op *op, int rc, const char *call) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  pthread_mutex_lock(&g->mu);
  clforge__group_fail(g, CLFORGE_COMM_BROKEN, "%s #%llu: rank %d: %s failed: %s", op->name, (unsigned long long)op->seq,
                      g->me, call, text);
  pthread_mutex_unlock(&g->mu);
  return -1;
}

static int tag_of(const clforge__mpi *m, const clforge__coll_op *op, size_t chunk, int phase) {
  const unsigned long long t = ((op->seq & 0x3FF) << 20) | ((chunk & 0x7FFFF) << 1) | (unsigned)phase;
  return (int)(t % ((unsigned long long)m->tag_ub + 1));
}

static int post(step *s, int recv, void *buf, size_t bytes, int peer, int phase) {
  clforge__mpi *m = s->g->mpi;
  const int tag = tag_of(m, s->op, s->chunk, phase), i = m->nreq++;
  m->req_peer[i] = peer, m->req_recv[i] = recv, m->req_bytes[i] = bytes;
  const int rc = recv ? MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, tag, m->comm, &m->req[i])
                      : MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag, m->comm, &m->req[i]);
  if (rc != MPI_SUCCESS) {
    m->req[i] = MPI_REQUEST_NULL;
    return fail_mpi(s->g, s->op, rc, recv ? "MPI_Irecv" : "MPI_Isend");
  }
  return 0;
}

/* Drop the unfinished requests of a failed exchange (the comm is broken):
 * receives cancelled and completed here; sends cannot be recalled, so
 * they are let go and the rank's host memory is kept for good (never
 * freed: a late peer may still read it; clforge__mpi_keeps_memory). */
static void abandon(clforge__mpi *m) {
  for (int i = 0; i < m->nreq; ++i)
    if (m->req[i] != MPI_REQUEST_NULL) {
      if (m->req_recv[i]) {
        MPI_Cancel(&m->req[i]);
        MPI_Wait(&m->req[i], MPI_STATUS_IGNORE);
      } else {
        MPI_Request_free(&m->req[i]);
        m->sends_abandoned = 1;
      }
    }
  m->nreq = 0;
}

int clforge__mpi_keeps_memory(const clforge__mpi *m) { return m->sends_abandoned; }

/* A completed receive shorter than posted (or one MPI truncated): the
 * ranks' calls differ. 0, or the failure recorded. */
static int check_sizes(step *s, int truncated) {
  clforge__mpi *m = s->g->mpi;
  for (int i = 0; i < m->nreq; ++i) {
    if (!m->req_recv[i]) continue;
    int got = 0;
    const int bad = truncated ? m->status[i].MPI_ERROR == MPI_ERR_TRUNCATE
                              : MPI_Get_count(&m->status[i], MPI_BYTE, &got) != MPI_SUCCESS || (size_t)got != m->req_bytes[i];
    if (!bad) continue;
    pthread_mutex_lock(&s->g->mu);
    clforge__group_fail(s->g, CLFORGE_COMM_MISMATCH,
                        "%s #%llu: rank %d sent %s bytes for piece %zu where rank %d expected %zu: the ranks' calls "
                        "differ (CLFORGE_VALIDATE=1 names the field)",
                        s->op->name, (unsigned long long)s->op->seq, m->req_peer[i], truncated ? "more" : "other",
                        s->chunk, s->g->me, m->req_bytes[i]);
    pthread_mutex_unlock(&s->g->mu);
    return -1;
  }
  return 0;
}

/* Wait for the step's requests, at most the timeout: 0, or the failure
 * recorded, naming the ranks whose messages did not come (or go). */
static int finish(step *s) {
  clforge__comm_group *g = s->g;
  clforge__mpi *m = g->mpi;
  const double deadline = clforge__now() + g->timeout_ms / 1000.0;
  /* Open MPI moves a large message only inside MPI calls (ob1 over TCP):
   * polled without sleeping while the step is a transfer, not a wait */
  clforge__poller pause = {0, 0};
  for (;;) {
    int done = 0;
    const int rc = MPI_Testall(m->nreq, m->req, &done, m->status);
    if (rc != MPI_SUCCESS) {
      const int mismatch = rc == MPI_ERR_IN_STATUS && check_sizes(s, 1);
      abandon(m);
      return mismatch ? -1 : fail_mpi(g, s->op, rc, "MPI_Testall");
    }
    if (done) {
      const int bad = check_sizes(s, 0);
      m->nreq = 0;
      return bad;
    }
    if (clforge__now() > deadline) break;
    clforge__poll_pause(&pause, 20e-3);
  }
  for (int i = 0; i < m->nreq; ++i) { /* which are still open */
    int flag = 1;
    if (m->req[i] != MPI_REQUEST_NULL) MPI_Test(&m->req[i], &flag, MPI_STATUS_IGNORE);
    if (flag) m->req_peer[i] = -1;
  }
  char late[256] = "";
  size_t len = 0;
  for (int r = 0; r < g->n && len + 16 < sizeof late; ++r)
    for (int i = 0; i < m->nreq; ++i)
      if (m->req_peer[i] == r) {
        len += (size_t)snprintf(late + len, sizeof late - len, "%s%d", len ? ", " : "", r);
        break;
      }
  abandon(m);
  pthread_mutex_lock(&g->mu);
  clforge__group_fail(g, CLFORGE_COMM_TIMEOUT,
                      "%s #%llu: rank(s) %s did not exchange %s (piece %zu) with rank %d within %u ms: not called "
                      "there, stuck, or the process died",
                      s->op->name, (unsigned long long)s->op->seq, late, s->what, s->chunk, g->me, g->timeout_ms);
  pthread_mutex_unlock(&g->mu);
  return -1;
}

static char *scratch(clforge__comm_group *g, const clforge__coll_op *op, size_t bytes) {
  clforge__mpi *m = g->mpi;
  if (!bytes) bytes = 1; /* (a rank whose part is empty still gets a buffer) */
  if (bytes > m->scratch_bytes) {
    char *grown = realloc(m->scratch, bytes);
    if (!grown) {
      pthread_mutex_lock(&g->mu);
      clforge__group_fail(g, CLFORGE_OUT_OF_HOST_MEMORY, "%s #%llu: rank %d: no host memory for %zu bytes", op->name,
                          (unsigned long long)op->seq, g->me, bytes);
      pthread_mutex_unlock(&g->mu);
      return NULL;
    }
    m->scratch = grown, m->scratch_bytes = bytes;
  }
  return m->scratch;
}

/* Every rank sends `mine` to every other and receives theirs into peers'
 * slot r (bytes each); mine may be NULL (receive only) and peers NULL (send
 * only). */
static int all_to_all(step *s, void *mine, char *peers, size_t bytes, int phase) {
  clforge__comm_group *g = s->g;
  for (int r = 0; r < g->n; ++r) {
    if (r == g->me) continue;
    if (peers && post(s, 1, peers + (size_t)r * bytes, bytes, r, phase)) return -1;
    if (mine && post(s, 0, mine, bytes, r, phase)) return -1;
  }
  return finish(s);
}

/* The reduction of the ranks' pieces (rank r's at in_r, this rank's at
 * mine) into out, in rank order. */
static void reduce_ranks(const clforge__comm_group *g, const clforge__coll_op *op, const char *mine, const char *peers,
                         size_t stride, char *out, size_t count) {
  const void **ins = g->mpi->ins;
  for (int r = 0; r < g->n; ++r) ins[r] = r == g->me ? mine : peers + (size_t)r * stride;
  clforge__reduce_host(op->desc.dtype, op->desc.op, g->n, ins, out, count);
}

static int check_headers(clforge__comm_group *g, clforge__coll_op *op);
static int input_ready(clforge__comm_group *g, clforge__coll_op *op, size_t c);

/* Owner: part j of a piece of m elements (the first m mod n parts one
 * element longer). */
static size_t part_lo(size_t j, size_t m, size_t n) { return j * (m / n) + (j < m % n ? j : m % n); }
static size_t part_len(size_t j, size_t m, size_t n) { return m / n + (j < m % n); }

/* An all-reduce's pieces, pipelined: piece c+1's first exchange is in
 * flight while piece c is summed, and (owner) piece c's second exchange
 * while piece c+1's first completes. */
typedef struct {
  clforge__comm_group *g;
  clforge__coll_op *op;
  int owner;
  char *slots; /* two slots of the peers' parts, piece c in slot c & 1 */
  size_t slot_bytes;
  size_t opened; /* gates opened so far */
} pipeline;

static size_t piece_len(const clforge__coll_op *op, size_t c) { return op->bounds[c + 1] - op->bounds[c]; }

/* Piece c's first exchange: gather, the whole piece to every rank and
 * theirs from them; owner, part j to rank j and part me from every rank. */
static int post_first(pipeline *P, step *s, size_t c) {
  const clforge__coll_op *op = P->op;
  const size_t es = op->esize, n = (size_t)P->g->n, me = (size_t)P->g->me, m = piece_len(op, c);
  const char *in = (const char *)op->part[me].staging->ptr + op->bounds[c] * es;
  char *slot = P->slots + (c & 1) * P->slot_bytes;
  const size_t mine = P->owner ? part_len(me, m, n) : m;
  s->chunk = c;
  for (size_t j = 0; j < n; ++j) {
    if (j == me) continue;
    const size_t lo = P->owner ? part_lo(j, m, n) : 0, len = P->owner ? part_len(j, m, n) : m;
    if (post(s, 1, slot + j * mine * es, mine * es, (int)j, 0) || post(s, 0, (void *)(in + lo * es), len * es, (int)j, 0))
      return -1;
  }
  return 0;
}

/* Piece c summed from its slot (owner: this rank's part, then sent to
 * every rank and theirs received: the second exchange). */
static int sum_piece(pipeline *P, step *s, size_t c) {
  const clforge__coll_op *op = P->op;
  const size_t es = op->esize, n = (size_t)P->g->n, me = (size_t)P->g->me, m = piece_len(op, c);
  const char *in = (const char *)op->part[me].staging->ptr + op->bounds[c] * es;
  char *out = (char *)op->result->ptr + op->bounds[c] * es, *slot = P->slots + (c & 1) * P->slot_bytes;
  const size_t lo = P->owner ? part_lo(me, m, n) : 0, len = P->owner ? part_len(me, m, n) : m;
  reduce_ranks(P->g, op, in + lo * es, slot, len * es, out + lo * es, len);
  if (!P->owner) return 0;
  s->chunk = c;
  for (size_t j = 0; j < n; ++j) {
    if (j == me) continue;
    if (post(s, 1, out + part_lo(j, m, n) * es, part_len(j, m, n) * es, (int)j, 1) ||
        post(s, 0, out + lo * es, len * es, (int)j, 1))
      return -1;
  }
  return 0;
}

static void open_gate(clforge__coll_op *op, int me, size_t c) {
  clforge__rank_part *p = &op->part[me];
  clSetUserEventStatus(p->gate[c], CL_COMPLETE);
  clReleaseEvent(p->gate[c]);
  p->gate[c] = NULL;
}

static int allreduce_pieces(pipeline *P) {
  clforge__comm_group *g = P->g;
  clforge__coll_op *op = P->op;
  step s = {g, op, 0, "its data"};
  if (post_first(P, &s, 0)) return -1;
  for (size_t c = 0; c < op->nchunks; ++c) {
    if (finish(&s)) return -1; /* piece c's first exchange, piece c-1's second */
    if (P->owner && c > 0) open_gate(op, g->me, c - 1), ++P->opened;
    if (c + 1 < op->nchunks && (input_ready(g, op, c + 1) || post_first(P, &s, c + 1))) return -1;
    if (sum_piece(P, &s, c)) return -1;
    if (!P->owner) open_gate(op, g->me, c), ++P->opened;
  }
  s.what = "its summed part";
  if (P->owner && finish(&s)) return -1;
  if (P->owner) open_gate(op, g->me, op->nchunks - 1), ++P->opened;
  return 0;
}

/* All-reduce: by owners (bandwidth) or by gathering (latency), piece by
 * piece, pipelined. 0, or -1 with the failure recorded and every gate not
 * opened yet opened on NaN. */
static int run_allreduce(clforge__comm_group *g, clforge__coll_op *op) {
  pipeline P = {g, op, op->owner, NULL, 0, 0};
  size_t most = 0;
  for (size_t c = 0; c < op->nchunks; ++c) most = piece_len(op, c) > most ? piece_len(op, c) : most;
  const size_t n = (size_t)g->n;
  P.slot_bytes = n * (P.owner ? part_len(0, most, n) : most) * op->esize;
  P.slots = scratch(g, op, 2 * P.slot_bytes);
  const int failed = !P.slots || input_ready(g, op, 0) || (g->mpi->check_headers && check_headers(g, op)) ||
                     allreduce_pieces(&P);
  if (failed) {
    abandon(g->mpi);
    clforge__op_fail_gates(g, op, P.opened);
  }
  return failed ? -1 : 0;
}

/* Piece c of op: this rank's input is on the host (staging, or the result
 * for broadcast and all-gather); exchange, reduce. */
static int run_piece(clforge__comm_group *g, clforge__coll_op *op, size_t c) {
  const clforge__rank_part *p = &op->part[g->me];
  const size_t es = op->esize, b = op->bounds[c], m = op->bounds[c + 1] - b, cnt = op->desc.count;
  const int seg = cnt ? (int)(b / cnt) : 0;
  step s = {g, op, c, "its data"};
  char *res = op->result ? (char *)op->result->ptr + b * es : NULL;
  const char *in = p->staging ? (const char *)p->staging->ptr + b * es : NULL;
  switch (op->kind) {
  case COMM_ALLREDUCE: /* run_allreduce */
    return -1;
  case COMM_REDUCE_SCATTER: { /* piece of block seg: its owner receives and sums */
    if (seg != g->me) {
      if (post(&s, 0, (void *)in, m * es, seg, 0)) return -1;
      return finish(&s);
    }
    char *peers = scratch(g, op, (size_t)g->n * m * es);
    if (!peers || all_to_all(&s, NULL, peers, m * es, 0)) return -1;
    reduce_ranks(g, op, in, peers, m * es, res, m);
    return 0;
  }
  case COMM_BROADCAST:
  case COMM_ALL_GATHER: { /* the source's piece goes to every rank */
    const int src = op->kind == COMM_BROADCAST ? op->desc.root : seg;
    if (src == g->me) return all_to_all(&s, res, NULL, m * es, 0);
    if (post(&s, 1, res, m * es, src, 0)) return -1;
    return finish(&s);
  }
  case COMM_BARRIER: {
    static char none[1]; /* zero bytes each way */
    s.what = "its arrival";
    return all_to_all(&s, none, none, 0, 0);
  }
  }
  return -1;
}

static const char *kind_word(int kind) {
  static const char *const names[] = {"clforge_allreduce", "clforge_broadcast", "clforge_reduce_scatter",
                                      "clforge_all_gather", "clforge_comm_barrier"};
  return kind >= 0 && kind <= COMM_BARRIER ? names[kind] : "?";
}

/* Validation mode: every rank's call, exchanged and compared before the
 * data, so that a rank whose call differs is named. */
static int check_headers(clforge__comm_group *g, clforge__coll_op *op) {
  enum { KIND, DTYPE, OP, COUNT, ROOT, FIELDS };
  const int reduces = op->kind == COMM_ALLREDUCE || op->kind == COMM_REDUCE_SCATTER;
  /* in a buffer of its own: the exchange may outlive this call (a failed one) and a pipelined all-reduce's slots
   * are sized already */
  long long *mine = g->mpi->headers + (size_t)g->me * FIELDS;
  const long long values[FIELDS] = {op->kind, op->kind == COMM_BARRIER ? 0 : op->desc.dtype, reduces ? op->desc.op : 0,
                                    op->kind == COMM_BARRIER ? 0 : (long long)op->desc.count,
                                    op->kind == COMM_BROADCAST ? op->desc.root : 0};
  memcpy(mine, values, sizeof values);
  char *peers = (char *)g->mpi->headers;
  const size_t bytes = FIELDS * sizeof *mine;
  step s = {g, op, 0x7FFFF, "its call's description (validation mode)"};
  if (all_to_all(&s, mine, peers, bytes, 1)) return -1;
  static const char *const field[] = {"collective", "dtype", "op", "count", "root"};
  for (int r = 0; r < g->n; ++r) {
    if (r == g->me) continue;
    const long long *h = (const long long *)(peers + (size_t)r * bytes);
    for (int f = 0; f < FIELDS; ++f) {
      if (h[f] == mine[f]) continue;
      pthread_mutex_lock(&g->mu);
      if (f == KIND)
        clforge__group_fail(g, CLFORGE_COMM_MISMATCH, "collective #%llu: rank %d called %s, where rank %d called %s",
                            (unsigned long long)op->seq, r, kind_word((int)h[f]), g->me, kind_word((int)mine[f]));
      else
        clforge__group_fail(g, CLFORGE_COMM_MISMATCH, "%s #%llu: rank %d gave %s %lld, where rank %d gave %lld", op->name,
                            (unsigned long long)op->seq, r, field[f], h[f], g->me, mine[f]);
      pthread_mutex_unlock(&g->mu);
      return -1;
    }
  }
  return 0;
}

/* This rank's input of piece c on the host, at most the timeout from now
 * (every rank has called: its own call is the only one here). */
static int input_ready(clforge__comm_group *g, clforge__coll_op *op, size_t c) {
  return clforge__input_ready(g, op, g->me, c, clforge__now() + g->timeout_ms / 1000.0);
}

int clforge__mpi_run_op(clforge__comm_group *g, clforge__coll_op *op) {
  if (op->kind == COMM_ALLREDUCE) return run_allreduce(g, op);
  int failed = input_ready(g, op, 0) || (g->mpi->check_headers && check_headers(g, op));
  size_t c = 0;
  for (; c < op->nchunks && !failed; ++c) {
    if ((c && input_ready(g, op, c)) || run_piece(g, op, c)) {
      failed = 1;
      break;
    }
    open_gate(op, g->me, c);
  }
  if (failed) {
    abandon(g->mpi);
    clforge__op_fail_gates(g, op, c);
  }
  return failed ? -1 : 0;
}

void clforge__mpi_free(clforge__mpi *m) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm); /* (after MPI_Finalize nothing is left to free) */
  if (!m->sends_abandoned) free(m->scratch), free(m->headers); /* else a late peer may still read them */
  free(m->req), free(m->status), free(m->req_peer), free(m->req_recv), free(m->req_bytes), free(m->ins);
  free(m);
}

const char *clforge_comm_mpi_library(void) {
  static char version[MPI_MAX_LIBRARY_VERSION_STRING];
  if (!version[0]) {
    int len = 0;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = '\0';
  }
  return version;
}

/* This process's rank on its machine: the launcher's (Open MPI, MPICH,
 * MVAPICH, Slurm), which counts the whole job's processes, else from a
 * shared-memory split of comm (a sub-communicator's ranks on the machine:
 * two sub-communicators may then share a device). */
static void find_local_rank(clforge__mpi *m, int rank) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK",
                                     "SLURM_LOCALID"};
  m->local_rank = 0, m->local_size = 1;
  MPI_Comm node;
  if (MPI_Comm_split_type(m->comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &m->local_rank);
    MPI_Comm_size(node, &m->local_size);
    MPI_Comm_free(&node);
  }
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    char *end;
    const long r = v && *v ? strtol(v, &end, 10) : -1;
    if (r >= 0 && !*end) {
      m->local_rank = (int)r;
      return;
    }
  }
}

/* MPI's state checked, this rank's memory made, then the duplicate (a
 * collective call: nothing after it may fail without the agreement). */
static clforge_status mpi_setup(const char *fn, MPI_Comm comm, clforge__mpi *m, int *rank, int *size) {
  int init = 0, fin = 0, level = 0, inter = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: MPI is %s (call MPI_Init_thread with MPI_THREAD_MULTIPLE first)",
                         fn, fin ? "finalized" : "not initialized");
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE)
    return clforge__fail(NULL, CLFORGE_UNSUPPORTED,
                         "%s: MPI was initialized with thread level %s; the communicator's progress thread calls MPI "
                         "beside the application: initialize with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)",
                         fn, level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                             : level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" : "MPI_THREAD_SINGLE");
  if (comm == MPI_COMM_NULL) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: comm is MPI_COMM_NULL", fn);
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: comm is an intercommunicator (give an intracommunicator)", fn);
  MPI_Comm_size(comm, size);
  const size_t n = (size_t)*size;
  /* two exchanges in flight (a pipelined all-reduce), a send and a receive per peer each */
  m->req = calloc(4 * n, sizeof *m->req);
  m->status = calloc(4 * n, sizeof *m->status);
  m->req_peer = calloc(4 * n, sizeof *m->req_peer);
  m->req_recv = calloc(4 * n, sizeof *m->req_recv);
  m->req_bytes = calloc(4 * n, sizeof *m->req_bytes);
  m->ins = calloc(n, sizeof *m->ins);
  m->headers = calloc(n * 5, sizeof *m->headers);
  if (!m->req || !m->status || !m->req_peer || !m->req_recv || !m->req_bytes || !m->ins || !m->headers)
    return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
  /* without the application's info hints (e.g. MPI-4's mpi_assert_allow_overtaking) */
  if (MPI_Comm_dup_with_info(comm, MPI_INFO_NULL, &m->comm) != MPI_SUCCESS)
    return clforge__fail(NULL, CLFORGE_COMM_BROKEN, "%s: MPI_Comm_dup_with_info failed", fn);
  MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(m->comm, rank);
  int *ub = NULL, flag = 0;
  MPI_Comm_get_attr(m->comm, MPI_TAG_UB, &ub, &flag);
  m->tag_ub = flag && ub ? *ub : 32767;
  find_local_rank(m, *rank);
  return CLFORGE_SUCCESS;
}

/* Every rank's outcome and the settings that must agree, compared: a
 * rank that failed, or options that differ, fail every rank alike. Every
 * rank takes the all-reduce crossover rank 0 found in its tuning files (a
 * job's nodes may hold different files; the algorithm must be one). */
static clforge_status agree(const char *fn, clforge__mpi *m, clforge_context ctx, clforge__comm_group *g, int ok) {
  long long v[5] = {ok, g ? (long long)g->chunk_bytes : 0, g ? g->algo : 0, ctx && ctx->validate,
                    g && g->me == 0 ? (long long)g->gather_below : 0};
  long long hi[5], lo[5];
  if (MPI_Allreduce(v, hi, 5, MPI_LONG_LONG, MPI_MAX, m->comm) != MPI_SUCCESS ||
      MPI_Allreduce(v, lo, 5, MPI_LONG_LONG, MPI_MIN, m->comm) != MPI_SUCCESS)
    return clforge__fail(ctx, CLFORGE_COMM_BROKEN, "%s: MPI_Allreduce of the options failed", fn);
  if (!ok) return CLFORGE_COMM_BROKEN; /* this rank's own error is recorded already */
  if (!lo[0]) return clforge__fail(ctx, CLFORGE_COMM_BROKEN, "%s: another rank failed to create its part", fn);
  if (lo[1] != hi[1])
    return clforge__fail(ctx, CLFORGE_COMM_MISMATCH, "%s: chunk_bytes differs across ranks (%lld to %lld; here %zu)", fn,
                         lo[1], hi[1], g->chunk_bytes);
  if (lo[2] != hi[2])
    return clforge__fail(ctx, CLFORGE_COMM_MISMATCH, "%s: the all-reduce algorithm differs across ranks (here %d)", fn,
                         (int)g->algo);
  m->check_headers = hi[3] != 0;
  if ((size_t)hi[4] != g->gather_below) {
    clforge__log(CLFORGE_LOG_INFO, "%s: rank %d takes rank 0's all-reduce crossover, %lld bytes (its own: %zu, %s)", fn,
                 g->me, hi[4], g->gather_below, g->gather_source);
    g->gather_below = (size_t)hi[4], g->gather_source = "rank 0's";
  }
  return CLFORGE_SUCCESS;
}

/* A recorded message without its status prefix ("... (NAME, code): "), to
 * record it again elsewhere. */
static const char *detail(const char *msg) {
  const char *p = strstr(msg, "): ");
  return p ? p + 3 : msg;
}

/* A group whose thread runs and that nobody holds: stopped and freed. */
static void stop_and_free(clforge__comm_group *g) {
  pthread_mutex_lock(&g->mu);
  g->stop = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  pthread_join(g->thread, NULL);
  clforge__group_free(g);
}

clforge_status clforge_comm_create_mpi(MPI_Comm comm, clforge_context ctx, const clforge_comm_options *opts,
                                       clforge_comm *out) {
  const char *fn = "clforge_comm_create_mpi";
  clforge__clear_error(ctx);
  if (!out) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: out is NULL", fn);
  *out = NULL;
  clforge__mpi *m = calloc(1, sizeof *m);
  if (!m) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
  m->comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  clforge_status st = mpi_setup(fn, comm, m, &rank, &size);
  if (st != CLFORGE_SUCCESS) { /* before or in the duplicate: no agreement to take part in */
    clforge__mpi_free(m);
    if (ctx) clforge__fail(ctx, st, "%s", detail(clforge_last_error(NULL)));
    return st;
  }
  clforge_context own = NULL;
  if (!ctx) st = clforge__context_create_local(m->local_rank, &own);
  clforge__comm_group *g = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__group_new(fn, size, rank, 1, ctx ? &ctx : &own, opts, &g);
  if (g) {
    g->mpi = m, g->ranks[rank]->owns_ctx = own != NULL;
    g->gather_below = clforge__crossover_lookup(g->ranks[rank]->ctx, size, &g->gather_source);
  }
  if (st == CLFORGE_SUCCESS && (st = clforge__group_start(fn, g, out)) != CLFORGE_SUCCESS) *out = NULL;
  const int started = st == CLFORGE_SUCCESS;
  const clforge_status mine = st; /* every rank takes part in the agreement, even one that failed */
  st = agree(fn, m, ctx ? ctx : own, g, mine == CLFORGE_SUCCESS);
  if (mine != CLFORGE_SUCCESS) st = mine;
  if (st != CLFORGE_SUCCESS) {
    /* the message to the caller's context, or to the thread's (NULL) when the rank's own goes */
    if (own) clforge__fail(NULL, st, "%s", detail(clforge_last_error(own)));
    *out = NULL;
    if (started) stop_and_free(g); /* (m and own with it) */
    else if (g) clforge__group_free(g);
    else clforge__mpi_free(m), clforge_context_destroy(own);
    return st;
  }
  clforge__log(CLFORGE_LOG_INFO, "%s: rank %d of %d, local rank %d of %d, on %s", fn, rank, size, m->local_rank,
               m->local_size, g->ranks[rank]->ctx->info.name);
  return CLFORGE_SUCCESS;
}

clforge_status clforge_comm_create_mpi_fint(int32_t fortran_comm, clforge_context ctx, const clforge_comm_options *opts,
                                            clforge_comm *comm) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin) {
    if (comm) *comm = NULL;
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "clforge_comm_create_mpi_fint: MPI is %s (mpi4py: import mpi4py.MPI first)",
                         fin ? "finalized" : "not initialized");
  }
  return clforge_comm_create_mpi(MPI_Comm_f2c((MPI_Fint)fortran_comm), ctx, opts, comm);
}

int clforge__mpi_max(clforge__comm_group *g, double *v, int n, int timeouts) {
  /* non-blocking, so that a rank that never calls is a timeout, not a hang;
   * the buffer is the heap's: a collective that timed out still writes it */
  double *buf = malloc((size_t)n * sizeof *buf);
  if (!buf) return -1;
  memcpy(buf, v, (size_t)n * sizeof *buf);
  MPI_Request req;
  if (MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_MAX, g->mpi->comm, &req) != MPI_SUCCESS) {
    free(buf);
    return -1;
  }
  const double deadline = clforge__now() + timeouts * (g->timeout_ms / 1000.0);
  clforge__poller pause = {0, 0};
  for (int done = 0;;) {
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1; /* (buf kept: MPI may still hold it) */
    if (done) break;
    if (clforge__now() > deadline) return -2;
    clforge__poll_pause(&pause, 20e-3);
  }
  memcpy(v, buf, (size_t)n * sizeof *buf);
  free(buf);
  return 0;
}
