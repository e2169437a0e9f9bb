#!/bin/bash
# The CPU element kernels on one core, sparse against dense, measured in one run (docs/PERFORMANCE.md, "CPU codelets").
#
#   tests/bench/cpu_sparsity.sh [ORDERS] [PRECISIONS] [ELEMENTS]      (defaults: 4,6  single,double  4374)
#
# 1. cpu-sparsity (tests/bench/cpu_sparsity.c): one GTS time step (ader, local, neighbor) on the calling thread,
#    the sparse kernels (SQ_GEMM_BEST) against the dense formulation (SQ_GEMM_DENSE) of the same binary, repeats
#    alternating, median: element updates/s, GFLOP/s counted dense (the CPU model) and on non-zeros, ratio.
# 2. starquake-proxy ELEMENTS 0 all ORDER PRECISION cpu with STARPU_NCPU=1 (StarPU tasks of 1024 elements on one CPU
#    worker), this build, against SQ_DENSE_PROXY (default tests/bench/starquake-proxy-dense of the build: the same
#    program with its codelets on the dense plan; or another binary, such as a build of an older commit), run
#    alternately, median, and the ratio.
# Runs pinned to one core (taskset, when present) and niced.  SQ_CPU_SPARSITY_REPEATS (default 5) repeats.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${SQ_BUILD:-$here}
orders=${1:-4,6}
precs=${2:-single,double}
elems=${3:-4374}
repeats=${SQ_CPU_SPARSITY_REPEATS:-5}
export SQ_CPU_SPARSITY_REPEATS=$repeats
pin=()
if command -v taskset >/dev/null; then
  core=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
  pin=(taskset -c "$core")
fi
run() { nice "${pin[@]}" "$@"; }

echo "## kernels on one thread (cpu-sparsity), $(nproc) cores visible, pinned to: ${pin[*]:-none}"
run "$build/tests/bench/cpu-sparsity" "$orders" "$precs" "$elems"

proxy=$build/starquake-proxy
[ -x "$proxy" ] || { echo "# $proxy not built: proxy part skipped"; exit 0; }
dense=${SQ_DENSE_PROXY-$build/tests/bench/starquake-proxy-dense}
[ -z "$dense" ] || [ -x "$dense" ] || dense=
echo
echo "## StarPU tasks on one CPU worker: starquake-proxy $elems 0 all ORDER PRECISION cpu, STARPU_NCPU=1, median of $repeats; dense: ${dense:-none}"
echo "| O | precision | k upd/s | GFLOP/s (dense model) | GFLOP/s nz | dense k upd/s (reference) | ratio |"
echo "|---|---|---|---|---|---|---|"
# one proxy run: updates/s, gflops, gflops_nz of the "all" line
proxy_point() { # binary order precision
  STARPU_NCPU=1 STARPU_NCUDA=0 STARPU_NOPENCL=0 SQ_PROXY_SECONDS=${SQ_PROXY_SECONDS:-1} \
    run "$1" "$elems" 0 all "$2" "$3" cpu 2>/dev/null |
    sed -n 's/^RESULT .* upd_per_s=\([^ ]*\) gflops=\([^ ]*\) .* gflops_nz=\([^ ]*\) .*/\1 \2 \3/p'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : 0.5*(a[NR/2]+a[NR/2+1])}'; }
for o in ${orders//,/ }; do
  for p in ${precs//,/ }; do
    s_upd=(); s_gf=(); s_nz=(); d_upd=()
    for ((r = 0; r < repeats; r++)); do
      read -r u g z < <(proxy_point "$proxy" "$o" "$p")
      s_upd+=("$u"); s_gf+=("$g"); s_nz+=("$z")
      if [ -n "$dense" ]; then
        read -r u _ _ < <(proxy_point "$dense" "$o" "$p")
        d_upd+=("$u")
      fi
    done
    su=$(printf '%s\n' "${s_upd[@]}" | median)
    sg=$(printf '%s\n' "${s_gf[@]}" | median)
    sz=$(printf '%s\n' "${s_nz[@]}" | median)
    if [ -n "$dense" ]; then
      du=$(printf '%s\n' "${d_upd[@]}" | median)
      awk -v o="$o" -v p="$p" -v su="$su" -v sg="$sg" -v sz="$sz" -v du="$du" \
        'BEGIN {printf "| %s | %s | %.0f | %.1f | %.1f | %.0f | %.2f |\n", o, p, su/1e3, sg, sz, du/1e3, su/du}'
    else
      awk -v o="$o" -v p="$p" -v su="$su" -v sg="$sg" -v sz="$sz" \
        'BEGIN {printf "| %s | %s | %.0f | %.1f | %.1f | - | - |\n", o, p, su/1e3, sg, sz}'
    fi
  done
done
