#!/usr/bin/env bash
# tests/cuda_emu/ane.sh: build the anelastic CUDA kernels (src/cuda/cuda_ane.cuh) as CPU threads (sq_cuda_emu.h,
# with AddressSanitizer) and compare them with the CPU kernels of attenuation, orders 2..7 in both precisions.
# Needs a configured and built tree (libsqnum.a).  No GPU involved.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SQ_BUILDDIR:-$ROOT}
OUTBIN=${TMPDIR:-/tmp}/sq_emu_ane
LIBS=$(sed -n 's/^\(YAML_LIBS\|HDF5_LIBS\|METIS_LIBS\|LIBXSMM_LIBS\) = //p' "$BUILD/Makefile" | tr '\n' ' ')
LIBS="$LIBS $(sed -n 's/^OPENMP_CFLAGS = //p' "$BUILD/Makefile")" # libsqnum.a's set-up loops
g++ -std=c++20 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -pthread \
  -I"$ROOT/tests/cuda_emu" -I"$ROOT/src/cuda" -I"$ROOT/src" -I"$ROOT/mesh" -I"$ROOT/io" \
  "$ROOT/tests/cuda_emu/emu_ane.cc" "$BUILD/libsqnum.a" $LIBS -lm -o "$OUTBIN"
"$OUTBIN"
