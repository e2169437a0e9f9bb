#!/usr/bin/env bash
# tests/bench/device/qs_gpu.sh [n] [repetitions]: the quasi-static solver on a GPU host.
# (1) The kernels (src/cuda/qs_cuda.cuh) on a box of n^3 cubes (default 76: 2.6 M P2 cells, 10.7 M degrees of
#     freedom): the P2 and P1 element-by-element products in both precisions on 1 and 4 vectors (one thread per cell
#     and vector), with the shared-memory reduction (blocks of 32, 64, 128 cells) and with direct atomics, their
#     bytes per second as a fraction of the device-to-device copy bandwidth measured in the same run, their
#     difference to the CPU kernels, the transfers, and the two comparisons: four vectors per kernel against one
#     (time per vector), the shared-memory reduction against direct atomics (tests/bench/qs_bench.cu prints them).
#     StarPU-free: builds the driver with nvcc here from the sources beside this script, so it runs from a
#     checkout or from a copy of the files it needs (tests/bench/device/qs_prepare.sh makes one).  QS_KERNELS=0
#     skips it.
# (2) With QS_BIN=DIR (binaries of a CUDA build: test_cuda_qs, qs-step-bench; QS_LIB=DIR: shared libraries this
#     host lacks; StarPU's under .deps/starpu/lib of the current folder): the GPU-against-CPU unit test, then the
#     elastic solve and QS_STEPS (default 2) viscoelastic steps of a faulted box of QS_STEP_N cubes per side
#     (default 76: 10.7 M degrees of freedom) in tiles of QS_STEP_TILE cells (default 32768) with the GPU alone,
#     each solve's time split into products, transfers and host work; with QS_STEP_CPU=1 the same with the CPU
#     cores alone.  QS_STEP_TIMEOUT: seconds per run (default 400).
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
if [ "${QS_KERNELS:-1}" = 1 ]; then timeout 300 "$B/qs_bench" "${1:-76}" "${2:-20}" || echo "qs_bench: exit $?"; fi
[ -n "${QS_BIN:-}" ] || exit 0
# shared libraries: StarPU's, then the carried ones this host lacks (linked one by one, so that the host's own
# versions win)
mkdir -p "$B/lib"
QS_BIN=$(realpath "$QS_BIN")
for l in "$(realpath "${QS_LIB:-/nonexistent}" 2> /dev/null)"/*; do
  [ -e "$l" ] || continue
  n=$(basename "$l")
  ldconfig -p | grep -q " $n " || ln -sf "$l" "$B/lib/$n"
done
export LD_LIBRARY_PATH=$PWD/.deps/starpu/lib:$B/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STARPU_HOME=${STARPU_HOME:-/tmp/sq-starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
for b in "$QS_BIN"/test_cuda_qs "$QS_BIN"/qs-step-bench; do ldd "$b" | grep "not found" | sed "s|^|$(basename "$b"): |" || true; done
echo "--- test_cuda_qs"
timeout 200 "$QS_BIN/test_cuda_qs" || echo "test_cuda_qs: exit $?"
n=${QS_STEP_N:-76} steps=${QS_STEPS:-2} tile=${QS_STEP_TILE:-32768} limit=${QS_STEP_TIMEOUT:-400}
echo "--- elastic solve and viscoelastic steps, GPU alone"
STARPU_NCPU=0 STARPU_NCUDA=1 timeout "$limit" "$QS_BIN/qs-step-bench" "$n" "$steps" "$tile" || echo "qs-step-bench (GPU): exit $?"
[ "${QS_STEP_CPU:-0}" = 1 ] || exit 0
echo "--- the same, CPU cores alone"
STARPU_NCUDA=0 timeout "$limit" "$QS_BIN/qs-step-bench" "$n" "$steps" "$tile" || echo "qs-step-bench (CPU): exit $?"
