#!/usr/bin/env bash
# tests/bench/device/prepare.sh: build here, on the development machine, everything that
# tests/bench/device/run.sh needs on the GPU host (which has CUDA 13, Open MPI and serial HDF5, but no
# StarPU, hwloc, libyaml, METIS or Check), into ignored folders that the device tool carries:
#   .deps/starpu        StarPU 1.3.10 with CUDA (tools/build-starpu.sh)
#   .deps/carry/bin     starquake, starquake-proxy, test_cuda, test_cuda_rupture, test_cuda_plasticity,
#                       kernel-chain, sq-peak (stripped)
#   .deps/carry/lib     shared libraries the host lacks: hwloc, libudev, libyaml, METIS, subunit
#   .deps/carry/lib-fallback  szip/aec and libgomp (OpenMP set-up loops), used only if the host lacks them
# Needs a configured tree with CUDA (./configure finds nvcc and a StarPU built with CUDA).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
grep -q '^#define SQ_USE_CUDA 1' config.h 2>/dev/null || grep -q 'SQ_USE_CUDA=1' Makefile ||
  { echo "prepare.sh: this tree is not configured with CUDA (./configure --enable-cuda)" >&2; exit 1; }
make -j"${SQ_JOBS:-2}" starquake starquake-proxy tests/unit/test_cuda tests/unit/test_cuda_rupture tests/unit/test_cuda_plasticity \
  tests/bench/kernel-chain
NVCC=$(sed -n 's/^NVCC = //p' Makefile)
CARRY=.deps/carry
rm -rf "$CARRY"
mkdir -p "$CARRY/bin" "$CARRY/lib" "$CARRY/lib-fallback"
"$NVCC" -O2 -arch=sm_90 -std=c++17 tests/bench/device/peak.cu -lcublas -o "$CARRY/bin/sq-peak"
cp starquake starquake-proxy tests/unit/test_cuda tests/unit/test_cuda_rupture tests/unit/test_cuda_plasticity tests/bench/kernel-chain \
  "$CARRY/bin/"
strip "$CARRY"/bin/*
# (awk reads all of ldconfig's output: an early exit would kill ldconfig with SIGPIPE, and pipefail
# would then abort this script half-way)
libpath() {
  local cache
  cache=$(ldconfig -p)
  awk -v n="$1" '$1 == n && /x86-64/ && !found {print $NF; found = 1}' <<< "$cache"
}
for lib in libhwloc.so.15 libudev.so.1 libyaml-0.so.2 libmetis.so.5 libsubunit.so.0 libhdf5_openmpi.so.103; do
  p=$(libpath "$lib")
  [ -n "$p" ] || { echo "prepare.sh: $lib not found here" >&2; exit 1; }
  cp -L "$p" "$CARRY/lib/$lib"
done
for lib in libsz.so.2 libaec.so.0 libgomp.so.1; do
  p=$(libpath "$lib")
  [ -n "$p" ] && cp -L "$p" "$CARRY/lib-fallback/$lib"
done
# every library the binaries need must be carried, in StarPU's prefix, in CUDA, or a system library
for lib in libhwloc.so.15 libudev.so.1 libyaml-0.so.2 libmetis.so.5 libsubunit.so.0 libhdf5_openmpi.so.103; do
  [ -s "$CARRY/lib/$lib" ] || { echo "prepare.sh: $CARRY/lib/$lib is missing" >&2; exit 1; }
done
echo "prepare.sh: carried:"
du -sh "$CARRY" .deps/starpu
du -cb "$CARRY" .deps/starpu | tail -n 1 | awk '{printf "prepare.sh: total %.1f MiB (limit 64 MiB with the working tree)\n", $1 / 1048576}'
echo "prepare.sh: run with the device tool: carry [\".deps/starpu\", \".deps/carry\"], command \"bash tests/bench/device/run.sh\""
