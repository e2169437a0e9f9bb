#!/usr/bin/env bash
# tests/bench/device/tpv5_stations.sh: full-length TPV5 (500 m, order 4, 12 s) on 1 GPU + 1 CPU worker with
# the 9 on-fault stations kept: their one-face rupture tiles need the CPU worker.  A 0.5 s run
# calibrates dmdas's perf models first (same STARPU_HOME), then the full run uses them.
set -u
export STARPU_NCPU=1 STARPU_SCHED=dmdas SQ_KEEP_STATIONS=1
sed -i 's/  end_time: 12.0/  end_time: 0.5/' configs/tpv5/tpv5.yaml
SQ_LIMIT=200 OUT=${OUT:-/tmp}/cal bash tests/bench/device/tpv5_gpu.sh | grep -E "^done|CUDA|CPU 0|rupture "
sed -i 's/  end_time: 0.5/  end_time: 12.0/' configs/tpv5/tpv5.yaml
SQ_LIMIT=330 bash tests/bench/device/tpv5_gpu.sh | grep -E "^done|dofs|CUDA|CPU 0|rupture |error"
ls "${OUT:-/tmp}/tpv5-gpu" | head -40 | tr '\n' ' '
