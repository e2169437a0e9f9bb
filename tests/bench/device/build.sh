#!/usr/bin/env bash
# tests/bench/device/build.sh [KIT]: ON the GPU host, from the repository root, build the CUDA tree from
# what tests/bench/device/kit.sh made here (KIT, default .deps/kit: src.tar.xz and sysroot.tar.xz; a copy
# of this script lies there too, for a checkout that lacks it: `bash .deps/kit/build.sh`) and the carried
# StarPU (.deps/starpu, or SQ_STARPU):
#   1. unpacks both into SQ_KIT_WORK (default /tmp/sq-kit); links into its uselib/ the sysroot's shared
#      libraries that the host's `ldconfig -p` lacks (tests/bench/device/libs.sh);
#   2. the sysroot's include folders (the multiarch one too) come first; pkg-config reads only the
#      sysroot's and StarPU's .pc files, rewritten to where they lie now (the host's pkg-config, else the
#      sysroot's pkgconf); CC is the host's mpicc, else gcc with the sysroot's Open MPI flags; the linker
#      finds the sysroot's libraries (-L, -rpath-link);
#   3. ./configure --enable-cuda, then make -jN (N = nproc) starquake, starquake-proxy, test_cuda,
#      test_cuda_rupture, test_cuda_plasticity, test_cuda_qs, kernel-chain, qs-step-bench and cpu-sparsity; nvcc builds sq-peak;
#   4. puts the programs into .deps/carry/bin and the non-system libraries they load into .deps/carry/lib,
#      where tests/bench/device/env.sh and run.sh find them (the source tree stays in SQ_KIT_WORK/src:
#      SQ_SRCDIR for the tests that read tests/meshes).
# Prints the wall time of configure and make.  Logs: SQ_KIT_WORK/{configure,make}.log.
set -euo pipefail
ROOT=$(pwd)
KIT=$(realpath "${1:-.deps/kit}")
STARPU=$(realpath "${SQ_STARPU:-.deps/starpu}")
W=${SQ_KIT_WORK:-/tmp/sq-kit}
JOBS=${SQ_JOBS:-$(nproc)}
for f in "$KIT/src.tar.xz" "$KIT/sysroot.tar.xz" "$STARPU/lib/pkgconfig/starpu-1.3.pc"; do
  [ -f "$f" ] || { echo "build.sh: $f is missing (tests/bench/device/kit.sh makes the kit; carry it and .deps/starpu)" >&2; exit 1; }
done
T0=$(date +%s)
rm -rf "$W"
mkdir -p "$W/src" "$W/pc" "$W/bin"
tar -xJf "$KIT/src.tar.xz" -C "$W/src"
tar -xJf "$KIT/sysroot.tar.xz" -C "$W"
S=$W/sysroot
LIBDIR=$S/usr/lib/x86_64-linux-gnu
# shellcheck source=tests/bench/device/libs.sh
. "$W/src/tests/bench/device/libs.sh"
echo "build.sh: sysroot libraries the host lacks: $(sq_libs_link "$LIBDIR" "$W/uselib" | tr '\n' ' ')"
export LD_LIBRARY_PATH=$STARPU/lib:$W/uselib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# pkg-config files, their /usr paths moved into the sysroot, StarPU's prefix to where it lies
find "$S" -name '*.pc' | while IFS= read -r pc; do
  sed -e "s#\([= ]\)\(-[IL]\)\{0,1\}/usr\([/ ]\|\$\)#\1\2$S/usr\3#g" "$pc" > "$W/pc/${pc##*/}"
done
for pc in "$STARPU"/lib/pkgconfig/*.pc; do
  sed -e "s#^prefix=.*#prefix=$STARPU#" "$pc" > "$W/pc/${pc##*/}"
done
export PKG_CONFIG_LIBDIR=$W/pc PKG_CONFIG_PATH=
if ! command -v pkg-config > /dev/null; then
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$S/usr/bin/pkgconf" > "$W/bin/pkg-config"
  chmod +x "$W/bin/pkg-config"
  export PATH=$W/bin:$PATH
  echo "build.sh: no pkg-config on this host: the sysroot's pkgconf"
fi
if command -v mpicc > /dev/null; then
  CC=mpicc
else
  CC=gcc
  export MPI_CFLAGS MPI_LIBS
  MPI_CFLAGS=$(pkg-config --cflags ompi-c) MPI_LIBS=$(pkg-config --libs ompi-c)
  echo "build.sh: no mpicc on this host: gcc with the sysroot's Open MPI ($MPI_CFLAGS $MPI_LIBS)"
fi
LINK="-L$LIBDIR -L$S/usr/lib -Wl,-rpath-link,$LIBDIR -Wl,-rpath-link,$STARPU/lib"

cd "$W/src"
T1=$(date +%s)
if ! ./configure --enable-cuda CC="$CC" CPPFLAGS="-I$S/usr/include -I$S/usr/include/x86_64-linux-gnu" LDFLAGS="$LINK" \
  > "$W/configure.log" 2>&1; then
  tail -n 30 "$W/configure.log"
  grep -B 2 -A 20 "error:" config.log | tail -n 40 || true
  echo "build.sh: configure failed ($W/configure.log, $W/src/config.log)" >&2
  exit 1
fi
sed -n '/configured$/,/sanitizers/p' "$W/configure.log"
T2=$(date +%s)
PROGS="starquake starquake-proxy tests/unit/test_cuda tests/unit/test_cuda_rupture tests/unit/test_cuda_plasticity tests/unit/test_cuda_qs
  tests/bench/kernel-chain tests/bench/qs-step-bench tests/bench/cpu-sparsity"
# shellcheck disable=SC2086
if ! make -j"$JOBS" $PROGS > "$W/make.log" 2>&1; then
  grep -E -A 3 "error|Error" "$W/make.log" | head -n 30 || true
  echo "build.sh: make failed ($W/make.log)" >&2
  exit 1
fi
T3=$(date +%s)
CARRY=$ROOT/.deps/carry
rm -rf "$CARRY"
mkdir -p "$CARRY/bin"
"$(sed -n 's/^NVCC = //p' Makefile)" -O2 -arch=sm_90 -std=c++17 tests/bench/device/peak.cu -lcublas -o "$CARRY/bin/sq-peak"
# shellcheck disable=SC2086
cp $PROGS "$CARRY/bin/"
SQ_LIBS_SKIP=$STARPU:/usr/local/cuda sq_libs_collect "$CARRY/lib" "$CARRY"/bin/*
echo "build.sh: configure $((T2 - T1)) s, make -j$JOBS $((T3 - T2)) s, all $(($(date +%s) - T0)) s; programs in $CARRY/bin, source in $W/src"
