#!/usr/bin/env bash
# tests/bench/device/tpv5.sh: the full-length SCEC TPV5 production run (12 s, order 4, fault elements of
# 500 m: configs/tpv5/tpv5.msh made here with `gmsh -3 -setnumber h_fault 500 -format msh22 -bin
# -o configs/tpv5/tpv5.msh configs/tpv5/tpv5.geo`), once on the GPU (1 CUDA worker + 4 CPU
# workers) and once on the 16 CPU cores, each into $OUT/tpv5-{gpu,cpu}.  Carry .deps/starpu,
# .deps/carry (tests/bench/device/prepare.sh) and configs/tpv5/tpv5.msh.
set -u
. tests/bench/device/env.sh
OUTDIR=${OUT:-/tmp/sq-tpv5}
T0=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
STARPU_NCUDA=1 STARPU_NCPU=4 timeout ${SQ_GPU_LIMIT:-280} "$CARRY/bin/starquake" configs/tpv5/tpv5.yaml --profile \
  --output "$OUTDIR/tpv5-gpu" > "$OUTDIR/gpu.log" 2>&1
echo "GPU run: rc=$? after $(($(date +%s) - T0)) s"
tail -n 25 "$OUTDIR/gpu.log"
T1=$(date +%s)
STARPU_NCUDA=0 STARPU_NCPU=16 timeout ${SQ_CPU_LIMIT:-280} "$CARRY/bin/starquake" configs/tpv5/tpv5.yaml \
  --output "$OUTDIR/tpv5-cpu" > "$OUTDIR/cpu.log" 2>&1
echo "CPU run: rc=$? after $(($(date +%s) - T1)) s"
tail -n 6 "$OUTDIR/cpu.log"
rm -f "$OUTDIR"/tpv5-*/tpv5-checkpoint.h5*
