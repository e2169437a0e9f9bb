#!/bin/bash
# Real MPI runs (mpirun -np 1/2/4): with LTS (three clusters) and every METIS weighting, N ranks give
# bitwise the dofs of one rank (the halo carries exact copies; per-element arithmetic never depends on
# the partition).
set -u
SQ=${SQ_BIN:-./starquake}
CFG=${srcdir:-.}/tests/configs/lts.yaml
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN=${MPIRUN:-mpirun}
command -v "$MPIRUN" > /dev/null || { echo "mpirun not found: install openmpi-bin (./quickstart does)"; exit 1; }
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
hash_of() { grep '^dofs_hash:' "$1/lts-summary.txt" 2>/dev/null | awk '{print $2}'; }

"$SQ" "$CFG" --quiet --output "$OUT/single" || bad "single-process run"
ref=$(hash_of "$OUT/single")
echo "one-process reference $ref"
for np in 1 2 4; do
  for w in bw bwm encoded; do
    dir="$OUT/np$np-$w"
    timeout 300 "$MPIRUN" -np $np --oversubscribe "$SQ" "$CFG" --quiet --partition $w --output "$dir" > "$OUT/log" 2>&1
    rc=$?
    h=$(hash_of "$dir")
    if [ $rc -eq 0 ] && [ "$h" = "$ref" ]; then ok "np=$np partition=$w: $h"
    else bad "np=$np partition=$w: rc=$rc hash=${h:-none}"; tail -5 "$OUT/log"; fi
  done
done
# merged neighbour-cluster tasks across ranks, and several workers per rank
sed 's/merge_neighbor_clusters: false/merge_neighbor_clusters: true/' "$CFG" > "$OUT/merged.yaml"
STARPU_NCPU=2 timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$OUT/merged.yaml" --quiet --tile-size 16 --output "$OUT/merged" > "$OUT/log" 2>&1
h=$(hash_of "$OUT/merged")
[ "$h" = "$ref" ] && ok "np=2 merged, 2 workers, tile 16: $h" || { bad "np=2 merged: ${h:-none}"; tail -5 "$OUT/log"; }
# node-speed weights: each rank measures itself, METIS sizes the parts by it; the result is unchanged
sed 's/  merge_neighbor_clusters: false/  merge_neighbor_clusters: false\n  node_speed_weights: true/' "$CFG" > "$OUT/nsw.yaml"
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$OUT/nsw.yaml" --output "$OUT/nsw" > "$OUT/nsw.log" 2>&1
h=$(hash_of "$OUT/nsw")
[ "$h" = "$ref" ] && grep -q "node speed shares (measured)" "$OUT/nsw.log" && ok "np=2 node-speed weights: $h" || { bad "node-speed weights: ${h:-none}"; tail -5 "$OUT/nsw.log"; }
# the partition report names the imbalance and the edge cut
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$CFG" --output "$OUT/report" > "$OUT/report.log" 2>&1
grep -q "work imbalance .* edge cut" "$OUT/report.log" && ok "partition report" || bad "partition report missing"
[ "$(ls "$OUT/report" | wc -l)" -eq 2 ] && ok "only rank 0 writes files" || bad "unexpected files: $(ls "$OUT/report")"
# wavefield snapshots of MPI runs: rank 0 gathers every rank's cells; identical to one rank's file
sed 's/  prefix: lts/  prefix: lts\n  interval: 0.01\n  fields: [v1, v2, s_xx]/' "$CFG" > "$OUT/snap.yaml"
"$SQ" "$OUT/snap.yaml" --quiet --output "$OUT/snap1" > /dev/null 2>&1
timeout 300 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$OUT/snap.yaml" --quiet --output "$OUT/snap3" > "$OUT/snap.log" 2>&1
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  /usr/bin/python3 "${srcdir:-.}/tests/h5compare.py" "$OUT/snap1/lts-wavefield.h5" "$OUT/snap3/lts-wavefield.h5" > "$OUT/cmp.txt" 2>&1 &&
    cmp -s "$OUT/snap1/lts-wavefield.xdmf" "$OUT/snap3/lts-wavefield.xdmf" &&
    ok "np=3 wavefield snapshots = one rank's ($(cat "$OUT/cmp.txt"))" || bad "np=3 snapshots: $(cat "$OUT/cmp.txt")"
else
  echo "skip snapshot comparison (python3-h5py missing)"
fi
# MPI checkpoints: written by 2 ranks (rank 0 gathers), restarted on 3 ranks and on one process
printf 'checkpoint:\n  interval: 0.01\n' | cat "$OUT/snap.yaml" - > "$OUT/ck.yaml"
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/ck2" > "$OUT/ck.log" 2>&1
cp -r "$OUT/ck2" "$OUT/ck3" && cp -r "$OUT/ck2" "$OUT/ck1"
timeout 300 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/ck3" --restart "$OUT/ck3/lts-checkpoint.h5" >> "$OUT/ck.log" 2>&1
"$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/ck1" --restart "$OUT/ck1/lts-checkpoint.h5" >> "$OUT/ck.log" 2>&1
for r in ck3 ck1; do
  h=$(hash_of "$OUT/$r")
  if [ "$h" = "$ref" ] && cmp -s "$OUT/ck2/lts-energy.csv" "$OUT/$r/lts-energy.csv"; then
    ok "checkpoint of 2 ranks restarted on ${r#ck} rank(s): $h, energies equal"
  else bad "restart $r: hash ${h:-none}"; tail -3 "$OUT/ck.log"; fi
done
echo "mpi: $pass passed, $fail failed"
[ $fail -eq 0 ]
