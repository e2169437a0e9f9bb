#!/bin/bash
# GPU memory check: a problem that does not fit in the GPUs' memory stops before any time
# stepping with one message giving the memory needed and the memory the GPUs offer, and what to do;
# it writes no output.  The GPU's memory is lowered with StarPU's own STARPU_LIMIT_CUDA_MEM (MiB), which
# is what starquake reads.  The same problem without the limit runs.  Skips (77) without a GPU.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
CFG=$CONFIGS/gpu_memory.yaml
# a GPU worker must exist (a CUDA build on a host with a GPU), or there is nothing to check
STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 "$SQ" "$CFG" --output "$T/ok" > "$T/ok.out" 2> "$T/ok.err"
st=$?
grep -q "on each GPU" "$T/ok.out" || { echo "skip: no CUDA worker (no GPU or a build without CUDA)"; exit 77; }
[ "$st" = 0 ] && [ -s "$T/ok/big-summary.txt" ] || { bad "the run without a memory limit failed ($st)"; cat "$T/ok.err"; }
STARPU_LIMIT_CUDA_MEM=16 STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 "$SQ" "$CFG" --output "$T/small" > "$T/small.out" 2> "$T/small.err"
st=$?
[ "$st" -ne 0 ] && [ "$st" -lt 128 ] || bad "exit status $st with 16 MiB of GPU memory (want a clean error)"
grep -Eq "needs about [0-9]+ MiB of GPU memory for its [0-9]+ elements, but its 1 GPU offer 16 MiB.*more GPUs" "$T/small.err" ||
  { bad "message"; cat "$T/small.err"; }
[ "$(grep -c "error" "$T/small.err")" = 1 ] || { bad "not exactly one error message"; cat "$T/small.err"; }
grep -q "^progress" "$T/small.err" && bad "it started stepping"
[ ! -e "$T/small/big-summary.txt" ] && [ ! -e "$T/small/big-energy.csv" ] || { bad "output written"; ls "$T/small"; }
[ "$fail" = 0 ] && ok "$(grep -o 'needs about.*offer [0-9]* MiB' "$T/small.err")"
report gpu_memory
