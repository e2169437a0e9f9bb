#!/usr/bin/env bash
# tests/bench/device/lts_variants.sh VARIANT...   (on the GPU host, after tests/bench/device/build.sh)
# LTS time-to-solution of variants of one set-up on all of the host's GPUs, in rounds, against one GPU: for
# comparing settings whose effect is near the scatter of single runs.  A VARIANT is NAME or NAME:VAR=VALUE,...
# (environment settings of that variant: StarPU's variables, or lts_types.sh's SQ_LTS_* such as
# SQ_LTS_FAST_SHARE=0.95).  The set-up is the type-1 problem of docs/PERFORMANCE.md ("Local time stepping") with
# its "whole steps" settings: tests/bench/lts_types.sh 4 64 48 (786 432 elements, order 4, single precision),
# LTS runs only, tile 16 384, the fastest cluster in one tile of its own, dmdas, two workers per GPU.
# Runs one warm-up (StarPU's models), then SQ_LV_ROUNDS (default 3) rounds of every variant on SQ_LV_GPUS (default
# all) GPUs, then every variant once on one GPU, and prints per variant the LTS seconds of each round, their
# median, the steady rate (element updates per second after the first sync interval, median) and the parallel
# efficiency of the median against the variant's one-GPU run (on a one-GPU host: the rounds are the one-GPU runs),
# and its cluster-1 corrections and predictors taken by
# whole-step tasks (summary keys folded_corrections and folded_predictions, runtime.fuse_chain_correction and
# runtime.fuse_chain_prediction).  Every run must give the same dofs hash.
# SQ_LV_ARGS replaces lts_types.sh's arguments "4 64 48" (a smaller box: a quick check of the script itself).
set -u
. tests/bench/device/env.sh
[ $# -ge 1 ] || { sed -n '2,15p' "$0"; exit 2; }
NGPU=${SQ_LV_GPUS:-$(nvidia-smi -L | wc -l)}
read -r -a ARGS <<< "${SQ_LV_ARGS:-4 64 48}"
ROUNDS=${SQ_LV_ROUNDS:-3}
export STARPU_NCPU=0 STARPU_SCHED=${STARPU_SCHED:-dmdas} STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1
export STARPU_NWORKER_PER_CUDA=${STARPU_NWORKER_PER_CUDA:-2}
export SQ_BIN=${SQ_BIN:-$CARRY/bin/starquake} SQ_LTS_PRECISION=single SQ_LTS_TILE=16384 SQ_LTS_TYPES=1
export SQ_LTS_VARIANTS=lts SQ_LTS_FUSE=true SQ_LTS_FAST_CHAIN=true SQ_LTS_FAST_TILE=32768 SQ_LTS_FUSE_STEPS=true
export SQ_LTS_STEPS_PER_TASK=2
RES=$(mktemp)
trap 'rm -f "$RES" "$RES".*' EXIT
run() { # VARIANT NGPU: appends "name ngpu seconds steady hash" to $RES
  local name=${1%%:*} envs=() ng=$2
  [ "$name" = "$1" ] || IFS=, read -r -a envs <<< "${1#*:}"
  : > "$RES.one"
  env STARPU_NCUDA="$ng" SQ_LTS_RESULTS="$RES.one" "${envs[@]}" bash tests/bench/lts_types.sh "${ARGS[@]}" > "$RES.log" 2>&1 ||
    { echo "lts_variants.sh: $1 on $ng GPUs failed:" >&2; tail -n 20 "$RES.log" >&2; exit 1; }
  awk -v n="$name" -v g="$ng" '{print n, g, $4, $8, $6, $9, $10}' "$RES.one" >> "$RES"
}
run "$1" "$NGPU"
: > "$RES"
for ((r = 0; r < ROUNDS; ++r)); do for v in "$@"; do run "$v" "$NGPU"; done; done
[ "$NGPU" -gt 1 ] && for v in "$@"; do run "$v" 1; done # on one GPU the rounds are the one-GPU runs
echo "LTS type 1, lts_types.sh ${ARGS[*]}, single precision, whole steps; $STARPU_SCHED," \
  "STARPU_NWORKER_PER_CUDA=$STARPU_NWORKER_PER_CUDA; $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)"
echo
echo "| variant | GPUs | LTS s, each round | median s | steady upd/s (median) | 1 GPU s | efficiency | folded corrections | folded predictors |"
echo "|---|---|---|---|---|---|---|---|---|"
awk -v ng="$NGPU" 'function median(a, n,   i, j, t) { for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                              return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { if (!hash) hash = $5; else if ($5 != hash) { printf "%s on %d GPUs: dofs hash %s, others %s\n", $1, $2, $5, hash; bad = 1 }
    if ($2 == 1 && ng > 1) { one[$1] = $3; next }
    if (!($1 in n)) order[++nv] = $1
    k = ++n[$1]; t[$1, k] = $3; s[$1, k] = $4; f[$1] = $6; p[$1] = $7; runs[$1] = runs[$1] (k > 1 ? ", " : "") $3 }
  END { for (i = 1; i <= nv; ++i) { v = order[i]; delete a; delete b
          for (k = 1; k <= n[v]; ++k) { a[k] = t[v, k]; b[k] = s[v, k] }
          m = median(a, n[v]); ms = median(b, n[v]); if (ng == 1) one[v] = m
          printf "| %s | %d | %s | %.3f | %.3e | %s | %.0f %% | %s | %s |\n", v, ng, runs[v], m, ms, one[v], 100 * one[v] / (ng * m), f[v], p[v] }
        exit bad }' "$RES"
