#!/usr/bin/env bash
# tests/bench/device/lts_merged_gpu.sh: LTS with and without merged neighbour-cluster tasks on several GPUs of
# one process ("type 1" clustering; the target is merged >= 1.3x unmerged on small-cluster workloads).
# Runs tests/bench/lts_types.sh (GTS, LTS, merged LTS; it checks merged == unmerged bit for bit) with
# GPU workers only on SQ_LM_GPUS GPUs (default: all), order SQ_LM_ORDER (4), SQ_LM_XY^2 x 32 cubes x 6
# tets (32: 196 608 elements), SQ_LM_SYNC sync intervals (4), tiles of SQ_LM_TILE (4096), types
# SQ_LM_TYPES ("1").  Needs tests/bench/device/prepare.sh run here and .deps/{starpu,carry} carried.
set -u
. tests/bench/device/env.sh
NGPU=$(nvidia-smi -L | wc -l)
export STARPU_NCPU=0 STARPU_NCUDA=${SQ_LM_GPUS:-$NGPU} STARPU_SCHED=${STARPU_SCHED:-dmda}
export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 SQ_BIN=$CARRY/bin/starquake
export SQ_LTS_TYPES=${SQ_LM_TYPES:-1} SQ_LTS_TILE=${SQ_LM_TILE:-4096}
bash tests/bench/lts_types.sh "${SQ_LM_ORDER:-4}" "${SQ_LM_XY:-32}" "${SQ_LM_SYNC:-4}"
