#!/bin/sh
# Run a test program on N ranks of this machine with Open MPI, as the
# tests and CI need it: TCP on loopback (a network path, not shared
# memory), more ranks than cores allowed, one driver thread per rank, as
# root where the machine runs us as root, and a backstop timeout; not bound
# to cores unless CLFORGE_MPIRUN_BIND says (bench/train_scaling.sh: core).
# Usage: mpirun.sh MPIEXEC N program [args]
mpiexec=$1 n=$2
shift 2
export OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_pml=ob1 \
  OMPI_MCA_rmaps_base_oversubscribe=true OMPI_MCA_btl_base_warn_component_unused=false \
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_plm_rsh_agent=false \
  POCL_MAX_PTHREAD_COUNT=1
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec "$mpiexec" --timeout 300 -np "$n" --bind-to "${CLFORGE_MPIRUN_BIND:-none}" "$@"
