#!/bin/bash
# tests/bench/device/kernel_chain_ab.sh FLAGS [ELEMENTS [ORDERS [PRECISION [CHAINS]]]]: kernel variants chosen at
# compile time against the default build, on the GPU host, in one command.  FLAGS holds one variant or several
# separated by '|' (e.g. "-DSQ_CUDA_TENSOR_LOCAL_MIN_DP=5" or "-DX=1|-DX=2").  Builds kernel-chain once per build
# with kernel_chain_standalone.sh (in parallel): its default NVCCFLAGS, and the same plus each variant's flags
# (NVCCFLAGS_EXTRA).  Then, for each build: the CHECK lines of SQ_KC_CHECK=1 on 4 374 elements at ORDERS (the GPU
# ader and local against the CPU kernels; a failed check fails the script), and the chains CHAINS (default
# step3,local) at ELEMENTS (default 512k), two rounds, the builds alternating.  Prints a table: chain, elements,
# order, µs per step of each build (the better round) and, per variant, the ratio default / variant (> 1: the
# variant is faster).  Defaults: ORDERS 5-7, PRECISION double.  Needs nvcc and gcc only.
set -euo pipefail
FLAGS=$1
ELEMS=${2:-512k}
ORDERS=${3:-5-7}
PREC=${4:-double}
CHAINS=${5:-step3,local}
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
IFS='|' read -r -a VARIANTS <<< "$FLAGS"
BUILDS=(default)
for i in "${!VARIANTS[@]}"; do BUILDS+=("v$((i + 1))"); done
NB=${#BUILDS[@]}
JOBS=${JOBS:-$(($(nproc) / NB > 0 ? $(nproc) / NB : 1))}
pids=()
for i in "${!BUILDS[@]}"; do
  extra=""
  [ "$i" = 0 ] || extra=${VARIANTS[$((i - 1))]}
  NVCCFLAGS_EXTRA=$extra JOBS=$JOBS bash "$HERE/kernel_chain_standalone.sh" "$W/kc-${BUILDS[$i]}" \
    > "$W/build-${BUILDS[$i]}.log" 2>&1 &
  pids+=($!)
done
ok=1
for i in "${!BUILDS[@]}"; do wait "${pids[$i]}" || { tail -20 "$W/build-${BUILDS[$i]}.log"; ok=0; }; done
[ $ok = 1 ] || { echo "kernel_chain_ab: a build failed"; exit 1; }
status=0
for b in "${BUILDS[@]}"; do
  if ! SQ_KC_CHECK=1 SQ_KC_SECONDS=0.01 SQ_KC_CHAINS=local "$W/kc-$b" 4374 "$ORDERS" "$PREC" > "$W/check-$b.log" 2>&1; then
    echo "kernel_chain_ab: the $b build fails its check:"
    status=1
  fi
  grep CHECK "$W/check-$b.log" | sed "s/^/$b: /"
done
for r in 1 2; do
  for b in "${BUILDS[@]}"; do
    SQ_KC_SECONDS=${SQ_KC_SECONDS:-0.1} SQ_KC_CHAINS=$CHAINS "$W/kc-$b" "$ELEMS" "$ORDERS" "$PREC" > "$W/run-$b-$r.log" 2>&1
  done
done
for i in "${!VARIANTS[@]}"; do echo "v$((i + 1)): ${VARIANTS[$i]}"; done
echo "($PREC precision; µs per step, the better of two rounds; ratio: default / variant)"
{
  printf '%-10s %9s %5s %10s' chain elements order default
  for i in "${!VARIANTS[@]}"; do printf ' %10s %6s' "v$((i + 1))" ratio; done
  printf '\n'
}
for f in "$W"/run-*.log; do grep '^RESULT' "$f" | sed "s|^|$(basename "$f" .log) |"; done |
  awk -v nv=${#VARIANTS[@]} '{ b = $1; sub(/^run-/, "", b); sub(/-[12]$/, "", b)
         for (i = 2; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
         key = v["chain"] " " v["elems"] " " v["order"]
         if (!((key, b) in t) || v["us"] + 0 < t[key, b]) t[key, b] = v["us"] + 0
         keys[key] = 1 }
       END { for (k in keys) { split(k, p, " ")
               printf "%-10s %9s %5s %10.1f", p[1], p[2], p[3], t[k, "default"]
               for (i = 1; i <= nv; ++i) printf " %10.1f %6.3f", t[k, "v" i], t[k, "default"] / t[k, "v" i]
               printf "\n" } }' | sort
exit $status
