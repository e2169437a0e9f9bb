#!/usr/bin/env bash
# tests/bench/device/tpv5_1m.sh [MESH]: SCEC TPV5 with about a million elements at order 6 in single precision on
# one GPU (every task on it: STARPU_NCPU=0), against the SeisSol GPU thesis's figure for its one-million-element
# TPV5 mesh with almost 50 thousand fault faces on an A100 (Table 7.1: 88.4 s elapsed for the first 1000 time
# steps, the best of its codes).
# MESH (default configs/tpv5/tpv5-1m.msh, or MESH.xz beside it, unpacked here) is made with
#   gmsh -3 -setnumber h_fault 145 -setnumber growth 0.11 -algo hxt -nt 1 -format msh22 -bin \
#        -o configs/tpv5/tpv5-1m.msh configs/tpv5/tpv5.geo
# (1 024 692 tetrahedra, 49 720 fault faces, smallest insphere diameter 26.3 m; `starquake mesh info` checks
# it; 12 MB with xz).  Two runs of configs/tpv5/tpv5.yaml with order 6, single precision and that mesh, both
# with --profile, no volume output, the fault output and the on-fault stations of the configuration kept:
#   1. the first 1000 time steps with global time stepping (equations.lts.max_clusters 1; end time 999.5 dt,
#      dt from the mesh's smallest insphere as the solver computes it); SQ_GTS_LIMIT seconds at most (300; 0 skips it);
#   2. the whole 12 s with local time stepping (rate 2); SQ_LTS_LIMIT seconds at most (default 360): a run
#      cut short prints its progress and its ETA.
# Tiles: SQ_GTS_TILE (default 65536) and SQ_LTS_TILE (default 16384) elements.  Writes $OUT/tpv5-1m-{gts,lts}/
# and the logs $OUT/{gts,lts}.log.
set -u
. tests/bench/device/env.sh
MESH=${1:-configs/tpv5/tpv5-1m.msh}
[ -f "$MESH" ] || { [ -f "$MESH.xz" ] && xz -dk -T0 "$MESH.xz"; } || { echo "tpv5_1m.sh: no $MESH" >&2; exit 1; }
export STARPU_NCPU=0 STARPU_NCUDA=1
SQ="$CARRY/bin/starquake"
D=$(dirname "$MESH")
sed -e "s|^  file: .*|  file: $(basename "$MESH")|" -e 's/^  order: 4/  order: 6\n  precision: single/' \
  configs/tpv5/tpv5.yaml > "$D/tpv5-1m.yaml"
nvidia-smi --query-gpu=name --format=csv,noheader
"$SQ" mesh info "$MESH" > "$D/tpv5-1m.info"
grep -E "^cells|insphere|dynamic rupture" "$D/tpv5-1m.info"
# the global time step: dt = cfl insphere_min / ((2 N + 1) vp), N = order - 1, cfl 0.5 (src/solver.c)
read -r rmin vp <<< "$(awk '/insphere diameter/ { print $3 }' "$D/tpv5-1m.info") $(awk 'BEGIN {
  print sqrt((32043759360 + 2 * 32038120320) / 2670) }')"
end=$(awk -v d="$rmin" -v v="$vp" 'BEGIN { printf "%.9g", 999.5 * 0.5 * d / (11 * v) }')
O=${OUT:-/tmp}
mkdir -p "$O"
if [ "${SQ_GTS_LIMIT:-300}" != 0 ]; then
  T0=$(date +%s.%N)
  timeout "${SQ_GTS_LIMIT:-300}" "$SQ" "$D/tpv5-1m.yaml" --set equations.lts.max_clusters=1 --set equations.end_time="$end" \
    --set output.interval=0 --profile --tile-size "${SQ_GTS_TILE:-65536}" --output "$O/tpv5-1m-gts" > "$O/gts.log" 2>&1
  rc=$? T1=$(date +%s.%N)
  grep -E "^  (tiles|dt|memory|set-up|plan)|^done:|^rupture:|^  task|^    [a-z]+ +[0-9]+ tasks|^    worker" "$O/gts.log"
  # "done: N steps in S s (...)": the time stepping's seconds, beside the whole process's
  read -r steps secs <<< "$(sed -n 's/^done: \([0-9]*\) steps in \([0-9.]*\) s.*/\1 \2/p' "$O/gts.log")"
  printf '\n%-50s %12s %12s %8s\n' "TPV5, 1M elements, order 6 single, rc $rc" starquake "A100 (thesis)" ratio
  awk -v t="${secs:-0}" -v w="$(awk -v a="$T0" -v b="$T1" 'BEGIN { print b - a }')" -v s="${steps:-0}" 'BEGIN {
    printf "%-50s %11.1fs %11.1fs %7.2fx\n", "first " s " steps, GTS, time stepping", t, 88.4, 88.4 / t
    printf "%-50s %11.1fs %11.1fs %7.2fx\n", "the same, whole process with set-up", w, 88.4, 88.4 / w }'
fi
T2=$(date +%s)
timeout "${SQ_LTS_LIMIT:-360}" "$SQ" "$D/tpv5-1m.yaml" --set output.interval=0 --profile --tile-size "${SQ_LTS_TILE:-16384}" \
  --output "$O/tpv5-1m-lts" > "$O/lts.log" 2>&1
rc=$?
echo "12 s with LTS: rc=$rc after $(($(date +%s) - T2)) s (whole process)"
grep -E "^  set-up" "$O/lts.log"
sed -n '/^  clusters/,/^  plan/p' "$O/lts.log"
grep -E "^done:|^rupture:|^  task|^    [a-z]+ +[0-9]+ tasks|^    worker" "$O/lts.log"
grep "^progress" "$O/lts.log" | tail -n 2
rm -f "$O"/tpv5-1m-*/*checkpoint.h5*
