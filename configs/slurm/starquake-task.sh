#!/bin/bash
# configs/slurm/starquake-task.sh COMMAND...: run on every MPI rank (the launcher starts it), set
# the rank's CPU binding for StarPU, then exec COMMAND (starquake), so that signals forwarded by srun
# or mpirun reach starquake itself.
#
# SQ_BIND=getbind (default)  STARPU_WORKERS_GETBIND=1: StarPU's workers stay inside the cores that the
#                            launcher bound this rank to (srun --cpu-bind, mpirun --bind-to)
# SQ_BIND=hwloc              STARPU_WORKERS_CPUID from hwloc: the rank's cores, one PU per core
#                            (hwloc-bind/hwloc-calc from Debian's hwloc package), CUDA workers first
# SQ_BIND=none               leave StarPU's own binding alone
# FxT traces (StarPU built --with-fxt): STARPU_FXT_PREFIX is given a per-job folder when unset.
case ${SQ_BIND:-getbind} in
  getbind) export STARPU_WORKERS_GETBIND=1 ;;
  hwloc)
    if cpus=$(hwloc-calc --no-smt --intersect PU "$(hwloc-bind --get)" 2> /dev/null) && [ -n "$cpus" ]; then
      export STARPU_WORKERS_GETBIND=0 STARPU_WORKERS_CPUID=${cpus//,/ }
    else
      echo "starquake-task: hwloc-calc/hwloc-bind failed; using STARPU_WORKERS_GETBIND=1" >&2
      export STARPU_WORKERS_GETBIND=1
    fi
    ;;
  none) ;;
  *) echo "starquake-task: SQ_BIND must be getbind, hwloc or none (got '$SQ_BIND')" >&2; exit 2 ;;
esac
if [ -n "${STARPU_FXT_TRACE:-}" ] && [ "$STARPU_FXT_TRACE" != 0 ] && [ -z "${STARPU_FXT_PREFIX:-}" ]; then
  export STARPU_FXT_PREFIX=${SLURM_SUBMIT_DIR:-.}/fxt-${SLURM_JOB_ID:-$$}/
  mkdir -p "$STARPU_FXT_PREFIX"
fi
exec "$@"
