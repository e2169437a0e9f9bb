#!/usr/bin/env bash
# tests/bench/device/cpu_bench.sh: CPU-only measurements on the GPU host's 16 cores (no GPU is used), run
# from the repository root after tests/bench/device/prepare.sh (carry .deps/starpu and .deps/carry):
#   1. the LTS "type 1-6" table (tests/bench/lts_types.sh ORDER CELLS_XY NSYNC), 16 CPU workers;
#   2. the order-6 LTS/GTS plane-wave row of docs/VERIFICATION.md: `starquake verify planewave
#      --order 6 --graded --meshes 4,8 --cfl 0.25`, LTS (rate 2) and GTS side by side, 8 workers each.
# Logs go to $OUT (or /tmp/sq-cpu); the tables are printed last.
#
#   cpu_bench.sh sparsity [WORKERS]: instead, the sparse CPU kernels against the dense reference plan on every core
#   (tests/bench/cpu_sparsity_workers.sh, docs/PERFORMANCE.md "CPU codelets") with the programs of a carry folder
#   staged here, from a built tree (CPU-only is enough), by `cpu_bench.sh --stage DIR` (cpu-sparsity,
#   starquake-proxy, starquake-proxy-dense and the libraries they load; carry DIR and .deps/starpu, and run it
#   there with SQ_CARRY=DIR); its logs come back as $OUT/sparsity_logs.tar.gz.
if [ "${1:-}" = --stage ]; then
  set -eu
  dest=${2:?"cpu_bench.sh --stage DIR"}
  . tests/bench/device/libs.sh
  rm -rf "${dest:?}/bin" "${dest:?}/lib"
  mkdir -p "$dest/bin"
  cp tests/bench/cpu-sparsity starquake-proxy tests/bench/starquake-proxy-dense "$dest/bin/"
  strip "$dest"/bin/*
  sq_libs_collect "$dest/lib" "$dest"/bin/*
  du -sh "$dest"
  exit 0
fi
if [ "${1:-}" = sparsity ]; then
  shift
  . tests/bench/device/env.sh
  log=/tmp/sq-cpu-sparsity
  rm -rf "$log"
  SQ_BIN=$CARRY/bin SQ_LOG=$log bash tests/bench/cpu_sparsity_workers.sh "$@"
  { lscpu; lscpu -e; } > "$log/lscpu.txt" 2>&1
  [ -n "${OUT:-}" ] && tar -czf "$OUT/sparsity_logs.tar.gz" -C "$(dirname "$log")" "$(basename "$log")"
  exit 0
fi
set -u
. tests/bench/device/env.sh
export STARPU_NCUDA=0
LOG=${OUT:-/tmp/sq-cpu}
mkdir -p "$LOG"
T0=$(date +%s)
{ date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread"; } | tee "$LOG/env.txt"
echo "[$(($(date +%s) - T0)) s] order-6 LTS and GTS verification (8 workers each)"
STARPU_NCPU=8 timeout 500 "$CARRY/bin/starquake" verify planewave --order 6 --graded --meshes 4,8 --lts-rate 2 \
  --end-time 0.05 --cfl 0.25 --json > "$LOG/o6_lts.json" 2> "$LOG/o6_lts.err" &
STARPU_NCPU=8 timeout 500 "$CARRY/bin/starquake" verify planewave --order 6 --graded --meshes 4,8 --lts-rate 1 \
  --end-time 0.05 --cfl 0.25 --json > "$LOG/o6_gts.json" 2> "$LOG/o6_gts.err" &
wait
echo "[$(($(date +%s) - T0)) s] LTS types, 16 workers"
STARPU_NCPU=16 SQ_BIN=$CARRY/bin/starquake timeout $((560 - ($(date +%s) - T0))) \
  bash tests/bench/lts_types.sh "${SQ_LTS_ORDER:-4}" "${SQ_LTS_CELLS:-8}" "${SQ_LTS_NSYNC:-2}" > "$LOG/lts_types.txt" 2>&1
echo "[$(($(date +%s) - T0)) s] done"
echo "== order 6 (LTS rate 2, then GTS)"
cat "$LOG/o6_lts.json" "$LOG/o6_gts.json"
tail -n 3 "$LOG/o6_lts.err" "$LOG/o6_gts.err" 2>/dev/null
echo "== LTS types"
tail -n 12 "$LOG/lts_types.txt"
