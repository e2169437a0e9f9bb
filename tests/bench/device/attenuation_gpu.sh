#!/usr/bin/env bash
# tests/bench/device/attenuation_gpu.sh [gpu] [CELLS]: the viscoelastic element update against the elastic
# one on GPU workers only (order 6, single precision, a CELLS^3-cube box of 6 CELLS^3 elements, default 44: 511k,
# tiles of 65536): the plane-wave cases of tests/bench/attenuation_cases.sh without and with attenuation
# (3 mechanisms, Qp 50, Qs 25), element updates per second of the time stepping, their ratio against the target
# of 1.6.  Then the kernels alone: `kernel-chain 512k 6 single` (tests/bench/kernel_chain.c) with its elastic and
# viscoelastic steps.  The CPU's cost: tests/bench/attenuation_cpu.sh.  Run on the GPU host after tests/bench/device/prepare.sh (carry
# .deps/starpu and .deps/carry); STARQUAKE=path and KERNEL_CHAIN=path override the binaries.
set -u
MODE=${1:-gpu} CELLS=${2:-44}
. tests/bench/device/env.sh
SQ=${STARQUAKE:-$CARRY/bin/starquake}
[ "$MODE" = gpu ] || { echo "attenuation_gpu.sh: mode '$MODE': only gpu (the CPU: tests/bench/attenuation_cpu.sh)" >&2; exit 1; }
export STARPU_NCPU=0
T=$(mktemp -d)
. tests/bench/attenuation_cases.sh
attenuation_cases "$T" "$CELLS" 65536 0.02
rate() { sed -n 's/.*after the first 1, \([0-9.e+]*\) in the time stepping.*/\1/p' "$1"; }
for c in el ve; do
  "$SQ" "$T/$c.yaml" --output "$T/o-$c" > "$T/$c.log" 2>&1 || { echo "$c run failed:"; tail -3 "$T/$c.log"; exit 1; }
done
el=$(rate "$T/el.log") ve=$(rate "$T/ve.log")
printf '%-34s %14s %14s %10s %8s\n' case "elastic upd/s" "visco upd/s" "cost" target
awk -v e="$el" -v v="$ve" -v n=$((6 * CELLS * CELLS * CELLS)) -v m="$MODE" 'BEGIN {
  printf "%-34s %14.3e %14.3e %9.2fx %7.1fx\n", sprintf("order 6 single, %d elements, %s", n, m), e, v, e / v, 1.6 }'
rm -rf "$T"
KC=${KERNEL_CHAIN:-$CARRY/bin/kernel-chain}
SQ_KC_CHAINS=step3,ader,local,neighbor,visco,ader_ane,ane_source "$KC" 512k 6 single | sed 's/^RESULT //'
