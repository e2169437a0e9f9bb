#!/usr/bin/env bash
# tests/cuda_emu/qs.sh: build the quasi-static GPU kernels (src/cuda/qs_cuda.cuh) as CPU threads (sq_cuda_emu.h,
# with AddressSanitizer) and compare them with the CPU kernels of sq_qs.h.  Needs a configured and built tree
# (libsqnum.a).  No GPU involved.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SQ_BUILDDIR:-$ROOT}
OUTBIN=${TMPDIR:-/tmp}/sq_emu_qs
LIBS=$(sed -n 's/^OPENMP_CFLAGS = //p' "$BUILD/Makefile") # libsqnum.a's set-up loops
g++ -std=c++20 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -pthread \
  -I"$ROOT/tests/cuda_emu" -I"$ROOT/src/cuda" -I"$ROOT/src" -I"$ROOT/mesh" \
  "$ROOT/tests/cuda_emu/emu_qs.cc" "$BUILD/libsqnum.a" $LIBS -lm -o "$OUTBIN"
"$OUTBIN"
