#!/usr/bin/env bash
# tests/bench/device/stop_gpu.sh: a stop within a sync interval on the GPU alone (STARPU_NCPU=0), on
# tests/configs/signals_rollback.yaml (21,600 cells, order 6, a fault with two stations, plasticity,
# receivers; 4096-element tiles, end time 2, checkpoint.stop_within 0 so that every chunk's start is saved):
#   1. the uninterrupted run (its dofs hash);
#   2. twice, SIGTERM 1 s and 2.5 s after the first output: the stop's time, starquake's own account of it,
#      and the printed command, run: its dofs hash and its receiver, station and energy files against 1.;
#   3. the submission limit (STARPU_LIMIT_MAX_SUBMITTED_TASKS, 10,000 by default) against none, with
#      1024-element tiles: element updates per second, twice each.
# Carry .deps/starpu and .deps/carry (bin/starquake built with CUDA, lib/); writes $OUT/stop-gpu/.
set -u
. tests/bench/device/env.sh
CFG=$ROOT/tests/configs/signals_rollback.yaml
DIR=${OUT:-/tmp}/stop-gpu
mkdir -p "$DIR" && cd "$DIR" || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
G=(--tile-size 4096 --set equations.end_time=2.0 --set checkpoint.stop_within=0)
export STARPU_NCPU=0
"$CARRY/bin/starquake" "$CFG" "${G[@]}" --quiet --output ref > ref.log 2>&1
echo "uninterrupted: exit $?, $(grep dofs_hash ref/rb-summary.txt)"
for delay in 1.0 2.5; do
  rm -rf int
  "$CARRY/bin/starquake" "$CFG" "${G[@]}" --output int > int.log 2> int.err &
  pid=$!
  for _ in $(seq 1 600); do [ -s int/rb-energy.csv ] && break; sleep 0.05; done
  sleep "$delay"
  t0=$(date +%s%N)
  kill -TERM $pid
  wait $pid
  rc=$?
  t1=$(date +%s%N)
  echo "SIGTERM $delay s after the first output: exit $rc after $(((t1 - t0) / 1000000)) ms"
  grep -E "^stop:|stopped by" int.err | sed 's/; continue with://'
  cmd=$(sed -n '/continue with:/{n;p}' int.err | sed 's/^ *//')
  bash -c "$cmd" > cont.log 2>&1
  rc=$?
  same=yes
  for f in ref/rb-*receiver-*.dat ref/rb-faultst* ref/rb-energy.csv; do cmp -s "$f" "int/$(basename "$f")" || same="no: $f"; done
  echo "continued: exit $rc, $(grep dofs_hash int/rb-summary.txt); receiver, station and energy files identical: $same"
done
for _ in 1 2; do
  for lim in 10000 none; do
    if [ $lim = none ]; then export STARPU_LIMIT_MAX_SUBMITTED_TASKS=1000000000 STARPU_LIMIT_MIN_SUBMITTED_TASKS=1000000000; fi
    "$CARRY/bin/starquake" "$CFG" --tile-size 1024 --set equations.end_time=1.0 --quiet --output ab > ab.log 2>&1
    echo "submission limit $lim: $(grep element_updates_per_second_steady ab/rb-summary.txt)"
    unset STARPU_LIMIT_MAX_SUBMITTED_TASKS STARPU_LIMIT_MIN_SUBMITTED_TASKS
  done
done
