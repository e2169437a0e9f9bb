#!/usr/bin/env bash
# tests/bench/device/ncu.sh: Nsight Compute on the element kernels (what holds ader, local and
# neighbor below the 45 %-of-peak target).  For each kernel in SQ_NCU_KERNELS ("ader local neighbor")
# it runs starquake-proxy SQ_NCU_ELEMS (128k) elements, order SQ_NCU_ORDER (6), SQ_NCU_PREC (single),
# GPU only, one tile, and profiles one launch after SQ_NCU_SKIP (6) with the throughput, occupancy,
# warp-state (stall reasons), scheduler, memory and instruction sections.  --clock-control none leaves
# the clocks alone (the device notes ask for it).  The text reports go to $OUT/ncu-<kernel>.txt;
# a digest of the key metrics is printed.  SQ_NCU_BIN picks another carried proxy build; SQ_NCU_DETAILS=1
# adds every section's tables (--print-details all: among them the source locations of the excess
# shared-memory wavefronts and of the stalls; a build with nvcc -lineinfo maps them to source lines).
# A kernel K matches every form of it (K_kernel, K_sparse_kernel, K_tensor_kernel, K_cell_kernel, ...): the one that
# the order and precision run.  A kernel given as K=P profiles K's forms in a proxy run of kernel P
# (predict_cell=predict: the cell predictor alone).
set -u
. tests/bench/device/env.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)
[ -n "$NCU" ] || { echo "ncu.sh: no ncu on this machine"; exit 77; }
LOG=${OUT:-/tmp/sq-ncu}
mkdir -p "$LOG"
BIN=${SQ_NCU_BIN:-$CARRY/bin/starquake-proxy}
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=1
for kk in ${SQ_NCU_KERNELS:-ader local neighbor}; do
  k=${kk%%=*} run=${kk#*=} # "K=P": the forms of kernel K in a run of the proxy's kernel argument P
  rep=$LOG/ncu-$k${SQ_NCU_TAG:-}.txt
  timeout 300 "$NCU" --clock-control none --kernel-name "regex:^${k}(_[a-z]+)*_kernel" --launch-skip "${SQ_NCU_SKIP:-6}" \
    --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --section InstructionStats --section SourceCounters ${SQ_NCU_DETAILS:+--print-details all} \
    "$BIN" "${SQ_NCU_ELEMS:-128k}" 12 "$run" "${SQ_NCU_ORDER:-6}" "${SQ_NCU_PREC:-single}" gpu > "$rep" 2>&1
  echo "== $k (rc $?): $rep"
  grep -E "^  [a-z_]+_kernel|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Warp Cycles Per Issued|Issued Warp Per Scheduler|No Eligible|Executed Ipc Active|L1/TEX Hit|L2 Hit|Stall|stall" "$rep" | head -40
done
