/* `clforge bench allreduce`: clforge_allreduce on N ranks of one process
 * (sub-devices of the default device, or contexts of it), message sizes
 * 8 B ... 256 MiB. A run is every rank's call, then every rank's event;
 * the host clock times it (the ranks' events live in different contexts,
 * which no one profiling clock spans). algbw = bytes / time and busbw =
 * algbw * 2(N-1)/N, as nccl-tests define them for all-reduce. Each size's
 * result is checked bit for bit against clforge_ref_allreduce on every rank
 * before its numbers are shown. */
#include "allreduce_bench.h"
#include "allreduce_mpi.h"

#include <clforge/clforge.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "data.h"
#include "stats.h"
#include "table.h"
#include "timer.h"

enum { DEFAULT_RUNS = 10, DEFAULT_WARMUP = 2, MAX_RANKS = 8, MAX_SIZES = 32 };

typedef struct {
  clforge_bench_cli cli; /* --json, --runs, --warmup, --quick */
  int ranks;
  int on_contexts;       /* --on contexts: ranks are contexts of the device, not sub-devices */
  unsigned long long sizes[MAX_SIZES];
  int nsizes;
  clforge_dtype dtype;
  int ndtypes;
  clforge_reduce_op op;
  unsigned long long chunk;
  int mpi;                /* --mpi: one rank per MPI process */
  clforge_comm_algo algo; /* --algo */
} ar_options;

void clforge_bench_allreduce_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench allreduce [options]\n"
          "\n"
          "Time clforge_allreduce on N ranks of this process: sub-devices of the default\n"
          "device (clCreateSubDevices, equal parts) where its driver partitions it, else\n"
          "contexts of it. Each size is checked bit for bit against clforge_ref_allreduce\n"
          "on every rank first. algbw = bytes / time, busbw = algbw * 2(N-1)/N.\n"
          "\n"
          "Options:\n"
          "  --ranks N         ranks, 2 to %d (default 2)\n"
          "  --on WHAT         subdevices (default where the driver partitions) or contexts\n"
          "  --sizes LIST      message bytes (default 8 B to 256 MiB, x4 steps; --quick:\n"
          "                    8 B to 8 MiB)\n"
          "  --dtype T         f32 (default), f16 or bf16\n"
          "  --reduce OP       sum (default), mean, max or min\n"
          "  --chunk BYTES     the pipeline's piece (clforge_comm_options.chunk_bytes;\n"
          "                    default 0: the library's)\n"
          "  --mpi             one rank per MPI process, under mpirun (each on its local\n"
          "                    rank's device), against MPI_Allreduce on host memory of the\n"
          "                    same size (vs_mpi = busbw / MPI's busbw); --ranks and --on\n"
          "                    do not apply\n"
          "  --algo A          over MPI: auto (default), owner or gather\n"
          "  --runs N          timed runs per size, at least %d (default %d)\n"
          "  --warmup N        untimed runs first, at least 1 (default %d)\n"
          "  --quick           fewer sizes and runs\n"
          "  --json            JSON lines instead of the table\n"
          "  -h, --help        show this help\n",
          MAX_RANKS, CLFORGE_BENCH_MIN_RUNS, DEFAULT_RUNS, DEFAULT_WARMUP);
}

static int ar_option(clforge_bench_cli *cli, int argc, char **argv, int *a, void *user) {
  ar_options *o = user;
  const char *v = NULL;
  unsigned long long x;
  if (clforge_bench_option(argc, argv, a, "--ranks", &v)) {
    if (!v || clforge_bench_parse_number(v, strlen(v), 2, MAX_RANKS, &x))
      return clforge_bench_usage_error(cli, "--ranks needs a number from 2 to %d", MAX_RANKS);
    o->ranks = (int)x;
  } else if (clforge_bench_option(argc, argv, a, "--on", &v)) {
    if (v && !strcmp(v, "contexts")) o->on_contexts = 1;
    else if (v && !strcmp(v, "subdevices")) o->on_contexts = 0;
    else return clforge_bench_usage_error(cli, "--on needs subdevices or contexts");
  } else if (clforge_bench_option(argc, argv, a, "--sizes", &v)) {
    o->nsizes = clforge_bench_parse_numbers(v, 1, 1ull << 31, o->sizes, MAX_SIZES);
    if (o->nsizes <= 0) return clforge_bench_usage_error(cli, "--sizes needs up to %d byte counts from 1 to 2^31", MAX_SIZES);
  } else if (clforge_bench_option(argc, argv, a, "--dtype", &v)) {
    return clforge_bench_cli_dtypes(cli, "--dtype", v, &o->dtype, &o->ndtypes, 1);
  } else if (clforge_bench_option(argc, argv, a, "--reduce", &v)) {
    int k = -1;
    for (int i = 0; i <= CLFORGE_REDUCE_MIN && v; ++i)
      if (!strcmp(v, clforge_reduce_op_name((clforge_reduce_op)i))) k = i;
    if (k < 0) return clforge_bench_usage_error(cli, "--reduce needs sum, mean, max or min");
    o->op = (clforge_reduce_op)k;
  } else if (!strcmp(argv[*a], "--mpi")) {
    o->mpi = 1;
  } else if (clforge_bench_option(argc, argv, a, "--algo", &v)) {
    static const char *const algos[] = {"auto", "owner", "gather"};
    int k = -1;
    for (int i = 0; i < 3 && v; ++i)
      if (!strcmp(v, algos[i])) k = i;
    if (k < 0) return clforge_bench_usage_error(cli, "--algo needs auto, owner or gather");
    o->algo = (clforge_comm_algo)k;
  } else if (clforge_bench_option(argc, argv, a, "--chunk", &v)) {
    if (!v || clforge_bench_parse_number(v, strlen(v), 0, 1ull << 31, &o->chunk))
      return clforge_bench_usage_error(cli, "--chunk needs a byte count up to 2^31");
  } else {
    return 0;
  }
  return 1;
}

static int parse_options(int argc, char **argv, ar_options *o) {
  o->cli = clforge_bench_cli_for("allreduce", clforge_bench_allreduce_help,
                                 CLFORGE_BENCH_OPT_RUNS | CLFORGE_BENCH_OPT_QUICK, DEFAULT_RUNS, DEFAULT_WARMUP);
  o->ranks = 2, o->dtype = CLFORGE_F32, o->op = CLFORGE_REDUCE_SUM;
  int rc = clforge_bench_cli_parse(&o->cli, argc, argv, ar_option, o);
  if (rc >= 0) return rc;
  if (o->nsizes == 0) { /* x4 steps from 8 B, and the top size itself */
    const unsigned long long top = o->cli.quick ? 8ull << 20 : 256ull << 20;
    for (unsigned long long b = 8; b < top; b *= 4) o->sizes[o->nsizes++] = b;
    o->sizes[o->nsizes++] = top;
  }
  if (o->cli.quick && !o->cli.runs_given) o->cli.runs = CLFORGE_BENCH_MIN_RUNS;
  if (o->cli.quick) o->cli.warmup = 1;
  return -1;
}

/* ------------------------------------------------------------------ ranks */

typedef struct {
  int n;
  const char *on; /* "subdevices" or "contexts" */
  char device[256];
  clforge_context ctx[MAX_RANKS];
  clforge_comm comm[MAX_RANKS];
} ar_ranks;

static void close_ranks(ar_ranks *R) {
  for (int r = 0; r < R->n; ++r) clforge_comm_destroy(R->comm[r]);
  for (int r = 0; r < R->n; ++r) clforge_context_destroy(R->ctx[r]);
}

/* Ranks on sub-devices of the default device where it partitions into n,
 * else (or with --on contexts) on n contexts of it. 0, or 1 after a message. */
static int open_ranks(const ar_options *o, ar_ranks *R) {
  memset(R, 0, sizeof *R);
  R->n = o->ranks;
  clforge_status st = CLFORGE_UNSUPPORTED;
  if (!o->on_contexts) st = clforge_context_create_subdevices(NULL, R->n, R->ctx);
  R->on = st == CLFORGE_SUCCESS ? "subdevices" : "contexts";
  if (st == CLFORGE_DEVICE_NOT_FOUND) {
    fprintf(stderr, "clforge bench allreduce: no device: %s\n", clforge_last_error(NULL));
    return 1;
  }
  for (int r = 0; r < R->n && st != CLFORGE_SUCCESS; ++r)
    if (clforge_context_create(NULL, &R->ctx[r]) != CLFORGE_SUCCESS) {
      fprintf(stderr, "clforge bench allreduce: no device: %s\n", clforge_last_error(NULL));
      close_ranks(R);
      return 1;
    }
  clforge_device_info info;
  clforge_context_device_info(R->ctx[0], &info);
  snprintf(R->device, sizeof R->device, "%s", info.name);
  clforge_comm_options co = {.chunk_bytes = (size_t)o->chunk};
  if (clforge_comm_create_local(R->n, R->ctx, &co, R->comm) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge bench allreduce: %s\n", clforge_last_error(R->ctx[0]));
    close_ranks(R);
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------- rows */

typedef struct {
  unsigned long long bytes;
  size_t count;
  int ok;
  char error[300];
  double median_ms, p95_ms, algbw, busbw;
} ar_row;

/* Every rank's call, then every rank's event. */
static int run_once(ar_ranks *R, const clforge_collective_desc *d, cl_mem *send, cl_mem *recv, char *err, size_t cap) {
  cl_event ev[MAX_RANKS] = {0};
  int bad = 0;
  for (int r = 0; r < R->n && !bad; ++r)
    if (clforge_allreduce(R->comm[r], d, send[r], 0, recv[r], 0, 0, NULL, &ev[r]) != CLFORGE_SUCCESS)
      snprintf(err, cap, "rank %d: %s", r, clforge_last_error(R->ctx[r])), bad = 1;
  for (int r = 0; r < R->n; ++r)
    if (ev[r]) {
      if (clWaitForEvents(1, &ev[r]) != CL_SUCCESS && !bad)
        snprintf(err, cap, "rank %d's collective failed: %s", r, clforge_comm_last_error(R->comm[r])), bad = 1;
      clReleaseEvent(ev[r]);
    }
  /* a failure found after the calls completes the events (on NaN) */
  if (!bad && clforge_comm_status(R->comm[0]) != CLFORGE_SUCCESS)
    snprintf(err, cap, "the communicator failed: %s", clforge_comm_last_error(R->comm[0])), bad = 1;
  return bad;
}

static void measure(const ar_options *o, ar_ranks *R, ar_row *row) {
  const size_t es = clforge_dtype_size(o->dtype);
  row->count = (size_t)(row->bytes / es) ? (size_t)(row->bytes / es) : 1;
  const size_t bytes = row->count * es;
  clforge_collective_desc d = {.dtype = o->dtype, .op = o->op, .count = row->count};
  void *in[MAX_RANKS] = {0}, *want = malloc(bytes), *got = malloc(bytes);
  cl_mem send[MAX_RANKS] = {0}, recv[MAX_RANKS] = {0};
  float *f = malloc(row->count * sizeof *f);
  double *t = malloc(sizeof *t * (size_t)o->cli.runs);
  int bad = !want || !got || !f || !t;
  if (bad) snprintf(row->error, sizeof row->error, "out of host memory");
  for (int r = 0; r < R->n && !bad; ++r) {
    cl_context c;
    cl_command_queue q;
    clforge_context_cl_context(R->ctx[r], &c);
    clforge_context_queue(R->ctx[r], &q);
    cl_int e1, e2;
    in[r] = malloc(bytes);
    send[r] = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &e1);
    recv[r] = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &e2);
    if (!in[r] || e1 != CL_SUCCESS || e2 != CL_SUCCESS) {
      snprintf(row->error, sizeof row->error, "rank %d: no memory for %zu bytes", r, bytes), bad = 1;
      break;
    }
    clforge_bench_fill_random(f, row->count, 1234u + (uint32_t)r, 1.0f);
    clforge_ref_convert(row->count, f, CLFORGE_F32, in[r], o->dtype);
    if (clEnqueueWriteBuffer(q, send[r], CL_TRUE, 0, bytes, in[r], 0, NULL, NULL) != CL_SUCCESS)
      snprintf(row->error, sizeof row->error, "rank %d: writing its input failed", r), bad = 1;
  }
  for (int w = 0; w < o->cli.warmup && !bad; ++w) bad = run_once(R, &d, send, recv, row->error, sizeof row->error);
  if (!bad) { /* the result, bit for bit, on every rank */
    clforge_ref_allreduce(&d, R->n, (const void *const *)in, want);
    for (int r = 0; r < R->n && !bad; ++r) {
      cl_command_queue q;
      clforge_context_queue(R->ctx[r], &q);
      clEnqueueReadBuffer(q, recv[r], CL_TRUE, 0, bytes, got, 0, NULL, NULL);
      if (memcmp(got, want, bytes))
        snprintf(row->error, sizeof row->error, "rank %d's result differs from clforge_ref_allreduce", r), bad = 1;
    }
  }
  for (int i = 0; i < o->cli.runs && !bad; ++i) {
    const double t0 = clforge_bench_now();
    bad = run_once(R, &d, send, recv, row->error, sizeof row->error);
    t[i] = clforge_bench_now() - t0;
  }
  clforge_bench_stats s;
  if (!bad && clforge_bench_summarize(t, (size_t)o->cli.runs, &s) == 0) {
    row->ok = 1;
    row->median_ms = s.median * 1e3, row->p95_ms = s.p95 * 1e3;
    row->algbw = (double)bytes / s.median / 1e9;
    row->busbw = row->algbw * 2.0 * (R->n - 1) / R->n;
  }
  for (int r = 0; r < R->n; ++r) {
    if (send[r]) clReleaseMemObject(send[r]);
    if (recv[r]) clReleaseMemObject(recv[r]);
    free(in[r]);
  }
  free(want), free(got), free(f), free(t);
}

static void print_json(const ar_options *o, const ar_ranks *R, const ar_row *row) {
  printf("{\"op\":\"allreduce\",\"ranks\":%d,\"on\":\"%s\",\"device\":\"%s\",\"dtype\":\"%s\",\"reduce\":\"%s\","
         "\"bytes\":%zu,\"count\":%zu,\"chunk_bytes\":%llu,",
         R->n, R->on, R->device, clforge_dtype_name(o->dtype), clforge_reduce_op_name(o->op), row->count * clforge_dtype_size(o->dtype),
         row->count, o->chunk);
  if (row->ok)
    printf("\"status\":\"ok\",\"median_ms\":%.6g,\"p95_ms\":%.6g,\"algbw_gbps\":%.6g,\"busbw_gbps\":%.6g,"
           "\"timer\":\"wall\",\"runs\":%d,\"warmup\":%d}\n",
           row->median_ms, row->p95_ms, row->algbw, row->busbw, o->cli.runs, o->cli.warmup);
  else
    printf("\"status\":\"failed\",\"error\":\"%s\"}\n", row->error);
}

#ifndef CLFORGE_BENCH_MPI
int clforge_bench_tune_allreduce(const char *file, int dry_run, int quiet) {
  (void)file, (void)dry_run, (void)quiet;
  fprintf(stderr, "clforge tune --op allreduce: this clforge was built without MPI (the crossover is MPI's)\n");
  return 1;
}
#endif

int clforge_bench_allreduce_main(int argc, char **argv) {
  ar_options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
  if (o.mpi) {
#ifdef CLFORGE_BENCH_MPI
    clforge_bench_allreduce_mpi_args m = {o.cli.runs, o.cli.warmup, o.cli.json, o.sizes, o.nsizes,
                                          o.dtype,    o.op,          (size_t)o.chunk, o.algo};
    return clforge_bench_allreduce_mpi(&m);
#else
    fprintf(stderr, "clforge bench allreduce: --mpi: this clforge was built without MPI\n");
    return 1;
#endif
  }
  ar_ranks R;
  if (open_ranks(&o, &R)) return 1;
  clforge_bench_table t;
  clforge_bench_table_init(&t, stdout);
  if (!o.cli.json) {
    printf("clforge_allreduce: %d ranks on %s of %s, %s %s, host clock over every rank's call and event\n", R.n, R.on,
           R.device, clforge_dtype_name(o.dtype), clforge_reduce_op_name(o.op));
    clforge_bench_table_column(&t, "bytes", 11, 0);
    clforge_bench_table_column(&t, "median ms", 10, 0);
    clforge_bench_table_column(&t, "p95 ms", 10, 0);
    clforge_bench_table_column(&t, "algbw GB/s", 10, 0);
    clforge_bench_table_column(&t, "busbw GB/s", 10, 0);
    clforge_bench_table_column(&t, "", 0, 1);
  }
  int failed = 0;
  for (int i = 0; i < o.nsizes; ++i) {
    ar_row row = {.bytes = o.sizes[i]};
    measure(&o, &R, &row);
    failed |= !row.ok;
    if (o.cli.json) {
      print_json(&o, &R, &row);
      fflush(stdout);
      continue;
    }
    clforge_bench_table_cellf(&t, "%zu", row.count * clforge_dtype_size(o.dtype));
    if (row.ok) {
      clforge_bench_table_cellf(&t, "%.3f", row.median_ms);
      clforge_bench_table_cellf(&t, "%.3f", row.p95_ms);
      clforge_bench_table_cellf(&t, "%.2f", row.algbw);
      clforge_bench_table_cellf(&t, "%.2f", row.busbw);
      clforge_bench_table_cell(&t, "");
    } else {
      clforge_bench_table_span(&t, 5, row.error);
    }
    clforge_bench_table_end_row(&t);
    fflush(stdout);
  }
  if (!o.cli.json) clforge_bench_table_finish(&t);
  close_ranks(&R);
  return failed;
}
