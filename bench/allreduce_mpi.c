/* `clforge bench allreduce --mpi`, under mpirun: clforge_allreduce with
 * one rank per process (clforge_comm_create_mpi, each rank on its local
 * rank's device) against MPI_Allreduce on host memory of the same size —
 * the floor, what staging through the host costs — side by side: the two
 * alternate run by run. A run is a barrier, then the call and its event on
 * every rank (the peer: MPI_Allreduce); its time is the slowest rank's.
 * algbw = bytes / time and busbw = algbw * 2(N-1)/N (nccl-tests); vs_mpi =
 * clforge's busbw / MPI's. Each size's result is checked bit for bit
 * against clforge_ref_allreduce on every rank first (each rank makes every
 * rank's input from the same seeds). Rank 0 prints. */
#include "allreduce_mpi.h"

#include <clforge/clforge_mpi.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "stats.h"
#include "table.h"

typedef struct {
  int rank, n;
  clforge_comm comm;
  clforge_context ctx;
  char device[256];
} mpi_ranks;

typedef struct {
  size_t count, bytes;
  int ok;
  char error[300];
  clforge_bench_stats mine, peer; /* seconds, the slowest rank's per run */
} mpi_row;


static double slowest(double t) {
  double m = t;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/* 1 when this rank or another failed (the error says which). */
static int agree_failed(int failed, mpi_row *row) {
  int any = failed;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any && !failed) snprintf(row->error, sizeof row->error, "another rank failed");
  return any;
}

/* One clforge run: 0, or 1 with the error. */
static int run_clforge(const mpi_ranks *R, const clforge_collective_desc *d, cl_mem send, cl_mem recv, char *err,
                       size_t cap) {
  cl_event ev = NULL;
  if (clforge_allreduce(R->comm, d, send, 0, recv, 0, 0, NULL, &ev) != CLFORGE_SUCCESS) {
    snprintf(err, cap, "rank %d: %s", R->rank, clforge_last_error(R->ctx));
    return 1;
  }
  clWaitForEvents(1, &ev);
  clReleaseEvent(ev);
  if (clforge_comm_status(R->comm) != CLFORGE_SUCCESS) {
    snprintf(err, cap, "the communicator failed: %s", clforge_comm_last_error(R->comm));
    return 1;
  }
  return 0;
}

/* The peer moves the same bytes: f32 as MPI_FLOAT with the reduction (MEAN
 * as a sum), 16-bit types as half as many floats (MPI has no half type). */
static void run_peer(const clforge_bench_allreduce_mpi_args *a, const float *in, float *out, size_t bytes) {
  const MPI_Op op = a->op == CLFORGE_REDUCE_MAX ? MPI_MAX : a->op == CLFORGE_REDUCE_MIN ? MPI_MIN : MPI_SUM;
  MPI_Allreduce(in, out, (int)(bytes / sizeof(float) ? bytes / sizeof(float) : 1), MPI_FLOAT, op, MPI_COMM_WORLD);
}

/* Every rank's input (seeds 1234 + r), this rank's on the device; the
 * reference of all of them. 0, or 1 with the error. */
static int make_inputs(const clforge_bench_allreduce_mpi_args *a, const mpi_ranks *R, mpi_row *row, cl_mem send,
                       void *mine, void *want) {
  const size_t es = clforge_dtype_size(a->dtype);
  void **in = calloc((size_t)R->n, sizeof *in);
  float *f = malloc(row->count * sizeof *f);
  int bad = !in || !f;
  for (int r = 0; r < R->n && !bad; ++r) {
    if (!(in[r] = malloc(row->bytes))) bad = 1;
    else {
      clforge_bench_fill_random(f, row->count, 1234u + (uint32_t)r, 1.0f);
      clforge_ref_convert(row->count, f, CLFORGE_F32, in[r], a->dtype);
    }
  }
  if (!bad) {
    clforge_collective_desc d = {.dtype = a->dtype, .op = a->op, .count = row->count};
    clforge_ref_allreduce(&d, R->n, (const void *const *)in, want);
    memcpy(mine, in[R->rank], row->count * es);
    cl_command_queue q;
    clforge_context_queue(R->ctx, &q);
    if (clEnqueueWriteBuffer(q, send, CL_TRUE, 0, row->bytes, mine, 0, NULL, NULL) != CL_SUCCESS) bad = 1;
  }
  if (bad) snprintf(row->error, sizeof row->error, "rank %d: no memory for the inputs of %zu bytes", R->rank, row->bytes);
  for (int r = 0; in && r < R->n; ++r) free(in[r]);
  free(in), free(f);
  return bad;
}

static void measure(const clforge_bench_allreduce_mpi_args *a, const mpi_ranks *R, mpi_row *row) {
  cl_context c;
  clforge_context_cl_context(R->ctx, &c);
  cl_int e1 = CL_SUCCESS, e2 = CL_SUCCESS;
  cl_mem send = clCreateBuffer(c, CL_MEM_READ_WRITE, row->bytes, NULL, &e1);
  cl_mem recv = clCreateBuffer(c, CL_MEM_READ_WRITE, row->bytes, NULL, &e2);
  /* (the peer reads whole floats: a 2-byte message's one float) */
  void *mine = calloc(1, row->bytes + sizeof(float)), *want = malloc(row->bytes), *got = malloc(row->bytes);
  float *peer_out = malloc(row->bytes + sizeof(float));
  double *tc = malloc(sizeof *tc * (size_t)a->runs), *tp = malloc(sizeof *tp * (size_t)a->runs);
  int bad = e1 != CL_SUCCESS || e2 != CL_SUCCESS || !mine || !want || !got || !peer_out || !tc || !tp;
  if (bad) snprintf(row->error, sizeof row->error, "rank %d: no memory for %zu bytes", R->rank, row->bytes);
  if (!bad) bad = make_inputs(a, R, row, send, mine, want);
  bad = agree_failed(bad, row); /* every rank goes on or none does: the runs are collective */
  clforge_collective_desc d = {.dtype = a->dtype, .op = a->op, .count = row->count};
  for (int w = 0; w < a->warmup && !bad; ++w) bad = run_clforge(R, &d, send, recv, row->error, sizeof row->error);
  if (!bad) {
    cl_command_queue q;
    clforge_context_queue(R->ctx, &q);
    clEnqueueReadBuffer(q, recv, CL_TRUE, 0, row->bytes, got, 0, NULL, NULL);
    if (memcmp(got, want, row->bytes))
      snprintf(row->error, sizeof row->error, "rank %d's result differs from clforge_ref_allreduce", R->rank), bad = 1;
  }
  bad = agree_failed(bad, row);
  if (!bad) run_peer(a, mine, peer_out, row->bytes); /* the peer's warm-up */
  for (int i = 0; i < a->runs && !bad; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    const int failed = run_clforge(R, &d, send, recv, row->error, sizeof row->error);
    tc[i] = slowest(MPI_Wtime() - t0);
    if ((bad = agree_failed(failed, row))) break;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    run_peer(a, mine, peer_out, row->bytes);
    tp[i] = slowest(MPI_Wtime() - t0);
  }
  row->ok = !bad && clforge_bench_summarize(tc, (size_t)a->runs, &row->mine) == 0 &&
            clforge_bench_summarize(tp, (size_t)a->runs, &row->peer) == 0;
  if (send) clReleaseMemObject(send);
  if (recv) clReleaseMemObject(recv);
  free(mine), free(want), free(got), free(peer_out), free(tc), free(tp);
}

static double busbw(const mpi_ranks *R, size_t bytes, double s) {
  return s > 0 ? (double)bytes / s / 1e9 * 2.0 * (R->n - 1) / R->n : 0.0;
}

static void print_row(const clforge_bench_allreduce_mpi_args *a, const mpi_ranks *R, const mpi_row *row,
                      clforge_bench_table *t) {
  const double bw = busbw(R, row->bytes, row->mine.median), pbw = busbw(R, row->bytes, row->peer.median);
  if (a->json) {
    printf("{\"op\":\"allreduce\",\"transport\":\"mpi\",\"ranks\":%d,\"device\":\"%s\",\"dtype\":\"%s\","
           "\"reduce\":\"%s\",\"bytes\":%zu,\"count\":%zu,\"chunk_bytes\":%zu,\"algo\":%d,",
           R->n, R->device, clforge_dtype_name(a->dtype), clforge_reduce_op_name(a->op), row->bytes, row->count, a->chunk,
           (int)a->algo);
    if (row->ok)
      printf("\"status\":\"ok\",\"median_ms\":%.6g,\"p95_ms\":%.6g,\"algbw_gbps\":%.6g,\"busbw_gbps\":%.6g,"
             "\"mpi_median_ms\":%.6g,\"mpi_p95_ms\":%.6g,\"mpi_busbw_gbps\":%.6g,\"vs_mpi\":%.4g,"
             "\"timer\":\"wall, slowest rank\",\"runs\":%d,\"warmup\":%d}\n",
             row->mine.median * 1e3, row->mine.p95 * 1e3, (double)row->bytes / row->mine.median / 1e9, bw,
             row->peer.median * 1e3, row->peer.p95 * 1e3, pbw, pbw > 0 ? bw / pbw : 0.0, a->runs, a->warmup);
    else
      printf("\"status\":\"failed\",\"error\":\"%s\"}\n", row->error);
    fflush(stdout);
    return;
  }
  clforge_bench_table_cellf(t, "%zu", row->bytes);
  if (row->ok) {
    clforge_bench_table_cellf(t, "%.3f", row->mine.median * 1e3);
    clforge_bench_table_cellf(t, "%.3f", row->mine.p95 * 1e3);
    clforge_bench_table_cellf(t, "%.2f", bw);
    clforge_bench_table_cellf(t, "%.3f", row->peer.median * 1e3);
    clforge_bench_table_cellf(t, "%.2f", pbw);
    clforge_bench_table_cellf(t, "%.2f", pbw > 0 ? bw / pbw : 0.0);
    clforge_bench_table_cell(t, "");
  } else {
    clforge_bench_table_span(t, 7, row->error);
  }
  clforge_bench_table_end_row(t);
  fflush(stdout);
}

static void header(const clforge_bench_allreduce_mpi_args *a, const mpi_ranks *R, clforge_bench_table *t) {
  printf("clforge_allreduce over MPI: %d ranks (one per process) on %s, %s %s; against MPI_Allreduce on host "
         "memory; slowest rank's wall time\n",
         R->n, R->device, clforge_dtype_name(a->dtype), clforge_reduce_op_name(a->op));
  clforge_bench_table_column(t, "bytes", 11, 0);
  clforge_bench_table_column(t, "median ms", 10, 0);
  clforge_bench_table_column(t, "p95 ms", 10, 0);
  clforge_bench_table_column(t, "busbw GB/s", 10, 0);
  clforge_bench_table_column(t, "MPI ms", 10, 0);
  clforge_bench_table_column(t, "MPI busbw", 10, 0);
  clforge_bench_table_column(t, "vs_mpi", 7, 0);
  clforge_bench_table_column(t, "", 0, 1);
}

int clforge_bench_allreduce_mpi(const clforge_bench_allreduce_mpi_args *a) {
  int provided = 0;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  mpi_ranks R = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &R.n);
  clforge_comm_options co = {.chunk_bytes = a->chunk, .algo = a->algo};
  if (clforge_comm_create_mpi(MPI_COMM_WORLD, NULL, &co, &R.comm) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge bench allreduce --mpi: rank %d: %s\n", R.rank, clforge_last_error(NULL));
    MPI_Finalize();
    return 1;
  }
  clforge_comm_context(R.comm, &R.ctx);
  clforge_device_info info;
  clforge_context_device_info(R.ctx, &info);
  snprintf(R.device, sizeof R.device, "%s", info.name);
  clforge_bench_table t;
  clforge_bench_table_init(&t, stdout);
  if (!a->json && R.rank == 0) header(a, &R, &t);
  int failed = 0;
  const size_t es = clforge_dtype_size(a->dtype);
  for (int i = 0; i < a->nsizes; ++i) {
    mpi_row row = {0};
    row.count = (size_t)(a->sizes[i] / es) ? (size_t)(a->sizes[i] / es) : 1;
    row.bytes = row.count * es;
    measure(a, &R, &row);
    failed |= !row.ok;
    if (!row.ok) fprintf(stderr, "clforge bench allreduce --mpi: %zu bytes: %s\n", row.bytes, row.error);
    if (R.rank == 0) print_row(a, &R, &row, &t);
  }
  if (!a->json && R.rank == 0) clforge_bench_table_finish(&t);
  clforge_comm_destroy(R.comm);
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}

/* rank 0: the sweep's table and the verdict */
static void print_tune(const clforge_comm_tune_result *r, int n, const char *file, int dry_run) {
  printf("%12s %12s %12s  %s\n", "bytes", "owner ms", "gather ms", "faster");
  for (int i = 0; i < r->sizes; ++i)
    printf("%12zu %12.3f %12.3f  %s\n", r->bytes[i], 1e3 * r->owner_s[i], 1e3 * r->gather_s[i],
           r->owner_s[i] <= r->gather_s[i] ? "owner" : "gather");
  printf("\n%d ranks: all-reduce gathers below %zu bytes, the owners sum from there (%.1f s)%s%s\n", n,
         r->crossover_bytes, r->seconds, dry_run ? "; dry run, nothing saved" : "; saved to ", dry_run ? "" : file);
}

int clforge_bench_tune_allreduce(const char *file, int dry_run, int quiet) {
  int provided = 0, rank = 0, n = 1;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  clforge_comm comm = NULL;
  clforge_context ctx = NULL;
  char path[4096] = "";
  if (!file && clforge_path(CLFORGE_PATH_TUNING_FILE, path, sizeof path) == CLFORGE_SUCCESS) file = path;
  int rc = 0;
  if (clforge_comm_create_mpi(MPI_COMM_WORLD, NULL, NULL, &comm) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge tune --op allreduce: rank %d: %s\n", rank, clforge_last_error(NULL));
    rc = 1;
  } else {
    clforge_comm_context(comm, &ctx);
    clforge_device_info info;
    clforge_context_device_info(ctx, &info);
    if (rank == 0 && !quiet)
      printf("tuning the all-reduce crossover over MPI (%s): %d ranks, each on %s\n", clforge_comm_mpi_library(), n,
             info.name);
    const clforge_tune_options o = {.ops = "allreduce", .file = file, .dry_run = dry_run};
    clforge_comm_tune_result r;
    if (clforge_comm_tune(comm, &o, &r) != CLFORGE_SUCCESS) {
      fprintf(stderr, "clforge tune --op allreduce: rank %d: %s\n", rank, clforge_last_error(ctx));
      rc = 1;
    } else if (rank == 0) {
      print_tune(&r, n, file, dry_run);
    }
    clforge_comm_destroy(comm);
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
