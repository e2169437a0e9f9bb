#!/usr/bin/env bash
# tests/bench/device/qs_prepare.sh DEST: copy what tests/bench/device/qs_gpu.sh needs (the quasi-static kernels'
# sources, the driver, the script) into DEST (e.g. a main checkout's .deps/psgpu), so that the GPU host runs
# `bash DEST/tests/bench/device/qs_gpu.sh` with DEST carried.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DEST=${1:?usage: qs_prepare.sh DEST}
cd "$ROOT"
files=(src/sq_common.h src/common.c src/sq_kernels.h src/sq_ref.h src/sq_qs.h src/qs_impl.h src/qs_kernels.c
  src/sq_qs_blocks.h src/qs_blocks.c src/cuda/qs_cuda.cuh src/cuda/qs_cuda.cu src/cuda/sq_cuda_qs.h mesh/sq_mesh.h
  tests/bench/qs_bench.cu tests/bench/device/qs_gpu.sh)
mkdir -p "$DEST"
tar cf - "${files[@]}" | tar xf - -C "$DEST"
echo "qs_prepare: $(du -sh "$DEST" | cut -f1) in $DEST"
