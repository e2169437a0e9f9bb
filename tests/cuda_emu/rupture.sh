#!/usr/bin/env bash
# tests/cuda_emu/rupture.sh [MESH [MAX_ORDER]]: build the CUDA rupture kernel as CPU threads
# (sq_cuda_emu.h, with AddressSanitizer) and compare it bitwise with sq_fault_update, orders 2..MAX_ORDER
# in both precisions, and up to order 4 with rate and state and thermal pressurization in double.  Needs a
# configured and built tree (libsqnum.a).  No GPU involved.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SQ_BUILDDIR:-$ROOT}
OUTBIN=${TMPDIR:-/tmp}/sq_emu_rupture
LIBS=$(sed -n 's/^\(YAML_LIBS\|HDF5_LIBS\|METIS_LIBS\|LIBXSMM_LIBS\) = //p' "$BUILD/Makefile" | tr '\n' ' ')
LIBS="$LIBS $(sed -n 's/^OPENMP_CFLAGS = //p' "$BUILD/Makefile")" # libsqnum.a's set-up loops
HDF5_CFLAGS=$(sed -n 's/^HDF5_CFLAGS = //p' "$BUILD/Makefile")
# -ffp-contract=off: the CPU kernel is built without FMA (x86-64-v2), so the sums must agree bitwise
g++ -std=c++20 -O1 -g -ffp-contract=off -fsanitize=address,undefined -fno-omit-frame-pointer -pthread \
  -I"$ROOT/tests/cuda_emu" -I"$ROOT/src/cuda" -I"$ROOT/src" -I"$ROOT/mesh" -I"$ROOT/io" $HDF5_CFLAGS \
  "$ROOT/tests/cuda_emu/emu_rupture.cc" "$BUILD/libsqnum.a" $LIBS -lm -o "$OUTBIN"
"$OUTBIN" "${1:-$ROOT/tests/meshes/fault.msh}" "${2:-7}"
