#!/usr/bin/env bash
# tests/bench/device/tpv5_gpu.sh: the full-length SCEC TPV5 run (12 s, order 4, configs/tpv5/tpv5.yaml on
# configs/tpv5/tpv5.msh, carried) with every task on the GPU (STARPU_NCPU=0).  This run drops the
# on-fault stations and keeps the fault snapshots (every 0.5 s) and the rupture-time file cplot;
# SQ_KEEP_STATIONS=1 keeps the 9 stations (recorded on the GPU; their cost: tpv5_stations.sh).
# Writes $OUT/tpv5-gpu/.
set -u
. tests/bench/device/env.sh
export STARPU_NCPU=${STARPU_NCPU:-0} STARPU_NCUDA=1
if [ -n "${SQ_KEEP_STATIONS:-}" ]; then cp configs/tpv5/tpv5.yaml configs/tpv5/tpv5-gpu.yaml
else sed -e '/  station_interval:/d' -e '/  stations:/,/^output:/{/^output:/!d}' configs/tpv5/tpv5.yaml > configs/tpv5/tpv5-gpu.yaml; fi
nvidia-smi --query-gpu=name --format=csv,noheader
timeout ${SQ_LIMIT:-540} "$CARRY/bin/starquake" configs/tpv5/tpv5-gpu.yaml --profile --tile-size ${SQ_TILE:-4096} --output "${OUT:-/tmp}/tpv5-gpu" 2>&1 |
  grep -v "^progress" | tail -n 30
grep -c . "${OUT:-/tmp}/tpv5-gpu/tpv5-cplot"
