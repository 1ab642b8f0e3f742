/* All-reduce's crossover over MPI, the size below which every rank gathers
 * all contributions (one exchange) rather than letting the owners sum
 * (two exchanges of 1/N each): a tuning-file entry like the kernels'
 * (family "allreduce", layout "mpi", class "ranks_<N>", the parameter
 * GATHER_BELOW_KB), measured by clforge_comm_tune on the job's own ranks
 * and links, looked up when a communicator is made (the entry of its rank
 * count, else the nearest count's, else 64 KiB), and rank 0's taken by
 * every rank (transport_mpi.c). docs/collectives.md, docs/tuning.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../core/log.h"
#include "../core/paths.h"
#include "../core/tuning_file.h"
#include "comm.h"

#define BUILT_IN_BYTES ((size_t)64 << 10)
#define PARAM "GATHER_BELOW_KB"

enum {
  SWEEP_FIRST_KB = 1, /* the sizes measured: 1 KiB, 2 KiB, ... 4 MiB */
  SWEEP = 13,
  WARM = 2,           /* runs per algorithm and size not counted */
  REPS = 15           /* runs counted: the median of the slowest rank's times */
};

static void key(int n, char *cls, size_t cap, size_t *shape) {
  snprintf(cls, cap, "ranks_%d", n);
  shape[0] = (size_t)n;
}

static int entry_fits(const clforge__tuning_entry *e, void *user) {
  (void)user;
  return e->nparams == 1 && !strcmp(e->names[0], PARAM) && e->values[0] >= 0 && e->values[0] <= (1 << 20);
}

size_t clforge__crossover_lookup(clforge_context ctx, int n, const char **source) {
  char cls[32];
  size_t shape[CLFORGE_TUNING_MAX_DIMS] = {0};
  key(n, cls, sizeof cls, shape);
  const clforge__tuning_query q = {"allreduce", "f32", "mpi", cls, shape, 1, entry_fits, NULL};
  const clforge__tuning_entry *e = NULL;
  const clforge__tuning_match m = clforge__tuning_lookup(ctx, &q, &e);
  if (m == CLFORGE__TUNING_NONE || !e) {
    *source = "built-in";
    return BUILT_IN_BYTES;
  }
  *source = m == CLFORGE__TUNING_EXACT ? "tuned" : "nearest";
  return (size_t)e->values[0] << 10;
}

clforge_status clforge_comm_allreduce_algo(clforge_comm comm, size_t bytes, clforge_comm_algo *algo,
                                           size_t *crossover_bytes, const char **source) {
  const char *fn = "clforge_comm_allreduce_algo";
  if (!comm || !algo) return clforge__fail(comm ? comm->ctx : NULL, CLFORGE_INVALID_ARGUMENT, "%s: %s is NULL", fn, comm ? "algo" : "comm");
  clforge__clear_error(comm->ctx);
  clforge__comm_group *g = comm->group;
  if (!g->mpi)
    return clforge__fail(comm->ctx, CLFORGE_UNSUPPORTED,
                         "%s: ranks of one process have one all-reduce (the progress thread sums every rank's piece)", fn);
  pthread_mutex_lock(&g->mu);
  *algo = g->algo != CLFORGE_COMM_ALGO_AUTO ? g->algo
          : bytes >= g->gather_below        ? CLFORGE_COMM_ALGO_OWNER
                                            : CLFORGE_COMM_ALGO_GATHER;
  if (crossover_bytes) *crossover_bytes = g->gather_below;
  if (source) *source = g->algo != CLFORGE_COMM_ALGO_AUTO ? "options" : g->gather_source;
  pthread_mutex_unlock(&g->mu);
  return CLFORGE_SUCCESS;
}

/* A failure of the ranks' own agreement (the communicator is out of step
 * from here: it fails). rc: clforge__mpi_max's. */
static clforge_status out_of_step(const char *fn, clforge_comm comm, int rc) {
  clforge__comm_group *g = comm->group;
  pthread_mutex_lock(&g->mu);
  if (rc == -2)
    clforge__group_fail(g, CLFORGE_COMM_TIMEOUT, "%s: a rank did not take part within %u ms", fn, g->timeout_ms);
  else clforge__group_fail(g, CLFORGE_COMM_BROKEN, "%s: the ranks' MPI_Iallreduce failed (or no host memory)", fn);
  const clforge_status st = g->broken;
  pthread_mutex_unlock(&g->mu);
  return clforge__fail(comm->ctx, st, "%s", g->message);
}

static int by_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One run of the all-reduce of `bytes` by `algo` on this rank, after a
 * barrier that tells every rank whether any has failed so far (`skip`):
 * then no rank runs it, so that all stay in step. *secs its seconds, or
 * negative when the call failed or was skipped. 0, or the barrier's
 * failure (clforge__mpi_max's). */
static int one_run(clforge_comm comm, clforge_comm_algo algo, cl_mem send, cl_mem recv, size_t bytes, int skip,
                   double *secs) {
  clforge__comm_group *g = comm->group;
  pthread_mutex_lock(&g->mu);
  g->algo = algo; /* read once per call, when its op is made (collective.c) */
  pthread_mutex_unlock(&g->mu);
  double sync = skip; /* a failure so far on any rank: every rank skips from this run on */
  const int rc = clforge__mpi_max(g, &sync, 1, 2); /* (a peer may sit out a run's own timeout first) */
  *secs = -1;
  if (rc || sync) return rc;
  const clforge_collective_desc d = {.dtype = CLFORGE_F32, .op = CLFORGE_REDUCE_SUM, .count = bytes / 4};
  cl_event ev = NULL;
  const double t0 = clforge__now();
  if (clforge_allreduce(comm, &d, send, 0, recv, 0, 0, NULL, &ev) != CLFORGE_SUCCESS) return 0;
  const cl_int err = clWaitForEvents(1, &ev);
  const double t = clforge__now() - t0;
  clReleaseEvent(ev);
  if (err == CL_SUCCESS && clforge_comm_status(comm) == CLFORGE_SUCCESS) *secs = t;
  return 0;
}

/* Every size of the sweep, both algorithms alternating run by run (which
 * goes first alternates too): the medians of the slowest rank's times. 0;
 * a failure of the ranks' agreement (clforge__mpi_max's -1, -2); -3 when a
 * run failed on any rank. */
static int sweep(clforge_comm comm, cl_mem send, cl_mem recv, clforge_comm_tune_result *r) {
  enum { RUNS = WARM + REPS, FAILED = 2 * RUNS };
  for (int i = 0; i < SWEEP; ++i) {
    const size_t bytes = ((size_t)SWEEP_FIRST_KB << 10) << i;
    double t[FAILED + 1] = {0}; /* the owners' runs, gathering's, a failure flag */
    for (int k = 0; k < RUNS; ++k)
      for (int a = 0; a < 2; ++a) {
        const int owner = (a + k) % 2 == 0;
        double s;
        const int rc = one_run(comm, owner ? CLFORGE_COMM_ALGO_OWNER : CLFORGE_COMM_ALGO_GATHER, send, recv, bytes,
                               t[FAILED] != 0, &s);
        if (rc) return rc;
        if (s < 0) t[FAILED] = 1;
        t[(owner ? 0 : RUNS) + k] = s;
      }
    const int rc = clforge__mpi_max(comm->group, t, FAILED + 1, 2);
    if (rc) return rc;
    if (t[FAILED]) return -3;
    qsort(t + WARM, REPS, sizeof *t, by_double);
    qsort(t + RUNS + WARM, REPS, sizeof *t, by_double);
    r->bytes[i] = bytes, r->owner_s[i] = t[WARM + REPS / 2], r->gather_s[i] = t[RUNS + WARM + REPS / 2];
    r->sizes = i + 1;
  }
  return 0;
}

/* The crossover from the medians: of the sizes measured (and twice the
 * largest: gathering everywhere), the one whose choice costs the least
 * summed over the sweep, each size's cost its time over the faster
 * algorithm's there, so that one noisy size cannot move it far; ties go to
 * the smaller (the owners move N/2 times fewer bytes). Every rank has the
 * same medians, so every rank decides alike. */
static size_t decide(const clforge_comm_tune_result *r) {
  double best = 0;
  int pick = 0;
  for (int k = 0; k <= r->sizes; ++k) { /* gather below size k, the owners from it */
    double cost = 0;
    for (int i = 0; i < r->sizes; ++i) {
      const double fast = r->owner_s[i] < r->gather_s[i] ? r->owner_s[i] : r->gather_s[i];
      cost += (i < k ? r->gather_s[i] : r->owner_s[i]) / (fast > 0 ? fast : 1);
    }
    if (k == 0 || cost < best) best = cost, pick = k;
  }
  return pick < r->sizes ? r->bytes[pick] : r->bytes[r->sizes - 1] * 2;
}

/* options: NULL, or file, dry_run and ops ("allreduce" or NULL) only. */
static clforge_status check_options(const char *fn, clforge_context ctx, const clforge_tune_options *o) {
  if (!o) return CLFORGE_SUCCESS;
  int other = o->shapes || o->dtypes || o->layouts || o->strategy || o->budget_s != 0 || o->max_evals || o->seed ||
              o->space || o->skip_peers || o->progress || o->stop || o->compute_type_room_;
  for (size_t i = 0; i < sizeof o->reserved / sizeof o->reserved[0]; ++i) other |= o->reserved[i] != NULL;
  if (o->ops && strcmp(o->ops, "allreduce"))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: options->ops \"%s\": only \"allreduce\" (or NULL)", fn, o->ops);
  if (other)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: only options->file, dry_run and ops apply (the sweep is fixed: 1 KiB to 4 MiB); leave the "
                         "others zero",
                         fn);
  return CLFORGE_SUCCESS;
}

/* Rank 0's entry saved; 0, or -1 with why. */
static int save(clforge_context ctx, const char *file, int n, const clforge_comm_tune_result *r, char *why, size_t cap) {
  clforge__tuning_entry e;
  memset(&e, 0, sizeof e);
  clforge__tuning_stamp(&e, &ctx->info);
  snprintf(e.family, sizeof e.family, "allreduce");
  snprintf(e.dtypes, sizeof e.dtypes, "f32");
  snprintf(e.layout, sizeof e.layout, "mpi");
  key(n, e.shape_class, sizeof e.shape_class, e.shape);
  e.ndims = 1;
  snprintf(e.provider, sizeof e.provider, "clforge");
  e.nparams = 1;
  snprintf(e.names[0], sizeof e.names[0], PARAM);
  e.values[0] = (int)(r->crossover_bytes >> 10);
  for (int i = 0; i < r->sizes; ++i) /* the time of the first size the owners take */
    if (r->bytes[i] == r->crossover_bytes) e.median_s = r->owner_s[i];
  clforge__tuning_db one = {&e, 1, 1};
  const int rc = clforge__tuning_save(file, &one, why, cap);
  if (rc > 0) clforge__log(CLFORGE_LOG_WARN, "clforge_comm_tune: %s", why);
  return rc < 0 ? -1 : 0;
}

/* Where rank 0 saves: options->file, else the user's tuning file; NULL
 * with the reason when there is none. */
static const char *target_file(const clforge_tune_options *o, char *buf, size_t cap) {
  if (o && o->dry_run) return "";
  if (o && o->file) return *o->file && strcmp(o->file, "off") ? o->file : NULL;
  size_t need;
  return clforge__path(CLFORGE_PATH_TUNING_FILE, buf, cap, &need) || !strcmp(buf, "off") ? NULL : buf;
}

/* The sweep, once every rank has agreed to run it; then rank 0's save,
 * agreed too; only then does the communicator take the crossover (unless
 * a dry run) and *result get it. */
static clforge_status tune_agreed(const char *fn, clforge_comm comm, const char *file, int dry, cl_mem send,
                                  cl_mem recv, clforge_comm_tune_result *result) {
  clforge__comm_group *g = comm->group;
  clforge_context ctx = comm->ctx;
  clforge_comm_tune_result r;
  memset(&r, 0, sizeof r);
  pthread_mutex_lock(&g->mu);
  const clforge_comm_algo saved = g->algo;
  pthread_mutex_unlock(&g->mu);
  const double t0 = clforge__now();
  int rc = sweep(comm, send, recv, &r);
  r.seconds = clforge__now() - t0;
  clReleaseMemObject(send), clReleaseMemObject(recv);
  pthread_mutex_lock(&g->mu);
  g->algo = saved;
  pthread_mutex_unlock(&g->mu);
  if (rc == -3)
    return clforge__fail(ctx, CLFORGE_COMM_BROKEN, "%s: a run of the sweep failed: %s", fn,
                         clforge_comm_status(comm) ? clforge_comm_last_error(comm) : "on another rank");
  if (rc) return out_of_step(fn, comm, rc);
  r.crossover_bytes = decide(&r);
  char why[600] = "";
  const int bad = g->me == 0 && *file && save(ctx, file, g->n, &r, why, sizeof why);
  double any_bad = bad;
  /* rank 0's save may wait on the file's lock (another tuner): ten timeouts */
  if ((rc = clforge__mpi_max(g, &any_bad, 1, 10)) != 0) return out_of_step(fn, comm, rc);
  if (any_bad)
    return clforge__fail(ctx, CLFORGE_IO_ERROR, "%s: rank 0 could not save the crossover%s%s", fn, bad ? ": " : "", why);
  if (g->me == 0 && *file) clforge__tuning_view_release(&ctx->tuning); /* later lookups read it */
  if (!dry) {
    pthread_mutex_lock(&g->mu);
    g->gather_below = r.crossover_bytes, g->gather_source = "clforge_comm_tune";
    pthread_mutex_unlock(&g->mu);
  }
  *result = r;
  clforge__log(CLFORGE_LOG_INFO, "%s: %d ranks: all-reduce gathers below %zu bytes (measured in %.1f s)%s", fn, g->n,
               r.crossover_bytes, r.seconds, dry ? ", dry run" : "");
  return CLFORGE_SUCCESS;
}

clforge_status clforge_comm_tune(clforge_comm comm, const clforge_tune_options *options, clforge_comm_tune_result *result) {
  const char *fn = "clforge_comm_tune";
  if (!comm) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: comm is NULL", fn);
  clforge_context ctx = comm->ctx;
  clforge__clear_error(ctx);
  clforge__comm_group *g = comm->group;
  if (!g->mpi)
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                         "%s: ranks of one process have one all-reduce (no crossover to measure); tune over MPI", fn);
  /* what could fail on one rank only is agreed on first, so that no rank measures alone */
  char path[4096];
  const char *file = g->me == 0 ? target_file(options, path, sizeof path) : "";
  const int dry = options && options->dry_run;
  clforge_status st = !result ? clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: result is NULL", fn)
                              : check_options(fn, ctx, options);
  if (st == CLFORGE_SUCCESS && !file)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                       "%s: rank 0 has no tuning file to write (CLFORGE_TUNING_FILE is off, or no home directory); "
                       "name one in options->file, or dry-run",
                       fn);
  /* a failed communicator takes no more calls, this one either: no MPI call is made on it (its
     collectives may be out of step); the other ranks fail in theirs after the timeout */
  if (clforge_comm_status(comm) != CLFORGE_SUCCESS)
    return clforge__fail(ctx, CLFORGE_COMM_BROKEN, "%s: the communicator failed earlier: %s", fn,
                         clforge_comm_last_error(comm));
  const size_t most = ((size_t)SWEEP_FIRST_KB << 10) << (SWEEP - 1);
  cl_int err = CL_SUCCESS;
  cl_mem send = st == CLFORGE_SUCCESS ? clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, most, NULL, &err) : NULL;
  cl_mem recv = send ? clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, most, NULL, &err) : NULL;
  const float zero = 0;
  if (recv) err = clEnqueueFillBuffer(ctx->queue, send, &zero, sizeof zero, 0, most, 0, NULL, NULL);
  if (st == CLFORGE_SUCCESS && (err != CL_SUCCESS || !recv))
    st = clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY, "%s: two buffers of %zu bytes (OpenCL error %d)", fn, most, err);
  double flags[3] = {st != CLFORGE_SUCCESS, dry, -dry}; /* any failure; dry_run's max and -min */
  const int rc = clforge__mpi_max(g, flags, 3, 1);
  if (rc || flags[0] || flags[1] != -flags[2]) {
    if (send) clReleaseMemObject(send);
    if (recv) clReleaseMemObject(recv);
    if (rc) return out_of_step(fn, comm, rc);
    if (st != CLFORGE_SUCCESS) return st;
    return clforge__fail(ctx, CLFORGE_COMM_MISMATCH, "%s: %s", fn,
                         flags[0] ? "another rank refused the call" : "options->dry_run differs across ranks");
  }
  return tune_agreed(fn, comm, file, dry, send, recv, result);
}
