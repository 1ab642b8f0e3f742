/* `clforge bench allreduce --mpi` (under mpirun): one rank per process,
 * against MPI_Allreduce on host memory of the same size; `clforge tune --op
 * allreduce`. Built where clforge has its MPI transport (CLFORGE_BENCH_MPI;
 * without it, allreduce_bench.c's stub of the tune says so). */
#ifndef CLFORGE_BENCH_ALLREDUCE_MPI_H
#define CLFORGE_BENCH_ALLREDUCE_MPI_H

#include <clforge/clforge.h>

typedef struct {
  int runs, warmup, json;
  const unsigned long long *sizes;
  int nsizes;
  clforge_dtype dtype;
  clforge_reduce_op op;
  size_t chunk;
  clforge_comm_algo algo;
} clforge_bench_allreduce_mpi_args;

/* Initializes and finalizes MPI itself; rank 0 prints. The exit status as
 * clforge_bench_allreduce_main's. */
int clforge_bench_allreduce_mpi(const clforge_bench_allreduce_mpi_args *a);

/* `clforge tune --op allreduce` (under mpirun): clforge_comm_tune on one
 * rank per process, rank 0 printing what it measured and where it saved.
 * file NULL: the user's tuning file. Without MPI it says so. 0, or 1. */
int clforge_bench_tune_allreduce(const char *file, int dry_run, int quiet);

#endif
