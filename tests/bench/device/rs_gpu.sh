#!/usr/bin/env bash
# tests/bench/device/rs_gpu.sh: TPV101 (15 s) and TPV104 (10 s) at full length on the GPU alone
# (STARPU_NCPU=0, tile 4096, order 4, fault elements of 500 m: configs/tpv101/tpv101.msh and
# configs/tpv104/tpv104.msh made here with `gmsh -3 -setnumber h_fault 500 -format msh22 -bin`,
# carried).  On-fault stations are dropped (fault snapshots and cplot only).  Writes $OUT/<scenario>/.
set -u
. tests/bench/device/env.sh
export STARPU_NCPU=0 STARPU_NCUDA=1
nvidia-smi --query-gpu=name --format=csv,noheader
for sc in tpv101 tpv104; do
  sed -e '/  station_interval:/d' -e '/  stations:/,/^output:/{/^output:/!d}' configs/$sc/$sc.yaml > configs/$sc/$sc-gpu.yaml
  timeout ${SQ_LIMIT:-270} "$CARRY/bin/starquake" configs/$sc/$sc-gpu.yaml --profile --tile-size 4096 \
    --output "${OUT:-/tmp}/$sc" 2>&1 | grep -v "^progress" | grep -E "mesh|fault |clusters|done|error|CUDA|rupture " 
done
