#!/usr/bin/env bash
# tests/bench/device/tpv5_symmetry.sh: TPV5 with symmetric stress patches on a mirror-symmetric box mesh
# (tests/configs/tpv5_symmetric_box.yaml: 311 040 tets, order 4, 4 s), all tasks on the GPU
# (STARPU_NCPU=0; the config has no on-fault stations, so every rupture tile may run there).
# Writes $OUT/tpv5sym/; compare with `tests/integration/rupture_symmetry.py $OUT/tpv5sym/tpv5sym-fault.h5`.
set -u
. tests/bench/device/env.sh
export STARPU_NCPU=0 STARPU_NCUDA=1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout ${SQ_LIMIT:-500} "$CARRY/bin/starquake" tests/configs/tpv5_symmetric_box.yaml --profile --output "${OUT:-/tmp}/tpv5sym" 2>&1 | tail -n 20
