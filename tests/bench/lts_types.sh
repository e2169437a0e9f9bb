#!/bin/bash
# LTS benchmark: the thesis's "LTS type 1..6" clusterings (Fig. 6.31), enforced through materials on a
# box mesh (5 clusters, rate 2: z-slabs whose wave speeds differ by powers of two, so slab k lands
# in cluster k).  For each type it runs GTS, LTS and LTS with merged neighbour-cluster tasks and
# prints element updates per second (whole run), the LTS/GTS work ratio, time-to-solution against GTS
# (the time stepping alone: summary key wall_time_stepping, without the outputs and the final copy back of
# the solution, which costs seconds on GPUs), and the
# per-kind task time / idle fraction of the LTS run.
#
# usage: tests/bench/lts_types.sh [ORDER] [CELLS_XY] [SYNC_INTERVALS]     (defaults 4 8 2)
# Prints a markdown table at the end; set SQ_BIN to the binary (default ./starquake), SQ_LTS_TYPES to
# the types to run (default "1 2 3 4 5 6") and SQ_LTS_TILE to the tile size (default 128; GPUs want
# thousands), SQ_LTS_MERGE_CORRECTIONS=true to merge the corrections too (runtime.merge_corrections), SQ_LTS_FUSE=true for runtime.fuse_predictor, SQ_LTS_FUSE_STEPS=true for runtime.fuse_steps,
# SQ_LTS_STEPS_PER_TASK=N for runtime.steps_per_task, SQ_LTS_FAST_GPU=false to turn runtime.fast_cluster_gpu off, SQ_LTS_FAST_CHAIN=true for runtime.fast_cluster_chain,
# SQ_LTS_FAST_TILE=N for runtime.fast_cluster_tile, SQ_LTS_FAST_SHARE=F for runtime.fast_gpu_share, SQ_LTS_FOLD=true for runtime.fuse_chain_correction, SQ_LTS_FOLD_PREDICT=true for runtime.fuse_chain_prediction, SQ_LTS_PREFETCH=true for runtime.prefetch_halo, SQ_LTS_CHAIN_PRIORITY=true for runtime.chain_priority, SQ_LTS_PRECISION=single for single precision,
# SQ_LTS_TRACE=DIR to keep each run's task trace as DIR/type<T>-<variant>.csv (tools/trace-gaps.py); with
# SQ_LTS_TRACE_ALL=1 the traces cover the first sync interval too (--trace-all)
# and StarPU's transfer statistics as DIR/type<T>-<variant>.bus, SQ_LTS_VARIANTS="gts lts" to leave the
# merged run out (its columns then read "-"), SQ_LTS_RESULTS=FILE to append one line per type to FILE:
# "type work_ratio gts_seconds lts_seconds gts_hash lts_hash gts_steady lts_steady folded predicted" (the steady
# rates: element updates per second after the first sync interval, which uploads the data to the GPUs and calibrates;
# folded, predicted: the LTS run's summary keys folded_corrections and folded_predictions).  The workers are StarPU's usual environment (STARPU_NCPU, STARPU_NCUDA, STARPU_SCHED).
set -eu
. "${srcdir:-.}/tests/lib.sh"
ORDER=${1:-4}
NXY=${2:-8}
NSYNC=${3:-2}
NZ=32 # cell layers along z; the types below distribute them over the 5 clusters
tempdir OUT
# cell layers per cluster 0..4 (fastest .. slowest), 32 in all
declare -A TYPES=(
  [1]="1 2 4 9 16"   # bulk in the slowest cluster: least work
  [2]="1 8 8 8 7"    # tiny fastest cluster, the rest equal
  [3]="2 6 16 6 2"   # bulk in the middle cluster
  [4]="7 8 8 8 1"    # mirror of type 2
  [5]="6 6 7 7 6"    # equal shares
  [6]="16 9 4 2 1"   # bulk in the fastest cluster: most work
)
calc() { awk "BEGIN {printf \"%.17g\", $1}"; } # arithmetic in awk: the GPU host may lack python3
config() { # type rate merge
  local layers=(${TYPES[$1]}) z=0 rules="" l speed lam mu
  for l in 0 1 2 3 4; do
    local top=$((z + layers[l]))
    speed=$(calc "2 ^ -$l")
    lam=$(calc "2 * $speed ^ 2")
    mu=$(calc "$speed ^ 2")
    rules="$rules    - {z_bottom: $(calc "$z / 8"), z_top: $(calc "$top / 8 + ($l == 4 ? 1e-9 : 0)"), rho: 1.0, lambda: $lam, mu: $mu}
"
    z=$top
  done
  # tests/configs/bench_lts_types.yaml with the layers (a blank line after them) and the settings;
  # END_TIME stays for the caller
  sed -e "s/@NXY@/$NXY/g" -e "s/@NZ@/$NZ/" -e "s/@ORDER@/$ORDER/" -e "s/@PRECISION@/${SQ_LTS_PRECISION:-double}/" \
    -e "s/@RATE@/$2/" -e "s/@TILE@/${SQ_LTS_TILE:-128}/" -e "s/@MERGE@/$3/" \
    -e "s/@MERGE_CORRECTIONS@/${SQ_LTS_MERGE_CORRECTIONS:-false}/" -e "s/@FUSE@/${SQ_LTS_FUSE:-false}/" \
    -e "s/@FUSE_STEPS@/${SQ_LTS_FUSE_STEPS:-false}/" -e "s/@STEPS_PER_TASK@/${SQ_LTS_STEPS_PER_TASK:-1}/" \
    -e "s/@FAST_GPU@/${SQ_LTS_FAST_GPU:-true}/" -e "s/@FAST_CHAIN@/${SQ_LTS_FAST_CHAIN:-false}/" \
    -e "s/@FAST_TILE@/${SQ_LTS_FAST_TILE:-0}/" -e "s/@FAST_SHARE@/${SQ_LTS_FAST_SHARE:-1}/" \
    -e "s/@FOLD@/${SQ_LTS_FOLD:-false}/" -e "s/@FOLD_PREDICT@/${SQ_LTS_FOLD_PREDICT:-false}/" \
    -e "s/@PREFETCH@/${SQ_LTS_PREFETCH:-false}/" -e "s/@CHAIN_PRIORITY@/${SQ_LTS_CHAIN_PRIORITY:-false}/" \
    "$SRC/tests/configs/bench_lts_types.yaml" | awk -v layers="$rules" '$0 == "@LAYERS@" { print layers; next } { print }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b}'; }
field() { summary_value "$1/bench-summary.txt" "$2"; } # DIR KEY
rows=""
for t in ${SQ_LTS_TYPES:-1 2 3 4 5 6}; do
  # first find the sync interval (slowest cluster's dt) from a planning run
  config $t 2 false | sed "s/@END_TIME@/1e-9/" > "$OUT/probe.yaml"
  "$SQ" "$OUT/probe.yaml" --output "$OUT/probe" > "$OUT/probe.log"
  ncl=$(awk '/^  clusters /{print $2}' "$OUT/probe.log")
  [ "$ncl" = 5 ] || { echo "type $t: expected 5 clusters, got $ncl"; cat "$OUT/probe.log"; exit 1; }
  dtsync=$(awk '$1 == "4" && NF == 5 {print $3}' "$OUT/probe.log")
  # the probe printed the cluster table: run NSYNC steps of the slowest cluster
  end=$(calc "$NSYNC * $dtsync")
  gts_wall=- gts_ups=- gts_hash=- gts_steady=- merged_wall=- merged_ups=- merged_steady=- # variants left out read "-"
  for variant in ${SQ_LTS_VARIANTS:-gts lts merged}; do
    case $variant in gts) rate=1 merge=false ;; lts) rate=2 merge=false ;; merged) rate=2 merge=true ;; esac
    config $t $rate $merge | sed "s/@END_TIME@/$end/" > "$OUT/$variant.yaml"
    trace=()
    [ -n "${SQ_LTS_TRACE:-}" ] && mkdir -p "$SQ_LTS_TRACE" && trace=("--trace${SQ_LTS_TRACE_ALL:+-all}" "$SQ_LTS_TRACE/type$t-$variant.csv") &&
      export STARPU_BUS_STATS=1 STARPU_BUS_STATS_FILE=$SQ_LTS_TRACE/type$t-$variant.bus
    "$SQ" "$OUT/$variant.yaml" --profile "${trace[@]}" --output "$OUT/$variant" > "$OUT/$variant.log" 2> /dev/null
    eval "${variant}_wall=$(field "$OUT/$variant" wall_time_stepping)" # the time stepping: no outputs, no copy back
    eval "${variant}_ups=$(field "$OUT/$variant" element_updates_per_second)"
    eval "${variant}_hash=$(field "$OUT/$variant" dofs_hash)"
    eval "${variant}_steady=$(field "$OUT/$variant" element_updates_per_second_steady)" # after the first sync interval
    # the set-up phases, the GPU upload started at its end, the run's closing line (stderr: in SQ_LS_LOGS)
    grep -E '^  (set-up|upload|placement) |^done:' "$OUT/$variant.log" | sed "s/^ */type $t $variant: /" >&2 || true
  done
  ratio=$(field "$OUT/lts" lts_work_ratio)
  [ "$merged_wall" = - ] || [ "$lts_hash" = "$merged_hash" ] || { echo "type $t: merged and unmerged LTS differ ($lts_hash vs $merged_hash)"; exit 1; }
  idle=$(grep "idle fraction" "$OUT/lts.log" | sed 's/.*idle fraction *//; s/%//' | awk '{s += $1} END {if (NR) printf "%.1f", s / NR; else printf "n/a"}')
  split=$(awk '/^    (ader|local|neighbor) +[0-9]+ tasks/{printf "%s %s ", $1, $(NF)}' "$OUT/lts.log")
  folded=$(field "$OUT/lts" folded_corrections)
  predicted=$(field "$OUT/lts" folded_predictions)
  [ -z "${SQ_LTS_RESULTS:-}" ] ||
    echo "$t $ratio $gts_wall $lts_wall $gts_hash $lts_hash $gts_steady $lts_steady ${folded:--} ${predicted:--}" >> "$SQ_LTS_RESULTS"
  rows="$rows| $t | ${TYPES[$t]} | $ratio | $gts_ups | $lts_ups | $merged_ups | $gts_wall | $lts_wall | $merged_wall | $(ratio "$gts_wall" "$lts_wall") | $(ratio "$lts_wall" "$merged_wall") | $lts_steady | $merged_steady | $(ratio "$merged_steady" "$lts_steady") | $idle% | $split|
"
  echo "type $t done" >&2
done
echo
echo "order $ORDER, ${NXY}x${NXY}x${NZ} cubes x 6 tets = $((NXY * NXY * NZ * 6)) elements, $NSYNC sync intervals, tile ${SQ_LTS_TILE:-128}, $(nproc) cores, STARPU_NCPU=${STARPU_NCPU:-all} STARPU_NCUDA=${STARPU_NCUDA:-all}, STARPU_SCHED=${STARPU_SCHED:-lws}"
echo
echo "| type | cell layers per cluster 0..4 | LTS/GTS work | GTS upd/s | LTS upd/s | merged upd/s | GTS s | LTS s | merged s | speed-up LTS vs GTS | merged vs unmerged | LTS steady upd/s | merged steady upd/s | merged vs unmerged, steady | LTS idle | LTS time split |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf "%s" "$rows"
