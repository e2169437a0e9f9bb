#!/usr/bin/env bash
# tests/cuda_emu/run.sh [N]: build the GPU kernels as CPU threads (sq_cuda_emu.h, with
# AddressSanitizer) and compare them with the CPU reference kernels, all orders and precisions.
# Needs a configured and built tree (libsqnum.a) and g++ with C++20.  No GPU involved.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SQ_BUILDDIR:-$ROOT}
OUTBIN=${TMPDIR:-/tmp}/sq_emu_check
make -s -C "$BUILD" gen/sq_cuda_ops.h # the sparse kernels' operator lists (src/cuda/gen_ops.c)
LIBS=$(sed -n 's/^LIBXSMM_LIBS = //p' "$BUILD/Makefile") # the CPU kernels' JIT products (empty without)
LIBS="$LIBS $(sed -n 's/^OPENMP_CFLAGS = //p' "$BUILD/Makefile")" # libsqnum.a's set-up loops
# SQ_EMU_DEFINES: extra -D options (kernel variants, e.g. -DSQ_CUDA_GLOBAL_UNROLL=2)
# shellcheck disable=SC2086
g++ -std=c++20 -O1 -g -fno-var-tracking-assignments -fsanitize=address,undefined -fno-omit-frame-pointer -pthread ${SQ_EMU_DEFINES:-} \
  -I"$ROOT/tests/cuda_emu" -I"$BUILD/gen" -I"$ROOT/src/cuda" -I"$ROOT/src" -I"$ROOT/mesh" \
  "$ROOT/tests/cuda_emu/emu_check.cc" "$BUILD/libsqnum.a" $LIBS -lm -o "$OUTBIN"
"$OUTBIN" "$@"
