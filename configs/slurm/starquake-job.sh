# shellcheck shell=bash
# configs/slurm/starquake-job.sh: the part of a starquake batch job that every template shares.
#
# A template (gpu-rank-per-gpu.sbatch, gpu-rank-per-node.sbatch, cpu-nodes.sbatch) sources this file,
# sets the StarPU environment and the launcher SQ_LAUNCH (an array: srun or mpirun with its options),
# and calls
#
#   sq_job_main "$@"     # the script's arguments: CONFIG.yaml [--restart CHECKPOINT] [starquake options]
#
# sq_job_main runs starquake on every rank through configs/slurm/starquake-task.sh and waits.  The
# template asks SLURM for `#SBATCH --signal=B:USR1@600`: ten minutes before the time limit the batch
# shell gets SIGUSR1, forwards it to the launcher (srun and mpirun pass it on to every rank), and
# starquake writes a checkpoint at the end of the sync interval it is in and stops with the message
# "stopped by SIGUSR1 ...; checkpoint written to 'FILE'".  The job then resubmits its own script with
# `--restart FILE`, so a long run continues as a chain of jobs.  A run that ends normally, or fails
# without having been signalled, is not resubmitted.  SIGTERM (scancel, preemption) is forwarded too:
# starquake checkpoints, and the chain continues only with SQ_RESUBMIT_ON_TERM=1.
#
# Environment (all optional):
#   SQ_BIN                the starquake binary (default $SQ_ROOT/starquake)
#   SQ_LOG                where starquake's stderr goes (default starquake-$SLURM_JOB_ID.err); the
#                         checkpoint name is read back from it
#   SQ_JOB_SCRIPT         the script that sbatch resubmits (default: the submitted script, from scontrol)
#   SQ_MAX_CHAIN          most jobs in one chain (default 50); SQ_CHAIN_INDEX counts them
#   SQ_RESUBMIT_ON_TERM=1 resubmit after SIGTERM too (preemptible partitions)
#   SQ_DRY_RUN=1          print the environment and the command instead of running
#   SQ_NODE_TYPE          name shared by nodes of one hardware type (STARPU_HOSTNAME); default: the partition
#   SQ_PERF_MODEL_ROOT    shared folder of StarPU's calibrations (default $HOME/.starpu-starquake)

sq_log() { printf 'starquake-job: %s\n' "$*" >&2; }

# StarPU's performance models, shared by all nodes of one type: every node of a partition writes and
# reads the same calibration files (STARPU_HOSTNAME names them) in a folder on a shared file system.
sq_perf_models() {
  export STARPU_PERF_MODEL_DIR=${STARPU_PERF_MODEL_DIR:-${SQ_PERF_MODEL_ROOT:-$HOME/.starpu-starquake}/sampling}
  export STARPU_HOSTNAME=${STARPU_HOSTNAME:-starquake-${SQ_NODE_TYPE:-${SLURM_JOB_PARTITION:-$(hostname -s)}}}
  mkdir -p "$STARPU_PERF_MODEL_DIR" 2> /dev/null || true
}

# The script to resubmit: the one given to sbatch (SLURM runs a copy from its spool folder).
sq_job_script() {
  local cmd=""
  if [ -n "${SLURM_JOB_ID:-}" ] && command -v scontrol > /dev/null; then
    cmd=$(scontrol show job "$SLURM_JOB_ID" 2> /dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')
  fi
  [ -n "$cmd" ] && [ -f "$cmd" ] || cmd=$0
  printf '%s\n' "$cmd"
}

# Signal handler: remember the signal and pass it to the launcher (which passes it to the ranks).
sq_forward() {
  SQ_SIGNAL=$1
  SQ_TRAPPED=1
  sq_log "got SIG$1: forwarding it to starquake (pid $SQ_CHILD), which writes a checkpoint and stops"
  kill -s "$1" "$SQ_CHILD" 2> /dev/null || true
}

sq_job_main() {
  if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    sq_log "usage: sbatch $(basename "$0") CONFIG.yaml [--restart CHECKPOINT] [starquake options]"
    return 2
  fi
  local config=$1
  shift
  local args=() restart=""
  while [ $# -gt 0 ]; do # keep every option but --restart, which the chain sets
    if [ "$1" = --restart ] && [ $# -ge 2 ]; then
      restart=$2
      shift 2
    else
      args+=("$1")
      shift
    fi
  done
  local bin=${SQ_BIN:-$SQ_ROOT/starquake} task=$SQ_ROOT/configs/slurm/starquake-task.sh
  local log=${SQ_LOG:-starquake-${SLURM_JOB_ID:-$$}.err}
  # ${a[@]+"${a[@]}"}: an empty array is fine under `set -u` with bash 4.2 too (RHEL/CentOS 7)
  local cmd=("${SQ_LAUNCH[@]}" "$task" "$bin" "$config" ${restart:+--restart "$restart"} ${args[@]+"${args[@]}"})
  sq_log "job ${SLURM_JOB_ID:-(no SLURM)}, chain link ${SQ_CHAIN_INDEX:-0}: ${cmd[*]}"
  if [ "${SQ_DRY_RUN:-0}" = 1 ]; then
    env | grep -E '^(STARPU_|OMPI_|UCX_|SQ_|CUDA_VISIBLE)' | sort
    printf 'command: %s\n' "${cmd[*]}"
    return 0
  fi
  SQ_SIGNAL="" SQ_TRAPPED=0
  "${cmd[@]}" 2>> "$log" &
  SQ_CHILD=$!
  trap 'sq_forward USR1' USR1
  trap 'sq_forward TERM' TERM
  local rc
  while :; do
    SQ_TRAPPED=0
    wait "$SQ_CHILD"
    rc=$?
    # a trapped signal makes wait return early (status > 128) while starquake still runs
    if [ "$SQ_TRAPPED" = 1 ] && [ $rc -gt 128 ]; then continue; fi
    break
  done
  trap - USR1 TERM
  grep '^starquake: error:' "$log" | tail -n 3 >&2
  if [ $rc -eq 0 ]; then
    sq_log "starquake finished (its stderr: $log)"
    return 0
  fi
  if [ -z "$SQ_SIGNAL" ] || { [ "$SQ_SIGNAL" = TERM ] && [ "${SQ_RESUBMIT_ON_TERM:-0}" != 1 ]; }; then
    sq_log "starquake failed (exit status $rc${SQ_SIGNAL:+ after SIG$SQ_SIGNAL}); not resubmitting (see $log)"
    return $rc
  fi
  local ckpt
  ckpt=$(sed -n "s/.*checkpoint written to '\(.*\)'; continue with.*/\1/p" "$log" | tail -n 1)
  if [ -z "$ckpt" ] || [ ! -f "$ckpt" ]; then
    sq_log "starquake stopped after SIG$SQ_SIGNAL but wrote no checkpoint (exit status $rc; see $log); not resubmitting"
    return $rc
  fi
  local next=$((${SQ_CHAIN_INDEX:-0} + 1))
  if [ $next -ge "${SQ_MAX_CHAIN:-50}" ]; then
    sq_log "checkpoint $ckpt written; the chain has reached SQ_MAX_CHAIN=${SQ_MAX_CHAIN:-50} jobs: resubmit by hand with --restart $ckpt"
    return 0
  fi
  local script=${SQ_JOB_SCRIPT:-$(sq_job_script)}
  sq_log "checkpoint $ckpt written; resubmitting: sbatch $script $config --restart $ckpt ${args[*]-}"
  sbatch --export=ALL,SQ_CHAIN_INDEX=$next "$script" "$config" --restart "$ckpt" ${args[@]+"${args[@]}"}
}
