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
#    on the dense plan SQ_GEMM_DENSE): KERNEL all, global time stepping as StarPU tasks (lws), the two programs run
#    alternately SQ_SPARSITY_REPEATS times (default 3), medians: WORKERS workers on SQ_SPARSITY_ELEMENTS elements in
#    tiles of SQ_SPARSITY_TILES (default 256,1024), SQ_SPARSITY_STEPS (default 8) timed steps each; the same with
#    the predictor fused (SQ_FUSE_PREDICTOR=1, runtime.fuse_predictor) at the first tile; one worker on 4374
#    elements at the first tile (the one-core figure); and the short run `16k 3 all 6 double cpu 1024` that an
#    earlier 16-worker figure came from.
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
tiles=${SQ_SPARSITY_TILES:-256,1024}
steps=${SQ_SPARSITY_STEPS:-8}
reps=${SQ_SPARSITY_REPEATS:-3}
order=${SQ_SPARSITY_ORDER:-6}
prec=${SQ_SPARSITY_PREC:-double}
log=${SQ_LOG:-$(mktemp -d)}
mkdir -p "$log"
export SQ_CPU_SPARSITY_REPEATS=${SQ_CPU_SPARSITY_REPEATS:-3} SQ_CPU_SPARSITY_SECONDS=${SQ_CPU_SPARSITY_SECONDS:-0.3}
export SQ_PROXY_PROFILING=1 STARPU_NCUDA=0 STARPU_NOPENCL=0
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

# one proxy run: "upd_per_s gflops gflops_nz ncpu steps cpu_busy" of its RESULT line; its whole output into the log
point() { # name binary ncpu elements tile steps [env...]
  local name=$1 bin=$2 n=$3 el=$4 tile=$5 steps=$6
  shift 6
  env STARPU_NCPU="$n" "$@" timeout 120 "$bin" "$el" "$steps" all "$order" "$prec" cpu "$tile" > "$log/$name.txt" 2>&1
  sed -n 's/^RESULT .* ncpu=\([0-9]*\) .* steps=\([0-9]*\) .* upd_per_s=\([^ ]*\) gflops=\([^ ]*\) .* gflops_nz=\([^ ]*\) .* cpu_busy=\([^ ]*\).*/\3 \4 \5 \1 \2 \6/p' \
    "$log/$name.txt"
}
# one table row: label workers elements tile steps repeats [env...]; sparse and dense alternately, median of each
row() {
  local label=$1 n=$2 el=$3 tile=$4 steps=$5 reps=$6 r s d
  shift 6
  : > "$log/rows.tmp"
  for ((r = 1; r <= reps; r++)); do
    s=$(point "s-$label-$n-$el-$tile-$r" "$sparse" "$n" "$el" "$tile" "$steps" "$@")
    d=$(point "d-$label-$n-$el-$tile-$r" "$dense" "$n" "$el" "$tile" "$steps" "$@")
    [ -n "$s" ] && [ -n "$d" ] && echo "$s $d" >> "$log/rows.tmp"
  done
  [ -s "$log/rows.tmp" ] || { echo "| $label | $n | $el | $tile | failed: see $log/[sd]-$label-* |"; return; }
  awk -v l="$label" -v n="$n" -v el="$el" -v t="$tile" '
    function med(c,   i, j, k, v, m) { # median of column c over the rows
      m = 0; for (i = 1; i <= NR; i++) v[++m] = x[i, c]
      for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { k = v[j]; v[j] = v[j - 1]; v[j - 1] = k }
      return m % 2 ? v[(m + 1) / 2] : 0.5 * (v[m / 2] + v[m / 2 + 1]) }
    { for (i = 1; i <= NF; i++) x[NR, i] = $i; lo = (NR == 1 || $1 / $7 < lo) ? $1 / $7 : lo; hi = (NR == 1 || $1 / $7 > hi) ? $1 / $7 : hi }
    END { su = med(1); du = med(7); nc = x[1, 4]
      printf "| %s | %d | %s | %d | %.1f | %.1f | %.2f (%.2f-%.2f) | %.1f | %.1f | %.1f | %d x %d | %.2f / %.2f |\n", l, nc, el,
        t, su / 1e3, du / 1e3, su / du, lo, hi, med(2) / nc, med(8) / nc, med(3) / nc, NR, x[1, 5], med(6), med(12) }' \
    "$log/rows.tmp"
}
echo
stamp "StarPU tasks: starquake-proxy ELEMENTS STEPS all $order $prec cpu TILE (lws), sparse against starquake-proxy-dense"
echo "| run | workers | elements | tile | sparse k upd/s | dense k upd/s (reference) | ratio of medians (range) | sparse GFLOP/s per core (dense count) | dense GFLOP/s per core (dense count) | sparse GFLOP/s per core (nz) | runs x steps | busy (sparse / dense) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for t in ${tiles//,/ }; do row tiles "$workers" "$elems" "$t" "$steps" "$reps"; done
first=${tiles%%,*}
row fused "$workers" "$elems" "$first" "$steps" "$reps" SQ_FUSE_PREDICTOR=1
row one-core 1 4374 "$first" "$steps" "$reps"
row short "$workers" 16k 1024 3 "$reps"
stamp "done"
