#!/usr/bin/env bash
# tests/bench/device/multigpu.sh: one process, all of the host's GPUs through StarPU (no MPI): the GTS
# TPV5 box of tests/configs/tpv5_symmetric_box.yaml (311 040 tets, order 4 DP, 1 s) on 1 and on 2
# CUDA workers (STARPU_NCPU=0, tile 4096, dmdas), printing element updates/s of each.
set -u
. tests/bench/device/env.sh
export STARPU_NCPU=0
nvidia-smi --query-gpu=name --format=csv,noheader
sed -e 's/end_time: 4.0/end_time: 1.0/' -e 's/output_interval: 4.0/output_interval: 1.0/' tests/configs/tpv5_symmetric_box.yaml > /tmp/mg.yaml
for n in ${SQ_NGPUS:-1 2}; do
  for sched in ${SQ_SCHEDS:-dmdas}; do
    STARPU_NCUDA=$n STARPU_SCHED=$sched timeout 200 "$CARRY/bin/starquake" /tmp/mg.yaml --profile --output "${OUT:-/tmp}/mg$n$sched" 2>&1 |
      grep -E "^done|dofs hash|worker CUDA" | sed "s/^/[$n GPU, $sched] /"
  done
done
