/* clforge over MPI: a communicator made from an MPI_Comm. Installed where
 * clforge was built with MPI (CLFORGE_WITH_MPI); include it from code built
 * with that MPI (mpicc, or CMake's MPI::MPI_C). Kept apart from clforge.h
 * because an MPI_Comm is a pointer in Open MPI and an int in MPICH. */
#ifndef CLFORGE_CLFORGE_MPI_H
#define CLFORGE_CLFORGE_MPI_H

#include <mpi.h>

#include "clforge/clforge.h"

#ifdef __cplusplus
extern "C" {
#endif

/** This process's rank of `comm` as a clforge communicator: collective over
 *  comm (every process calls it). The collectives of clforge.h then work
 *  across the processes, each rank's through host memory (docs/collectives.md).
 *  - MPI must be initialized with MPI_THREAD_MULTIPLE (the communicator's
 *    progress thread calls MPI while the application may too): a lower
 *    level is CLFORGE_UNSUPPORTED, naming it.
 *  - It works on a duplicate of comm (its messages never meet the
 *    application's), which clforge_comm_destroy frees: destroy before
 *    MPI_Finalize.
 *  - ctx NULL: the rank makes its own context (clforge_comm_context gives
 *    it; destroyed with the rank) on its local rank's device (the process's
 *    rank within its machine: the launcher's OMPI_COMM_WORLD_LOCAL_RANK,
 *    MPI_LOCALRANKID or SLURM_LOCALID, else a shared-memory split of comm):
 *    CLFORGE_DEVICE's where set, else GPU (or accelerator) local_rank mod
 *    count, else the CPU device, which the machine's ranks share.
 *  - opts->chunk_bytes and opts->algo must be equal on every rank (checked:
 *    CLFORGE_COMM_MISMATCH on every rank).
 *  - Validation mode on any rank's context (CLFORGE_VALIDATE) makes every
 *    collective exchange its kind, dtype, op, count and root first: a rank
 *    whose call differs is named (CLFORGE_COMM_MISMATCH) rather than seen
 *    as a timeout.
 *  - A rank that does not take part in a collective within the timeout
 *    (opts->timeout_ms, CLFORGE_COMM_TIMEOUT_MS, 60 s) fails it on the
 *    others with CLFORGE_COMM_TIMEOUT naming it (clforge_comm_status); so
 *    does one whose rank was destroyed before it called (over MPI, unlike
 *    clforge_comm_create_local, the others learn it only at the timeout).
 *    Calls whose sizes differ fail with CLFORGE_COMM_MISMATCH (the
 *    messages' sizes tell, validation mode or not). A process that dies
 *    ends the job: Open MPI 4.1 lets no survivor go on. After a failure the
 *    rank keeps its host memory until the process ends (sends to a late
 *    peer cannot be recalled). */
CLFORGE_API clforge_status clforge_comm_create_mpi(MPI_Comm comm, clforge_context ctx,
                                                   const clforge_comm_options *opts, clforge_comm *out);

#ifdef __cplusplus
}
#endif

#endif
