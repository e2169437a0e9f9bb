#!/bin/bash
# tests/bench/device/kernel_chain_ab.sh FLAGS [ELEMENTS [ORDERS [PRECISION [CHAINS]]]]: a kernel variant chosen at
# compile time against the default build, on the GPU host, in one command.  Builds kernel-chain twice with
# kernel_chain_standalone.sh (in parallel): its default NVCCFLAGS, and the same plus FLAGS (NVCCFLAGS_EXTRA; e.g.
# "-DSQ_CUDA_TENSOR_LOCAL_MIN_DP=5").  Then, for each build: the CHECK lines of SQ_KC_CHECK=1 on 4 374 elements at
# ORDERS (the GPU ader and local against the CPU kernels; a failed check fails the script), and the chains CHAINS
# (default step3,local) at ELEMENTS (default 512k), two rounds, the builds alternating.  Prints a table: chain,
# elements, order, µs per step of each build (the better round) and the ratio default / variant (> 1: the variant
# is faster).  Defaults: ORDERS 5-7, PRECISION double.  Needs nvcc and gcc only.
set -euo pipefail
FLAGS=$1
ELEMS=${2:-512k}
ORDERS=${3:-5-7}
PREC=${4:-double}
CHAINS=${5:-step3,local}
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
JOBS=${JOBS:-$(($(nproc) / 2 > 0 ? $(nproc) / 2 : 1))}
JOBS=$JOBS bash "$HERE/kernel_chain_standalone.sh" "$W/kc-default" > "$W/build-default.log" 2>&1 &
p1=$!
NVCCFLAGS_EXTRA=$FLAGS JOBS=$JOBS bash "$HERE/kernel_chain_standalone.sh" "$W/kc-variant" > "$W/build-variant.log" 2>&1 &
p2=$!
ok=1
wait $p1 || { tail -20 "$W/build-default.log"; ok=0; }
wait $p2 || { tail -20 "$W/build-variant.log"; ok=0; }
[ $ok = 1 ] || { echo "kernel_chain_ab: a build failed"; exit 1; }
status=0
for b in default variant; do
  if ! SQ_KC_CHECK=1 SQ_KC_SECONDS=0.01 SQ_KC_CHAINS=local "$W/kc-$b" 4374 "$ORDERS" "$PREC" > "$W/check-$b.log" 2>&1; then
    echo "kernel_chain_ab: the $b build fails its check:"
    status=1
  fi
  grep CHECK "$W/check-$b.log" | sed "s/^/$b: /"
done
for r in 1 2; do
  for b in default variant; do
    SQ_KC_SECONDS=${SQ_KC_SECONDS:-0.1} SQ_KC_CHAINS=$CHAINS "$W/kc-$b" "$ELEMS" "$ORDERS" "$PREC" > "$W/run-$b-$r.log" 2>&1
  done
done
echo "variant: $FLAGS ($PREC precision; µs per step, the better of two rounds)"
printf '%-10s %9s %5s %12s %12s %7s\n' chain elements order default variant ratio
for f in "$W"/run-*.log; do grep '^RESULT' "$f" | sed "s|^|$(basename "$f" .log) |"; done |
  awk '{ b = $1; sub(/^run-/, "", b); sub(/-[12]$/, "", b)
         for (i = 2; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
         key = v["chain"] " " v["elems"] " " v["order"]
         if (!((key, b) in t) || v["us"] + 0 < t[key, b]) t[key, b] = v["us"] + 0
         keys[key] = 1 }
       END { for (k in keys) { split(k, p, " ")
               printf "%-10s %9s %5s %12.1f %12.1f %7.3f\n", p[1], p[2], p[3], t[k, "default"], t[k, "variant"],
                      t[k, "default"] / t[k, "variant"] } }' | sort
exit $status
