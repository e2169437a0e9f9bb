#!/bin/bash
# Local time stepping through the binary: bitwise determinism over schedulers, worker counts, tile
# sizes and merged neighbour-cluster tasks (predictors, and with runtime.merge_corrections the corrections
# too); rate 1 equals GTS bitwise; LTS converges and stays
# within 1.5x of the GTS error on the same graded mesh.
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/lts.yaml
tempdir OUT

"$SQ" "$CFG" --quiet --output "$OUT/ref" || bad "reference LTS run"
grep -q '^clusters: 3' "$OUT/ref/lts-summary.txt" && ok "three clusters" || bad "expected three clusters"
ref=$(hash_of "$OUT/ref" lts)
sed 's/merge_neighbor_clusters: false/merge_neighbor_clusters: true/' "$CFG" > "$OUT/merged.yaml"
sed 's/merge_neighbor_clusters: false/merge_neighbor_clusters: true\n  merge_corrections: true/' "$CFG" > "$OUT/merged-all.yaml"
for merge in off on all; do
  cfg=$CFG; [ $merge = on ] && cfg=$OUT/merged.yaml; [ $merge = all ] && cfg=$OUT/merged-all.yaml
  for ncpu in 1 2; do
    for sched in eager lws dmda dmdas prio; do
      for tile in 7 64; do
        dir="$OUT/r-$merge-$ncpu-$sched-$tile"
        STARPU_NCPU=$ncpu STARPU_SCHED=$sched "$SQ" "$cfg" --quiet --tile-size $tile --output "$dir" > /dev/null 2>&1
        h=$(hash_of "$dir" lts)
        [ -n "$h" ] && [ "$h" = "$ref" ] || { bad "merge=$merge ncpu=$ncpu sched=$sched tile=$tile: ${h:-failed} != $ref"; continue; }
        pass=$((pass + 1))
      done
    done
  done
done
echo "determinism: $pass runs matched $ref"

# the fastest cluster in one tile, whole steps, two sub-steps per task (runtime.steps_per_task): the same bits
printf 'runtime:\n  tile_size: 100000\n  fuse_predictor: true\n  fuse_steps: true\n  steps_per_task: %s\n' 1 \
  | cat <(sed '/^runtime:/,$d' "$CFG") - > "$OUT/whole.yaml"
sed 's/steps_per_task: 1/steps_per_task: 2/' "$OUT/whole.yaml" > "$OUT/grouped.yaml"
# small tiles, the fastest cluster alone in one (runtime.fast_cluster_tile): its whole steps, grouped too
sed 's/tile_size: 100000/tile_size: 7\n  fast_cluster_tile: 100000/' "$OUT/grouped.yaml" > "$OUT/fast.yaml"
# and cluster 1's corrections next to the fastest cluster in its whole-step tasks (runtime.fuse_chain_correction)
sed 's/fuse_steps: true/fuse_steps: true\n  fuse_chain_correction: true/' "$OUT/fast.yaml" > "$OUT/folded.yaml"
# and their next predictors too (runtime.fuse_chain_prediction)
sed 's/fuse_chain_correction: true/fuse_chain_correction: true\n  fuse_chain_prediction: true/' "$OUT/folded.yaml" \
  > "$OUT/predicted.yaml"
for g in whole grouped fast folded predicted; do
  trace=()
  [ $g = folded ] || [ $g = predicted ] && trace=(--trace "$OUT/$g.csv")
  "$SQ" "$OUT/$g.yaml" --quiet "${trace[@]}" --output "$OUT/$g" > /dev/null 2>&1
  h=$(hash_of "$OUT/$g" lts); n=$(summary_value "$OUT/$g/lts-summary.txt" grouped_step_tasks)
  [ -n "$h" ] && [ "$h" = "$ref" ] && ok "$g steps: hash $h (grouped tasks: $n)" || bad "$g steps: ${h:-failed} != $ref"
  if [ $g != whole ]; then [ "${n:-0}" -gt 0 ] && ok "sub-steps grouped ($n tasks)" || bad "no grouped tasks (${n:-none})"; fi
done
n=$(summary_value "$OUT/folded/lts-summary.txt" folded_corrections)
[ "${n:-0}" -gt 0 ] && ok "corrections folded into whole-step tasks ($n)" || bad "no folded corrections (${n:-none})"
# its trace: the chain of whole-step tasks and cluster 1's predictors, one per step of cluster 1 between two of them
chain=$($PY "$SRC/tools/trace-gaps.py" "$OUT/folded.csv" 2>&1 | grep "^  chain, ")
steps=$(awk -F, '$1 == "step"' "$OUT/folded.csv" | wc -l)
[ -n "$chain" ] && [ "$(echo "$chain" | awk '{print $2}')" -gt 0 ] &&
  [ "$(echo "$chain" | awk '{print $2}')" -le $((steps - 1)) ] && ok "trace-gaps.py: the whole-step chain ($chain)" ||
  bad "trace-gaps.py prints no whole-step chain (${chain:-none}, $steps step tasks)"
# --trace-all: the same run traced from its first step on, every whole-step task (grouped_step_tasks) and the same bits
"$SQ" "$OUT/folded.yaml" --quiet --trace-all "$OUT/folded-all.csv" --output "$OUT/folded-all" > /dev/null 2>&1
all=$(awk -F, '$1 == "step"' "$OUT/folded-all.csv" | wc -l)
n=$(summary_value "$OUT/folded-all/lts-summary.txt" grouped_step_tasks); h=$(hash_of "$OUT/folded-all" lts)
[ "$all" -gt "$steps" ] && [ "$all" -eq "${n:-0}" ] && [ "$h" = "$ref" ] &&
  ok "--trace-all: $all whole-step tasks of $n, --trace $steps" ||
  bad "--trace-all: $all whole-step tasks, the run's $n, --trace $steps; hash ${h:-none}"
su=$($PY "$SRC/tools/trace-gaps.py" "$OUT/folded-all.csv" --start 5 2>&1 | grep "^  start-up, ")
echo "$su" | grep -Eq "worker [0-9]+ [0-9]+ tasks [0-9.]+x.*; the first whole-step task started [0-9.]+ ms after" &&
  ok "trace-gaps.py: the start-up line ($su)" ||
  bad "trace-gaps.py prints no start-up line (${su:-none})"
n=$(summary_value "$OUT/fast/lts-summary.txt" folded_corrections)
[ "${n:-1}" -eq 0 ] && ok "no folded corrections without fuse_chain_correction" || bad "folded corrections: ${n:-none}"
n=$(summary_value "$OUT/predicted/lts-summary.txt" folded_predictions)
n0=$(summary_value "$OUT/folded/lts-summary.txt" folded_predictions)
[ "${n:-0}" -gt 0 ] && [ "${n0:-1}" -eq 0 ] && ok "predictors taken ahead by whole-step tasks ($n; $n0 without)" ||
  bad "folded predictions: ${n:-none}, without fuse_chain_prediction ${n0:-none}"
gaps=$($PY "$SRC/tools/trace-gaps.py" "$OUT/predicted.csv" 2>&1)
direct=$(echo "$gaps" | grep "^  chain without a predictor task, ")
[ -n "$direct" ] && ok "trace-gaps.py: whole steps back to back ($direct)" || bad "trace-gaps.py prints no chain without predictor"
on=$(echo "$gaps" | grep "^  next whole step ready on ")
[ -n "$on" ] && ok "trace-gaps.py: what the whole steps wait on ($on)" || bad "trace-gaps.py prints no 'ready on' line"

# rate 1 is GTS: the task graph with rate 1 equals the serial GTS reference bitwise
sed 's/lts: {rate: 2}/lts: {rate: 1}/' "$CFG" > "$OUT/rate1.yaml"
"$SQ" "$OUT/rate1.yaml" --quiet --output "$OUT/rate1"
"$SQ" "$OUT/rate1.yaml" --quiet --serial --output "$OUT/gts"
h1=$(hash_of "$OUT/rate1" lts); hg=$(hash_of "$OUT/gts" lts)
[ -n "$h1" ] && [ "$h1" = "$hg" ] && ok "rate 1 == serial GTS ($h1)" || bad "rate 1 $h1 != GTS $hg"
[ "$h1" != "$ref" ] && ok "LTS differs from GTS (the comparison can fail)" || bad "LTS hash equals GTS hash"

# convergence and accuracy against GTS on the same graded meshes
lts_json=$("$SQ" verify planewave --order 3 --graded --meshes 4,8 --lts-rate 2 --json)
gts_json=$("$SQ" verify planewave --order 3 --graded --meshes 4,8 --lts-rate 1 --json)
if python3 - "$lts_json" "$gts_json" <<'PY'
import json, sys
l, g = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("LTS errors %s rates %s clusters %s; GTS errors %s" % (l["errors"], l["rates"], l["clusters"], g["errors"]))
ok = min(l["clusters"]) >= 3 and l["rates"][-1] >= 2.8
ok = ok and all(le <= 1.5 * ge for le, ge in zip(l["errors"], g["errors"]))
sys.exit(0 if ok else 1)
PY
then ok "LTS convergence and LTS/GTS error ratio"; else bad "LTS convergence or error ratio"; fi
report lts
