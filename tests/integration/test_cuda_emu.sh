#!/bin/bash
# The GPU kernels of src/cuda/cuda_kernels.cuh, plasticity_cuda.cu, rupture_cuda.cu and qs_cuda.cuh run on the CPU
# (tests/cuda_emu/sq_cuda_emu.h, with ASan and UBSan) against the CPU reference kernels: every order and
# precision, and the small-cluster grids (fewer elements per block) bitwise against blocks of E.
# Catches index, barrier and alignment errors of the CUDA code on a machine with no GPU.
set -u
. "${srcdir:-.}/tests/lib.sh"
export SQ_BUILDDIR=${SQ_BUILDDIR:-$PWD}
[ -f "$SQ_BUILDDIR/libsqnum.a" ] || { echo "test_cuda_emu: $SQ_BUILDDIR/libsqnum.a not built"; exit 99; }
command -v g++ > /dev/null || { echo "test_cuda_emu: no g++: skipped"; exit 77; }
tempdir T
export TMPDIR=$T
for s in run.sh rupture.sh plasticity.sh ane.sh qs.sh; do
  if bash "$SRC/tests/cuda_emu/$s" > "$T/$s.log" 2>&1; then
    ok "tests/cuda_emu/$s: $(tail -n 1 "$T/$s.log")"
  else
    bad "tests/cuda_emu/$s:"
    grep -E 'FAIL|DIFFERS|error|ERROR' "$T/$s.log" | head -20
    tail -n 5 "$T/$s.log"
  fi
done
# Kernel variants that must give the default's results to the last bit: the emulator's report (every
# error figure against the CPU kernels, to the digit) must not change.
for v in -DSQ_CUDA_GLOBAL_UNROLL=2; do
  if SQ_EMU_DEFINES=$v bash "$SRC/tests/cuda_emu/run.sh" > "$T/variant.log" 2>&1 &&
    diff "$T/run.sh.log" "$T/variant.log" > "$T/variant.diff"; then
    ok "tests/cuda_emu/run.sh with $v: the same report"
  else
    bad "tests/cuda_emu/run.sh with $v:"
    head -20 "$T/variant.diff"
    tail -n 5 "$T/variant.log"
  fi
done
report cuda_emu
