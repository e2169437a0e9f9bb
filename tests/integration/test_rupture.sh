#!/bin/bash
# Dynamic rupture end to end on the CI-sized TPV5 / TPV101 / TPV104 meshes made by the
# real gmsh from configs/*/*.geo (fault elements of 3 km, order 3, 1-1.5 s):
# - the serial reference equals the StarPU run bitwise (GTS); merged neighbour-cluster tasks change
#   nothing (LTS); mpirun -np 3 / 4 with fault faces across ranks gives the one-rank dofs, cplot and
#   station files bitwise, and its fault XDMF/HDF5 (each rank writes its own faces: parallel HDF5) reads
#   back equal;
# - the outputs exist and hold what they should (SCEC station header and columns, SeisSol fault
#   receivers, cplot, fault XDMF/HDF5, frictional work and seismic moment in the energies);
# - TPV101 (aging) and TPV104 (fast velocity weakening) nucleate;
# - bad fault inputs fail with messages naming the file, line and value.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir OUT
allow_mpirun
need_gmsh
fault_mesh "$SRC/configs/tpv5/tpv5.geo" "$OUT/tpv5.msh"
fault_mesh "$SRC/configs/tpv101/tpv101.geo" "$OUT/tpv101.msh"
for sc in tpv5 tpv101 tpv104; do
  m=$sc; [ $sc = tpv104 ] && m=tpv101
  sed -e "s/file: $sc.msh/file: $m.msh/" -e 's/end_time: [0-9.]*/end_time: 1.0/' -e 's/order: 4/order: 3/' \
    "$SRC/configs/$sc/$sc.yaml" > "$OUT/$sc.yaml"
done
cfg=$OUT/tpv5.yaml

# --- the LTS run and its outputs
"$SQ" "$cfg" --quiet --output "$OUT/lts" > "$OUT/lts.log" 2>&1 || { bad "TPV5 LTS run"; tail -5 "$OUT/lts.log"; }
ref=$(hash_of "$OUT/lts" tpv5)
echo "TPV5 (LTS, one process) dofs hash $ref"
st=$OUT/lts/tpv5-faultst000dp075
if grep -q '^t h-slip h-slip-rate h-shear-stress v-slip v-slip-rate v-shear-stress n-stress$' "$st" &&
   grep -q '^# Column #8 = normal stress (MPa)' "$st"; then ok "SCEC station file header"; else bad "SCEC station header"; fi
# the nucleation patch slips at once: 81.6 MPa of shear against 0.677 x 120 MPa of strength
awk '!/^#/ && NF == 8 && $1 != "t" { n++; if ($3 > 0.1) s = 1; if ($4 > 81.61 || $4 < 60) badv = 1 }
     END { exit !(n > 20 && s && !badv) }' "$st" && ok "hypocentre station slips, traction between 60 and 81.6 MPa" ||
  bad "hypocentre station values"
rows=$(grep -c '^[0-9-]' "$OUT/lts/tpv5-faultreceiver-00001.dat")
[ "$rows" -gt 20 ] && ok "SeisSol-format fault receiver: $rows rows (every step of the fault's cluster)" || bad "fault receiver rows: $rows"
[ "$(grep -c '^[0-9-]' "$OUT/lts/tpv5-cplot")" -gt 10 ] && ok "cplot holds rupture times" || bad "cplot empty"
awk -F, 'NR == 1 { ok = ($5 == "frictional_work" && $6 == "seismic_moment") } END { exit !(ok && $5 > 0 && $6 > 0) }' \
  "$OUT/lts/tpv5-energy.csv" && ok "frictional work and seismic moment in the energies" || bad "energy columns"
if [ -s "$OUT/lts/tpv5-fault.h5" ] && grep -q 'rupture_velocity' "$OUT/lts/tpv5-fault.xdmf"; then ok "fault XDMF/HDF5"
else bad "fault XDMF/HDF5"; fi

# --- GTS: serial reference == StarPU, bitwise
sed 's/lts: {rate: 2}/lts: {rate: 1}/' "$cfg" > "$OUT/gts.yaml"
"$SQ" "$OUT/gts.yaml" --quiet --serial --output "$OUT/serial" > /dev/null 2>&1
"$SQ" "$OUT/gts.yaml" --quiet --tile-size 64 --output "$OUT/gts" > /dev/null 2>&1
a=$(hash_of "$OUT/serial" tpv5) b=$(hash_of "$OUT/gts" tpv5)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "GTS: serial reference = task graph ($a)" || bad "serial $a != graph $b"
cmp -s "$OUT/serial/tpv5-faultst000dp075" "$OUT/gts/tpv5-faultst000dp075" && ok "GTS: station files equal" || bad "GTS station files differ"

# --- merged neighbour-cluster tasks, other tile sizes and worker counts
sed 's/  tile_size: 256/  tile_size: 256\n  merge_neighbor_clusters: true/' "$cfg" > "$OUT/merged.yaml"
STARPU_NCPU=2 "$SQ" "$OUT/merged.yaml" --quiet --tile-size 32 --output "$OUT/merged" > /dev/null 2>&1
h=$(hash_of "$OUT/merged" tpv5)
[ "$h" = "$ref" ] && ok "LTS with merged tasks, 2 workers, tile 32 = reference" || bad "merged: $h"

# --- MPI: fault faces across ranks are solved on both sides, identically
peak_lines() { grep -E '^(peak_slip|peak_slip_position|peak_face_slip):' "$1/tpv5-summary.txt"; }
for run in "3 bwm" "4 bwm" "4 encoded"; do
  set -- $run
  timeout 300 mpirun -np $1 --oversubscribe "$SQ" "$cfg" --partition $2 --output "$OUT/np$1$2" > "$OUT/np.log" 2>&1
  rc=$? h=$(hash_of "$OUT/np$1$2" tpv5)
  across=$(grep -o '([0-9]* across ranks)' "$OUT/np.log" | tr -dc '0-9')
  if [ $rc -eq 0 ] && [ "$h" = "$ref" ] && cmp -s "$OUT/lts/tpv5-cplot" "$OUT/np$1$2/tpv5-cplot" &&
     cmp -s "$st" "$OUT/np$1$2/tpv5-faultst000dp075" && cmp -s "$OUT/lts/tpv5-fault.xdmf" "$OUT/np$1$2/tpv5-fault.xdmf" &&
     $PY "$H5CMP" "$OUT/lts/tpv5-fault.h5" "$OUT/np$1$2/tpv5-fault.h5" > /dev/null 2>&1 &&
     [ "$(peak_lines "$OUT/lts" | wc -l)" = 3 ] && [ "$(peak_lines "$OUT/lts")" = "$(peak_lines "$OUT/np$1$2")" ]
  then ok "mpirun -np $1 ($2, ${across:-?} faces across ranks) = one rank (dofs, cplot, station, fault HDF5, peak slip and where)"
  else bad "mpirun -np $1 $2: rc=$rc hash=${h:-none}"; tail -3 "$OUT/np.log"; fi
done

# --- restart: the friction state and the fault outputs continue bitwise (checkpoint at t = 0.5 of 1)
printf 'checkpoint:\n  interval: 0.5\n' | cat "$cfg" - > "$OUT/ck.yaml"
"$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/A" > /dev/null 2>&1 && cp -r "$OUT/A" "$OUT/B" &&
  "$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/B" --restart "$OUT/B/tpv5-checkpoint.h5" > "$OUT/B.log" 2>&1
same_outputs "$OUT/A" "$OUT/B" && [ "$(hash_of "$OUT/A" tpv5)" = "$ref" ] && ok "restart with a fault: every file equals the uninterrupted run's" ||
  { bad "restart with a fault"; tail -3 "$OUT/B.log"; }
# the fault checkpoint of a run without thermal pressurization and regularisation: 13 state values per point, no more
# datasets (the layout from before those existed; io/fault_output.c)
layout=$($PY -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); print(" ".join(f"{k}{list(f[k].shape)}" for k in sorted(f)))' \
  "$OUT/A/tpv5-checkpoint.h5.fault" 2>&1)
[[ "$layout" =~ ^gid\[[0-9]+\]\ snapshots\[1\]\ state\[[0-9]+,\ 13\]\ station_next\[[0-9]+\]\ station_rows\[[0-9]+\]\ step\[1\]$ ]] &&
  ok "fault checkpoint without thermal pressurization: $layout" || bad "fault checkpoint layout: $layout"

# --- MPI restart: a checkpoint of 3 ranks (faces across ranks) restarted on 4 equals the one-rank run
timeout 300 mpirun -np 3 --oversubscribe "$SQ" "$OUT/ck.yaml" --quiet --partition bwm --output "$OUT/M" > "$OUT/M.log" 2>&1 &&
  timeout 300 mpirun -np 4 --oversubscribe "$SQ" "$OUT/ck.yaml" --quiet --partition bwm --output "$OUT/M" \
    --restart "$OUT/M/tpv5-checkpoint.h5" >> "$OUT/M.log" 2>&1
same_outputs "$OUT/A" "$OUT/M" && ok "MPI restart with a fault: checkpoint of 3 ranks, restarted on 4, equals the one-rank run" ||
  { bad "MPI restart with a fault"; tail -3 "$OUT/M.log"; }

# --- a station on a mesh vertex that fault faces of several ranks share: exactly one rank logs it, at
# the face one rank would choose (smallest cell, face key), so the file equals the one-rank file
sed -e 's/end_time: 3.0/end_time: 0.5/' -e 's/  output_interval: 3.0/  output_interval: 3.0\n  stations: [[0, 0, -4500]]/' \
  "$CONFIGS/rupture_box.yaml" > "$OUT/vst.yaml"
"$SQ" "$OUT/vst.yaml" --quiet --output "$OUT/vst1" > "$OUT/vst.log" 2>&1
timeout 300 mpirun -np 4 --oversubscribe "$SQ" "$OUT/vst.yaml" --quiet --output "$OUT/vst4" >> "$OUT/vst.log" 2>&1
st1=$(ls "$OUT/vst1" | grep -c faultst) st4=$(ls "$OUT/vst4" | grep -c faultst)
f=$(ls "$OUT/vst1" | grep faultst | head -n 1)
if [ "$st1" = 1 ] && [ "$st4" = 1 ] && [ -n "$f" ] && cmp -s "$OUT/vst1/$f" "$OUT/vst4/$f"; then
  ok "station on a vertex shared across ranks: one file, np=4 = one rank ($(grep -c '^[0-9-]' "$OUT/vst1/$f") rows)"
else bad "station on a shared vertex: files $st1 / $st4"; tail -3 "$OUT/vst.log"; fi

# --- rate-and-state laws nucleate
for sc in tpv101 tpv104; do
  "$SQ" "$OUT/$sc.yaml" --quiet --output "$OUT/$sc" > "$OUT/$sc.log" 2>&1 || { bad "$sc run"; tail -3 "$OUT/$sc.log"; continue; }
  psr=$(tail -1 "$OUT/$sc/$sc-faultreceiver-00001.dat" | awk '{print $12}')
  awk -v p="$psr" 'BEGIN { exit !(p > 0.1) }' && ok "$sc nucleates: peak slip rate $psr m/s at the hypocentre" ||
    bad "$sc: peak slip rate $psr"
  grep -q ' psi$' "$OUT/$sc/$sc-faultst000dp075" && ok "$sc: SCEC files carry psi" || bad "$sc: no psi column"
done

# --- symmetry: a TPV5-like fault on a mirror-symmetric box mesh, nucleated symmetrically about x = 0
"$SQ" "$CONFIGS/rupture_box.yaml" --quiet --output "$OUT/sym" > "$OUT/sym.log" 2>&1 || { bad "symmetric run"; tail -3 "$OUT/sym.log"; }
if $PY -c 'import h5py' 2>/dev/null; then
  if $PY "$SRC/tests/integration/rupture_symmetry.py" "$OUT/sym/sym-fault.h5" --tol 0.01 --min-faces 60 > "$OUT/sym.txt"; then
    ok "symmetry: $(cat "$OUT/sym.txt")"
  else bad "symmetry: $(cat "$OUT/sym.txt")"; fi
else
  echo "skip symmetry check (python3-h5py missing)"
fi

# --- plots (when matplotlib and h5py are installed)
if $PY -c 'import matplotlib, h5py' 2>/dev/null; then
  $PY "$SRC/tools/plot_fault.py" snapshots "$OUT/lts/tpv5-fault.h5" -o "$OUT/sr.png" > /dev/null 2>&1 &&
    $PY "$SRC/tools/plot_fault.py" stations "$OUT/lts/tpv5" -o "$OUT/st.png" > /dev/null 2>&1 &&
    $PY "$SRC/tools/plot_fault.py" cplot "$OUT/lts/tpv5-cplot" -o "$OUT/cp.png" > /dev/null 2>&1 &&
    [ -s "$OUT/sr.png" ] && [ -s "$OUT/st.png" ] && [ -s "$OUT/cp.png" ] && ok "tools/plot_fault.py: 3 PNGs" ||
    bad "tools/plot_fault.py"
else
  echo "skip plots (python3-matplotlib / python3-h5py missing)"
fi

# --- bad inputs
expect() { # name, config, text...
  local name=$1 c=$2; shift 2
  "$SQ" "$c" --quiet --output "$OUT/bad" > "$OUT/bad.log" 2>&1 && { bad "$name: accepted"; return; }
  for t in "$@"; do grep -qF -- "$t" "$OUT/bad.log" || { bad "$name: no '$t' in: $(head -3 "$OUT/bad.log")"; return; }; done
  ok "$name: $(grep -m1 error "$OUT/bad.log" | cut -c1-150)"
}
sed 's/  d_c: 0.4/  d_c: -0.4/' "$cfg" > "$OUT/b1.yaml"
expect "negative d_c" "$OUT/b1.yaml" "b1.yaml:" "d_c = -0.4 must be > 0"
sed 's/  mu_d: 0.525/  mu_d: 0.8/' "$cfg" > "$OUT/b2.yaml"
expect "mu_d > mu_s" "$OUT/b2.yaml" "b2.yaml:" "mu_d = 0.8 is larger than mu_s = 0.677"
sed 's/  d_c: 0.4/  d_c: "0.4 - (x > 5000)"/' "$cfg" > "$OUT/b3.yaml"
expect "d_c expression negative on part of the fault" "$OUT/b3.yaml" "b3.yaml:" "fault point (" "d_c = -0.6 must be > 0"
sed 's/    - \[0, 0, -7500\]/    - [0, 2000, -7500]/' "$cfg" > "$OUT/b4.yaml"
expect "station off the fault" "$OUT/b4.yaml" "b4.yaml:" "fault.stations[0] (0, 2000, -7500) is not on the fault" "m away"
sed 's/  a: .*/  a: "0.008 + exq(x)"/' "$OUT/tpv101.yaml" > "$OUT/b5.yaml"
expect "expression typo" "$OUT/b5.yaml" "b5.yaml:" "unknown function 'exq'" "did you mean 'exp'"
sed 's/  friction_law: linear_slip_weakening/  friction_law: slip_weakening/' "$cfg" > "$OUT/b6.yaml"
expect "unknown friction law" "$OUT/b6.yaml" "b6.yaml:" "linear_slip_weakening"
sed 's/  cohesion: 0/  cohesion: -0.2e6/' "$cfg" > "$OUT/b7.yaml"
expect "negative cohesion (SeisSol sign)" "$OUT/b7.yaml" "b7.yaml:" "cohesion = -200000 must be >= 0" "0.2e6 here"
sed 's/  d_c: 0.4/  d_c: 0.4\n  a: 0.01/' "$cfg" > "$OUT/b8.yaml"
expect "a key the law does not read" "$OUT/b8.yaml" "b8.yaml:" "fault.a" "is not used by the friction law linear_slip_weakening"
sed -e 's/  type: gmsh/  type: box/' -e 's/  file: tpv5.msh/  box: {cells: [4, 4, 2], lo: [-30000, -30000, -30000], hi: [30000, 30000, 0], boundary: {xmin: absorbing, xmax: absorbing, ymin: absorbing, ymax: absorbing, zmin: absorbing, zmax: free_surface}}/' \
  "$cfg" > "$OUT/b9.yaml"
expect "friction law without fault faces" "$OUT/b9.yaml" "b9.yaml:" "has no dynamic-rupture faces"
grep -v "reference_point" "$cfg" > "$OUT/b10.yaml"
expect "missing reference point" "$OUT/b10.yaml" "b10.yaml:" "reference_point"
report rupture
