#!/usr/bin/env bash
# tests/bench/device/attenuation_gpu.sh [gpu|cpu] [CELLS]: the viscoelastic element update against the elastic
# one (order 6, single precision, a CELLS^3-cube box of 6 CELLS^3 elements, default 44: 511k, tiles of 65536):
# the same plane-wave run without and with attenuation (3 mechanisms, Qp 50, Qs 25), element updates per second
# of the time stepping, their ratio against the target of 1.6.  gpu (default): GPU workers only; cpu: CPU workers
# only (STARPU_NCUDA=0).  Then, for gpu, the kernels alone: `kernel-chain 512k 6 single` (tests/bench/kernel_chain.c)
# with its elastic and viscoelastic steps.  Run on the GPU host after tests/bench/device/prepare.sh (carry
# .deps/starpu and .deps/carry); STARQUAKE=path and KERNEL_CHAIN=path override the binaries.
set -u
MODE=${1:-gpu} CELLS=${2:-44}
. tests/bench/device/env.sh
SQ=${STARQUAKE:-$CARRY/bin/starquake}
case $MODE in
gpu) export STARPU_NCPU=0 ;;
cpu) export STARPU_NCUDA=0 ;;
*) echo "attenuation_gpu.sh: mode '$MODE': gpu or cpu" >&2; exit 1 ;;
esac
T=$(mktemp -d)
cat > "$T/elastic.yaml" << 'YAML'
mesh:
  type: box
  box: {cells: [CELLS, CELLS, CELLS]}
materials:
  default: {rho: 1.0, lambda: 2.0, mu: 1.0}
initial_condition:
  type: planewave
  wave_vector: [6.283185307179586, 0.0, 0.0]
  modes:
    - {type: p, amplitude: 1.0, direction: 1}
equations:
  order: 6
  precision: single
  end_time: 0.02
output:
  prefix: el
runtime:
  tile_size: 65536
YAML
sed -i "s/CELLS/$CELLS/g" "$T/elastic.yaml"
sed -e 's/prefix: el/prefix: ve/' -e 's/mu: 1.0}/mu: 1.0, qp: 50, qs: 25}/' "$T/elastic.yaml" > "$T/visco.yaml"
printf 'attenuation:\n  central_frequency: 1.0\n  frequency_ratio: 100\n' >> "$T/visco.yaml"
rate() { sed -n 's/.*after the first 1, \([0-9.e+]*\) in the time stepping.*/\1/p' "$1"; }
for c in elastic visco; do
  "$SQ" "$T/$c.yaml" --output "$T/o-$c" > "$T/$c.log" 2>&1 || { echo "$c run failed:"; tail -3 "$T/$c.log"; exit 1; }
done
el=$(rate "$T/elastic.log") ve=$(rate "$T/visco.log")
printf '%-34s %14s %14s %10s %8s\n' case "elastic upd/s" "visco upd/s" "cost" target
awk -v e="$el" -v v="$ve" -v n=$((6 * CELLS * CELLS * CELLS)) -v m="$MODE" 'BEGIN {
  printf "%-34s %14.3e %14.3e %9.2fx %7.1fx\n", sprintf("order 6 single, %d elements, %s", n, m), e, v, e / v, 1.6 }'
rm -rf "$T"
[ "$MODE" = gpu ] || exit 0
KC=${KERNEL_CHAIN:-$CARRY/bin/kernel-chain}
SQ_KC_CHAINS=step3,ader,local,neighbor,visco,ader_ane,ane_source "$KC" 512k 6 single | sed 's/^RESULT //'
