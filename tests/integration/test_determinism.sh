#!/bin/bash
# Bitwise determinism: the StarPU task graph must give exactly the serial reference's bits for any
# worker count, scheduler and tile size (each element's arithmetic never depends on scheduling).
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/determinism.yaml
tempdir OUT

"$SQ" "$CFG" --serial --quiet --output "$OUT/serial" || { echo "serial reference run failed"; exit 1; }
ref=$(hash_of "$OUT/serial" determinism)
[ -n "$ref" ] || { echo "no hash in the serial summary"; exit 1; }
echo "serial reference hash $ref"
for ncpu in 1 2; do
  for sched in eager lws dmdas; do
    for tile in 7 64 1000; do
      dir="$OUT/run-$ncpu-$sched-$tile"
      if STARPU_NCPU=$ncpu STARPU_SCHED=$sched STARPU_CALIBRATE=1 "$SQ" "$CFG" --quiet --tile-size $tile --output "$dir"; then
        h=$(hash_of "$dir" determinism)
      else
        h="run-failed"
      fi
      if [ "$h" = "$ref" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "MISMATCH ncpu=$ncpu sched=$sched tile=$tile: $h"; fi
    done
  done
done
# thread teams inside each CPU task (runtime.cpu_task_threads): the same bits
for threads in 2 3; do
  sed "s/^runtime:/runtime:\n  cpu_task_threads: $threads/" "$CFG" > "$OUT/team$threads.yaml"
  dir="$OUT/team-$threads"
  if STARPU_NCPU=1 "$SQ" "$OUT/team$threads.yaml" --quiet --output "$dir"; then h=$(hash_of "$dir" determinism); else h="run-failed"; fi
  if [ "$h" = "$ref" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "MISMATCH cpu_task_threads=$threads: $h"; fi
done
# a different initial state must change the hash (the comparison can fail)
sed 's/amplitude: 0.5/amplitude: 0.25/' "$CFG" > "$OUT/other.yaml"
"$SQ" "$OUT/other.yaml" --serial --quiet --output "$OUT/other" && other=$(hash_of "$OUT/other" determinism)
if [ "${other:-}" != "$ref" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "hash does not depend on the data"; fi
report determinism
