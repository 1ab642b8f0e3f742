/* The communicator over MPI (tests/mpirun.sh runs it on 2 and on 3 ranks):
 * every collective, dtype and reduction against clforge_ref_allreduce, in
 * both all-reduce algorithms, with sizes of one element, of many pieces and
 * a remainder, and 64 MiB; in place and out of place; every rank's bits
 * equal; a wait list that gates the input; bad input refused with nothing
 * written and the communicator still working; options that differ across
 * ranks, a call that differs (validation mode) and a rank that never calls
 * (an error naming it, no hang). Each rank makes every rank's input from
 * the same seeds, so each checks its own result. `--single`: MPI without
 * MPI_THREAD_MULTIPLE is refused; `--dies`: a process that dies mid-job. */
#include <math.h>
#include <mpi.h>
#include <unistd.h>

#include "clforge/clforge_mpi.h"
#include "../src/core/context.h" /* clforge__test_set_fault */
#include "test_util.h"

static int me, nranks;

/* Rank r's input of a collective: n values as t, all mantissa bits used
 * (the order of the sums shows in the last bit), specials in front for
 * max and min. Every rank makes every rank's from the same seeds. */
static void input_of(int r, void *p, clforge_dtype t, size_t n, unsigned seed, int specials) {
  unsigned s = seed * 7919u + (unsigned)r * 104729u + 1u;
  tu_fill_all_bits(p, t, n, &s, specials);
}

static void wait_ok(cl_event e, const char *what) {
  cl_int err = clWaitForEvents(1, &e);
  CHECK(err == CL_SUCCESS, "%s: clWaitForEvents -> %d", what, err);
  clReleaseEvent(e);
}


/* All-reduce (or reduce-scatter) against the reference; the input gated
 * by a user event set after the call when `gated`. */
static void check_reduce(clforge_comm comm, const char *what, int scatter, clforge_dtype t, clforge_reduce_op op,
                         size_t count, int in_place, int gated, unsigned seed) {
  clforge_context ctx;
  clforge_comm_context(comm, &ctx);
  const size_t es = clforge_dtype_size(t), total = scatter ? count * (size_t)nranks : count, off = 3;
  void **in = malloc(sizeof *in * (size_t)nranks), *got = malloc(count * es + 1), *want = malloc(total * es + 1);
  for (int r = 0; r < nranks; ++r) {
    in[r] = malloc(total * es + 1);
    input_of(r, in[r], t, total, seed, op >= CLFORGE_REDUCE_MAX);
  }
  clforge_collective_desc d = {.dtype = t, .op = op, .count = count};
  clforge_ref_allreduce(&(clforge_collective_desc){.dtype = t, .op = op, .count = total}, nranks,
                        (const void *const *)in, want);
  cl_mem send = tu_buffer(ctx, (off + total) * es), recv = in_place ? send : tu_buffer(ctx, (off + total) * es);
  tu_write(ctx, send, off * es, total * es, in[me]);
  cl_context cl;
  clforge_context_cl_context(ctx, &cl);
  cl_int err;
  cl_event gate = gated ? clCreateUserEvent(cl, &err) : NULL, ev = NULL;
  const size_t roff = in_place && scatter ? off + (size_t)me * count : off;
  clforge_status st = scatter ? clforge_reduce_scatter(comm, &d, send, off, recv, roff, gated, gated ? &gate : NULL, &ev)
                              : clforge_allreduce(comm, &d, send, off, recv, roff, gated, gated ? &gate : NULL, &ev);
  CHECK(st == CLFORGE_SUCCESS, "%s rank %d: %s", what, me, clforge_last_error(ctx));
  if (gate) {
    clSetUserEventStatus(gate, CL_COMPLETE);
    clReleaseEvent(gate);
  }
  if (st == CLFORGE_SUCCESS) wait_ok(ev, what);
  tu_read(ctx, recv, roff * es, count * es, got);
  const size_t mine = scatter ? (size_t)me * count : 0;
  CHECK(!memcmp(got, (char *)want + mine * es, count * es), "%s %s %s %s count %zu%s on rank %d: differs from "
        "clforge_ref_allreduce's order", what, scatter ? "reduce_scatter" : "allreduce", clforge_dtype_name(t),
        clforge_reduce_op_name(op), count, in_place ? " in place" : "", me);
  CHECK(clforge_comm_status(comm) == CLFORGE_SUCCESS, "%s: %s", what, clforge_comm_last_error(comm));
  clReleaseMemObject(send);
  if (!in_place) clReleaseMemObject(recv);
  for (int r = 0; r < nranks; ++r) free(in[r]);
  free(in), free(got), free(want);
}

/* Broadcast from root and all-gather: copies, checked byte for byte. */
static void check_copies(clforge_comm comm, clforge_dtype t, size_t count, int in_place, int root) {
  clforge_context ctx;
  clforge_comm_context(comm, &ctx);
  const size_t es = clforge_dtype_size(t);
  unsigned char *all = malloc((size_t)nranks * count * es), *got = malloc((size_t)nranks * count * es);
  for (int r = 0; r < nranks; ++r) input_of(r, all + (size_t)r * count * es, t, count, 77, 0);
  cl_mem send = tu_buffer(ctx, count * es);
  tu_write(ctx, send, 0, count * es, all + (size_t)me * count * es);
  cl_mem recv = in_place && me == root ? send : tu_buffer(ctx, count * es);
  clforge_collective_desc d = {.dtype = t, .count = count, .root = root};
  cl_event ev;
  CHECK_OK(ctx, clforge_broadcast(comm, &d, me == root ? send : NULL, 0, recv, 0, 0, NULL, &ev));
  wait_ok(ev, "broadcast");
  tu_read(ctx, recv, 0, count * es, got);
  CHECK(!memcmp(got, all + (size_t)root * count * es, count * es), "broadcast count %zu from %d: rank %d differs", count,
        root, me);
  if (recv != send) clReleaseMemObject(recv);
  recv = tu_buffer(ctx, (size_t)nranks * count * es);
  if (in_place) tu_write(ctx, recv, (size_t)me * count * es, count * es, all + (size_t)me * count * es);
  CHECK_OK(ctx, clforge_all_gather(comm, &d, in_place ? recv : send, in_place ? (size_t)me * count : 0, recv, 0, 0,
                                   NULL, &ev));
  wait_ok(ev, "all_gather");
  tu_read(ctx, recv, 0, (size_t)nranks * count * es, got);
  CHECK(!memcmp(got, all, (size_t)nranks * count * es), "all_gather count %zu%s: rank %d differs", count,
        in_place ? " in place" : "", me);
  clReleaseMemObject(send), clReleaseMemObject(recv);
  free(all), free(got);
}

static void every_collective(clforge_comm comm, const char *what) {
  const clforge_dtype types[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};
  for (int ti = 0; ti < 3; ++ti)
    for (int op = 0; op < 4; ++op) {
      check_reduce(comm, what, 0, types[ti], (clforge_reduce_op)op, 1, 0, 0, 10u + (unsigned)op);
      check_reduce(comm, what, 0, types[ti], (clforge_reduce_op)op, 3001, op & 1, op == 2, 20u + (unsigned)op);
      check_reduce(comm, what, 1, types[ti], (clforge_reduce_op)op, 1001, op == 1, 0, 30u + (unsigned)op);
    }
  check_copies(comm, CLFORGE_F32, 1, 0, 0);
  check_copies(comm, CLFORGE_F16, 2500, 1, nranks - 1);
  clforge_context ctx;
  clforge_comm_context(comm, &ctx);
  cl_event ev;
  CHECK_OK(ctx, clforge_comm_barrier(comm, 0, NULL, &ev));
  wait_ok(ev, "barrier");
}

static void bad_input(clforge_comm comm) {
  clforge_context ctx;
  clforge_comm_context(comm, &ctx);
  const size_t n = 64;
  float host[64], back[64];
  for (size_t i = 0; i < n; ++i) host[i] = (float)i;
  cl_mem b = tu_buffer(ctx, n * sizeof(float));
  tu_write(ctx, b, 0, sizeof host, host);
  clforge_collective_desc d = {.dtype = (clforge_dtype)42, .count = n};
  cl_event ev = (cl_event)1;
  CHECK_FAILS(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev), CLFORGE_INVALID_ARGUMENT, "dtype");
  d.dtype = CLFORGE_F32, d.count = n + 1;
  CHECK_FAILS(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev), CLFORGE_BUFFER_TOO_SMALL, "260 bytes");
  d.count = n, d.op = (clforge_reduce_op)9;
  CHECK_FAILS(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev), CLFORGE_INVALID_ARGUMENT, "op");
  d.op = CLFORGE_REDUCE_SUM, d.root = nranks;
  CHECK_FAILS(ctx, clforge_broadcast(comm, &d, b, 0, b, 0, 0, NULL, &ev), CLFORGE_INVALID_ARGUMENT, "root");
  tu_read(ctx, b, 0, sizeof back, back);
  CHECK(!memcmp(host, back, sizeof host), "a refused call wrote its buffer");
  /* the communicator still works: the refused calls did not count */
  d.root = 0;
  CHECK_OK(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev));
  wait_ok(ev, "after bad input");
  tu_read(ctx, b, 0, sizeof back, back);
  CHECK(back[5] == 5.0f * (float)nranks, "after bad input: %g, wanted %g", back[5], 5.0 * nranks);
  clReleaseMemObject(b);
}

/* A call that differs on one rank (validation mode names it), then a rank
 * that never calls (a timeout naming it). */
static void faults(void) {
  setenv("CLFORGE_VALIDATE", "1", 1);
  clforge_context ctx = tu_context();
  unsetenv("CLFORGE_VALIDATE");
  clforge_comm_options o = {.timeout_ms = 3000};
  clforge_comm comm;
  CHECK_OK(ctx, clforge_comm_create_mpi(MPI_COMM_WORLD, ctx, &o, &comm));
  cl_mem b = tu_buffer(ctx, 64 * sizeof(float));
  /* a one-element all-reduce first, headers and all (the headers' buffer is
   * not the pieces' one) */
  const float one = (float)(me + 1);
  tu_write(ctx, b, 0, sizeof one, &one);
  clforge_collective_desc d = {.dtype = CLFORGE_F32, .count = 1};
  cl_event ev;
  CHECK_OK(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev));
  wait_ok(ev, "validation mode, one element");
  float got = 0;
  tu_read(ctx, b, 0, sizeof got, &got);
  CHECK(got == (float)(nranks * (nranks + 1) / 2), "validation mode, one element: %g", got);
  d.count = me == nranks - 1 ? 11 : 10;
  CHECK_OK(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev));
  wait_ok(ev, "mismatch");
  CHECK(clforge_comm_status(comm) == CLFORGE_COMM_MISMATCH, "count 10 against 11: status %s (%s)",
        clforge_status_name(clforge_comm_status(comm)), clforge_comm_last_error(comm));
  CHECK(strstr(clforge_comm_last_error(comm), "count") != NULL, "mismatch message: %s", clforge_comm_last_error(comm));
  CHECK_FAILS(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev), CLFORGE_COMM_BROKEN, "failed earlier");
  clforge_comm_destroy(comm);

  o.timeout_ms = 1500;
  CHECK_OK(ctx, clforge_comm_create_mpi(MPI_COMM_WORLD, ctx, &o, &comm));
  d.count = 10;
  if (me != nranks - 1) {
    const double t0 = MPI_Wtime();
    CHECK_OK(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev));
    wait_ok(ev, "missing rank");
    const double took = MPI_Wtime() - t0;
    char name[32];
    snprintf(name, sizeof name, "rank(s) %d ", nranks - 1);
    CHECK(clforge_comm_status(comm) == CLFORGE_COMM_TIMEOUT && strstr(clforge_comm_last_error(comm), name),
          "a rank that never calls: status %s (%s)", clforge_status_name(clforge_comm_status(comm)),
          clforge_comm_last_error(comm));
    CHECK(took < 1.5 + 10.0, "the timeout came after %.1f s", took);
    float back[10];
    tu_read(ctx, b, 0, sizeof back, back);
    CHECK(isnan(back[0]), "a failed all-reduce left %g, not NaN", back[0]);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* the late rank destroys its rank after the others failed */
  clforge_comm_destroy(comm);

  /* the last rank fails halfway through enqueuing its part (16 pieces): its
   * call says so; the others' fail within the timeout, naming it, on NaN */
  clforge_comm_options pieces = {.timeout_ms = 1500, .chunk_bytes = 16};
  CHECK_OK(ctx, clforge_comm_create_mpi(MPI_COMM_WORLD, ctx, &pieces, &comm));
  d.count = 64;
  if (me == nranks - 1) {
    clforge__test_set_fault(ctx, "comm_enqueue");
    CHECK_FAILS(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev), CL_OUT_OF_RESOURCES,
                "could not enqueue its part (a fault injected by a test");
    clforge__test_set_fault(ctx, NULL);
  } else {
    CHECK_OK(ctx, clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev));
    wait_ok(ev, "a rank that failed mid-enqueue");
    char name[32];
    snprintf(name, sizeof name, "rank(s) %d ", nranks - 1);
    CHECK(clforge_comm_status(comm) == CLFORGE_COMM_TIMEOUT && strstr(clforge_comm_last_error(comm), name),
          "a rank that failed mid-enqueue: status %s (%s)", clforge_status_name(clforge_comm_status(comm)),
          clforge_comm_last_error(comm));
    float back[64];
    tu_read(ctx, b, 0, sizeof back, back);
    CHECK(isnan(back[0]) && isnan(back[63]), "after a rank failed mid-enqueue: %g, %g (want NaN)", back[0], back[63]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  clforge_comm_destroy(comm);

  /* counts that differ without validation mode: the sizes of the messages
   * tell (a receive shorter or longer than posted), never a silent result */
  o.timeout_ms = 3000;
  clforge_context plain = tu_context();
  cl_mem pb = tu_buffer(plain, 64 * sizeof(float));
  CHECK_OK(plain, clforge_comm_create_mpi(MPI_COMM_WORLD, plain, &o, &comm));
  d.count = me == nranks - 1 ? 11 : 10;
  CHECK_OK(plain, clforge_allreduce(comm, &d, pb, 0, pb, 0, 0, NULL, &ev));
  wait_ok(ev, "mismatch without validation");
  CHECK(clforge_comm_status(comm) == CLFORGE_COMM_MISMATCH && strstr(clforge_comm_last_error(comm), "bytes"),
        "count 10 against 11 without validation mode: status %s (%s)", clforge_status_name(clforge_comm_status(comm)),
        clforge_comm_last_error(comm));
  clforge_comm_destroy(comm);
  clReleaseMemObject(pb);
  clforge_context_destroy(plain);

  /* options that differ across ranks: refused on every rank */
  o.chunk_bytes = me == 0 ? 4096 : 8192;
  CHECK_FAILS(ctx, clforge_comm_create_mpi(MPI_COMM_WORLD, ctx, &o, &comm), CLFORGE_COMM_MISMATCH, "chunk_bytes");
  CHECK(comm == NULL, "a refused create handed out a communicator");
  clReleaseMemObject(b);
  clforge_context_destroy(ctx);
}

/* A communicator on a fresh context whose tuning file is `file` ("off":
 * none), and the crossover it took and its source. */
static clforge_comm comm_with_file(const char *file, clforge_context *ctx, size_t *cross, const char **src) {
  const char *old = getenv("CLFORGE_TUNING_FILE");
  char *keep = old ? strdup(old) : NULL;
  setenv("CLFORGE_TUNING_FILE", file, 1);
  *ctx = tu_context();
  clforge_comm comm = NULL;
  CHECK_OK(*ctx, clforge_comm_create_mpi(MPI_COMM_WORLD, *ctx, NULL, &comm)); /* (the file is read here) */
  if (keep) setenv("CLFORGE_TUNING_FILE", keep, 1), free(keep);
  else unsetenv("CLFORGE_TUNING_FILE");
  clforge_comm_algo a;
  *cross = 0, *src = "";
  if (comm) CHECK_OK(*ctx, clforge_comm_allreduce_algo(comm, 1, &a, cross, src));
  return comm;
}

/* The same number on every rank. */
static int same_everywhere(long long v) {
  long long lo = v, hi = v;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = calloc(1, 1 << 16);
  if (text) (void)!fread(text, 1, (1 << 16) - 1, f);
  fclose(f);
  return text;
}

/* The all-reduce crossover: measured by clforge_comm_tune (the same on
 * every rank, taken by the communicator, saved by rank 0 as a tuning-file
 * entry), read back when a communicator is made, rank 0's taken where the
 * ranks' files differ; dry runs and bad calls change nothing. */
static void crossover(void) {
  char dir[] = "/tmp/clforge-crossover-XXXXXX", mine[64], ours[64];
  long long made = me == 0 && mkdtemp(dir) != NULL;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(&made, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  CHECK(made, "mkdtemp");
  if (!made) return;
  snprintf(ours, sizeof ours, "%s/tuned.json", dir);
  snprintf(mine, sizeof mine, "%s/rank%d.json", dir, me);
  clforge_context ctx;
  size_t cross;
  const char *src;
  clforge_comm comm = comm_with_file("off", &ctx, &cross, &src);
  CHECK(cross == (size_t)64 << 10 && !strcmp(src, "built-in"), "no tuning file: %zu bytes from %s", cross, src);
  clforge_tune_options o = {.file = ours, .dry_run = 1};
  clforge_comm_tune_result r;
  CHECK_OK(ctx, clforge_comm_tune(comm, &o, &r));
  CHECK(r.sizes == 13 && r.bytes[0] == 1024 && r.bytes[12] == (size_t)4 << 20, "the sweep: %d sizes", r.sizes);
  CHECK(access(ours, F_OK) != 0, "a dry run wrote %s", ours);
  clforge_comm_algo a;
  CHECK_OK(ctx, clforge_comm_allreduce_algo(comm, 1, &a, &cross, &src));
  CHECK(cross == (size_t)64 << 10 && !strcmp(src, "built-in"), "a dry run changed the crossover: %zu (%s)", cross, src);
  o.dry_run = 0;
  CHECK_OK(ctx, clforge_comm_tune(comm, &o, &r));
  const size_t c = r.crossover_bytes;
  int pow2 = c >= 1024 && c <= ((size_t)8 << 20) && !(c & (c - 1)), least = 1;
  double at_c = 0, cost[14] = {0}; /* the documented rule: the least summed slowdown over the sizes */
  for (int k = 0; k <= r.sizes && r.sizes == 13; ++k) {
    const size_t from = k < r.sizes ? r.bytes[k] : r.bytes[12] * 2;
    for (int i = 0; i < r.sizes; ++i)
      cost[k] += (r.bytes[i] < from ? r.gather_s[i] : r.owner_s[i]) / fmin(r.owner_s[i], r.gather_s[i]);
    if (from == c) at_c = cost[k];
  }
  for (int k = 0; k <= r.sizes && r.sizes == 13; ++k) least &= at_c > 0 && at_c <= cost[k];
  CHECK(r.sizes == 13 && pow2 && least, "crossover %zu bytes against the medians measured (its cost %g)", c, at_c);
  CHECK(same_everywhere((long long)c), "the ranks decided different crossovers (here %zu)", c);
  clforge_comm_algo below, at;
  CHECK_OK(ctx, clforge_comm_allreduce_algo(comm, c - 1, &below, &cross, &src));
  CHECK_OK(ctx, clforge_comm_allreduce_algo(comm, c, &at, NULL, NULL));
  CHECK(below == CLFORGE_COMM_ALGO_GATHER && at == CLFORGE_COMM_ALGO_OWNER && cross == c &&
            !strcmp(src, "clforge_comm_tune"),
        "after the tune: %d below and %d at %zu (%zu, %s)", below, at, c, cross, src);
  check_reduce(comm, "after the tune, at the crossover", 0, CLFORGE_F32, CLFORGE_REDUCE_SUM, c / 4, 0, 0, 41);
  check_reduce(comm, "after the tune, below it", 0, CLFORGE_BF16, CLFORGE_REDUCE_MEAN, c / 2 - 1, 1, 0, 42);
  /* bad calls: refused on every rank alike, the communicator still working */
  CHECK_FAILS(ctx, clforge_comm_tune(comm, &o, NULL), CLFORGE_INVALID_ARGUMENT, "result");
  CHECK_FAILS(NULL, clforge_comm_tune(NULL, &o, &r), CLFORGE_INVALID_ARGUMENT, "comm");
  clforge_tune_options bad = {.file = ours, .budget_s = 5};
  CHECK_FAILS(ctx, clforge_comm_tune(comm, &bad, &r), CLFORGE_INVALID_ARGUMENT, "only options->file");
  bad = (clforge_tune_options){.file = me == 0 ? "off" : ours};
  CHECK_FAILS(ctx, clforge_comm_tune(comm, &bad, &r), me == 0 ? CLFORGE_INVALID_ARGUMENT : CLFORGE_COMM_MISMATCH,
              me == 0 ? "no tuning file" : "another rank");
  const int last = me == nranks - 1; /* one rank's refusal refuses everywhere; r untouched */
  clforge_comm_tune_result untouched = r;
  CHECK_FAILS(ctx, clforge_comm_tune(comm, &o, last ? NULL : &r), last ? CLFORGE_INVALID_ARGUMENT : CLFORGE_COMM_MISMATCH,
              last ? "result is NULL" : "another rank refused");
  bad = (clforge_tune_options){.file = ours, .dry_run = last};
  CHECK_FAILS(ctx, clforge_comm_tune(comm, &bad, &r), CLFORGE_COMM_MISMATCH, "dry_run differs");
  CHECK(untouched.crossover_bytes == r.crossover_bytes && untouched.sizes == r.sizes &&
            untouched.seconds == r.seconds && untouched.owner_s[3] == r.owner_s[3],
        "a refused tune wrote its result");
  check_reduce(comm, "after refused tunes", 0, CLFORGE_F32, CLFORGE_REDUCE_MAX, 1000, 0, 0, 43);
  clforge_comm_destroy(comm);
  clforge_context_destroy(ctx);

  /* the last rank never calls it: the others fail within the timeout (no hang), the communicator broken */
  clforge_comm_options quick = {.timeout_ms = 1000};
  clforge_context qctx = tu_context();
  CHECK_OK(qctx, clforge_comm_create_mpi(MPI_COMM_WORLD, qctx, &quick, &comm));
  if (me != nranks - 1) {
    const double t0 = MPI_Wtime();
    CHECK_FAILS(qctx, clforge_comm_tune(comm, &(clforge_tune_options){.dry_run = 1}, &r), CLFORGE_COMM_TIMEOUT,
                "did not take part within 1000 ms");
    CHECK(MPI_Wtime() - t0 < 10.0, "the missing rank's timeout took %.1f s", MPI_Wtime() - t0);
    CHECK(clforge_comm_status(comm) == CLFORGE_COMM_TIMEOUT, "after a missing tune: %s",
          clforge_status_name(clforge_comm_status(comm)));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  clforge_comm_destroy(comm);
  clforge_context_destroy(qctx);

  /* rank 0's entry: its text names the class; each other rank a file of its own with another crossover */
  char *text = me == 0 ? slurp(ours) : NULL;
  char want[64];
  snprintf(want, sizeof want, "\"GATHER_BELOW_KB\":\t%zu", c >> 10);
  char cls[32];
  snprintf(cls, sizeof cls, "\"ranks_%d\"", nranks);
  if (me == 0) CHECK(text && strstr(text, "\"allreduce\"") && strstr(text, cls) && strstr(text, want), "entry: %s", text ? text : "no file");
  int len = text ? (int)strlen(text) + 1 : 0;
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (me != 0) text = calloc(1, (size_t)len + 16);
  MPI_Bcast(text, len, MPI_CHAR, 0, MPI_COMM_WORLD);
  const size_t other_kb = c == 1024 ? 2 : 1;
  char *at_value = strstr(text, want), *rest = at_value ? at_value + strlen(want) : NULL;
  FILE *f = fopen(mine, "w");
  if (f && rest) fprintf(f, "%.*s\"GATHER_BELOW_KB\":\t%zu%s", (int)(at_value - text), text, other_kb, rest);
  if (f) fclose(f);
  free(text);
  comm = comm_with_file(me == 0 ? ours : mine, &ctx, &cross, &src);
  CHECK(cross == c && !strcmp(src, me == 0 ? "tuned" : "rank 0's"),
        "a new communicator: crossover %zu from %s, where rank 0's file says %zu", cross, src, c);
  check_reduce(comm, "ranks whose files differ", 0, CLFORGE_F32, CLFORGE_REDUCE_SUM, c / 4 + 5, 0, 0, 44);
  clforge_comm_destroy(comm);
  clforge_context_destroy(ctx);
  /* another rank count's entry is the nearest (rank 0's file; the others have none) */
  if (me == 0 && (f = fopen(mine, "w")) != NULL) {
    char *t0 = slurp(ours), *p = t0 ? strstr(t0, cls) : NULL, *q = t0 ? strstr(t0, "\"shape\":\t[") : NULL;
    char *q_end = q ? strchr(q, ']') : NULL;
    if (p && q_end && p < q) /* class "ranks_<n+5>", shape [n+5] */
      fprintf(f, "%.*s\"ranks_%d\"%.*s\"shape\":\t[%d%s", (int)(p - t0), t0, nranks + 5, (int)(q - (p + strlen(cls))),
              p + strlen(cls), nranks + 5, q_end);
    fclose(f);
    free(t0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  comm = comm_with_file(me == 0 ? mine : "off", &ctx, &cross, &src);
  const char *want_src = me == 0 ? "nearest" : c == (size_t)64 << 10 ? "built-in" : "rank 0's";
  CHECK(cross == c && !strcmp(src, want_src), "another rank count's entry: %zu from %s, not %s", cross, src, want_src);
  clforge_comm_destroy(comm);
  clforge_context_destroy(ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  unlink(mine);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) unlink(ours), rmdir(dir);
}

/* MPI initialized without MPI_THREAD_MULTIPLE: refused, naming the level. */
static int single(void) {
  int provided;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  if (provided == MPI_THREAD_MULTIPLE) {
    printf("SKIP: this MPI gives MPI_THREAD_MULTIPLE when asked for FUNNELED\n");
    MPI_Finalize();
    return 77;
  }
  clforge_context ctx = tu_context();
  clforge_comm comm = (clforge_comm)1;
  CHECK_FAILS(ctx, clforge_comm_create_mpi(MPI_COMM_WORLD, ctx, NULL, &comm), CLFORGE_UNSUPPORTED, "MPI_THREAD_MULTIPLE");
  CHECK(comm == NULL, "a refused create handed out a communicator");
  clforge_context_destroy(ctx);
  MPI_Finalize();
  return tu_summary();
}

/* `--dies`: the last rank's process exits in the middle of the job, while
 * the others wait in an all-reduce (tests/comm_mpi_dies.sh checks that the
 * job ends at once, naming it). */
static int dies(void) {
  int provided;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  clforge_comm comm = NULL;
  clforge_comm_options o = {.timeout_ms = 120000}; /* the job must end long before this */
  if (clforge_comm_create_mpi(MPI_COMM_WORLD, NULL, &o, &comm) != CLFORGE_SUCCESS) return 1;
  if (me == nranks - 1) {
    fflush(stdout);
    _exit(3);
  }
  clforge_context ctx;
  clforge_comm_context(comm, &ctx);
  cl_mem b = tu_buffer(ctx, 1024 * sizeof(float));
  clforge_collective_desc d = {.dtype = CLFORGE_F32, .count = 1024};
  cl_event ev;
  if (clforge_allreduce(comm, &d, b, 0, b, 0, 0, NULL, &ev) == CLFORGE_SUCCESS) clWaitForEvents(1, &ev);
  printf("rank %d: the all-reduce ended (%s) instead of the job\n", me, clforge_comm_last_error(comm));
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--single")) return single();
  if (argc > 1 && !strcmp(argv[1], "--dies")) return dies();
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI gives thread level %d", provided);
  CHECK(strstr(clforge_comm_mpi_library(), "MPI") != NULL, "library: \"%s\"", clforge_comm_mpi_library());

  /* its own context, on the local rank's device */
  clforge_comm comm = NULL;
  clforge_status st = clforge_comm_create_mpi(MPI_COMM_WORLD, NULL, NULL, &comm);
  CHECK(st == CLFORGE_SUCCESS, "create: %s", clforge_last_error(NULL));
  if (st == CLFORGE_SUCCESS) {
    int r = -1, n = -1;
    clforge_context ctx = NULL;
    clforge_comm_rank(comm, &r), clforge_comm_size(comm, &n), clforge_comm_context(comm, &ctx);
    CHECK(r == me && n == nranks && ctx, "rank %d of %d (MPI: %d of %d), context %p", r, n, me, nranks, (void *)ctx);
    check_reduce(comm, "64 MiB", 0, CLFORGE_F32, CLFORGE_REDUCE_SUM, (size_t)16 << 20, 0, 0, 5);
    bad_input(comm);
    clforge_comm_destroy(comm);
  }
  /* both algorithms, pieces of 4 KiB (many pieces and a remainder) */
  clforge_context ctx = tu_context();
  const clforge_comm_algo algos[] = {CLFORGE_COMM_ALGO_OWNER, CLFORGE_COMM_ALGO_GATHER};
  for (int a = 0; a < 2; ++a) {
    clforge_comm_options o = {.chunk_bytes = 4096, .algo = algos[a]};
    CHECK_OK(ctx, clforge_comm_create_mpi(MPI_COMM_WORLD, ctx, &o, &comm));
    every_collective(comm, a ? "gather" : "owner");
    clforge_comm_destroy(comm);
  }
  clforge_context_destroy(ctx);
  crossover();
  faults();

  int mine[2] = {tu_passed, tu_failed}, sum[2] = {0, 0};
  MPI_Reduce(mine, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  if (me == 0) printf("%d passed, %d failed (%d ranks)\n", sum[0], sum[1], nranks);
  return tu_failed ? 1 : 0;
}
