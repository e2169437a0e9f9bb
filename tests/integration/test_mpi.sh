#!/bin/bash
# Real MPI runs (mpirun -np 1/2/4): with LTS (three clusters) and every METIS weighting, N ranks give
# bitwise the dofs of one rank (the halo carries exact copies; per-element arithmetic never depends on
# the partition).  Output under MPI is parallel HDF5 (every rank writes its own rows through MPI-IO):
# the files of N ranks read back (h5py) equal one rank's, checkpoints restart on other rank counts,
# and a file that cannot be created gives one error, not a hang.  A PUMGen mesh is read by blocks on 4
# ranks (no rank holds the whole mesh) and gives the files and dofs of one rank.
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/lts.yaml
tempdir OUT
allow_mpirun
MPIRUN=${MPIRUN:-mpirun}
command -v "$MPIRUN" > /dev/null || { echo "mpirun not found: install openmpi-bin (./quickstart does)"; exit 1; }

"$SQ" "$CFG" --quiet --output "$OUT/single" || bad "single-process run"
ref=$(hash_of "$OUT/single" lts)
echo "one-process reference $ref"
for np in 1 2 4; do
  for w in bw bwm encoded; do
    dir="$OUT/np$np-$w"
    timeout 300 "$MPIRUN" -np $np --oversubscribe "$SQ" "$CFG" --quiet --partition $w --output "$dir" > "$OUT/log" 2>&1
    rc=$?
    h=$(hash_of "$dir" lts)
    if [ $rc -eq 0 ] && [ "$h" = "$ref" ]; then ok "np=$np partition=$w: $h"
    else bad "np=$np partition=$w: rc=$rc hash=${h:-none}"; tail -5 "$OUT/log"; fi
  done
done
# merged neighbour-cluster tasks (predictors and corrections) across ranks, and several workers per rank
sed 's/merge_neighbor_clusters: false/merge_neighbor_clusters: true\n  merge_corrections: true/' "$CFG" > "$OUT/merged.yaml"
STARPU_NCPU=2 timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$OUT/merged.yaml" --quiet --tile-size 16 --output "$OUT/merged" > "$OUT/log" 2>&1
h=$(hash_of "$OUT/merged" lts)
[ "$h" = "$ref" ] && ok "np=2 merged, 2 workers, tile 16: $h" || { bad "np=2 merged: ${h:-none}"; tail -5 "$OUT/log"; }
# fused predictor and whole-step tasks, on 1 and 2 ranks (copy tiles keep separate tasks: their halo is
# packed between predictor and corrector); --trace (with --profile's report from every rank) counts the
# whole-step tasks after the first chunk, which must exist on one rank, and its per-task CSV must hold as many
sed 's/  merge_neighbor_clusters: false/  merge_neighbor_clusters: false\n  fuse_predictor: true\n  fuse_steps: true/' "$CFG" > "$OUT/fused.yaml"
for np in 1 2; do
  timeout 300 "$MPIRUN" -np $np --oversubscribe "$SQ" "$OUT/fused.yaml" --trace "$OUT/trace$np.csv" --tile-size 100000 --output "$OUT/fused$np" > "$OUT/fused.log" 2>&1
  h=$(hash_of "$OUT/fused$np" lts)
  nstep=$(awk '$1 == "step" && $3 == "tasks" {n += $2} END {print n + 0}' "$OUT/fused.log")
  traces=$OUT/trace$np.csv
  [ "$np" -eq 2 ] && traces="$OUT/trace$np.csv.0 $OUT/trace$np.csv.1"
  # shellcheck disable=SC2086 # two file names
  ntrace=$(cat $traces 2> /dev/null | grep -c '^step,')
  # (on 2 ranks every cluster-0 tile of this mesh is a copy tile: no whole steps, the same hash)
  [ "$h" = "$ref" ] && { [ "$np" -eq 2 ] || [ "$nstep" != 0 ]; } && [ "$ntrace" = "$nstep" ] &&
    ok "np=$np fused predictor + whole-step tasks where allowed ($nstep, each in the trace): $h" ||
    { bad "np=$np fused: hash ${h:-none}, step tasks $nstep, in the trace ${ntrace:-none}"; tail -5 "$OUT/fused.log"; }
  # each task's times in order: ready <= popped <= fetched <= start <= end (CPU workers take a task, then fetch)
  # shellcheck disable=SC2086
  unordered=$(cat $traces | awk -F, '/^[a-z_]+,[0-9]/ { if (NF != 11 || $9 > $10 + 0.001 || $10 > $11 + 0.001 ||
    $11 > $7 + 0.001 || $7 > $8 + 0.001) n++ } END { print n + 0 }')
  [ "$unordered" = 0 ] && ok "np=$np trace: ready, popped, fetched, start and end of every task in order" ||
    bad "np=$np trace: $unordered tasks whose ready, popped, fetched, start and end are out of order"
  # shellcheck disable=SC2086
  $PY "$SRC/tools/trace-gaps.py" $traces > "$OUT/gaps.log" 2>&1 && grep -q "busy .* idle" "$OUT/gaps.log" &&
    ok "np=$np trace-gaps.py reads the traces" || { bad "trace-gaps.py failed"; tail -3 "$OUT/gaps.log"; }
done
# node-speed weights: each rank measures itself, METIS sizes the parts by it; the result is unchanged
sed 's/  merge_neighbor_clusters: false/  merge_neighbor_clusters: false\n  node_speed_weights: true/' "$CFG" > "$OUT/nsw.yaml"
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$OUT/nsw.yaml" --output "$OUT/nsw" > "$OUT/nsw.log" 2>&1
h=$(hash_of "$OUT/nsw" lts)
[ "$h" = "$ref" ] && grep -q "node speed shares (measured)" "$OUT/nsw.log" && ok "np=2 node-speed weights: $h" || { bad "node-speed weights: ${h:-none}"; tail -5 "$OUT/nsw.log"; }
# the partition report names the imbalance and the edge cut
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$CFG" --output "$OUT/report" > "$OUT/report.log" 2>&1
grep -q "work imbalance .* edge cut" "$OUT/report.log" && ok "partition report" || bad "partition report missing"
[ "$(ls "$OUT/report" | tr "\n" " ")" = "lts-energy.csv lts-manifest.txt lts-summary.txt " ] && ok "only rank 0 writes files (energies, summary, manifest)" || bad "unexpected files: $(ls "$OUT/report")"
# wavefield snapshots of MPI runs: every rank writes its own cells (parallel HDF5); identical to one rank's file
sed 's/  prefix: lts/  prefix: lts\n  interval: 0.01\n  fields: [v1, v2, s_xx]/' "$CFG" > "$OUT/snap.yaml"
"$SQ" "$OUT/snap.yaml" --quiet --output "$OUT/snap1" > /dev/null 2>&1
timeout 300 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$OUT/snap.yaml" --output "$OUT/snap3" > "$OUT/snap.log" 2>&1
h5line=$(grep -o 'HDF5 [0-9.]* parallel (MPI-IO): each of the 3 ranks writes its own rows' "$OUT/snap.log")
[ -n "$h5line" ] && ok "np=3 start-up names the parallel HDF5: $h5line" ||
  { bad "np=3: no 'HDF5 ... parallel (MPI-IO)' line at start-up"; head -20 "$OUT/snap.log"; }
if $PY -c 'import h5py' 2>/dev/null; then
  $PY "$H5CMP" "$OUT/snap1/lts-wavefield.h5" "$OUT/snap3/lts-wavefield.h5" > "$OUT/cmp.txt" 2>&1 &&
    cmp -s "$OUT/snap1/lts-wavefield.xdmf" "$OUT/snap3/lts-wavefield.xdmf" &&
    ok "np=3 wavefield snapshots = one rank's ($(cat "$OUT/cmp.txt"))" || bad "np=3 snapshots: $(cat "$OUT/cmp.txt")"
else
  echo "skip snapshot comparison (python3-h5py missing)"
fi
# MPI checkpoints: written by 2 ranks (each its own rows), restarted on 3 ranks and on one process
printf 'checkpoint:\n  interval: 0.01\n' | cat "$OUT/snap.yaml" - > "$OUT/ck.yaml"
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/ck2" > "$OUT/ck.log" 2>&1
cp -r "$OUT/ck2" "$OUT/ck3" && cp -r "$OUT/ck2" "$OUT/ck1"
timeout 300 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/ck3" --restart "$OUT/ck3/lts-checkpoint.h5" >> "$OUT/ck.log" 2>&1
"$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/ck1" --restart "$OUT/ck1/lts-checkpoint.h5" >> "$OUT/ck.log" 2>&1
for r in ck3 ck1; do
  h=$(hash_of "$OUT/$r" lts)
  if [ "$h" = "$ref" ] && cmp -s "$OUT/ck2/lts-energy.csv" "$OUT/$r/lts-energy.csv"; then
    ok "checkpoint of 2 ranks restarted on ${r#ck} rank(s): $h, energies equal"
  else bad "restart $r: hash ${h:-none}"; tail -3 "$OUT/ck.log"; fi
done
# every HDF5 output of an MPI run, read back with h5py, equals one rank's (tests/configs/sources.yaml:
# receivers, wavefield, free surface, checkpoint); the checkpoint of 3 ranks restarted on 2 continues
# every file (the receivers' extendible datasets included) to the one-rank run's
SRC_CFG=$CONFIGS/sources.yaml
"$SQ" "$SRC_CFG" --quiet --output "$OUT/src1" > "$OUT/src.log" 2>&1
timeout 300 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$SRC_CFG" --quiet --partition bwm --output "$OUT/src3" >> "$OUT/src.log" 2>&1
cp -r "$OUT/src3" "$OUT/src2"
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$SRC_CFG" --quiet --output "$OUT/src2" \
  --restart "$OUT/src2/src-checkpoint.h5" >> "$OUT/src.log" 2>&1
sed 's/  surface: true/  surface: true\n  vertex_values: true/' "$SRC_CFG" > "$OUT/vertex.yaml"
"$SQ" "$OUT/vertex.yaml" --quiet --output "$OUT/vtx1" >> "$OUT/src.log" 2>&1
timeout 300 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$OUT/vertex.yaml" --quiet --output "$OUT/vtx3" >> "$OUT/src.log" 2>&1
if $PY -c 'import h5py' 2>/dev/null; then
  same=1
  for h in receivers wavefield surface checkpoint; do
    $PY "$H5CMP" "$OUT/src1/src-$h.h5" "$OUT/src3/src-$h.h5" > "$OUT/cmp.txt" 2>&1 ||
      { same=0; echo "  np=3 src-$h.h5: $(cat "$OUT/cmp.txt")"; }
    [ $h = checkpoint ] && continue
    $PY "$H5CMP" "$OUT/src1/src-$h.h5" "$OUT/src2/src-$h.h5" > "$OUT/cmp.txt" 2>&1 ||
      { same=0; echo "  restart 3 -> 2 src-$h.h5: $(cat "$OUT/cmp.txt")"; }
  done
  for f in "$OUT"/src1/src-receiver-*.dat "$OUT/src1/src-energy.csv" "$OUT"/src1/*.xdmf; do
    cmp -s "$f" "$OUT/src3/$(basename "$f")" && cmp -s "$f" "$OUT/src2/$(basename "$f")" || { same=0; echo "  $(basename "$f") differs"; }
  done
  [ $same = 1 ] && ok "np=3 receivers/wavefield/surface/checkpoint HDF5 = one rank's; restarted on 2 ranks = uninterrupted" ||
    { bad "np=3 HDF5 outputs or the 3 -> 2 restart differ"; tail -3 "$OUT/src.log"; }
  # checkpoint attributes (metadata written collectively) and vertex values: the same as one rank's;
  # vertex averages combine the ranks' sums, so they may differ from one rank's in the last bits only
  if $PY - "$OUT" > "$OUT/cmp.txt" 2>&1 <<'PY'
import sys, h5py, numpy as np
out = sys.argv[1]
a, b = h5py.File(out + "/src1/src-checkpoint.h5", "r"), h5py.File(out + "/src3/src-checkpoint.h5", "r")
assert dict(a.attrs) == dict(b.attrs), "checkpoint attributes differ"
a, b = h5py.File(out + "/vtx1/src-wavefield.h5", "r"), h5py.File(out + "/vtx3/src-wavefield.h5", "r")
assert sorted(a) == sorted(b), "other groups"
worst = 0.0
for g in a:
    for k in a[g]:
        x, y = a[g][k][()], b[g][k][()]
        assert x.shape == y.shape, g + "/" + k
        if g == "mesh":
            assert np.array_equal(x, y), g + "/" + k
        else:
            worst = max(worst, float(np.max(np.abs(x - y)) / max(1.0, float(np.max(np.abs(x))))))
assert worst < 1e-12, "vertex values differ by %g" % worst
print("vertex values within %.1e of one rank's" % worst)
PY
  then ok "np=3 checkpoint attributes = one rank's; $(cat "$OUT/cmp.txt")"
  else bad "np=3 checkpoint attributes / vertex values: $(tail -1 "$OUT/cmp.txt")"; fi
else
  echo "skip HDF5 comparisons (python3-h5py missing)"
fi
# plasticity: the checkpoint's /plastic_strain, written by 3 ranks, equals one rank's; restarted on 2
# ranks, the run ends with the uninterrupted run's dofs and plastic strain
PL_CFG=$CONFIGS/plasticity.yaml
pl_hashes() { grep -E '^(dofs|plastic_strain)_hash:' "$1/plast-summary.txt" 2>/dev/null | tr '\n' ' '; }
"$SQ" "$PL_CFG" --quiet --output "$OUT/pl1" > "$OUT/pl.log" 2>&1
timeout 300 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$PL_CFG" --quiet --output "$OUT/pl3" >> "$OUT/pl.log" 2>&1
cp -r "$OUT/pl3" "$OUT/pl2"
timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$PL_CFG" --quiet --output "$OUT/pl2" \
  --restart "$OUT/pl2/plast-checkpoint.h5" >> "$OUT/pl.log" 2>&1
ref_pl=$(pl_hashes "$OUT/pl1")
if [ -n "$ref_pl" ] && [ "$(pl_hashes "$OUT/pl2")" = "$ref_pl" ] &&
   { ! $PY -c 'import h5py' 2>/dev/null ||
     $PY "$H5CMP" "$OUT/pl1/plast-checkpoint.h5" "$OUT/pl3/plast-checkpoint.h5" > /dev/null 2>&1; }
then ok "plasticity: checkpoint of 3 ranks (dofs, plastic strain) = one rank's, restarted on 2 = uninterrupted"
else bad "plasticity checkpoint under MPI: ${ref_pl:-no reference} vs $(pl_hashes "$OUT/pl2")"; tail -3 "$OUT/pl.log"; fi
# a collective HDF5 create that fails (the snapshot file's path is a directory): one message, no hang
mkdir -p "$OUT/fail/lts-wavefield.h5"
timeout 120 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$OUT/snap.yaml" --quiet --output "$OUT/fail" > "$OUT/fail.log" 2>&1
rc=$?
n=$(grep -c '^starquake: error: cannot create the snapshot file' "$OUT/fail.log")
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$n" -eq 1 ] && [ "$(grep -c '^starquake: error:' "$OUT/fail.log")" -eq 1 ]; then
  ok "np=3 failing HDF5 create: exit $rc, one message"
else bad "np=3 failing HDF5 create: rc=$rc, $n messages"; tail -5 "$OUT/fail.log"; fi
# a real PUMGen mesh read by blocks: every rank reads its rows of the PUML file, and after the
# partition holds its own cells and their face neighbours only; the run equals one rank's bitwise
MESH=$SRC/../shared/meshes/tpv13_training.puml.h5
if [ -r "$MESH" ]; then
  MESH=$(cd "$(dirname "$MESH")" && pwd)/$(basename "$MESH")
  sed -e "s|file: .*tpv13_training.puml.h5|file: $MESH|" -e 's|^  order: 4|  order: 2|' -e 's|^  end_time: 8.0|  end_time: 0.05|' \
      -e 's|^  output_interval: 0.5|  output_interval: 0.025|' -e 's|^  interval: 1.0|  interval: 0.025|' \
      "$SRC/configs/tpv13/tpv13_puml.yaml" > "$OUT/puml.yaml"
  STARPU_NCPU=1 "$SQ" "$OUT/puml.yaml" --quiet --output "$OUT/puml1" > "$OUT/puml1.log" 2>&1
  STARPU_NCPU=1 timeout 300 "$MPIRUN" -np 4 --oversubscribe "$SQ" "$OUT/puml.yaml" --verbose --output "$OUT/puml4" \
    > "$OUT/puml4.log" 2>&1
  h1=$(hash_of "$OUT/puml1" tpv13_puml) h4=$(hash_of "$OUT/puml4" tpv13_puml)
  # "starquake: rank R holds N cells (owned + ghost) of TOTAL (read by blocks)", one line a rank
  held=$(grep -E '^starquake: rank [0-9]+ holds [0-9]+ cells \(owned \+ ghost\) of [0-9]+ \(read by blocks\)' "$OUT/puml4.log")
  small=$(echo "$held" | awk '$5 + 0 < $11 + 0 { n++ } END { print n + 0 }')
  same=1
  command -v h5diff > /dev/null || { echo "skip PUML file comparisons (h5diff missing: hdf5-tools)"; same=1; }
  command -v h5diff > /dev/null && for f in wavefield fault receivers; do
    h5diff "$OUT/puml1/tpv13_puml-$f.h5" "$OUT/puml4/tpv13_puml-$f.h5" > /dev/null 2>&1 || same=0
  done
  if [ -n "$h1" ] && [ "$h1" = "$h4" ] && [ "$small" -eq 4 ] && [ $same -eq 1 ]; then
    ok "PUML tpv13 read by blocks, np=4 = np=1: $h4; snapshots, fault, receivers identical; $(echo "$held" | awk '{ printf "%s%s", sep, $5; sep = "/" } END { print " of " $11 " cells held" }')"
  else
    bad "PUML tpv13 by blocks: hashes ${h1:-none} / ${h4:-none}, $small of 4 ranks hold less than the mesh, files identical: $same"
    echo "$held"; tail -5 "$OUT/puml4.log"
  fi
else
  echo "skip PUML by blocks ($MESH missing)"
fi
# errors every rank meets alike (configuration, the whole mesh, points located together) are printed
# once, by rank 0, not once per rank
# one_error NAME PATTERN: run tests/configs/mpi_NAME.yaml (dashes as underscores; @MESH@ is a bad mesh)
BADMSH=$(cd "$SRC/tests/bad_inputs" && pwd)/msh_nan_coordinate.msh
one_error() {
  sed "s|@MESH@|$BADMSH|" "$CONFIGS/mpi_${1//-/_}.yaml" > "$OUT/$1.yaml"
  STARPU_NCPU=1 timeout 120 "$MPIRUN" -np 3 --oversubscribe "$SQ" "$OUT/$1.yaml" --output "$OUT/$1" > "$OUT/$1.log" 2>&1
  local st=$? n
  n=$(grep -c "starquake: error" "$OUT/$1.log")
  if [ $st -ne 0 ] && [ "$n" = 1 ] && grep -q "$2" "$OUT/$1.log"; then ok "np=3 $1: one message"
  else bad "np=3 $1: exit $st, $n error messages"; grep "error" "$OUT/$1.log"; fi
}
one_error config-error "receivers.interval': required key is missing"
one_error receiver-outside "receiver 2 at (5, 0.5, 0.5) lies outside the mesh"
one_error mesh-error "msh_nan_coordinate.msh"
report mpi
