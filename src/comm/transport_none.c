/* A clforge built without MPI (CLFORGE_WITH_MPI off or MPI not found): the
 * MPI entries say so. */
#include "../core/error.h"
#include "comm.h"

clforge_status clforge_comm_create_mpi_fint(int32_t fortran_comm, clforge_context ctx, const clforge_comm_options *opts,
                                            clforge_comm *comm) {
  (void)fortran_comm, (void)opts;
  if (comm) *comm = NULL;
  return clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                       "clforge_comm_create_mpi_fint: this clforge was built without MPI (configure with "
                       "-DCLFORGE_WITH_MPI=ON and an MPI installed, e.g. Debian's libopenmpi-dev)");
}

const char *clforge_comm_mpi_library(void) { return ""; }

int clforge__mpi_run_op(clforge__comm_group *g, clforge__coll_op *op) {
  (void)g, (void)op;
  return -1;
}

void clforge__mpi_free(clforge__mpi *m) { (void)m; }

int clforge__mpi_max(clforge__comm_group *g, double *v, int n, int timeouts) {
  (void)g, (void)v, (void)n, (void)timeouts;
  return -1;
}

int clforge__mpi_keeps_memory(const clforge__mpi *m) {
  (void)m;
  return 0;
}
