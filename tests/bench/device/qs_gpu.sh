#!/usr/bin/env bash
# tests/bench/device/qs_gpu.sh [n] [repetitions]: the quasi-static solver's GPU kernels (src/cuda/qs_cuda.cuh) on a
# box of n^3 cubes (default 76: 2.6 M P2 cells, 10.7 M degrees of freedom): the P2 and P1 element-by-element
# products in both precisions on 1 and 4 vectors, with the shared-memory reduction and with direct atomics, their
# bytes per second as a fraction of the measured copy bandwidth, their difference to the CPU kernels, and the
# transfers (tests/bench/qs_bench.cu prints the table).  StarPU-free: builds the driver with nvcc on the GPU host
# from the sources beside this script, so it runs from a checkout or from a copy of the files it needs
# (tests/bench/device/qs_prepare.sh makes one under .deps/psgpu).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
B=$(mktemp -d)
INC=(-I"$ROOT/src" -I"$ROOT/src/cuda" -I"$ROOT/mesh")
pids=()
for f in qs_kernels qs_blocks common; do
  gcc -O3 -std=c11 -fopenmp "${INC[@]}" -c "$ROOT/src/$f.c" -o "$B/$f.o" &
  pids+=($!)
done
"$NVCC" -O3 -arch=sm_90 -std=c++17 "${INC[@]}" -c "$ROOT/src/cuda/qs_cuda.cu" -o "$B/qs_cuda.o" &
pids+=($!)
"$NVCC" -O3 -arch=sm_90 -std=c++17 "${INC[@]}" -c "$ROOT/tests/bench/qs_bench.cu" -o "$B/qs_bench.o" &
pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
"$NVCC" -arch=sm_90 "$B"/*.o -Xcompiler -fopenmp -o "$B/qs_bench"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
"$B/qs_bench" "${1:-76}" "${2:-20}"
