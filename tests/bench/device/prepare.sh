#!/usr/bin/env bash
# tests/bench/device/prepare.sh: build here, on the development machine, everything that
# tests/bench/device/run.sh needs on the GPU host (which has CUDA 13, Open MPI and serial HDF5, but none of
# StarPU, hwloc, libyaml, METIS, Lua, netCDF, FFTW or Check), into ignored folders that the device tool carries:
#   .deps/starpu            StarPU 1.3.10 with CUDA (tools/build-starpu.sh)
#   .deps/carry/carry.tar.xz  (xz) bin/: starquake, starquake-proxy, test_cuda, test_cuda_rupture,
#                           test_cuda_plasticity, kernel-chain, sq-peak (stripped); lib/: every shared library
#                           that `ldd` finds for them, but the C library's, CUDA's and StarPU's
#                           (tests/bench/device/libs.sh)
# On the host, tests/bench/device/env.sh unpacks it and puts on the library path only those libraries that
# the host's `ldconfig -p` lacks.  The binaries are staged in .deps/carry-stage/bin (not carried): a build
# variant copied there (GPU.md: starquake-proxy-<name>) travels after `prepare.sh --pack`, which only packs.
# Needs a configured tree with CUDA (./configure finds nvcc and a StarPU built with CUDA).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
. tests/bench/device/libs.sh
STAGE=.deps/carry-stage
CARRY=.deps/carry
if [ "${1:-}" != --pack ]; then
grep -q '^#define SQ_USE_CUDA 1' config.h 2>/dev/null || grep -q 'SQ_USE_CUDA=1' Makefile ||
  { echo "prepare.sh: this tree is not configured with CUDA (./configure --enable-cuda)" >&2; exit 1; }
make -j"${SQ_JOBS:-2}" starquake starquake-proxy tests/unit/test_cuda tests/unit/test_cuda_rupture tests/unit/test_cuda_plasticity \
  tests/bench/kernel-chain
NVCC=$(sed -n 's/^NVCC = //p' Makefile)
rm -rf "$STAGE"
mkdir -p "$STAGE/bin"
"$NVCC" -O2 -arch=sm_90 -std=c++17 tests/bench/device/peak.cu -lcublas -o "$STAGE/bin/sq-peak"
cp starquake starquake-proxy tests/unit/test_cuda tests/unit/test_cuda_rupture tests/unit/test_cuda_plasticity tests/bench/kernel-chain \
  "$STAGE/bin/"
strip "$STAGE"/bin/*
fi
[ -d "$STAGE/bin" ] || { echo "prepare.sh: nothing staged in $STAGE/bin: run prepare.sh without --pack first" >&2; exit 1; }
rm -rf "${STAGE:?}/lib"
sq_libs_collect "$STAGE/lib" "$STAGE"/bin/*
rm -rf "$CARRY"
mkdir -p "$CARRY"
tar -C "$STAGE" -cf - bin lib | xz -T"${SQ_JOBS:-2}" -6 > "$CARRY/carry.tar.xz"
echo "prepare.sh: carried libraries: $(ls "$STAGE/lib" | tr '\n' ' ')"
du -sh "$CARRY/carry.tar.xz" .deps/starpu
du -cbL "$CARRY" .deps/starpu | tail -n 1 | awk '{printf "prepare.sh: total %.1f MiB (limit 64 MiB with the working tree)\n", $1 / 1048576}'
echo "prepare.sh: run with the device tool: carry [\".deps/starpu\", \".deps/carry\"], command \"bash tests/bench/device/run.sh\""
