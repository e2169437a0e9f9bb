#!/bin/bash
# SLURM templates (configs/slurm/): syntax (bash -n, shellcheck when installed), the settings each
# template gives StarPU and the launcher (dry runs), and the restart chain, simulated without SLURM:
# a fake `srun` runs the command, a fake `sbatch` records what it is asked to submit.  The test sends
# SIGUSR1 to the job script as SLURM would (#SBATCH --signal=B:USR1@600) and checks that the script
# forwards it, that starquake writes a checkpoint, that the job resubmits itself with --restart, that
# the resubmitted job continues from the checkpoint, and that finished or failed runs do not resubmit.
set -u
. "${srcdir:-.}/tests/lib.sh"
SL=$SRC/configs/slurm
tempdir T
jobpid=""
stop_job() { # the job script and starquake, its child (found in /proc: no procps needed)
  local p
  for p in /proc/[0-9]*; do
    [ "$(cut -d' ' -f4 "$p/stat" 2> /dev/null)" = "$jobpid" ] && kill "${p#/proc/}" 2> /dev/null
  done
  kill "$jobpid" 2> /dev/null
}
on_exit() { [ -n "$jobpid" ] && stop_job; } # called by tempdir's exit trap
allow_mpirun

# ---- syntax -----------------------------------------------------------------------------------
for f in "$SL"/*.sbatch "$SL"/*.sh; do
  if bash -n "$f"; then ok "bash -n $(basename "$f")"; else bad "bash -n $(basename "$f")"; fi
done
if command -v shellcheck > /dev/null; then
  if (cd "$SL" && shellcheck -x ./*.sbatch starquake-job.sh starquake-task.sh); then ok "shellcheck"; else bad "shellcheck"; fi
else
  echo "note: shellcheck not installed; skipped (apt-get install shellcheck)"
fi
for f in "$SL"/*.sbatch; do
  if grep -q '^#SBATCH --signal=B:USR1@' "$f"; then ok "$(basename "$f") asks for SIGUSR1 before the time limit"
  else bad "$(basename "$f") lacks #SBATCH --signal=B:USR1@..."; fi
done

# ---- fake SLURM commands ------------------------------------------------------------------------
mkdir -p "$T/bin"
cat > "$T/bin/sbatch" << 'SH'
#!/bin/bash
printf '%s\n' "$*" >> "$SQ_TEST_SBATCH_LOG"
echo "Submitted batch job $((1000 + $(wc -l < "$SQ_TEST_SBATCH_LOG")))"
SH
cat > "$T/bin/srun" << 'SH'
#!/bin/bash
# fake srun: one task on this machine; drop the options, run the command in place (exec keeps the
# pid, so that signals sent to "srun" reach the task, as the real srun forwards them)
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
# SQ_TEST_SRUN_NP=N: N MPI tasks through mpirun (which forwards SIGUSR1 to them, as srun does)
[ -n "${SQ_TEST_SRUN_NP:-}" ] && exec mpirun -np "$SQ_TEST_SRUN_NP" --oversubscribe "$@"
exec "$@"
SH
chmod +x "$T/bin/sbatch" "$T/bin/srun"
export PATH=$T/bin:$PATH SQ_TEST_SBATCH_LOG=$T/sbatch.log SQ_ROOT=$SRC SQ_BIN=$SQ SQ_PERF_MODEL_ROOT=$T/models
export SLURM_CPUS_PER_TASK=2 SLURM_JOB_PARTITION=testpart STARPU_SILENT=1
: > "$T/sbatch.log"

# ---- dry runs: what each template sets ----------------------------------------------------------
dry() { # TEMPLATE PATTERN...
  local f=$1; shift
  SQ_DRY_RUN=1 SLURM_JOB_ID=1 bash "$SL/$f" "$T/run.yaml" > "$T/dry.out" 2>&1
  local pat
  for pat in "$@"; do
    if ! grep -Eq -- "$pat" "$T/dry.out"; then bad "$f dry run lacks /$pat/: $(cat "$T/dry.out")"; return; fi
  done
  ok "$f sets $*"
}
dry gpu-rank-per-gpu.sbatch '^STARPU_NCUDA=1$' '^STARPU_NCPU=0$' '^STARPU_SCHED=dmdas$' '^SQ_BIND=getbind$' \
  "^STARPU_PERF_MODEL_DIR=$T/models/sampling$" '^STARPU_HOSTNAME=starquake-testpart$' \
  'command: srun --mpi=pmix --cpu-bind=cores --gpu-bind=closest .*starquake-task.sh .*run.yaml$'
dry gpu-rank-per-node.sbatch '^STARPU_NCUDA=4$' '^STARPU_SCHED=dmdas$' 'command: srun .*--gpus-per-task=4 '
dry cpu-nodes.sbatch '^STARPU_NCUDA=0$' '^STARPU_NCPU=1$' '^STARPU_SCHED=lws$' 'command: srun .*--cpu-bind=sockets'
SQ_LAUNCHER=mpirun dry cpu-nodes.sbatch 'command: mpirun --map-by ppr:2:node:PE=2 --bind-to core'
if SQ_DRY_RUN=1 bash "$SL/cpu-nodes.sbatch" > "$T/usage.out" 2>&1; then bad "no config: exit status 0"
elif grep -q "usage: sbatch" "$T/usage.out"; then ok "no config: usage"
else bad "no config: $(cat "$T/usage.out")"; fi

# ---- the restart chain --------------------------------------------------------------------------
config() { # NAME END_TIME: tests/configs/slurm_chain.yaml ending at END_TIME, writing to $T/out-NAME
  sed -e "s|@END_TIME@|$2|" -e "s|@OUT@|$T/out-$1|" "$CONFIGS/slurm_chain.yaml" > "$T/$1.yaml"
}
config long 500
config short 0.05
wait_for() { # SECONDS COMMAND...: poll until COMMAND succeeds
  local n=$(($1 * 10)); shift
  while [ $n -gt 0 ]; do "$@" 2> /dev/null && return 0; sleep 0.1; n=$((n - 1)); done
  return 1
}
run_job() { # NAME ARGS...: start the CPU template in the background as SLURM job NAME
  local name=$1; shift
  SLURM_JOB_ID=$name SQ_LOG=$T/$name.err bash "$SL/cpu-nodes.sbatch" "$@" > "$T/$name.out" 2>&1 &
  jobpid=$!
}
finish_job() { # wait for the job started by run_job (at most 120 s); sets rc
  local n=1200
  while kill -0 "$jobpid" 2> /dev/null && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
  if kill -0 "$jobpid" 2> /dev/null; then stop_job; rc=124; else wait "$jobpid"; rc=$?; fi
  jobpid=""
}
ckpt=$T/out-long/chain-checkpoint.h5

# link 1: the time limit approaches (SIGUSR1 to the batch shell) while starquake is stepping
run_job link1 "$T/long.yaml" --tile-size 64 # an extra starquake option must survive the chain
if wait_for 120 grep -q "^progress:" "$T/link1.err"; then
  kill -USR1 "$jobpid"
  finish_job
  if [ $rc -eq 0 ] && grep -q "got SIGUSR1: forwarding it" "$T/link1.out"; then ok "link 1: SIGUSR1 forwarded"
  else bad "link 1: exit status $rc: $(cat "$T/link1.out" "$T/link1.err")"; fi
  if grep -q "stopped by SIGUSR1" "$T/link1.err" && [ -f "$ckpt" ]; then ok "link 1: starquake wrote $ckpt"
  else bad "link 1: no checkpoint: $(cat "$T/link1.err")"; fi
  if [ "$(wc -l < "$T/sbatch.log")" -eq 1 ] \
    && grep -Eq -- "^--export=ALL,SQ_CHAIN_INDEX=1 .*cpu-nodes.sbatch $T/long.yaml --restart $ckpt --tile-size 64\$" "$T/sbatch.log"; then
    ok "link 1: resubmitted: sbatch $(cat "$T/sbatch.log")"
  else bad "link 1: sbatch got: $(cat "$T/sbatch.log")"; fi
else
  bad "link 1: starquake did not start stepping: $(cat "$T/link1.out" "$T/link1.err")"
  finish_job
fi

# link 2: run what link 1 submitted; it continues from the checkpoint, and is stopped the same way
if [ "$(wc -l < "$T/sbatch.log")" -eq 1 ]; then
  read -r -a words < "$T/sbatch.log"
  export SQ_CHAIN_INDEX=${words[0]#--export=ALL,SQ_CHAIN_INDEX=}
  run_job link2 "${words[@]:2}"
  if wait_for 120 grep -q "^progress:" "$T/link2.err"; then
    kill -USR1 "$jobpid"
    finish_job
    # stdout is a file, so its lines show up when starquake exits
    if grep -q "^ *restart .*chain-checkpoint.h5: t=" "$T/link2.out"; then
      ok "link 2: restarted from the checkpoint: $(grep -m1 '^ *restart ' "$T/link2.out" | sed 's/^ *//')"
    else bad "link 2: did not restart: $(cat "$T/link2.out")"; fi
    t1=$(sed -n 's/.*stopped by SIGUSR1 at t=\([^ ]*\) .*/\1/p' "$T/link1.err")
    t2=$(sed -n 's/.*stopped by SIGUSR1 at t=\([^ ]*\) .*/\1/p' "$T/link2.err")
    if [ $rc -eq 0 ] && [ -n "$t2" ] && awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b > a) }'; then
      ok "link 2: stopped again later (t=$t1, then t=$t2)"
    else bad "link 2: exit status $rc, t=$t1 then '$t2': $(cat "$T/link2.err")"; fi
    if grep -Eq -- "^--export=ALL,SQ_CHAIN_INDEX=2 .*long.yaml --restart $ckpt --tile-size 64\$" "$T/sbatch.log"; then
      ok "link 2: resubmitted as link 3"
    else bad "link 2: sbatch got: $(cat "$T/sbatch.log")"; fi
  else
    bad "link 2: no restart: $(cat "$T/link2.out" "$T/link2.err")"
    finish_job
  fi
  unset SQ_CHAIN_INDEX
fi

# a run that finishes is not resubmitted; neither is one that fails without a signal
n0=$(wc -l < "$T/sbatch.log")
run_job finished "$T/short.yaml"
finish_job
if [ $rc -eq 0 ] && [ -f "$T/out-short/chain-summary.txt" ] && [ "$(wc -l < "$T/sbatch.log")" -eq "$n0" ]; then
  ok "finished run: exit status 0, no resubmission"
else bad "finished run: exit status $rc, sbatch: $(cat "$T/sbatch.log"): $(cat "$T/finished.out" "$T/finished.err")"; fi
run_job failed "$T/nothere.yaml"
finish_job
if [ $rc -ne 0 ] && [ "$(wc -l < "$T/sbatch.log")" -eq "$n0" ] && grep -q "not resubmitting" "$T/failed.out"; then
  ok "failed run: exit status $rc, no resubmission"
else bad "failed run: exit status $rc: $(cat "$T/failed.out")"; fi

# the chain with 2 MPI ranks per job: rank 0 gathers the checkpoint, the next job restarts from it
if command -v mpirun > /dev/null; then
  export SQ_TEST_SRUN_NP=2
  sed "s|out-long|out-mpi|" "$T/long.yaml" > "$T/mpi.yaml"
  : > "$T/sbatch.log"
  mckpt=$T/out-mpi/chain-checkpoint.h5
  run_job mpi1 "$T/mpi.yaml"
  if wait_for 120 grep -q "^progress:" "$T/mpi1.err"; then
    kill -USR1 "$jobpid"
    finish_job
    if grep -q "stopped by SIGUSR1" "$T/mpi1.err" && [ -f "$mckpt" ] && [ "$(wc -l < "$T/sbatch.log")" -eq 1 ]; then
      ok "MPI link 1 (2 ranks): checkpoint written, resubmitted"
    else bad "MPI link 1: rc=$rc: $(tail -3 "$T/mpi1.err") sbatch: $(cat "$T/sbatch.log")"; fi
    read -r -a words < "$T/sbatch.log"
    export SQ_CHAIN_INDEX=${words[0]#--export=ALL,SQ_CHAIN_INDEX=}
    run_job mpi2 "${words[@]:2}"
    if wait_for 120 grep -q "^progress:" "$T/mpi2.err"; then
      kill -USR1 "$jobpid"
      finish_job
      if grep -q "^ *restart .*chain-checkpoint.h5: t=" "$T/mpi2.out" && grep -q "stopped by SIGUSR1" "$T/mpi2.err"; then
        ok "MPI link 2 (2 ranks): restarted from the checkpoint and stopped again"
      else bad "MPI link 2: $(cat "$T/mpi2.out" | tail -3) $(tail -3 "$T/mpi2.err")"; fi
    else
      bad "MPI link 2 did not start: $(tail -40 "$T/mpi2.err")"
      finish_job
    fi
    unset SQ_CHAIN_INDEX
  else
    bad "MPI link 1 did not start stepping: $(tail -40 "$T/mpi1.err")"
    finish_job
  fi
  unset SQ_TEST_SRUN_NP
fi

report slurm
