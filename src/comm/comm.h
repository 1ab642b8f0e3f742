/* The communicator's layout, shared by src/comm/ and never installed.
 *
 * A group is the N ranks created together; each rank is one clforge_comm.
 * A rank's k-th collective call joins the group's k-th collective (an op),
 * creating it if it is the first to arrive. A call enqueues all of its
 * rank's part at once, on the rank's two queues:
 *   d2h: an arrival marker (its wait list, and what the context's queue
 *        held before the call), then its input's copies to host memory, a
 *        copy per piece ("chunk");
 *   h2d: per chunk, the copy of the result back to its buffer, each gated
 *        by a user event, then a marker (the call's event).
 * The group's progress thread takes the ops in order once every rank has
 * arrived: for each chunk it waits for the ranks' copies of that chunk,
 * reduces it (src/comm/reduce_host.c), and opens the chunk's gates; so the
 * copies to the host of later chunks, the sums, and the copies back
 * overlap. It retires an op (its host memory back to the pools) once every
 * rank's marker has completed. The thread touches OpenCL objects only,
 * never a clforge context (contexts are one thread's).
 *
 * Over MPI (src/comm/transport_mpi.c) a group is one process's rank of the
 * MPI communicator: the same calls and queues, one local rank (nlocal 1,
 * ranks[me] only), and the progress thread exchanges each chunk with the
 * other processes before it reduces it, in the same order. */
#ifndef CLFORGE_SRC_COMM_COMM_H
#define CLFORGE_SRC_COMM_COMM_H

#include <pthread.h>
#include <stdint.h>

#include "clforge/clforge.h"

typedef enum { COMM_ALLREDUCE, COMM_BROADCAST, COMM_REDUCE_SCATTER, COMM_ALL_GATHER, COMM_BARRIER } clforge__coll_kind;

/* Host memory for staging: pinned (a mapped CL_MEM_ALLOC_HOST_PTR buffer of
 * a rank's context) or, with mem NULL, the heap. */
typedef struct {
  cl_mem mem;
  cl_command_queue queue; /* where mem is mapped */
  void *ptr;
  size_t bytes;
  int busy;
} clforge__host_block;

typedef struct {
  clforge__host_block **blocks;
  size_t count, cap;
} clforge__block_pool;

typedef struct {
  int here;
  clforge__host_block *staging; /* reductions: this rank's input on the host */
  cl_event arrival;             /* d2h queue: after its wait list */
  cl_event *d2h;                /* [nchunks], NULL where it copies nothing */
  cl_event *gate;               /* [nchunks] user events */
  cl_event last;                /* h2d queue: after its copies back */
} clforge__rank_part;

typedef struct clforge__coll_op {
  struct clforge__coll_op *next;
  uint64_t seq;
  clforge__coll_kind kind;
  const char *name; /* the first caller's function */
  clforge_collective_desc desc;
  size_t esize;
  size_t nchunks, *bounds;      /* chunk c is result elements [bounds[c], bounds[c+1]) */
  clforge__host_block *result;  /* the result (broadcast, all-gather: the data) */
  int owner;                    /* over MPI, all-reduce: by owners (else by gathering), fixed at creation */
  int arrived;
  double first_arrival;
  clforge__rank_part *part;     /* [n] */
} clforge__coll_op;

typedef struct clforge__mpi clforge__mpi; /* src/comm/transport_mpi.c */

typedef struct clforge__comm_group {
  int n, alive;
  int nlocal;       /* ranks in this process: n, or 1 over MPI */
  int me;           /* over MPI: this process's rank */
  clforge__mpi *mpi; /* NULL: every rank is in this process */
  clforge_comm_algo algo; /* all-reduce's algorithm (options; AUTO: by size) */
  size_t gather_below;    /* AUTO over MPI: by gathering below this many bytes (src/comm/crossover.c) */
  const char *gather_source; /* where that came from: "built-in", "tuned", "nearest", "rank 0's", "clforge_comm_tune" */
  uint32_t timeout_ms;
  size_t chunk_bytes;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  int stop;
  clforge__coll_op *pending, *retiring; /* pending: in sequence order */
  clforge_status broken;                /* 0 while it works */
  char message[512];
  clforge__block_pool results;
  struct clforge_comm_s **ranks;        /* [n] */
} clforge__comm_group;

struct clforge_comm_s {
  clforge__comm_group *group;
  int rank;
  int destroyed;
  clforge_context ctx;
  int owns_ctx; /* made by clforge_comm_create_mpi: destroyed with the rank */
  cl_context cl_ctx;
  cl_command_queue d2h, h2d;
  /* maps new staging blocks: holds nothing else, so a blocking map under
   * the group's lock never waits for a wait list or a gate */
  cl_command_queue map;
  uint64_t seq; /* this rank's next collective */
  clforge__block_pool staging;
};

/* Take a free block of at least `bytes` from pool (pinned in cl_ctx where
 * cl_ctx is not NULL), or make one; NULL when out of memory. Under the
 * group's lock. */
clforge__host_block *clforge__block_take(clforge__block_pool *pool, cl_context cl_ctx, cl_command_queue queue,
                                         size_t bytes);
void clforge__block_pool_free(clforge__block_pool *pool);

/* Fail the group (the first failure's status and message stay): every
 * pending op's gates are opened on NaN results (clforge__op_fail_gates), so
 * nothing waits on them. Under the group's lock. */
void clforge__group_fail(clforge__comm_group *g, clforge_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Release what op holds (events, blocks back to their pools), then op. */
void clforge__op_free(clforge__comm_group *g, clforge__coll_op *op);

/* A failed op: its result from chunk `from` on set to NaN, then the gates
 * of those chunks of every rank that arrived opened. Opened, not set to an
 * error status: what waits on a failed user event is implementation-defined,
 * and PoCL 3.1 aborts the process when the failure reaches a second level
 * of waiters (the call's marker, then the context queue's barrier on it).
 * The failure is reported by the communicator instead. */
void clforge__op_fail_gates(clforge__comm_group *g, clforge__coll_op *op, size_t from);

/* Release the retiring ops whose every rank's last command has ended (all:
 * every one, when stopping); their blocks go back to the pools. Under the
 * lock; the calls run it too, so that a collective called right after the
 * previous one's event finds that one's memory free. */
void clforge__group_retire(clforge__comm_group *g, int all);

/* The progress thread (src/comm/progress.c). */
void *clforge__comm_progress(void *group);

/* Wait for e until the deadline (clforge__now seconds), politely (no
 * spinning core taken from the driver): CL_COMPLETE, an error, or 1 at the
 * deadline. */
cl_int clforge__event_wait_until(cl_event e, double deadline);

/* Rank r's input of piece c on the host (its arrival first, for piece 0),
 * waited for until the deadline: 0, or -1 with the failure recorded in the
 * group (a timeout or the failed command, naming the rank). */
int clforge__input_ready(clforge__comm_group *g, const clforge__coll_op *op, int r, size_t c, double deadline);

/* Between two polls of something in flight: yield the core (another
 * thread that has work gets it at once; none: the poll comes back at once)
 * for the first spin_s seconds of the wait, then sleep, growing to 200 us
 * (a wait that long is a late rank, not a transfer: it must not hold a
 * core the driver's workers need). Starts zeroed. */
typedef struct {
  double start;
  long nap_ns;
} clforge__poller;
void clforge__poll_pause(clforge__poller *p, double spin_s);

/* A new group of n ranks (nlocal of them in this process, the rank
 * structures made for ranks [first, first + nlocal) on ctxs[0 ..]) with
 * opts checked; its progress thread is not started. fn names the caller
 * in errors, which go to ctxs[0]. */
clforge_status clforge__group_new(const char *fn, int n, int first, int nlocal, const clforge_context *ctxs,
                                  const clforge_comm_options *opts, clforge__comm_group **out);
/* Start the progress thread and hand out the ranks (comms[0 .. nlocal)). */
clforge_status clforge__group_start(const char *fn, clforge__comm_group *g, clforge_comm *comms);
/* Free a group whose thread has stopped or never started. */
void clforge__group_free(clforge__comm_group *g);

/* The MPI transport's part (transport_mpi.c; without MPI, never called):
 * run an op whose local rank has arrived, and release the state. */
int clforge__mpi_run_op(clforge__comm_group *g, clforge__coll_op *op);
void clforge__mpi_free(clforge__mpi *m);
/* A failed exchange let sends go that may still read the rank's host
 * memory: the group keeps it (never freed) rather than free it under them. */
int clforge__mpi_keeps_memory(const clforge__mpi *m);
/* Every process's v[0 .. n) replaced by the element-wise maximum over the
 * processes (a barrier too): 0; -1 when MPI failed or memory ran out
 * (without MPI, -1); -2 when a process did not take part within `timeouts`
 * times the group's timeout. */
int clforge__mpi_max(clforge__comm_group *g, double *v, int n, int timeouts);

/* The all-reduce crossover (src/comm/crossover.c): the bytes below which
 * a group of n ranks on ctx's device gathers, from ctx's tuning files (the
 * entry of n ranks, else the nearest count) or built in, and its source. */
size_t clforge__crossover_lookup(clforge_context ctx, int n, const char **source);

#endif
