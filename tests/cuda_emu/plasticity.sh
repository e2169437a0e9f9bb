#!/usr/bin/env bash
# tests/cuda_emu/plasticity.sh: build the CUDA plasticity kernel as CPU threads (sq_cuda_emu.h, with
# AddressSanitizer) and compare it bitwise with the CPU body, orders 2..7 in both precisions.  Needs a
# configured and built tree (libsqnum.a).  No GPU involved.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SQ_BUILDDIR:-$ROOT}
OUTBIN=${TMPDIR:-/tmp}/sq_emu_plasticity
LIBS=$(sed -n 's/^\(YAML_LIBS\|HDF5_LIBS\|METIS_LIBS\|LIBXSMM_LIBS\) = //p' "$BUILD/Makefile" | tr '\n' ' ')
LIBS="$LIBS $(sed -n 's/^OPENMP_CFLAGS = //p' "$BUILD/Makefile")" # libsqnum.a's set-up loops
# -ffp-contract=off: the CPU body is built without FMA (x86-64-v2), and the .cu with -fmad=false
g++ -std=c++20 -O1 -g -ffp-contract=off -fsanitize=address,undefined -fno-omit-frame-pointer -pthread \
  -I"$ROOT/tests/cuda_emu" -I"$ROOT/src/cuda" -I"$ROOT/src" -I"$ROOT/mesh" -I"$ROOT/io" \
  "$ROOT/tests/cuda_emu/emu_plasticity.cc" "$BUILD/libsqnum.a" $LIBS -lm -o "$OUTBIN"
"$OUTBIN"
