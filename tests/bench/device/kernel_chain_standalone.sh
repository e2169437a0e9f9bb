#!/bin/bash
# tests/bench/device/kernel_chain_standalone.sh OUT [SRC]: build kernel-chain (tests/bench/kernel_chain.c) with
# nvcc and gcc alone, without configure, StarPU or the project's libraries: the numerics of src/ (but fullspace.c,
# which needs FFTW), mesh/box.c and mesh/mesh.c, the element kernels' five .cu files (the anelastic ones too) with
# the operator lists sq-gen-ops writes (src/cuda/gen_ops.c, in a tree that has it), and CUDA's static runtime, so
# that OUT runs on a GPU host with nothing else installed.  The fastest way to iterate on the element kernels.
# SRC: the source tree (default: this checkout).  Environment: NVCC (default nvcc, or /usr/local/cuda/bin/nvcc),
# NVCCFLAGS (default: configure's; kernel variants as -D options, e.g. NVCCFLAGS="-O3 -arch=sm_90 -std=c++17
# -DSQ_CUDA_WARPS_NEIGHBOR_DP_HIGH=20"), NVCCFLAGS_EXTRA (appended to NVCCFLAGS: a variant of the default flags),
# JOBS (default: the cores).
set -euo pipefail
OUT=$1
SRC=${2:-$(cd "$(dirname "$0")/../../.." && pwd)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NVCCFLAGS=${NVCCFLAGS:--O3 -arch=sm_90 -std=c++17 -Xcompiler -Wno-deprecated-declarations}
NVCCFLAGS="$NVCCFLAGS ${NVCCFLAGS_EXTRA:-}"
JOBS=${JOBS:-$(nproc)}
CUDA=$(dirname "$(dirname "$NVCC")")
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
INC="-DSQ_USE_CUDA -I$SRC/src -I$SRC/src/cuda -I$SRC/mesh -I$SRC"
for f in "$SRC"/src/*.c "$SRC"/mesh/box.c "$SRC"/mesh/mesh.c "$SRC"/tests/bench/kernel_chain.c; do
  [ "$(basename "$f")" = fullspace.c ] && continue
  echo "gcc -O2 -fopenmp $INC -I$CUDA/include -c $f -o $B/$(basename "$f" .c).o"
done | xargs -P "$JOBS" -I{} sh -c '{}'
# the sparse kernels' operator lists (src/cuda/gen_ops.c, as make writes them), from the numerics just built
mkdir "$B/gen"
if [ -f "$SRC/src/cuda/gen_ops.c" ]; then
  gcc -O2 -fopenmp $INC -c "$SRC/src/cuda/gen_ops.c" -o "$B/gen/gen_ops.o"
  gcc -fopenmp "$B/gen/gen_ops.o" $(ls "$B"/*.o | grep -v kernel_chain.o) -o "$B/gen/sq-gen-ops" -lm
  "$B/gen/sq-gen-ops" > "$B/gen/sq_cuda_ops.h"
fi
for k in ader local neighbor merged ane; do
  echo "$NVCC $NVCCFLAGS -I$B/gen $INC -c $SRC/src/cuda/${k}_cuda.cu -o $B/${k}_cuda.o"
done | xargs -P "$JOBS" -I{} sh -c '{}'
# the C++ and OpenMP runtimes linked in as well (a GPU host may lack libgomp); the C library stays shared (the
# CUDA runtime loads the driver with dlopen)
g++ -static-libstdc++ -static-libgcc "$B"/*.o -o "$OUT" "$(g++ -print-file-name=libgomp.a)" -L"$CUDA/lib64" \
  -lcudart_static -ldl -lrt -lpthread -lm
