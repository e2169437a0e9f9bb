#!/bin/bash
# The CPU element kernels on every core at once, sparse against the dense reference plan, measured in one run
# (docs/PERFORMANCE.md, "CPU codelets").
#
#   tests/bench/cpu_sparsity_workers.sh [WORKERS]           (default: the CPUs of the affinity mask)
#
# 1. cpu-sparsity (tests/bench/cpu_sparsity.c) without StarPU: one thread per core, each on its slice of
#    SQ_SPARSITY_ELEMENTS (default 64k) elements, 1 thread and WORKERS threads (the same work per core), tiles of
#    SQ_SPARSITY_KTILES (default 64,256,0; 0: the whole slice) elements per kernel call; the core clock and
#    the memory bandwidth of the same threads, measured in the run.
# 2. starquake-proxy (the sparse kernels) against tests/bench/starquake-proxy-dense (the same program, its codelets
#    on the dense plan SQ_GEMM_DENSE): KERNEL all, global time stepping as StarPU tasks, alternately, lws:
#    WORKERS workers on SQ_SPARSITY_ELEMENTS elements in tiles of SQ_SPARSITY_TILES (default 256,512,1024), steps
#    for about SQ_PROXY_SECONDS (default 0.8 s) each; one worker on 4374 elements (the one-core figure);
#    WORKERS workers with the predictor fused (SQ_FUSE_PREDICTOR=1, runtime.fuse_predictor) and WORKERS - 1
#    workers (a core left to the submitting thread), both at the first tile;
#    and the short run `16k 3 all 6 double cpu 1024` that an earlier 16-worker figure came from.
# Every row: our figure (sparse), the reference (dense, same run, same machine) and the ratio; GFLOP/s per core
# count the dense CPU model (the count of the dense table in docs/PERFORMANCE.md), nz the non-zero FLOPs; busy:
# the share of the workers' time spent executing tasks (StarPU's profiling, on: SQ_PROXY_PROFILING=1).
# Order and precision: SQ_SPARSITY_ORDER (6), SQ_SPARSITY_PREC (double).  Binaries: SQ_BUILD (the build tree)
# or SQ_BIN (a folder holding cpu-sparsity, starquake-proxy, starquake-proxy-dense).  Logs into SQ_LOG (a temp
# folder by default).  SQ_CPU_SPARSITY_REPEATS (3) and SQ_CPU_SPARSITY_SECONDS (0.3) as for cpu-sparsity.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${SQ_BUILD:-$here}
if [ -n "${SQ_BIN:-}" ]; then
  ksp=$SQ_BIN/cpu-sparsity sparse=$SQ_BIN/starquake-proxy dense=$SQ_BIN/starquake-proxy-dense
else
  ksp=$build/tests/bench/cpu-sparsity sparse=$build/starquake-proxy dense=$build/tests/bench/starquake-proxy-dense
fi
for b in "$ksp" "$sparse" "$dense"; do
  [ -x "$b" ] || { echo "cpu_sparsity_workers.sh: $b is not built (make tests/bench/cpu-sparsity \
tests/bench/starquake-proxy-dense starquake-proxy)" >&2; exit 1; }
done
ncpu=$(nproc)
workers=${1:-$ncpu}
elems=${SQ_SPARSITY_ELEMENTS:-64k}
ktiles=${SQ_SPARSITY_KTILES:-64,256,0}
tiles=${SQ_SPARSITY_TILES:-256,512,1024}
order=${SQ_SPARSITY_ORDER:-6}
prec=${SQ_SPARSITY_PREC:-double}
log=${SQ_LOG:-$(mktemp -d)}
mkdir -p "$log"
export SQ_CPU_SPARSITY_REPEATS=${SQ_CPU_SPARSITY_REPEATS:-3} SQ_CPU_SPARSITY_SECONDS=${SQ_CPU_SPARSITY_SECONDS:-0.3}
export SQ_PROXY_SECONDS=${SQ_PROXY_SECONDS:-0.8} SQ_PROXY_PROFILING=1 STARPU_NCUDA=0 STARPU_NOPENCL=0
export STARPU_HOME=${STARPU_HOME:-$log/starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
T0=$(date +%s)
stamp() { echo "# [$(($(date +%s) - T0)) s] $*"; }

echo "## machine: $(nproc) CPUs visible, $workers workers; logs in $log"
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\)|Core\(s\)|Socket|MHz|L1d|L2|L3|NUMA node\(s\)" | sed 's/^/# /'

echo
stamp "kernels without StarPU: cpu-sparsity $order $prec $elems 1,$workers $ktiles"
"$ksp" "$order" "$prec" "$elems" "1,$workers" "$ktiles" | tee "$log/kernels.txt"
threads_per_core=$(lscpu | sed -n 's/^Thread(s) per core: *//p')
if [ "${threads_per_core:-1}" -gt 1 ] && [ "$workers" -ge 4 ]; then
  # two threads of one core share its units: the same thread count on distinct cores against sibling pairs
  half=$((workers / 2))
  sib=$(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -k1,1n | head -n "$half" | cut -d, -f1 | paste -sd,)
  own=$(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -u | head -n "$half" | cut -d, -f1 | paste -sd,)
  stamp "SMT: $half threads on distinct cores ($own) and on sibling CPUs ($sib), tile 256"
  taskset -c "$own" "$ksp" "$order" "$prec" "$elems" "$half" 256 | grep -E "^\| .*\| (all|step)" | sed 's/^/distinct cores /'
  taskset -c "$sib" "$ksp" "$order" "$prec" "$elems" "$half" 256 | grep -E "^\| .*\| (all|step)" | sed 's/^/sibling CPUs   /'
fi

# one proxy run: "upd_per_s gflops gflops_nz ncpu steps" of its RESULT line; the whole output into the log
point() { # name binary ncpu elements tile [env...]
  local name=$1 bin=$2 n=$3 el=$4 tile=$5
  shift 5
  env STARPU_NCPU="$n" "$@" timeout 120 "$bin" "$el" "${STEPS:-0}" all "$order" "$prec" cpu "$tile" \
    > "$log/$name.txt" 2>&1
  sed -n 's/^RESULT .* ncpu=\([0-9]*\) .* steps=\([0-9]*\) .* upd_per_s=\([^ ]*\) gflops=\([^ ]*\) .* gflops_nz=\([^ ]*\) .* cpu_busy=\([^ ]*\).*/\3 \4 \5 \1 \2 \6/p' \
    "$log/$name.txt"
}
row() { # label workers elements tile [env...]: sparse, then dense, one table row
  local label=$1 n=$2 el=$3 tile=$4 s d
  shift 4
  s=$(point "s-$label-$n-$el-$tile" "$sparse" "$n" "$el" "$tile" "$@")
  d=$(point "d-$label-$n-$el-$tile" "$dense" "$n" "$el" "$tile" "$@")
  [ -n "$s" ] && [ -n "$d" ] || { echo "| $label | $n | $el | $tile | failed: see $log/[sd]-$label-$n-$el-$tile.txt |"; return; }
  awk -v l="$label" -v n="$n" -v el="$el" -v t="$tile" -v s="$s" -v d="$d" 'BEGIN {
    split(s, a, " "); split(d, b, " ");
    printf "| %s | %d | %s | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %d / %d | %.2f / %.2f |\n", l, a[4], el, t,
      a[1] / 1e3, b[1] / 1e3, a[1] / b[1], a[2] / a[4], b[2] / b[4], a[3] / a[4], a[5], b[5], a[6], b[6] }'
}
echo
stamp "StarPU tasks: starquake-proxy ELEMENTS 0 all $order $prec cpu TILE (lws), sparse against starquake-proxy-dense"
echo "| run | workers | elements | tile | sparse k upd/s | dense k upd/s (reference) | ratio | sparse GFLOP/s per core (dense count) | dense GFLOP/s per core (dense count) | sparse GFLOP/s per core (nz) | steps (sparse / dense) | busy (sparse / dense) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for t in ${tiles//,/ }; do row tiles "$workers" "$elems" "$t"; done
first=${tiles%%,*}
row fused "$workers" "$elems" "$first" SQ_FUSE_PREDICTOR=1
row spare-core $((workers > 1 ? workers - 1 : 1)) "$elems" "$first"
for t in $first 1024; do row one-core 1 4374 "$t"; done
STEPS=3 row short "$workers" 16k 1024
stamp "done"
