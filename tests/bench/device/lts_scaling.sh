#!/usr/bin/env bash
# tests/bench/device/lts_scaling.sh [ORDER] [CELLS_XY] [SYNC_INTERVALS]   (defaults 4 64 48: 786 432 elements)
# LTS time-to-solution against its ideal speed-up on 1 and on several GPUs of one process, GPU workers only:
# for each GPU count of SQ_LS_GPUS (default "1 N", N = the host's GPUs) it runs tests/bench/lts_types.sh
# (GTS and LTS of the thesis's clusterings SQ_LS_TYPES, default "1 2 5"; single precision) and prints
#   type | GPUs | GTS s | LTS s | speed-up | ideal | % of ideal | parallel efficiency of LTS against 1 GPU
# beside the reference (the figures of the one-H100 run before this work, and its targets:
# >= 85 % of the ideal on one GPU, >= 70 % of the ideal and >= 70 % parallel efficiency on 4 GPUs).
# The time is the summary's wall_time_stepping (no outputs, no final copy back).  "steady" is the same after
# the first sync interval, in which the upload to the GPUs (started at the set-up) finishes and StarPU calibrates (a fixed
# cost that weighs more on the shorter LTS run): its % of the ideal is the LTS rate over the GTS rate, element
# updates per second after the first interval, and its efficiency the LTS rates'.  Every GPU count of a type
# must give the same LTS dofs hash (the script fails otherwise).
# Settings: SQ_LS_TILE (tile size, default 16384), STARPU_SCHED (default dmda), STARPU_NWORKER_PER_CUDA,
# and lts_types.sh's SQ_LTS_FUSE, SQ_LTS_FUSE_STEPS, SQ_LTS_STEPS_PER_TASK, SQ_LTS_FAST_CHAIN, SQ_LTS_FAST_TILE,
# SQ_LTS_FAST_SHARE; SQ_LS_LOGS=DIR keeps each GPU
# count's lts_types.sh output (task time split, idle fractions) as DIR/lts_types-<N>gpu.log.  Needs the CUDA tree built here
# (tests/bench/device/build.sh, or prepare.sh) and .deps/{starpu,carry}.
set -u
. tests/bench/device/env.sh
NGPU=$(nvidia-smi -L | wc -l)
ORDER=${1:-4} NXY=${2:-64} NSYNC=${3:-48}
export STARPU_NCPU=0 STARPU_SCHED=${STARPU_SCHED:-dmda} STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1
export SQ_BIN=${SQ_BIN:-$CARRY/bin/starquake} SQ_LTS_PRECISION=single SQ_LTS_TILE=${SQ_LS_TILE:-16384}
export SQ_LTS_TYPES=${SQ_LS_TYPES:-1 2 5} SQ_LTS_VARIANTS="gts lts"
RES=$(mktemp)
trap 'rm -f "$RES" "$RES".*' EXIT
for ng in ${SQ_LS_GPUS:-1 $NGPU}; do
  [ "$ng" -le "$NGPU" ] || { echo "lts_scaling.sh: $ng GPUs asked, the host has $NGPU" >&2; exit 1; }
  : > "$RES.$ng"
  STARPU_NCUDA=$ng SQ_LTS_RESULTS=$RES.$ng bash tests/bench/lts_types.sh "$ORDER" "$NXY" "$NSYNC" > "$RES.$ng.log" 2>&1 ||
    { echo "lts_scaling.sh: lts_types.sh on $ng GPUs failed:" >&2; tail -n 20 "$RES.$ng.log" >&2; exit 1; }
  sed "s/^/$ng /" "$RES.$ng" >> "$RES"
  [ -z "${SQ_LS_LOGS:-}" ] || cp "$RES.$ng.log" "$SQ_LS_LOGS/lts_types-${ng}gpu.log"
done
echo "order $ORDER single, $((NXY * NXY * 32 * 6)) elements, $NSYNC sync intervals, tile $SQ_LTS_TILE," \
  "$STARPU_SCHED, STARPU_NWORKER_PER_CUDA=${STARPU_NWORKER_PER_CUDA:-1}, fuse_predictor=${SQ_LTS_FUSE:-false}" \
  "fuse_steps=${SQ_LTS_FUSE_STEPS:-false} steps_per_task=${SQ_LTS_STEPS_PER_TASK:-1}" \
  "fast_cluster_chain=${SQ_LTS_FAST_CHAIN:-false} fast_cluster_tile=${SQ_LTS_FAST_TILE:-0}" \
  "fast_gpu_share=${SQ_LTS_FAST_SHARE:-1};" \
  "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
echo
echo "| type | GPUs | GTS s | LTS s | speed-up | ideal | % of ideal | reference % of ideal | LTS efficiency vs 1 GPU | GTS efficiency vs 1 GPU | steady: % of ideal | steady: LTS efficiency |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
# the one-H100 figures (speed-up / ideal) and the targets
awk 'BEGIN {ref[1] = "77 (4.81 / 6.24)"; ref[2] = "85 (3.21 / 3.79)"; ref[5] = "90 (2.40 / 2.67)"; bad = 0}
  { ng = $1; t = $2; ideal = 1 / $3; gts = $4; lts = $5; hash = $7
    gsteady = $8; lsteady = $9
    if (ng == 1) { lts1[t] = lts; gts1[t] = gts; hash1[t] = hash; steady1[t] = lsteady }
    else if (t in hash1 && hash != hash1[t]) { printf "type %d: %d GPUs give dofs hash %s, 1 GPU %s\n", t, ng, hash, hash1[t]; bad = 1 }
    target = ng == 1 ? 85 : 70
    printf "| %d | %d | %.3f | %.3f | %.2f | %.2f | **%.0f** | %s; target %d |", t, ng, gts, lts, gts / lts, ideal,
      100 * gts / lts / ideal, ng == 1 ? ref[t] : "-", target
    if (ng > 1 && t in lts1) printf " **%.0f %%** (target 70 %%) | %.0f %% |", 100 * lts1[t] / (ng * lts), 100 * gts1[t] / (ng * gts)
    else printf " - | - |"
    eff = (ng > 1 && t in steady1) ? sprintf("%.0f %%", 100 * lsteady / (ng * steady1[t])) : "-"
    printf " %.0f | %s |\n", 100 * lsteady / gsteady, eff }
  END { exit bad }' "$RES"
